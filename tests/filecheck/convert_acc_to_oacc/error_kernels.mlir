// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// acc.kernels (compiler-chosen parallelism) is not supported.

func.func @h(%x: memref<f32>) {
  acc.kernels {
    %f = arith.constant 1.000000e+00 : f32
    memref.store %f, %x[] : memref<f32>
    acc.terminator
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.kernels (use acc.parallel) is not supported by this pipeline yet
