// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// A uniform scf.for around a barrier is rebuilt at group level with the work-item loops
// inside; its vectorization hint (xmux.loop_vectorize_width, the kernel author's or an earlier
// pass's, e.g. expand-oacc-reductions' lane fold) stays on the rebuilt loop.

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
    %acc2 = arith.maximumf %acc, %w : f32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.yield %acc2 : f32
  } {xmux.loop_vectorize_width = 1 : i64}
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:        scf.for %k = %c0 to %n step %c1 {
// CHECK:            memref.store %{{.*}}, %t[%{{.*}}] : memref<8xf32, 3 : i64>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK:            %acc2 = arith.maximumf %{{.*}}, %w : f32
// CHECK:          } {mux.work_item_loop}
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   } {xmux.loop_vectorize_width = 1 : i64}
