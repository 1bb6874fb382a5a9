// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s
// A global constructor doing more than data clauses of declared globals is refused, named.

memref.global "private" @gx : memref<4xf32> = dense<1.0>
acc.global_ctor @gx_ctor {
  %g = memref.get_global @gx : memref<4xf32>
  %c = arith.constant 0 : index
  %v = memref.load %g[%c] : memref<4xf32>
  acc.terminator
}
func.func @main() {
  acc.init
  return
}
// CHECK: error: convert-acc-to-oacc: 'acc.global_ctor' @gx_ctor holding 'memref.load' is not supported by this pipeline yet
