// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// An array recipe whose init region yields memory it never initialised: the identity
// cannot be read from it (array reductions themselves are supported).

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
// CHECK: error: convert-acc-to-oacc: acc.reduction.recipe @add_f32 (init region): the region yields memory it never wrote; this recipe cannot be honoured
