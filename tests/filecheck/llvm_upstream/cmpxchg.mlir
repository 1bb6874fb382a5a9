// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @cmpxchg(%p: !llvm.ptr, %cmp: i32, %new: i32, %q: !llvm.ptr) {
  %0 = llvm.cmpxchg %p, %cmp, %new acq_rel monotonic : !llvm.ptr, i32
  %1 = llvm.extractvalue %0[1] : !llvm.struct<(i32, i1)>
  %2 = llvm.cmpxchg weak volatile %p, %q, %q syncscope("agent") seq_cst acquire {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
  llvm.return
}

// The result type !llvm.struct<(T, i1)> is inferred from the compared type.
// CHECK-LABEL: llvm.func @cmpxchg
// CHECK-NEXT:    %0 = llvm.cmpxchg %p, %cmp, %new acq_rel monotonic : !llvm.ptr, i32
// CHECK-NEXT:    %1 = llvm.extractvalue %0[1] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:    %2 = llvm.cmpxchg weak volatile %p, %q, %q syncscope("agent") seq_cst acquire {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    llvm.return

// GENERIC:      "llvm.cmpxchg"(%p, %cmp, %new) <{success_ordering = 6 : i64, failure_ordering = 2 : i64}> : (!llvm.ptr, i32, i32) -> !llvm.struct<(i32, i1)>
// GENERIC:      "llvm.cmpxchg"(%p, %q, %q) <{weak, volatile_, syncscope = "agent", success_ordering = 7 : i64, failure_ordering = 4 : i64, alignment = 8 : i64}> : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> !llvm.struct<(!llvm.ptr, i1)>
