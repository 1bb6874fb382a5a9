// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// A barrier in a uniform scf.for: the loop runs once per group with the work-item loops
// inside; its per-work-item iteration value lives in one array (initial value stored in
// the loop before, the next value stored where it is computed, read after the loop). The
// second barrier ends the body: no extra loop is needed for the yield.

func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v) -> (f32) {
    memref.store %acc, %t[%l] : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %w = memref.load %t[%k] : memref<8xf32, 3>
    %acc2 = arith.addf %acc, %w : f32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.yield %acc2 : f32
  }
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:        %[[ACC:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK-NOT:    memref.alloca
// CHECK:        scf.for %x = {{.*}} {
// CHECK:          %v = memref.load %a[%i] : memref<?xf32>
// CHECK-NEXT:     memref.store %v, %[[ACC]][%x] : memref<?xf32>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   scf.for %k = %c0 to %n step %c1 {
// CHECK-NEXT:     scf.for %[[X1:.*]] = {{.*}} {
// CHECK-NEXT:       mux.set_local_id 0, %[[X1]] : index
// CHECK-NEXT:       %[[A1:.*]] = memref.load %[[ACC]][%[[X1]]] : memref<?xf32>
// CHECK-NEXT:       %[[L1:.*]] = mux.get_local_id 0 : index
// CHECK-NEXT:       memref.store %[[A1]], %t[%[[L1]]] : memref<8xf32, 3 : i64>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:     scf.for %[[X2:.*]] = {{.*}} {
// CHECK-NEXT:       mux.set_local_id 0, %[[X2]] : index
// CHECK-NEXT:       %[[W:.*]] = memref.load %t[%k] : memref<8xf32, 3 : i64>
// CHECK-NEXT:       %[[A2:.*]] = memref.load %[[ACC]][%[[X2]]] : memref<?xf32>
// CHECK-NEXT:       %[[N:.*]] = arith.addf %[[A2]], %[[W]] : f32
// CHECK-NEXT:       memref.store %[[N]], %[[ACC]][%[[X2]]] : memref<?xf32>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.for %[[X3:.*]] = {{.*}} {
// CHECK-NEXT:     mux.set_local_id 0, %[[X3]] : index
// CHECK-NEXT:     %[[R:.*]] = memref.load %[[ACC]][%[[X3]]] : memref<?xf32>
// CHECK-NEXT:     %[[I:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:     memref.store %[[R]], %a[%[[I]]] : memref<?xf32>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   func.return
