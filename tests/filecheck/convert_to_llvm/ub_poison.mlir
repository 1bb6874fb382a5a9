// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s
// ub.poison: a zero constant of its type (any value refines poison; zero, as the interpreter).

func.func @f() -> (i32, f32, vector<4xf32>) {
  %a = ub.poison : i32
  %b = ub.poison : f32
  %c = ub.poison : vector<4xf32>
  return %a, %b, %c : i32, f32, vector<4xf32>
}
// CHECK:      llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT: llvm.mlir.constant(dense<0.000000e+00> : vector<4xf32>) : vector<4xf32>
