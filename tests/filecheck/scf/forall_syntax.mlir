// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// scf.forall as upstream prints it: `in (ubs)` from 0 by 1, else `= (lbs) to (ubs) step (s)`,
// static and dynamic bounds mixed; the empty scf.forall.in_parallel terminator elided.

func.func @f(%a: memref<16xf32>, %n: index, %x: f32) {
  scf.forall (%i) in (4) {
    memref.store %x, %a[%i] : memref<16xf32>
  }
  scf.forall (%i, %j) = (0, %n) to (%n, 16) step (2, 1) {
    memref.store %x, %a[%j] : memref<16xf32>
  }
  return
}
// CHECK:      scf.forall (%i) in (4) {
// CHECK-NEXT:   memref.store %x, %a[%i] : memref<16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.forall (%{{.*}}, %j) = (0, %n) to (%n, 16) step (2, 1) {
// CHECK-NEXT:   memref.store %x, %a[%j] : memref<16xf32>
// CHECK-NEXT: }
