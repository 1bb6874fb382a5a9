// RUN: xmux-opt %s -p 'work-item-loops,hoist-uniform-loads' | filecheck %s

// Each barrier region is a work-item loop nest of its own. A uniform load of local memory in
// the region after the barrier (every work-item reads what work-item 0 stored before it) is
// read once in front of that region's nest, after the nest that stores it.

// CHECK-LABEL: func.func @broadcast
// CHECK:         scf.for %x
// CHECK:           memref.store %{{.*}}, %t[%{{.*}}] : memref<8xf32, 3 : i64>
// CHECK:         } {mux.work_item_loop}
// CHECK-NEXT:    mux.mem_barrier
// CHECK-NEXT:    %[[FIRST:.*]] = memref.load %t[%c0] : memref<8xf32, 3 : i64>
// CHECK-NEXT:    scf.for %x
// CHECK-NOT:       memref.load %t
// CHECK:           arith.addf %{{.*}}, %[[FIRST]] : f32
// CHECK:         } {mux.work_item_loop}
func.func @broadcast(%a: memref<?xf32>, %t: memref<8xf32, 3>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %t[%l] : memref<8xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %first = memref.load %t[%c0] : memref<8xf32, 3>
  %r = arith.addf %v, %first : f32
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}
