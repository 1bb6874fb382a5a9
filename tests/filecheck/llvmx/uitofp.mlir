// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

llvm.func @uitofp(%i: i32, %v: vector<4xi64>) {
  %0 = llvmx.uitofp %i : i32 to f32
  %1 = llvmx.uitofp nneg %i : i32 to f64
  %2 = llvmx.uitofp %v : vector<4xi64> to vector<4xf64>
  llvm.return
}

// CHECK-LABEL: llvm.func @uitofp
// CHECK-NEXT:    %0 = llvmx.uitofp %i : i32 to f32
// CHECK-NEXT:    %1 = llvmx.uitofp nneg %i : i32 to f64
// CHECK-NEXT:    %2 = llvmx.uitofp %v : vector<4xi64> to vector<4xf64>

// GENERIC:      "llvmx.uitofp"(%i) : (i32) -> f32
// GENERIC-NEXT: "llvmx.uitofp"(%i) <{nonNeg}> : (i32) -> f64
