// RUN: xmux-opt %s -p define-mux-builtins-nvptx | filecheck %s

// Queries read NVVM's special registers and the launch record (abi/nvptx_abi.py), all at
// the top of the function: %tid / %ntid / %ctaid plus the group base, enqueued local size and
// global offset of the launch. Functions that use queries (and their callers, and entry
// points) get the trailing %launch record; calls pass it on.

func.func @leaf() -> index {
  %n = mux.get_num_groups 1 : index
  func.return %n : index
}

func.func @k(%a: memref<?xindex>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_size 0 : index
  %n = func.call @leaf() : () -> index
  %w = mux.get_work_dim : i32
  %s = arith.addi %l, %n : index
  memref.store %s, %a[%i] : memref<?xindex>
  func.return
}

// CHECK-LABEL: func.func @leaf(%launch: !llvm.array<16 x i64>) -> index attributes {mux.scheduling_params} {
// CHECK-NEXT:    %num_groups1 = llvm.extractvalue %launch[13] : !llvm.array<16 x i64>
// CHECK-NEXT:    %n = arith.index_cast %num_groups1 : i64 to index
// CHECK-NEXT:    func.return %n : index

// CHECK-LABEL: func.func @k(%a: memref<?xindex>, %launch: !llvm.array<16 x i64>) attributes {mux.kernel = "entry_point", mux.scheduling_params} {
// CHECK-NEXT:    %0 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
// CHECK-NEXT:    %1 = arith.extui %0 : i32 to i64
// CHECK-NEXT:    %group_base0 = llvm.extractvalue %launch[9] : !llvm.array<16 x i64>
// CHECK-NEXT:    %2 = arith.addi %1, %group_base0 : i64
// CHECK-NEXT:    %enqueued_local_size0 = llvm.extractvalue %launch[6] : !llvm.array<16 x i64>
// CHECK-NEXT:    %3 = arith.muli %2, %enqueued_local_size0 : i64
// CHECK-NEXT:    %global_offset0 = llvm.extractvalue %launch[3] : !llvm.array<16 x i64>
// CHECK-NEXT:    %4 = arith.addi %3, %global_offset0 : i64
// CHECK-NEXT:    %5 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
// CHECK-NEXT:    %6 = arith.extui %5 : i32 to i64
// CHECK-NEXT:    %7 = arith.addi %4, %6 : i64
// CHECK-NEXT:    %i = arith.index_cast %7 : i64 to index
// CHECK-NEXT:    %8 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ntid.x"() : () -> i32
// CHECK-NEXT:    %9 = arith.extui %8 : i32 to i64
// CHECK-NEXT:    %l = arith.index_cast %9 : i64 to index
// CHECK-NEXT:    %work_dim = llvm.extractvalue %launch[15] : !llvm.array<16 x i64>
// CHECK-NEXT:    %w = arith.trunci %work_dim : i64 to i32
// CHECK-NEXT:    %n = func.call @leaf(%launch) : (!llvm.array<16 x i64>) -> index
// CHECK-NEXT:    %s = arith.addi %l, %n : index
