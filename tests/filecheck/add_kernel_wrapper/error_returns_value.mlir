// RUN: not xmux-opt %s -p add-kernel-wrapper 2>&1 | filecheck %s

func.func @ret() -> i32 attributes {mux.kernel = "entry_point"} {
  %c = arith.constant 1 : i32
  func.return %c : i32
}
// CHECK: error: kernel 'ret' must not return values
