// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s
// acc.init / acc.shutdown outside compute constructs have no effect on xmux's targets (the
// runtime is always initialised): removed; the rest of the function is kept.

func.func @main(%x: memref<4xf32>, %v: f32, %i: index, %c: i1) {
  acc.init
  acc.init if(%c)
  memref.store %v, %x[%i] : memref<4xf32>
  acc.shutdown
  return
}
// CHECK:      func.func @main
// CHECK-NEXT:   memref.store %v, %x[%i] : memref<4xf32>
// CHECK-NEXT:   func.return
// CHECK-NOT:  acc.
