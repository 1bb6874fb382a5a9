// RUN: xmux-opt --allow-unregistered-dialect %s -p convert-to-llvm | filecheck %s

// xDSL 0.74 has no index dialect: its ops arrive unregistered (generic form) and lower by name.
func.func @idx(%a: index, %b: index) -> i32 {
  %s = "index.add"(%a, %b) : (index, index) -> index
  %k = "index.constant"() {value = 3 : index} : () -> index
  %d = "index.divu"(%s, %k) : (index, index) -> index
  %lt = "index.cmp"(%d, %a) <{pred = #index<cmp_predicate sle>}> : (index, index) -> i1
  %m = "index.minu"(%d, %b) : (index, index) -> index
  %t = "index.casts"(%m) : (index) -> i32
  %z = "index.sizeof"() : () -> index
  return %t : i32
}
// CHECK:      llvm.func internal @idx(%[[A:.*]]: i64, %[[B:.*]]: i64) -> i32 {
// CHECK-NEXT:   %[[S:.*]] = llvm.add %[[A]], %[[B]] : i64
// CHECK-NEXT:   %[[K:.*]] = llvm.mlir.constant(3) : i64
// CHECK-NEXT:   %[[D:.*]] = llvm.udiv %[[S]], %[[K]] : i64
// CHECK-NEXT:   %{{.*}} = llvm.icmp "sle" %[[D]], %[[A]] : i64
// CHECK-NEXT:   %[[M:.*]] = llvm.call_intrinsic "llvm.umin.i64"(%[[D]], %[[B]]) : (i64, i64) -> i64
// CHECK-NEXT:   %[[T:.*]] = llvm.trunc %[[M]] : i64 to i32
// CHECK-NEXT:   %{{.*}} = llvm.mlir.constant(8) : i64
// CHECK-NEXT:   llvm.return %[[T]] : i32
