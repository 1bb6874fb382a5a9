// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// Integer ops keep overflow flags; min/max are intrinsics; ceildivsi is expanded; index is i64.
// Divisions divide by a guarded divisor, 1 where b == 0 or a / b is INT_MIN / -1 (x86 traps).
func.func @int_ops(%a: i32, %b: i32, %i: index) -> i32 {
  %0 = arith.addi %a, %b overflow<nsw> : i32
  %1 = arith.muli %0, %b : i32
  %2 = arith.minsi %1, %a : i32
  %3 = arith.maxui %2, %b : i32
  %4 = arith.ceildivsi %3, %b : i32
  %5 = arith.index_cast %i : index to i32
  %6 = arith.cmpi ult, %4, %5 : i32
  %7 = arith.select %6, %4, %5 : i32
  return %7 : i32
}
// CHECK:      llvm.func internal @int_ops(%[[A:.*]]: i32, %[[B:.*]]: i32, %[[I:.*]]: i64) -> i32 {
// CHECK-NEXT:   %[[S:.*]] = llvm.add %[[A]], %[[B]] overflow<nsw> : i32
// CHECK-NEXT:   %[[M:.*]] = llvm.mul %[[S]], %[[B]] : i32
// CHECK-NEXT:   %[[MIN:.*]] = llvm.call_intrinsic "llvm.smin.i32"(%[[M]], %[[A]]) : (i32, i32) -> i32
// CHECK-NEXT:   %[[MAX:.*]] = llvm.call_intrinsic "llvm.umax.i32"(%[[MIN]], %[[B]]) : (i32, i32) -> i32
// CHECK-NEXT:   %[[Z0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   %[[BZ:.*]] = llvm.icmp "eq" %[[B]], %[[Z0]] : i32
// CHECK-NEXT:   %[[BZ32:.*]] = llvm.zext %[[BZ]] : i1 to i32
// CHECK-NEXT:   %[[B1:.*]] = llvm.or %[[B]], %[[BZ32]] : i32
// CHECK-NEXT:   %[[LOW:.*]] = llvm.mlir.constant(-2147483648 : i32) : i32
// CHECK-NEXT:   %[[M1:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT:   %[[AL:.*]] = llvm.icmp "eq" %[[MAX]], %[[LOW]] : i32
// CHECK-NEXT:   %[[BM:.*]] = llvm.icmp "eq" %[[B]], %[[M1]] : i32
// CHECK-NEXT:   %[[OV:.*]] = llvm.and %[[AL]], %[[BM]] : i1
// CHECK-NEXT:   %[[OV32:.*]] = llvm.zext %[[OV]] : i1 to i32
// CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %[[TWO:.*]] = llvm.shl %[[OV32]], %[[ONE]] : i32
// CHECK-NEXT:   %[[BS:.*]] = llvm.add %[[B1]], %[[TWO]] : i32
// CHECK-NEXT:   %[[Q:.*]] = llvm.sdiv %[[MAX]], %[[BS]] : i32
// CHECK-NEXT:   %[[R:.*]] = llvm.srem %[[MAX]], %[[BS]] : i32
// CHECK-NEXT:   %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   %[[NZ:.*]] = llvm.icmp "ne" %[[R]], %[[Z]] : i32
// CHECK-NEXT:   %[[X:.*]] = llvm.xor %[[R]], %[[BS]] : i32
// CHECK-NEXT:   %[[SAME:.*]] = llvm.icmp "sge" %[[X]], %[[Z]] : i32
// CHECK-NEXT:   %[[BUMP:.*]] = llvm.and %[[NZ]], %[[SAME]] : i1
// CHECK-NEXT:   %[[BUMP32:.*]] = llvm.zext %[[BUMP]] : i1 to i32
// CHECK-NEXT:   %[[CEIL:.*]] = llvm.add %[[Q]], %[[BUMP32]] : i32
// CHECK-NEXT:   %[[IC:.*]] = llvm.trunc %[[I]] : i64 to i32
// CHECK-NEXT:   %[[C:.*]] = llvm.icmp "ult" %[[CEIL]], %[[IC]] : i32
// CHECK-NEXT:   %[[SEL:.*]] = llvm.select %[[C]], %[[CEIL]], %[[IC]] : i1, i32
// CHECK-NEXT:   llvm.return %[[SEL]] : i32

// Fast-math flags are kept; maximumf/minnumf have their own intrinsics; fptoui uses llvm.fptoui.
func.func @float_ops(%x: f32, %y: f64) -> i32 {
  %0 = arith.mulf %x, %x fastmath<fast> : f32
  %1 = arith.maximumf %0, %x : f32
  %2 = arith.minnumf %1, %x : f32
  %3 = arith.negf %2 : f32
  %4 = arith.truncf %y : f64 to f32
  %5 = arith.addf %3, %4 : f32
  %6 = arith.cmpf uno, %5, %x : f32
  %7 = arith.fptoui %5 : f32 to i32
  %8 = arith.extui %6 : i1 to i32
  %9 = arith.addi %7, %8 : i32
  return %9 : i32
}
// CHECK:      llvm.func internal @float_ops(%[[X:.*]]: f32, %[[Y:.*]]: f64) -> i32 {
// CHECK-NEXT:   %[[SQ:.*]] = llvm.fmul %[[X]], %[[X]] {fastmathFlags = #llvm.fastmath<fast>} : f32
// CHECK-NEXT:   %[[MX:.*]] = llvm.call_intrinsic "llvm.maximum.f32"(%[[SQ]], %[[X]]) : (f32, f32) -> f32
// CHECK-NEXT:   %[[MN:.*]] = llvm.call_intrinsic "llvm.minnum.f32"(%[[MX]], %[[X]]) : (f32, f32) -> f32
// CHECK-NEXT:   %[[NEG:.*]] = llvm.fneg %[[MN]] : f32
// CHECK-NEXT:   %[[T:.*]] = llvm.fptrunc %[[Y]] : f64 to f32
// CHECK-NEXT:   %[[ADD:.*]] = llvm.fadd %[[NEG]], %[[T]] : f32
// CHECK-NEXT:   %[[UNO:.*]] = llvm.fcmp "uno" %[[ADD]], %[[X]] : f32
// CHECK-NEXT:   %[[U:.*]] = llvm.fptoui %[[ADD]] : f32 to i32
// CHECK-NEXT:   %[[E:.*]] = llvm.zext %[[UNO]] : i1 to i32
// CHECK-NEXT:   %{{.*}} = llvm.add %[[U]], %[[E]] : i32

// Dense vector constants (index elements become i64), booleans, halves.
func.func @constants() -> (vector<4xi32>, vector<2xindex>, i1, f16) {
  %v = arith.constant dense<[1, 2, 3, 4]> : vector<4xi32>
  %w = arith.constant dense<7> : vector<2xindex>
  %t = arith.constant true
  %h = arith.constant 1.5 : f16
  return %v, %w, %t, %h : vector<4xi32>, vector<2xindex>, i1, f16
}
// CHECK:      llvm.func internal @constants() -> !llvm.struct<(vector<4xi32>, vector<2xi64>, i1, f16)> {
// CHECK-NEXT:   llvm.mlir.constant(dense<[1, 2, 3, 4]> : vector<4xi32>) : vector<4xi32>
// CHECK-NEXT:   llvm.mlir.constant(dense<7> : vector<2xi64>) : vector<2xi64>
// CHECK-NEXT:   llvm.mlir.constant(true) : i1
// CHECK-NEXT:   llvm.mlir.constant(1.500000e+00 : f16) : f16

// Arithmetic on 1-D vectors maps to the same ops on vector types.
func.func @vector_arith(%a: vector<4xf32>, %b: vector<4xi64>) -> vector<4xi64> {
  %0 = arith.addf %a, %a : vector<4xf32>
  %1 = arith.maxsi %b, %b : vector<4xi64>
  return %1 : vector<4xi64>
}
// CHECK:      llvm.func internal @vector_arith(%[[A:.*]]: vector<4xf32>, %[[B:.*]]: vector<4xi64>) -> vector<4xi64> {
// CHECK-NEXT:   llvm.fadd %[[A]], %[[A]] : vector<4xf32>
// CHECK-NEXT:   llvm.call_intrinsic "llvm.smax.v4i64"(%[[B]], %[[B]]) : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
