// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// A mux.single_work_item scf.if in the middle of a barrier region splits it: the ops before
// it run in one work-item loop, its body once as work-item 0, the ops after it in a second
// loop (a legal schedule: as if barriers surrounded it). %v, used in all three, crosses in
// a per-work-item array; no fence is added between the parts.

func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %lin = mux.get_local_linear_id : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lin, %c0 : index
  scf.if %first {
    %l = mux.get_local_id 0 : index
    memref.store %v, %t[%l] : memref<8xf32, 3>
  } {mux.single_work_item}
  %w = arith.mulf %v, %v : f32
  memref.store %w, %a[%i] : memref<?xf32>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  func.return
}

// CHECK:      %[[VS:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: scf.for %x = %[[ZERO:.*]] to %[[N:.*]] step %[[ONE:.*]] {
// CHECK-NEXT:   mux.set_local_id 0, %x : index
// CHECK-NEXT:   %i = mux.get_global_id 0 : index
// CHECK-NEXT:   %v = memref.load %a[%i] : memref<?xf32>
// CHECK-NEXT:   memref.store %v, %[[VS]][%x] : memref<?xf32>
// CHECK-NEXT: } {mux.work_item_loop}
// CHECK-NEXT: mux.set_local_id 0, %[[ZERO]] : index
// CHECK-NEXT: %l = mux.get_local_id 0 : index
// CHECK-NEXT: %[[V0:.*]] = memref.load %[[VS]][%[[ZERO]]] : memref<?xf32>
// CHECK-NEXT: memref.store %[[V0]], %t[%l] : memref<8xf32, 3 : i64>
// CHECK-NEXT: scf.for %x_1 = %[[ZERO]] to %[[N]] step %[[ONE]] {
// CHECK-NEXT:   mux.set_local_id 0, %x_1 : index
// CHECK-NEXT:   %[[V:.*]] = memref.load %[[VS]][%x_1] : memref<?xf32>
// CHECK-NEXT:   %w = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:   %i_1 = mux.get_global_id 0 : index
// CHECK-NEXT:   memref.store %w, %a[%i_1] : memref<?xf32>
// CHECK-NEXT: } {mux.work_item_loop}
// CHECK-NEXT: mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: func.return
