// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// A recipe whose init region yields another type than its own.

acc.reduction.recipe @add_f32 : f32 reduction_operator <add> init {
^bb0(%arg0: f32):
  %0 = arith.constant 0 : i32
  acc.yield %0 : i32
} combiner {
^bb0(%x: f32, %y: f32):
  %0 = arith.addf %x, %y : f32
  acc.yield %0 : f32
}
func.func @h(%s: memref<f32>) {
  %r = acc.reduction varPtr(%s : memref<f32>) recipe(@add_f32) -> memref<f32> {name = "s"}
  acc.parallel reduction(%r : memref<f32>) {
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.reduction.recipe @add_f32 (type f32): init region yields (i32), expected (f32)
