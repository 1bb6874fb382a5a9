// RUN: not xmux-opt %s -p convert-to-llvm 2>&1 | filecheck %s

// A static shape of more than 2^63-1 bytes is an error before anything runs (alloc_checks.mlir
// has the run-time checks of dynamic sizes).
func.func @huge() {
  %h = memref.alloc() : memref<4611686018427387904x4xf32>
  return
}
// CHECK: error: {{.*}}alloc_static_too_large.mlir:6:3: convert-to-llvm: 'memref.alloc' in @huge: memref<4611686018427387904x4xf32> needs 73786976294838206464 bytes, more than 2^63-1
