// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s

// Every dimension query reads its field; work-group and schedule fields are loaded once at
// the top of the function, local ids where they are queried. Result types: index
// (index_cast), i32 (trunci), i64 (as loaded).

func.func @q() {
  %lid = mux.get_local_id 1 : index
  %gid = mux.get_group_id 2 : index
  %ng = mux.get_num_groups 0 : i32
  %ls = mux.get_local_size 1 : i64
  %gs = mux.get_global_size 2 : index
  %off = mux.get_global_offset 0 : index
  %els = mux.get_enqueued_local_size 1 : index
  %wd = mux.get_work_dim : i32
  "test.op"(%lid, %gid, %ng, %ls, %gs, %off, %els, %wd) : (index, index, i32, i64, index, index, index, i32) -> ()
  func.return
}

// CHECK-LABEL: func.func @q(%wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.scheduling_params} {
// CHECK-NEXT:    %[[P0:.*]] = llvm.getelementptr inbounds %wg_info[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:    %group_id2 = llvm.load %[[P0]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P1:.*]] = llvm.getelementptr inbounds %wg_info[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:    %num_groups0 = llvm.load %[[P1]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P2:.*]] = llvm.getelementptr inbounds %wg_info[0, 7] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:    %local_size1 = llvm.load %[[P2]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P3:.*]] = llvm.getelementptr inbounds %sched_info[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:    %global_size2 = llvm.load %[[P3]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P4:.*]] = llvm.getelementptr inbounds %sched_info[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:    %global_offset0 = llvm.load %[[P4]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P5:.*]] = llvm.getelementptr inbounds %sched_info[0, 7] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:    %enqueued_local_size1 = llvm.load %[[P5]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P6:.*]] = llvm.getelementptr inbounds %sched_info[0, 11] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:    %work_dim = llvm.load %[[P6]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[P7:.*]] = llvm.getelementptr inbounds %wi_info[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<3 x i64>
// CHECK-NEXT:    %local_id1 = llvm.load %[[P7]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %lid = arith.index_cast %local_id1 : i64 to index
// CHECK-NEXT:    %gid = arith.index_cast %group_id2 : i64 to index
// CHECK-NEXT:    %ng = arith.trunci %num_groups0 : i64 to i32
// CHECK-NEXT:    %gs = arith.index_cast %global_size2 : i64 to index
// CHECK-NEXT:    %off = arith.index_cast %global_offset0 : i64 to index
// CHECK-NEXT:    %els = arith.index_cast %enqueued_local_size1 : i64 to index
// CHECK-NEXT:    %wd = arith.trunci %work_dim : i64 to i32
// CHECK-NEXT:    "test.op"(%lid, %gid, %ng, %local_size1, %gs, %off, %els, %wd) : (index, index, i32, i64, index, index, index, i32) -> ()
// CHECK-NEXT:    func.return
