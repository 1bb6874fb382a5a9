// RUN: xmux-opt %s -p lower-scf-forall | filecheck %s
// scf.forall as an scf.for nest, outer dimension first; static bounds become constants.

func.func @f(%a: memref<16x16xf32>, %n: index, %x: f32) {
  scf.forall (%i, %j) = (0, %n) to (%n, 16) step (2, 1) {
    memref.store %x, %a[%i, %j] : memref<16x16xf32>
  }
  return
}
// CHECK:      %[[LB0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[UB1:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[S0:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S1:.*]] = arith.constant 1 : index
// CHECK-NEXT: scf.for %i = %[[LB0]] to %n step %[[S0]] {
// CHECK-NEXT:   scf.for %j = %n to %[[UB1]] step %[[S1]] {
// CHECK-NEXT:     memref.store %x, %a[%i, %j] : memref<16x16xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  scf.forall
