// RUN: not xmux-opt %s 2>&1 | filecheck %s

// xDSL's memref.load verifier raises a bare Exception for too few indices: the error names
// the op and its place (file:line:column, the source line, a caret under the op).

func.func @k(%a: memref<?xf32>) {
  %v = memref.load %a[] : memref<?xf32>
  func.return
}

// CHECK:      error: {{.*}}malformed_load.mlir:7:3: 'memref.load' does not verify: expected an index for each dimension
// CHECK-NEXT: {{^}}  %v = memref.load %a[] : memref<?xf32>
// CHECK-NEXT: {{^}}  ^
// CHECK-NOT:  Traceback
