// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s

// Sub-groups have size 1: size = max size = 1, local id 0, sub-group id = local linear id,
// number of sub-groups = ls0·ls1·ls2.

func.func @sg() {
  %size = mux.get_sub_group_size : i32
  %max = mux.get_max_sub_group_size : i32
  %lid = mux.get_sub_group_local_id : i32
  %id = mux.get_sub_group_id : i32
  %n = mux.get_num_sub_groups : index
  "test.op"(%size, %max, %lid, %id, %n) : (i32, i32, i32, i32, index) -> ()
  func.return
}

// CHECK-LABEL: func.func @sg(%wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.scheduling_params} {
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 6]
// CHECK-NEXT:    %local_size0 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 7]
// CHECK-NEXT:    %local_size1 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 8]
// CHECK-NEXT:    %local_size2 = llvm.load
// CHECK-NEXT:    %[[M01:.*]] = arith.muli %local_size0, %local_size1 : i64
// CHECK-NEXT:    %[[N:.*]] = arith.muli %[[M01]], %local_size2 : i64
// CHECK-NEXT:    %size = arith.constant 1 : i32
// CHECK-NEXT:    %max = arith.constant 1 : i32
// CHECK-NEXT:    %lid = arith.constant 0 : i32
// CHECK:         %[[LL:.*]] = arith.addi %{{.*}}, %local_id0 : i64
// CHECK-NEXT:    %id = arith.trunci %[[LL]] : i64 to i32
// CHECK-NEXT:    %n = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT:    "test.op"(%size, %max, %lid, %id, %n)
