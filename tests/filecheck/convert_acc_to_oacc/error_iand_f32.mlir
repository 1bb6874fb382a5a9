// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// iand is not a reduction operator for f32.

acc.reduction.recipe @iand_f32 : f32 reduction_operator <iand> init {
^bb0(%arg0: f32):
  %0 = arith.constant 0.000000e+00 : f32
  acc.yield %0 : f32
} combiner {
^bb0(%x: f32, %y: f32):
  acc.yield %x : f32
}
func.func @h(%s: memref<f32>) {
  %r = acc.reduction varPtr(%s : memref<f32>) recipe(@iand_f32) -> memref<f32> {name = "s"}
  acc.parallel reduction(%r : memref<f32>) {
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: reduction of 's' (acc.reduction.recipe @iand_f32, iand): reduction operator 'and' is not valid for f32 (it takes bool, int types)
