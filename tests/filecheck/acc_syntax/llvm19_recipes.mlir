// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// The LLVM 19 form (what mlir-opt-19 prints): the construct names each operand's recipe,
// `reduction(@r -> %x : T)`; it reads into the newer form, the recipe on the data-clause op.

acc.private.recipe @priv : memref<f32> init {
^bb0(%a: memref<f32>):
  %m = memref.alloc() : memref<f32>
  acc.yield %m : memref<f32>
}
acc.reduction.recipe @add : f32 reduction_operator <add> init {
^bb0(%a: f32):
  %z = arith.constant 0.0 : f32
  acc.yield %z : f32
} combiner {
^bb0(%a: f32, %b: f32):
  %s = arith.addf %a, %b : f32
  acc.yield %s : f32
}
acc.reduction.recipe @mul : f32 reduction_operator <mul> init {
^bb0(%a: f32):
  %o = arith.constant 1.0 : f32
  acc.yield %o : f32
} combiner {
^bb0(%a: f32, %b: f32):
  %s = arith.mulf %a, %b : f32
  acc.yield %s : f32
}

func.func @f(%x: memref<f32>, %y: memref<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = acc.reduction varPtr(%x : memref<f32>) -> memref<f32>
  %q = acc.reduction varPtr(%y : memref<f32>) -> memref<f32>
  %p = acc.private varPtr(%y : memref<f32>) -> memref<f32>
  acc.parallel reduction(@add -> %r : memref<f32>, @mul -> %q : memref<f32>) private(@priv -> %p : memref<f32>) {
    acc.loop gang reduction(@add -> %r : memref<f32>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK:      %r = acc.reduction varPtr(%x : memref<f32>) recipe(@add) -> memref<f32>
// CHECK-NEXT: %q = acc.reduction varPtr(%y : memref<f32>) recipe(@mul) -> memref<f32>
// CHECK-NEXT: %p = acc.private varPtr(%y : memref<f32>) recipe(@priv) -> memref<f32>
// CHECK-NEXT: acc.parallel private(%p : memref<f32>) reduction(%r, %q : memref<f32>, memref<f32>) {
// CHECK-NEXT:   acc.loop gang reduction(%r : memref<f32>) control(
