// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// A barrier in one branch of a uniform scf.if (kernel argument condition): the if runs at
// group level; its per-work-item result lives in an array written by each branch.

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>, %flag: i1)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c7 = arith.constant 7 : index
  %v = memref.load %a[%i] : memref<?xi32>
  %r = scf.if %flag -> (i32) {
    memref.store %v, %t[%l] : memref<8xi32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %rl = arith.subi %c7, %l : index
    %w = memref.load %t[%rl] : memref<8xi32, 3>
    scf.yield %w : i32
  } else {
    scf.yield %v : i32
  }
  memref.store %r, %a[%i] : memref<?xi32>
  func.return
}

// CHECK:        %[[RES:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
// CHECK-NEXT:   %[[V:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
// CHECK:          memref.store %v, %[[V]][%x] : memref<?xi32>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   scf.if %flag {
// CHECK-NEXT:     scf.for
// CHECK:          } {mux.work_item_loop}
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:     scf.for %[[X2:.*]] = {{.*}} {
// CHECK:            %[[W:.*]] = memref.load %t[%{{.*}}] : memref<8xi32, 3 : i64>
// CHECK-NEXT:       memref.store %[[W]], %[[RES]][%[[X2]]] : memref<?xi32>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:   } else {
// CHECK-NEXT:     scf.for %[[X3:.*]] = {{.*}} {
// CHECK-NEXT:       mux.set_local_id 0, %[[X3]] : index
// CHECK-NEXT:       %[[V3:.*]] = memref.load %[[V]][%[[X3]]] : memref<?xi32>
// CHECK-NEXT:       memref.store %[[V3]], %[[RES]][%[[X3]]] : memref<?xi32>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.for %[[X4:.*]] = {{.*}} {
// CHECK-NEXT:     mux.set_local_id 0, %[[X4]] : index
// CHECK-NEXT:     %[[R:.*]] = memref.load %[[RES]][%[[X4]]] : memref<?xi32>
