// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// 1-D vectors: load/store aligned as the element (numpy arrays are only element-aligned),
// broadcast = insertelement + zero-mask shufflevector, extract/insert with llvm element
// ops, reductions with the llvm.vector.reduce intrinsics (the accumulator as start value).
func.func @vec(%m: memref<?xf32>, %i: index, %s: f32, %k: index) -> f32 {
  %v = vector.load %m[%i] : memref<?xf32>, vector<4xf32>
  %b = vector.broadcast %s : f32 to vector<4xf32>
  %f = vector.fma %v, %b, %v : vector<4xf32>
  %e = vector.extract %f[%k] : f32 from vector<4xf32>
  %g = vector.insert %e, %f [0] : f32 into vector<4xf32>
  vector.store %g, %m[%i] : memref<?xf32>, vector<4xf32>
  %r = vector.reduction <add>, %g, %s fastmath<reassoc> : vector<4xf32> into f32
  return %r : f32
}
// CHECK:      llvm.func internal @vec(%[[M:.*]]: !llvm.struct<{{.*}}>, %[[I:.*]]: i64, %[[S:.*]]: f32, %[[K:.*]]: i64) -> f32 {
// CHECK-NEXT:   %[[B0:.*]] = llvm.extractvalue %[[M]][1]
// CHECK-NEXT:   %[[P0:.*]] = llvm.getelementptr inbounds %[[B0]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   %[[V:.*]] = llvm.load %[[P0]] {alignment = 4 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : vector<4xf32>
// CHECK-NEXT:   %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   %[[INS:.*]] = llvm.insertelement %[[S]], %[[U]][%[[Z]] : i32] : vector<4xf32>
// CHECK-NEXT:   %[[SPLAT:.*]] = llvm.shufflevector %[[INS]], %[[U]] [0, 0, 0, 0] : vector<4xf32>
// CHECK-NEXT:   %[[F:.*]] = llvm.intr.fma(%[[V]], %[[SPLAT]], %[[V]]) : (vector<4xf32>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:   %[[E:.*]] = llvm.extractelement %[[F]][%[[K]] : i64] : vector<4xf32>
// CHECK-NEXT:   %[[ZERO:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %[[G:.*]] = llvm.insertelement %[[E]], %[[F]][%[[ZERO]] : i64] : vector<4xf32>
// CHECK-NEXT:   %[[B1:.*]] = llvm.extractvalue %[[M]][1]
// CHECK-NEXT:   %[[P1:.*]] = llvm.getelementptr inbounds %[[B1]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   llvm.store %[[G]], %[[P1]] {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-NEXT:   %[[R:.*]] = llvm.call_intrinsic "llvm.vector.reduce.fadd.v4f32"(%[[S]], %[[G]]) {fastmathFlags = #llvm.fastmath<reassoc>} : (f32, vector<4xf32>) -> f32
// CHECK-NEXT:   llvm.return %[[R]] : f32

func.func @ints(%v: vector<8xi16>, %acc: i16) -> i16 {
  %r = vector.reduction <maxui>, %v, %acc : vector<8xi16> into i16
  return %r : i16
}
// CHECK:      llvm.func internal @ints(%[[V:.*]]: vector<8xi16>, %[[ACC:.*]]: i16) -> i16 {
// CHECK-NEXT:   %[[R:.*]] = llvm.call_intrinsic "llvm.vector.reduce.umax.v8i16"(%[[V]]) : (vector<8xi16>) -> i16
// CHECK-NEXT:   %[[M:.*]] = llvm.call_intrinsic "llvm.umax.i16"(%[[ACC]], %[[R]]) : (i16, i16) -> i16
// CHECK-NEXT:   llvm.return %[[M]] : i16

// Masks: create_mask compares a step vector with the splatted bound; masked loads use the
// llvm.masked.load intrinsic.
func.func @tail(%m: memref<?xf64>, %n: index) -> vector<2xf64> {
  %c0 = arith.constant 0 : index
  %mask = vector.create_mask %n : vector<2xi1>
  %pass = arith.constant dense<0.0> : vector<2xf64>
  %v = vector.maskedload %m[%c0], %mask, %pass : memref<?xf64>, vector<2xi1>, vector<2xf64> into vector<2xf64>
  return %v : vector<2xf64>
}
// CHECK:      llvm.func internal @tail(%[[M:.*]]: !llvm.struct<{{.*}}>, %[[N:.*]]: i64) -> vector<2xf64> {
// CHECK:        %[[STEPS:.*]] = llvm.mlir.constant(dense<[0, 1]> : vector<2xi64>) : vector<2xi64>
// CHECK:        %[[BOUND:.*]] = llvm.shufflevector
// CHECK-NEXT:   %[[MASK:.*]] = llvm.icmp "slt" %[[STEPS]], %[[BOUND]] : vector<2xi64>
// CHECK:        %[[ALIGN:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:   %{{.*}} = llvm.call_intrinsic "llvm.masked.load.v2f64.p0"(%{{.*}}, %[[ALIGN]], %[[MASK]], %{{.*}}) : (!llvm.ptr, i32, vector<2xi1>, vector<2xf64>) -> vector<2xf64>
