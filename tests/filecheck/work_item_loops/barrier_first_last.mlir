// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// A barrier as the first and as the last op: fences before and after the one work-item
// loop (each barrier keeps its own semantics); no empty loops.

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %v = memref.load %a[%i] : memref<?xi32>
  memref.store %v, %t[%l] : memref<8xi32, 3>
  mux.work_group_barrier device, <seq_cst, cross_work_group_memory>
  func.return
}

// CHECK:        mux.set_local_id 2, %{{.*}} : index
// CHECK-NEXT:   mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   scf.for %x = {{.*}} {
// CHECK-NEXT:     mux.set_local_id 0, %x : index
// CHECK-NEXT:     %i = mux.get_global_id 0 : index
// CHECK-NEXT:     %v = memref.load %a[%i] : memref<?xi32>
// CHECK-NEXT:     %l = mux.get_local_id 0 : index
// CHECK-NEXT:     memref.store %v, %t[%l] : memref<8xi32, 3 : i64>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   mux.mem_barrier device, <seq_cst, cross_work_group_memory>
// CHECK-NEXT:   func.return
