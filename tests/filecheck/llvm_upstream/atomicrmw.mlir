// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @atomicrmw(%p: !llvm.ptr, %i: i32, %f: f32, %q: !llvm.ptr) {
  %0 = llvm.atomicrmw add %p, %i monotonic : !llvm.ptr, i32
  %1 = llvm.atomicrmw xchg %p, %q seq_cst : !llvm.ptr, !llvm.ptr
  %2 = llvm.atomicrmw umax %p, %i acq_rel {alignment = 4 : i64} : !llvm.ptr, i32
  %3 = llvm.atomicrmw volatile fadd %p, %f syncscope("singlethread") release : !llvm.ptr, f32
  %4 = llvm.atomicrmw fmin %p, %f acquire : !llvm.ptr, f32
  llvm.return
}

// CHECK-LABEL: llvm.func @atomicrmw
// CHECK-NEXT:    %0 = llvm.atomicrmw add %p, %i monotonic : !llvm.ptr, i32
// CHECK-NEXT:    %1 = llvm.atomicrmw xchg %p, %q seq_cst : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %2 = llvm.atomicrmw umax %p, %i acq_rel {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK-NEXT:    %3 = llvm.atomicrmw volatile fadd %p, %f syncscope("singlethread") release : !llvm.ptr, f32
// CHECK-NEXT:    %4 = llvm.atomicrmw fmin %p, %f acquire : !llvm.ptr, f32
// CHECK-NEXT:    llvm.return

// Upstream's generic form: enum values as i64 properties.
// GENERIC:      "llvm.atomicrmw"(%p, %i) <{bin_op = 1 : i64, ordering = 2 : i64}> : (!llvm.ptr, i32) -> i32
// GENERIC-NEXT: "llvm.atomicrmw"(%p, %q) <{bin_op = 0 : i64, ordering = 7 : i64}> : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
// GENERIC-NEXT: "llvm.atomicrmw"(%p, %i) <{bin_op = 9 : i64, ordering = 6 : i64, alignment = 4 : i64}> : (!llvm.ptr, i32) -> i32
// GENERIC-NEXT: "llvm.atomicrmw"(%p, %f) <{volatile_, bin_op = 11 : i64, syncscope = "singlethread", ordering = 5 : i64}> : (!llvm.ptr, f32) -> f32
// GENERIC-NEXT: "llvm.atomicrmw"(%p, %f) <{bin_op = 14 : i64, ordering = 4 : i64}> : (!llvm.ptr, f32) -> f32
