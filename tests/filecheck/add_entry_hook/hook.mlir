// RUN: xmux-opt %s -p add-entry-hook | filecheck %s

// The hook reads the schedule info, computes num_groups = ceil(global / local), runs the
// slice's linear groups [s*G/T, (s+1)*G/T) (x fastest) and stores each group's ids and actual
// (remainder-clipped) local size before calling the wrapper; each group runs only while the
// word at the schedule info's cancel address (field 12; the field itself when that is 0) reads
// 0, with an atomic load (a launch interrupted by Ctrl-C skips the groups not yet started).

func.func @"k.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "k", mux.orig_fn = @k, mux.scheduling_params, mux.max_work_dim = 2 : i64} {
  func.return
}

// CHECK:      func.func @"k.mux-kernel-wrapper"({{.*}}) attributes {mux.kernel = "sub_kernel", mux.base_name = "k", mux.orig_fn = @k, mux.scheduling_params, mux.max_work_dim = 2 : i64} {
// CHECK:      func.func @"k.mux-entry-hook"(%packed: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "k", mux.orig_fn = @k, mux.max_work_dim = 2 : i64} {
// CHECK-NEXT:   %0 = arith.constant 1 : i64
// CHECK-NEXT:   %wi_info = llvm.alloca %0 x !llvm.array<3 x i64> {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:   %wg_info = llvm.alloca %0 x !llvm.array<9 x i64> {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:   %1 = llvm.getelementptr inbounds %sched_info[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:   %global_size0 = llvm.load %1 : !llvm.ptr -> i64
// CHECK-NEXT:   %2 = llvm.getelementptr inbounds %sched_info[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:   %global_size1 = llvm.load %2 : !llvm.ptr -> i64
// CHECK-NEXT:   %3 = llvm.getelementptr inbounds %sched_info[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:   %global_size2 = llvm.load %3 : !llvm.ptr -> i64
// CHECK-NEXT:   %4 = llvm.getelementptr inbounds %sched_info[0, 6] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:   %enqueued_size0 = llvm.load %4 : !llvm.ptr -> i64
// CHECK-NEXT:   %5 = llvm.getelementptr inbounds %sched_info[0, 7] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:   %enqueued_size1 = llvm.load %5 : !llvm.ptr -> i64
// CHECK-NEXT:   %6 = llvm.getelementptr inbounds %sched_info[0, 8] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:   %enqueued_size2 = llvm.load %6 : !llvm.ptr -> i64
// CHECK-NEXT:   %7 = arith.addi %global_size0, %enqueued_size0 : i64
// CHECK-NEXT:   %8 = arith.subi %7, %0 : i64
// CHECK-NEXT:   %num_groups0 = arith.divui %8, %enqueued_size0 : i64
// CHECK-NEXT:   %9 = llvm.getelementptr inbounds %wg_info[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:   llvm.store %num_groups0, %9 : i64, !llvm.ptr
// CHECK-NEXT:   %10 = arith.addi %global_size1, %enqueued_size1 : i64
// CHECK-NEXT:   %11 = arith.subi %10, %0 : i64
// CHECK-NEXT:   %num_groups1 = arith.divui %11, %enqueued_size1 : i64
// CHECK-NEXT:   %12 = llvm.getelementptr inbounds %wg_info[0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:   llvm.store %num_groups1, %12 : i64, !llvm.ptr
// CHECK-NEXT:   %13 = arith.addi %global_size2, %enqueued_size2 : i64
// CHECK-NEXT:   %14 = arith.subi %13, %0 : i64
// CHECK-NEXT:   %num_groups2 = arith.divui %14, %enqueued_size2 : i64
// CHECK-NEXT:   %15 = llvm.getelementptr inbounds %wg_info[0, 5] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:   llvm.store %num_groups2, %15 : i64, !llvm.ptr
// CHECK-NEXT:   %16 = arith.muli %num_groups0, %num_groups1 : i64
// CHECK-NEXT:   %total_groups = arith.muli %16, %num_groups2 : i64
// CHECK-NEXT:   %17 = llvm.getelementptr inbounds %sched_info[0, 9] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:   %slice = llvm.load %17 : !llvm.ptr -> i64
// CHECK-NEXT:   %18 = llvm.getelementptr inbounds %sched_info[0, 10] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:   %total_slices = llvm.load %18 : !llvm.ptr -> i64
// CHECK-NEXT:   %19 = arith.divui %total_groups, %total_slices : i64
// CHECK-NEXT:   %20 = arith.remui %total_groups, %total_slices : i64
// CHECK-NEXT:   %21 = arith.muli %slice, %19 : i64
// CHECK-NEXT:   %22 = arith.muli %slice, %20 : i64
// CHECK-NEXT:   %23 = arith.divui %22, %total_slices : i64
// CHECK-NEXT:   %first_group = arith.addi %21, %23 : i64
// CHECK-NEXT:   %24 = arith.addi %slice, %0 : i64
// CHECK-NEXT:   %25 = arith.muli %24, %19 : i64
// CHECK-NEXT:   %26 = arith.muli %24, %20 : i64
// CHECK-NEXT:   %27 = arith.divui %26, %total_slices : i64
// CHECK-NEXT:   %end_group = arith.addi %25, %27 : i64
// CHECK-NEXT:   %28 = arith.index_cast %first_group : i64 to index
// CHECK-NEXT:   %29 = arith.index_cast %end_group : i64 to index
// CHECK-NEXT:   %30 = arith.constant 1 : index
// CHECK-NEXT:   %31 = llvm.getelementptr inbounds %sched_info[0, 12] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<13 x i64>
// CHECK-NEXT:   %32 = llvm.load %31 : !llvm.ptr -> i64
// CHECK-NEXT:   %33 = arith.constant 0 : i64
// CHECK-NEXT:   %34 = arith.cmpi eq, %32, %33 : i64
// CHECK-NEXT:   %35 = llvm.ptrtoint %31 : !llvm.ptr to i64
// CHECK-NEXT:   %36 = arith.select %34, %35, %32 : i64
// CHECK-NEXT:   %cancel_word = llvm.inttoptr %36 : i64 to !llvm.ptr
// CHECK-NEXT:   %37 = arith.constant 0 : i64
// CHECK-NEXT:   scf.for %group = %28 to %29 step %30 {
// CHECK-NEXT:     %cancelled = llvm.load %cancel_word atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:     %38 = arith.cmpi eq, %cancelled, %37 : i64
// CHECK-NEXT:     scf.if %38 {
// CHECK-NEXT:       %39 = arith.index_cast %group : index to i64
// CHECK-NEXT:       %group_id0 = arith.remui %39, %num_groups0 : i64
// CHECK-NEXT:       %40 = arith.divui %39, %num_groups0 : i64
// CHECK-NEXT:       %group_id1 = arith.remui %40, %num_groups1 : i64
// CHECK-NEXT:       %group_id2 = arith.divui %40, %num_groups1 : i64
// CHECK-NEXT:       %41 = llvm.getelementptr inbounds %wg_info[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:       llvm.store %group_id0, %41 : i64, !llvm.ptr
// CHECK-NEXT:       %42 = arith.muli %group_id0, %enqueued_size0 : i64
// CHECK-NEXT:       %43 = arith.subi %global_size0, %42 : i64
// CHECK-NEXT:       %local_size0 = arith.minui %enqueued_size0, %43 : i64
// CHECK-NEXT:       %44 = llvm.getelementptr inbounds %wg_info[0, 6] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:       llvm.store %local_size0, %44 : i64, !llvm.ptr
// CHECK-NEXT:       %45 = llvm.getelementptr inbounds %wg_info[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:       llvm.store %group_id1, %45 : i64, !llvm.ptr
// CHECK-NEXT:       %46 = arith.muli %group_id1, %enqueued_size1 : i64
// CHECK-NEXT:       %47 = arith.subi %global_size1, %46 : i64
// CHECK-NEXT:       %local_size1 = arith.minui %enqueued_size1, %47 : i64
// CHECK-NEXT:       %48 = llvm.getelementptr inbounds %wg_info[0, 7] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:       llvm.store %local_size1, %48 : i64, !llvm.ptr
// CHECK-NEXT:       %49 = llvm.getelementptr inbounds %wg_info[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:       llvm.store %group_id2, %49 : i64, !llvm.ptr
// CHECK-NEXT:       %50 = arith.muli %group_id2, %enqueued_size2 : i64
// CHECK-NEXT:       %51 = arith.subi %global_size2, %50 : i64
// CHECK-NEXT:       %local_size2 = arith.minui %enqueued_size2, %51 : i64
// CHECK-NEXT:       %52 = llvm.getelementptr inbounds %wg_info[0, 8] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<9 x i64>
// CHECK-NEXT:       llvm.store %local_size2, %52 : i64, !llvm.ptr
// CHECK-NEXT:       func.call @"k.mux-kernel-wrapper"(%packed, %wi_info, %wg_info, %sched_info) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
// CHECK-NOT:  scf.for {{.*}} {mux.work_item_loop}
