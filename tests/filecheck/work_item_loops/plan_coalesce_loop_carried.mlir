// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=true}' 2>&1 | filecheck %s

// The common loop-carried case: the next value is computed before the body's last barrier.
// Its copy to the iteration array is coalesced (stored where it is computed), so no copy
// loop follows the last barrier; the initial value is copied in the nest before the loop.

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

// CHECK:      work-item-loops plan @k:
// CHECK-NEXT:   level program: 2 segment(s)
// CHECK-NEXT:   level scf.for body: 3 segment(s)
// CHECK-NEXT:   array #0 f32: %acc, %r
// CHECK:        copy scf.for entry: %v -> %acc (#0) edge
// CHECK-NEXT:   copy scf.for body end: %acc2 -> %acc (#0) coalesced

// CHECK:        %[[ACC:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK:        scf.for %k = %c0 to %n step %c1 {
// CHECK:            %[[N:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:       memref.store %[[N]], %[[ACC]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   }
