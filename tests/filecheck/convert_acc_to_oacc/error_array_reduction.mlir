// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// Array reductions are not supported (scalars only).

acc.reduction.recipe @add_f32 : memref<4xf32> reduction_operator <add> init {
^bb0(%arg0: memref<4xf32>):
  acc.yield %arg0 : memref<4xf32>
} combiner {
^bb0(%x: memref<4xf32>, %y: memref<4xf32>):
  acc.yield %x : memref<4xf32>
}
func.func @h(%s: memref<4xf32>) {
  %r = acc.reduction varPtr(%s : memref<4xf32>) recipe(@add_f32) -> memref<4xf32> {name = "arr"}
  acc.parallel reduction(%r : memref<4xf32>) {
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.parallel in @h (kernel @h_acc_parallel_0): reduction clause: reduction of 'arr' of type memref<4xf32> (only scalars, rank-0 memrefs, can be reduced) is not supported by this pipeline yet
