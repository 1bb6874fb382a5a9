// RUN: xmux-opt %s -p work-item-loops,define-mux-builtins | filecheck %s

// The two passes together on a 2-D kernel with a required size: the loop levels store the
// local ids, uniform parts of the global id are computed once before the nest, the
// innermost body adds the local id.

func.func @k(%a: memref<?x?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 2, 1>} {
  %i = mux.get_global_id 0 : index
  %j = mux.get_global_id 1 : index
  %v = memref.load %a[%j, %i] : memref<?x?xf32>
  %w = arith.mulf %v, %v : f32
  memref.store %w, %a[%j, %i] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @k(%a: memref<?x?xf32>, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr)
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 0]
// CHECK-NEXT:    %group_id0 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 6]
// CHECK-NEXT:    %enqueued_local_size0 = llvm.load
// CHECK-NEXT:    %[[S0:.*]] = arith.muli %group_id0, %enqueued_local_size0 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 3]
// CHECK-NEXT:    %global_offset0 = llvm.load
// CHECK-NEXT:    %[[B0:.*]] = arith.addi %[[S0]], %global_offset0 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %wg_info[0, 1]
// CHECK-NEXT:    %group_id1 = llvm.load
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 7]
// CHECK-NEXT:    %enqueued_local_size1 = llvm.load
// CHECK-NEXT:    %[[S1:.*]] = arith.muli %group_id1, %enqueued_local_size1 : i64
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %sched_info[0, 4]
// CHECK-NEXT:    %global_offset1 = llvm.load
// CHECK-NEXT:    %[[B1:.*]] = arith.addi %[[S1]], %global_offset1 : i64
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[Z:.*]] = arith.index_cast %[[C0]] : index to i64
// CHECK-NEXT:    %[[PZ:.*]] = llvm.getelementptr inbounds %wi_info[0, 2]
// CHECK-NEXT:    llvm.store %[[Z]], %[[PZ]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK-NEXT:    scf.for %y = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK-NEXT:      %[[Y:.*]] = arith.index_cast %y : index to i64
// CHECK-NEXT:      %[[PY:.*]] = llvm.getelementptr inbounds %wi_info[0, 1]
// CHECK-NEXT:      llvm.store %[[Y]], %[[PY]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK-NEXT:      scf.for %x = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT:        %[[X:.*]] = arith.index_cast %x : index to i64
// CHECK-NEXT:        %[[PX:.*]] = llvm.getelementptr inbounds %wi_info[0, 0]
// CHECK-NEXT:        llvm.store %[[X]], %[[PX]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK-NEXT:        %{{.*}} = llvm.getelementptr inbounds %wi_info[0, 0]
// CHECK-NEXT:        %local_id0 = llvm.load
// CHECK-NEXT:        %[[I:.*]] = arith.addi %[[B0]], %local_id0 : i64
// CHECK-NEXT:        %i = arith.index_cast %[[I]] : i64 to index
// CHECK-NEXT:        %{{.*}} = llvm.getelementptr inbounds %wi_info[0, 1]
// CHECK-NEXT:        %local_id1 = llvm.load
// CHECK-NEXT:        %[[J:.*]] = arith.addi %[[B1]], %local_id1 : i64
// CHECK-NEXT:        %j = arith.index_cast %[[J]] : i64 to index
// CHECK-NEXT:        %v = memref.load %a[%j, %i] : memref<?x?xf32>
// CHECK:           } {mux.work_item_loop}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
