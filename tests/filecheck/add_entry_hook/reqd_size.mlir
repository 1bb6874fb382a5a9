// RUN: xmux-opt %s -p add-entry-hook | filecheck %s

// With a required work-group size the enqueued local size is a constant (the launcher checks
// it), so LLVM can fold the divisions; the actual size is still clipped for the last group.

func.func @"k.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "k", mux.orig_fn = @k, mux.reqd_work_group_size = array<i64: 16, 4, 1>} {
  func.return
}

// CHECK:      func.func @"k.mux-entry-hook"(%packed: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "k", mux.orig_fn = @k, mux.reqd_work_group_size = array<i64: 16, 4, 1>} {
// CHECK:        %global_size2 = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK-NEXT:   %[[L0:.*]] = arith.constant 16 : i64
// CHECK-NEXT:   %[[L1:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[L2:.*]] = arith.constant 1 : i64
// CHECK-NEXT:   %{{.*}} = arith.addi %global_size0, %[[L0]] : i64
// CHECK-NOT:    %enqueued_size
// CHECK:        %num_groups0 = arith.divui %{{.*}}, %[[L0]] : i64
// CHECK:        %local_size0 = arith.minui %[[L0]], %{{.*}} : i64
// CHECK:        %local_size1 = arith.minui %[[L1]], %{{.*}} : i64
// CHECK:        %local_size2 = arith.minui %[[L2]], %{{.*}} : i64
