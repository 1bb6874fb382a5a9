// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// A combiner yielding another type than the recipe's: xDSL's acc verifier rejects the
// recipe when the module is verified, before the pass runs.

acc.reduction.recipe @add_f32 : f32 reduction_operator <add> init {
^bb0(%arg0: f32):
  %0 = arith.constant 0.000000e+00 : f32
  acc.yield %0 : f32
} combiner {
^bb0(%x: f32, %y: f32):
  %0 = arith.constant 0 : i32
  acc.yield %0 : i32
}
func.func @h(%s: memref<f32>) {
  %r = acc.reduction varPtr(%s : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "s"}
  acc.parallel reduction(%r : memref<f32>) {
    acc.yield
  }
  return
}
// CHECK: error: {{.*}}error_recipe_combiner_type.mlir:6:1: 'acc.reduction.recipe' does not verify: expects combiner region to yield a value of the reduction type
