// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s

// global id = group_id·enqueued_local_size + global_offset (uniform, at the top) + local_id.

func.func @gid() -> index {
  %g = mux.get_global_id 1 : index
  func.return %g : index
}

// CHECK-LABEL: func.func @gid(%wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) -> index attributes {mux.scheduling_params} {
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 1] : {{.*}}
// CHECK-NEXT:    %group_id1 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 7] : {{.*}}
// CHECK-NEXT:    %enqueued_local_size1 = llvm.load
// CHECK-NEXT:    %[[START:.*]] = arith.muli %group_id1, %enqueued_local_size1 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 4] : {{.*}}
// CHECK-NEXT:    %global_offset1 = llvm.load
// CHECK-NEXT:    %[[BASE:.*]] = arith.addi %[[START]], %global_offset1 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wi_info[0, 1] : {{.*}}
// CHECK-NEXT:    %local_id1 = llvm.load
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[BASE]], %local_id1 : i64
// CHECK-NEXT:    %g = arith.index_cast %[[SUM]] : i64 to index
// CHECK-NEXT:    func.return %g : index

// global linear id = ((id2−off2)·gs1 + (id1−off1))·gs0 + (id0−off0), id−off = group
// start + local id.

func.func @glid() -> i64 {
  %g = mux.get_global_linear_id : i64
  func.return %g : i64
}

// CHECK-LABEL: func.func @glid(
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 0]
// CHECK-NEXT:    %group_id0 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 6]
// CHECK-NEXT:    %enqueued_local_size0 = llvm.load
// CHECK-NEXT:    %[[S0:.*]] = arith.muli %group_id0, %enqueued_local_size0 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 1]
// CHECK-NEXT:    %group_id1 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 7]
// CHECK-NEXT:    %enqueued_local_size1 = llvm.load
// CHECK-NEXT:    %[[S1:.*]] = arith.muli %group_id1, %enqueued_local_size1 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 2]
// CHECK-NEXT:    %group_id2 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 8]
// CHECK-NEXT:    %enqueued_local_size2 = llvm.load
// CHECK-NEXT:    %[[S2:.*]] = arith.muli %group_id2, %enqueued_local_size2 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 0]
// CHECK-NEXT:    %global_size0 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 1]
// CHECK-NEXT:    %global_size1 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 2]
// CHECK-NEXT:    %global_size2 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wi_info[0, 0]
// CHECK-NEXT:    %local_id0 = llvm.load
// CHECK-NEXT:    %[[I0:.*]] = arith.addi %[[S0]], %local_id0 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wi_info[0, 1]
// CHECK-NEXT:    %local_id1 = llvm.load
// CHECK-NEXT:    %[[I1:.*]] = arith.addi %[[S1]], %local_id1 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wi_info[0, 2]
// CHECK-NEXT:    %local_id2 = llvm.load
// CHECK-NEXT:    %[[I2:.*]] = arith.addi %[[S2]], %local_id2 : i64
// CHECK-NEXT:    %[[M1:.*]] = arith.muli %[[I2]], %global_size1 : i64
// CHECK-NEXT:    %[[A1:.*]] = arith.addi %[[M1]], %[[I1]] : i64
// CHECK-NEXT:    %[[M0:.*]] = arith.muli %[[A1]], %global_size0 : i64
// CHECK-NEXT:    %g = arith.addi %[[M0]], %[[I0]] : i64
// CHECK-NEXT:    func.return %g : i64

// local linear id = (lid2·ls1 + lid1)·ls0 + lid0 over the actual local size.

func.func @llid() -> i32 {
  %l = mux.get_local_linear_id : i32
  func.return %l : i32
}

// CHECK-LABEL: func.func @llid(
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 6]
// CHECK-NEXT:    %local_size0 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 7]
// CHECK-NEXT:    %local_size1 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 8]
// CHECK-NEXT:    %local_size2 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wi_info[0, 0]
// CHECK-NEXT:    %local_id0 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wi_info[0, 1]
// CHECK-NEXT:    %local_id1 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wi_info[0, 2]
// CHECK-NEXT:    %local_id2 = llvm.load
// CHECK-NEXT:    %[[M1:.*]] = arith.muli %local_id2, %local_size1 : i64
// CHECK-NEXT:    %[[A1:.*]] = arith.addi %[[M1]], %local_id1 : i64
// CHECK-NEXT:    %[[M0:.*]] = arith.muli %[[A1]], %local_size0 : i64
// CHECK-NEXT:    %[[A0:.*]] = arith.addi %[[M0]], %local_id0 : i64
// CHECK-NEXT:    %l = arith.trunci %[[A0]] : i64 to i32
// CHECK-NEXT:    func.return %l : i32
