// RUN: not xmux-opt %s 2>&1 | filecheck %s

// xDSL's llvm parser indexes the struct with the position as given (an IndexError): the error
// names the file, line and column, without a traceback.

// CHECK:     error: cannot parse {{.*}}malformed_extractvalue.mlir:9:66: tuple index out of range
// CHECK-NOT: Traceback
func.func @k(%s: !llvm.struct<(i32, f32)>) -> i32 {
  %v = llvm.extractvalue %s[4294967296] : !llvm.struct<(i32, f32)>
  func.return %v : i32
}
