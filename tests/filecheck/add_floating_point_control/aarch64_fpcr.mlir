// RUN: xmux-opt %s -p 'add-floating-point-control' | filecheck %s
// RUN: xmux-opt %s -p 'add-floating-point-control{arch=x86_64}' | filecheck %s --check-prefix=X86

// An AArch64 target (the module's #xmux.target, the default arch=target): the entry hook
// saves FPCR, clears RMode (bits 22-23: round to nearest even), FZ (bit 24) and FZ16
// (bit 19) -- flush-to-zero off whatever ftz-daz says -- and restores FPCR before every
// return, through LLVM's FPCR intrinsics (mrs / msr fpcr). No MXCSR on Arm.

builtin.module attributes {xmux.target = #xmux.target<"aarch64-unknown-linux-gnu", chip = "neoverse-v2", vector_bits = 128, vector_registers = 32>} {
  func.func @"k.mux-entry-hook"(%packed: !llvm.ptr, %sched: !llvm.ptr) {
    %c = llvm.mlir.constant(true) : i1
    cf.cond_br %c, ^a, ^b
  ^a:
    func.return
  ^b:
    func.return
  }
}

// CHECK-LABEL: func.func @"k.mux-entry-hook"(%packed: !llvm.ptr, %sched: !llvm.ptr) {
// CHECK-NEXT:    %[[OLD:.*]] = llvm.call_intrinsic "llvm.aarch64.get.fpcr"() : () -> i64
// CHECK-NEXT:    %[[KEEP:.*]] = llvm.mlir.constant(-29884417) : i64
// CHECK-NEXT:    %[[NEW:.*]] = llvm.and %[[OLD]], %[[KEEP]] : i64
// CHECK-NEXT:    llvm.call_intrinsic "llvm.aarch64.set.fpcr"(%[[NEW]]) : (i64) -> ()
// CHECK:         llvm.call_intrinsic "llvm.aarch64.set.fpcr"(%[[OLD]]) : (i64) -> ()
// CHECK-NEXT:    func.return
// CHECK:         llvm.call_intrinsic "llvm.aarch64.set.fpcr"(%[[OLD]]) : (i64) -> ()
// CHECK-NEXT:    func.return
// CHECK-NOT:     mxcsr

// X86: llvm.x86.sse.stmxcsr
// X86-NOT: fpcr
