// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @fence() {
  llvm.fence acquire
  llvm.fence release
  llvm.fence acq_rel
  llvm.fence syncscope("singlethread") seq_cst
  llvm.return
}

// CHECK-LABEL: llvm.func @fence
// CHECK-NEXT:    llvm.fence acquire
// CHECK-NEXT:    llvm.fence release
// CHECK-NEXT:    llvm.fence acq_rel
// CHECK-NEXT:    llvm.fence syncscope("singlethread") seq_cst
// CHECK-NEXT:    llvm.return

// GENERIC:      "llvm.fence"() <{ordering = 4 : i64}> : () -> ()
// GENERIC-NEXT: "llvm.fence"() <{ordering = 5 : i64}> : () -> ()
// GENERIC-NEXT: "llvm.fence"() <{ordering = 6 : i64}> : () -> ()
// GENERIC-NEXT: "llvm.fence"() <{syncscope = "singlethread", ordering = 7 : i64}> : () -> ()
