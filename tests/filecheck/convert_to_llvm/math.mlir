// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// Intrinsics with mangled names (fast-math kept), libm calls declared once (per type, lane by
// lane on vectors), rsqrt as 1/sqrt, absi with is_int_min_poison = false.
func.func @math(%x: f32, %v: vector<2xf64>, %i: i16) -> f32 {
  %0 = math.sqrt %x fastmath<fast> : f32
  %1 = math.tanh %0 : f32
  %2 = math.rsqrt %1 : f32
  %3 = math.fma %2, %2, %x : f32
  %4 = math.exp %v : vector<2xf64>
  %5 = math.erf %4 : vector<2xf64>
  %6 = math.absi %i : i16
  %7 = math.powf %3, %x : f32
  return %7 : f32
}
// CHECK:      llvm.func internal @math(%[[X:.*]]: f32, %[[V:.*]]: vector<2xf64>, %[[I:.*]]: i16) -> f32 {
// CHECK-NEXT:   %[[S:.*]] = llvm.call_intrinsic "llvm.sqrt.f32"(%[[X]]) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
// CHECK-NEXT:   %[[T:.*]] = llvm.call @tanhf(%[[S]]) : (f32) -> f32
// CHECK-NEXT:   %[[R:.*]] = llvm.call_intrinsic "llvm.sqrt.f32"(%[[T]]) : (f32) -> f32
// CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:   %[[RS:.*]] = llvm.fdiv %[[ONE]], %[[R]] : f32
// CHECK-NEXT:   %[[F:.*]] = llvm.intr.fma(%[[RS]], %[[RS]], %[[X]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:   %[[E:.*]] = llvm.call_intrinsic "llvm.exp.v2f64"(%[[V]]) : (vector<2xf64>) -> vector<2xf64>
// CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : vector<2xf64>
// CHECK-NEXT:   %[[L0:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %[[E0:.*]] = llvm.extractelement %[[E]][%[[L0]] : i64] : vector<2xf64>
// CHECK-NEXT:   %[[R0:.*]] = llvm.call @erf(%[[E0]]) : (f64) -> f64
// CHECK-NEXT:   %[[V0:.*]] = llvm.insertelement %[[R0]], %[[U]][%[[L0]] : i64] : vector<2xf64>
// CHECK-NEXT:   %[[L1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:   %[[E1:.*]] = llvm.extractelement %[[E]][%[[L1]] : i64] : vector<2xf64>
// CHECK-NEXT:   %[[R1:.*]] = llvm.call @erf(%[[E1]]) : (f64) -> f64
// CHECK-NEXT:   %{{.*}} = llvm.insertelement %[[R1]], %[[V0]][%[[L1]] : i64] : vector<2xf64>
// CHECK-NEXT:   %[[FALSE:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:   %{{.*}} = llvm.call_intrinsic "llvm.abs.i16"(%[[I]], %[[FALSE]]) : (i16, i1) -> i16
// CHECK-NEXT:   %[[P:.*]] = llvm.call_intrinsic "llvm.pow.f32"(%[[F]], %[[X]]) : (f32, f32) -> f32
// CHECK-NEXT:   llvm.return %[[P]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func @tanhf(f32) -> f32
// CHECK-NEXT: llvm.func @erf(f64) -> f64
