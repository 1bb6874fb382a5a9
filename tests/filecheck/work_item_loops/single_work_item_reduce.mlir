// RUN: xmux-opt %s -p 'lower-work-group-collectives,work-item-loops' | filecheck %s

// The combining step of a lowered mux.work_group_reduce runs once per work-group, between
// the two fences and outside any work-item loop, as work-item 0: the fold loop over the
// scratch row is not nested in (nor guarded inside) a work-item loop.

func.func @r(%x: memref<?xf32>, %out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  memref.store %s, %out[%i] : memref<?xf32>
  func.return
}

// CHECK:      } {mux.work_item_loop}
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NOT:  scf.if
// CHECK:      mux.set_local_id 2, %[[ZERO:.*]] : index
// CHECK-NEXT: mux.set_local_id 1, %[[ZERO]] : index
// CHECK-NEXT: mux.set_local_id 0, %[[ZERO]] : index
// CHECK-NOT:  scf.if
// CHECK:      %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK:        arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK:      }
// CHECK-NEXT: memref.store %[[SUM]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x1026xf32, 3 : i64>
// CHECK-NEXT: mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %{{.*}} = memref.get_global
// CHECK-NOT:  mux.single_work_item
// CHECK:      func.return
