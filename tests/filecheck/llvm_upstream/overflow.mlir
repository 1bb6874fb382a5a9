// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Integer overflow flags are upstream's #llvm.overflow attribute in the generic form (xDSL
// 0.74 stores an i32 there, which mlir-opt rejects); llvm.trunc without flags has no
// property (LLVM 19's llvm.trunc has none).
llvm.func @overflow(%a: i32, %b: i64) {
  %0 = llvm.add %a, %a : i32
  %1 = llvm.sub %a, %a overflow<nsw> : i32
  %2 = llvm.mul %a, %a overflow<nuw> : i32
  %3 = llvm.shl %a, %a overflow<nsw, nuw> : i32
  %4 = llvm.trunc %b : i64 to i32
  %5 = llvm.trunc %b overflow<nsw> : i64 to i32
  llvm.return
}

// CHECK-LABEL: llvm.func @overflow
// CHECK-NEXT:    llvm.add %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    llvm.sub %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT:    llvm.mul %{{.*}}, %{{.*}} overflow<nuw> : i32
// CHECK-NEXT:    llvm.shl %{{.*}}, %{{.*}} overflow<nsw,{{ ?}}nuw> : i32
// CHECK-NEXT:    llvm.trunc %{{.*}} : i64 to i32
// CHECK-NEXT:    llvm.trunc %{{.*}} overflow<nsw> : i64 to i32

// GENERIC:      "llvm.add"(%{{.*}}, %{{.*}}) <{overflowFlags = #llvm.overflow<none>}> : (i32, i32) -> i32
// GENERIC-NEXT: "llvm.sub"(%{{.*}}, %{{.*}}) <{overflowFlags = #llvm.overflow<nsw>}> : (i32, i32) -> i32
// GENERIC-NEXT: "llvm.mul"(%{{.*}}, %{{.*}}) <{overflowFlags = #llvm.overflow<nuw>}> : (i32, i32) -> i32
// GENERIC-NEXT: "llvm.shl"(%{{.*}}, %{{.*}}) <{overflowFlags = #llvm.overflow<nsw,{{ ?}}nuw>}> : (i32, i32) -> i32
// GENERIC-NEXT: "llvm.trunc"(%{{.*}}) : (i64) -> i32
// GENERIC-NEXT: "llvm.trunc"(%{{.*}}) <{overflowFlags = #llvm.overflow<nsw>}> : (i64) -> i32
