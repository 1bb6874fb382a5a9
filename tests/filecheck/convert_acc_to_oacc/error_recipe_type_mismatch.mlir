// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// A recipe for another type than the reduced variable.

acc.reduction.recipe @add_i32 : i32 reduction_operator <add> init {
^bb0(%arg0: i32):
  %0 = arith.constant 0 : i32
  acc.yield %0 : i32
} combiner {
^bb0(%x: i32, %y: i32):
  %0 = arith.addi %x, %y : i32
  acc.yield %0 : i32
}
func.func @h(%s: memref<f32>) {
  %r = acc.reduction varPtr(%s : memref<f32>) recipe(@add_i32) -> memref<f32> {name = "s"}
  acc.parallel reduction(%r : memref<f32>) {
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.reduction.recipe @add_i32 is for type i32 but variable 's' has type memref<f32>
