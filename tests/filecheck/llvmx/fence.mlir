// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @fence() {
  llvmx.fence acquire
  llvmx.fence release
  llvmx.fence acq_rel
  llvmx.fence syncscope("singlethread") seq_cst
  llvm.return
}

// CHECK-LABEL: llvm.func @fence
// CHECK-NEXT:    llvmx.fence acquire
// CHECK-NEXT:    llvmx.fence release
// CHECK-NEXT:    llvmx.fence acq_rel
// CHECK-NEXT:    llvmx.fence syncscope("singlethread") seq_cst
// CHECK-NEXT:    llvm.return

// GENERIC:      "llvmx.fence"() <{ordering = 4 : i64}> : () -> ()
// GENERIC-NEXT: "llvmx.fence"() <{ordering = 5 : i64}> : () -> ()
// GENERIC-NEXT: "llvmx.fence"() <{ordering = 6 : i64}> : () -> ()
// GENERIC-NEXT: "llvmx.fence"() <{syncscope = "singlethread", ordering = 7 : i64}> : () -> ()
