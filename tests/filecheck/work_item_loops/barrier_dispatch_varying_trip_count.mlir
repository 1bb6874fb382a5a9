// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// PoCL #1167: a guarded barrier in a loop whose trip count varies per work-item (legal in
// OpenCL 3.0 as long as every work-item or none executes the barrier in each iteration).
// The loop cannot be lifted (its bound is not uniform and its barrier is conditional), so
// the kernel takes the region-dispatch form; each work-item runs its own trip count.

func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %ls = mux.get_local_size 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ub = arith.addi %l, %c2 : index
  scf.for %k = %c0 to %ub step %c1 {
    %ki = arith.index_cast %k : index to i32
    memref.store %ki, %a[%i] : memref<?xi32>
    %over = arith.cmpi uge, %l, %ls : index
    scf.if %over {
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
  }
  func.return
}

// CHECK:       func.call @"k.mux-region-0"
// CHECK:       func.call @"k.mux-region-1"
// CHECK-LABEL: func.func private @"k.mux-region-0"
// The loop became blocks: the header compares the induction variable with the
// (re-computed) bound, the barrier returns 1, the return 2.
// CHECK:       ^{{.*}}(%[[IV:.*]]: index):
// CHECK-NEXT:    %{{.*}} = mux.get_local_id 0 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 2 : index
// CHECK-NEXT:    %[[UB:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[CMP:.*]] = arith.cmpi slt, %[[IV]], %[[UB]] : index
// CHECK-NEXT:    cf.cond_br %[[CMP]]
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    func.return %[[ONE]] : i32
// CHECK:         %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    func.return %[[TWO]] : i32
// CHECK-LABEL: func.func private @"k.mux-region-1"
