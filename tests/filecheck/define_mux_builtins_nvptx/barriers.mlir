// RUN: xmux-opt %s -p define-mux-builtins-nvptx | filecheck %s

// A work-group barrier is bar.sync 0 (llvm.nvvm.barrier0), which orders the CTA's memory
// accesses; a device-scope one adds a device fence first. A sub-group barrier is
// bar.warp.sync over the lanes of the work-item's warp: all 32, or the low ones of a partial
// last warp. Fences get NVPTX's scopes; relaxed ones vanish.

func.func @k() attributes {mux.kernel = "entry_point"} {
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  mux.work_group_barrier device, <acq_rel, cross_work_group_memory>
  mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
  mux.mem_barrier work_item, <acquire>
  mux.mem_barrier device, <seq_cst, cross_work_group_memory>
  mux.mem_barrier cross_device, <release>
  mux.mem_barrier work_group, <relaxed>
  func.return
}

// CHECK-LABEL: func.func @k(%launch: !llvm.array<16 x i64>)
// CHECK:         llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"
// CHECK:         %[[SIZE:.*]] = arith.minui
// CHECK-NEXT:    %[[SIZE32:.*]] = arith.trunci %[[SIZE]] : i64 to i32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[FULL:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[SHL:.*]] = arith.shli %[[ONE]], %[[SIZE32]] : i32
// CHECK-NEXT:    %[[LOW:.*]] = arith.subi %[[SHL]], %[[ONE]] : i32
// CHECK-NEXT:    %[[WARP:.*]] = arith.constant 32 : i32
// CHECK-NEXT:    %[[IS_FULL:.*]] = arith.cmpi eq, %[[SIZE32]], %[[WARP]] : i32
// CHECK-NEXT:    %[[MASK:.*]] = arith.select %[[IS_FULL]], %[[FULL]], %[[LOW]] : i32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.barrier0"() : () -> ()
// CHECK-NEXT:    llvm.fence syncscope("device") acq_rel
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.barrier0"() : () -> ()
// CHECK-NEXT:    llvm.fence syncscope("block") acq_rel
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"(%[[MASK]]) : (i32) -> ()
// CHECK-NEXT:    llvm.fence syncscope("block") acquire
// CHECK-NEXT:    llvm.fence syncscope("device") seq_cst
// CHECK-NEXT:    llvm.fence release
// CHECK-NEXT:    func.return
