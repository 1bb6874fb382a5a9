// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s

// set_local_id stores the id (as i64) into the work-item info; a later get_local_id loads
// it back.

func.func @s(%x: index, %y: i32) -> index {
  mux.set_local_id 0, %x : index
  mux.set_local_id 2, %y : i32
  %l = mux.get_local_id 0 : index
  func.return %l : index
}

// CHECK-LABEL: func.func @s(%x: index, %y: i32, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) -> index attributes {mux.scheduling_params} {
// CHECK-NEXT:    %[[X:.*]] = arith.index_cast %x : index to i64
// CHECK-NEXT:    %[[P0:.*]] = llvm.getelementptr inbounds %wi_info[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<3 x i64>
// CHECK-NEXT:    llvm.store %[[X]], %[[P0]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK-NEXT:    %[[Y:.*]] = arith.extui %y : i32 to i64
// CHECK-NEXT:    %[[P2:.*]] = llvm.getelementptr inbounds %wi_info[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<3 x i64>
// CHECK-NEXT:    llvm.store %[[Y]], %[[P2]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK-NEXT:    %[[L:.*]] = llvm.getelementptr inbounds %wi_info[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<3 x i64>
// CHECK-NEXT:    %local_id0 = llvm.load %[[L]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %l = arith.index_cast %local_id0 : i64 to index
// CHECK-NEXT:    func.return %l : index
