// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// Fortran's .eqv. / .neqv. reductions are not supported.

acc.reduction.recipe @eqv_i1 : i1 reduction_operator <eqv> init {
^bb0(%arg0: i1):
  %0 = arith.constant true
  acc.yield %0 : i1
} combiner {
^bb0(%x: i1, %y: i1):
  acc.yield %x : i1
}
func.func @h(%s: memref<i1>) {
  %r = acc.reduction varPtr(%s : memref<i1>) recipe(@eqv_i1) -> memref<i1> {name = "flag"}
  acc.parallel reduction(%r : memref<i1>) {
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: reduction operator 'eqv' (acc.reduction.recipe @eqv_i1) is not supported by this pipeline yet
