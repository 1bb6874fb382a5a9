// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// An array recipe whose identity depends on the element index is not an element-wise
// reduction: the error names the recipe and the region.

acc.reduction.recipe @ramp : memref<4xi32> reduction_operator <add> init {
^bb0(%arg0: memref<4xi32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = memref.alloca() : memref<4xi32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = arith.index_cast %i : index to i32
    memref.store %v, %p[%i] : memref<4xi32>
  }
  acc.yield %p : memref<4xi32>
} combiner {
^bb0(%a: memref<4xi32>, %b: memref<4xi32>):
  acc.yield %a : memref<4xi32>
}
func.func @h(%s: memref<4xi32>) {
  %r = acc.reduction varPtr(%s : memref<4xi32>) recipe(@ramp) -> memref<4xi32> {name = "arr"}
  acc.parallel reduction(%r : memref<4xi32>) {
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.reduction.recipe @ramp (init region): the stored value uses the element index (the element values must not depend on it); this recipe cannot be honoured
