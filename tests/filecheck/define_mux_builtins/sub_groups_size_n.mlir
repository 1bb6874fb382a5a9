// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s

// Sub-groups of N = mux.reqd_sub_group_size (4): with llid the local linear id and L the
// local linear size, sub_group_id = llid / 4, sub_group_local_id = llid mod 4,
// sub_group_size = min(4, L - sub_group_id * 4), max_sub_group_size = 4 and
// num_sub_groups = (L + 3) / 4 (uniform: at the top). A helper without the attribute (an
// outlined body, say) takes the size of the kernel that calls it.

func.func @k() -> (i32, i32, i32, i32, i32) attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64} {
  %q0 = mux.get_sub_group_id : i32
  %q1 = mux.get_sub_group_local_id : i32
  %q2 = mux.get_sub_group_size : i32
  %q3 = mux.get_max_sub_group_size : i32
  %q4 = func.call @body() : () -> i32
  func.return %q0, %q1, %q2, %q3, %q4 : i32, i32, i32, i32, i32
}
func.func private @body() -> i32 {
  %n = mux.get_num_sub_groups : i32
  func.return %n : i32
}

// CHECK:      func.func @k(%wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr)
// CHECK:        %[[L01:.*]] = arith.muli %local_size0, %local_size1 : i64
// CHECK-NEXT:   %[[L:.*]] = arith.muli %[[L01]], %local_size2 : i64
// CHECK:        %[[LLID:.*]] = arith.addi %{{.*}}, %local_id0 : i64
// CHECK-NEXT:   %[[N:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[SG:.*]] = arith.divui %[[LLID]], %[[N]] : i64
// CHECK-NEXT:   %q0 = arith.trunci %[[SG]] : i64 to i32
// CHECK:        %[[LLID1:.*]] = arith.addi %{{.*}}, %local_id0_1 : i64
// CHECK-NEXT:   %[[N1:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[LANE:.*]] = arith.remui %[[LLID1]], %[[N1]] : i64
// CHECK-NEXT:   %q1 = arith.trunci %[[LANE]] : i64 to i32
// CHECK:        %[[LLID2:.*]] = arith.addi %{{.*}}, %local_id0_2 : i64
// CHECK-NEXT:   %[[N2:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[SG2:.*]] = arith.divui %[[LLID2]], %[[N2]] : i64
// CHECK-NEXT:   %[[N3:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[START:.*]] = arith.muli %[[SG2]], %[[N3]] : i64
// CHECK-NEXT:   %[[LEFT:.*]] = arith.subi %[[L]], %[[START]] : i64
// CHECK-NEXT:   %[[N4:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[SIZE:.*]] = arith.minui %[[LEFT]], %[[N4]] : i64
// CHECK-NEXT:   %q2 = arith.trunci %[[SIZE]] : i64 to i32
// CHECK-NEXT:   %q3 = arith.constant 4 : i32
// CHECK:      func.func private @body(%wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr)
// CHECK:        %[[BL:.*]] = arith.muli %{{.*}}, %local_size2 : i64
// CHECK-NEXT:   %[[C3:.*]] = arith.constant 3 : i64
// CHECK-NEXT:   %[[UP:.*]] = arith.addi %[[BL]], %[[C3]] : i64
// CHECK-NEXT:   %[[C4:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[NSG:.*]] = arith.divui %[[UP]], %[[C4]] : i64
// CHECK:        %n = arith.trunci %[[NSG]] : i64 to i32
