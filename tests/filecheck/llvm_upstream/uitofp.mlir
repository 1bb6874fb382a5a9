// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @uitofp(%i: i32, %v: vector<4xi64>) {
  %0 = llvm.uitofp %i : i32 to f32
  %1 = llvm.uitofp nneg %i : i32 to f64
  %2 = llvm.uitofp %v : vector<4xi64> to vector<4xf64>
  llvm.return
}

// CHECK-LABEL: llvm.func @uitofp
// CHECK-NEXT:    %0 = llvm.uitofp %i : i32 to f32
// CHECK-NEXT:    %1 = llvm.uitofp nneg %i : i32 to f64
// CHECK-NEXT:    %2 = llvm.uitofp %v : vector<4xi64> to vector<4xf64>

// GENERIC:      "llvm.uitofp"(%i) : (i32) -> f32
// GENERIC-NEXT: "llvm.uitofp"(%i) <{nonNeg}> : (i32) -> f64
