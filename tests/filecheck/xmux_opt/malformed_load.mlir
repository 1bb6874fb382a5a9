// RUN: not xmux-opt %s 2>&1 | filecheck %s

// xDSL's memref.load verifier raises a bare Exception for too few indices: the error names
// the op.

// CHECK:     error: {{.*}}malformed_load.mlir: 'memref.load' does not verify: expected an index for each dimension
// CHECK-NOT: Traceback
func.func @k(%a: memref<?xf32>) {
  %v = memref.load %a[] : memref<?xf32>
  func.return
}
