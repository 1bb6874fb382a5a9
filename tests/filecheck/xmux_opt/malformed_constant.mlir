// RUN: not xmux-opt %s 2>&1 | filecheck %s

// An integer literal out of its type's range fails while the attribute is built: the error
// names the place.

// CHECK:     error{{.*}}: cannot parse {{.*}}malformed_constant.mlir:9:47: Integer value 9223372036854775807 is out of range for type i32
// CHECK-NOT: Traceback
func.func @k(%a: memref<?xi32>) {
  %c = arith.constant 9223372036854775807 : i32
  func.return
}
