// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// A reduction of a variable without a recipe: the operator is unknown.

func.func @h(%s: memref<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  acc.parallel {
    %r = acc.reduction varPtr(%s : memref<f32>) -> memref<f32> {name = "total"}
    acc.loop gang reduction(%r : memref<f32>) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.loop in acc.parallel in @h (kernel @h_acc_parallel_0): reduction of variable 'total' has no recipe (recipe(@...))
