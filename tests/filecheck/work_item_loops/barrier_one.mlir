// RUN: xmux-opt %s -p work-item-loops | filecheck %s
// RUN: xmux-opt %s -p work-item-loops | xmux-opt | filecheck %s

// One barrier: two work-item loops, the barrier's memory part as a fence between them. The
// loaded %v crosses the barrier in a per-work-item array (stored at the end of the first
// loop, loaded where used); the ids and %r are re-computed where used.

func.func @k(%a: memref<?xf32>, %b: memref<?xf32>, %t: memref<8xf32, 3>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %t[%l] : memref<8xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %c7 = arith.constant 7 : index
  %r = arith.subi %c7, %l : index
  %w = memref.load %t[%r] : memref<8xf32, 3>
  %s = arith.addf %w, %v : f32
  memref.store %s, %b[%i] : memref<?xf32>
  func.return
}

// CHECK:      func.func @k(%a: memref<?xf32>, %b: memref<?xf32>, %t: memref<8xf32, 3 : i64>)
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[N:.*]] = arith.constant 8 : index
// CHECK-NEXT:   mux.set_local_id 1, %[[ZERO]] : index
// CHECK-NEXT:   mux.set_local_id 2, %[[ZERO]] : index
// CHECK-NEXT:   %[[VS:.*]] = memref.alloca(%[[N]]) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT:   scf.for %x = %[[ZERO]] to %[[N]] step %[[ONE]] {
// CHECK-NEXT:     mux.set_local_id 0, %x : index
// CHECK-NEXT:     %i = mux.get_global_id 0 : index
// CHECK-NEXT:     %v = memref.load %a[%i] : memref<?xf32>
// CHECK-NEXT:     %l = mux.get_local_id 0 : index
// CHECK-NEXT:     memref.store %v, %t[%l] : memref<8xf32, 3 : i64>
// CHECK-NEXT:     memref.store %v, %[[VS]][%x] : memref<?xf32>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %c7 = arith.constant 7 : index
// CHECK-NEXT:   scf.for %[[X:.*]] = %[[ZERO]] to %[[N]] step %[[ONE]] {
// CHECK-NEXT:     mux.set_local_id 0, %[[X]] : index
// CHECK-NEXT:     %[[L:.*]] = mux.get_local_id 0 : index
// CHECK-NEXT:     %[[R:.*]] = arith.subi %c7, %[[L]] : index
// CHECK-NEXT:     %[[W:.*]] = memref.load %t[%[[R]]] : memref<8xf32, 3 : i64>
// CHECK-NEXT:     %[[V:.*]] = memref.load %[[VS]][%[[X]]] : memref<?xf32>
// CHECK-NEXT:     %[[S:.*]] = arith.addf %[[W]], %[[V]] : f32
// CHECK-NEXT:     %[[I:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:     memref.store %[[S]], %b[%[[I]]] : memref<?xf32>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
