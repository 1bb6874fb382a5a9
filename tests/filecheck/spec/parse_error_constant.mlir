// RUN: not xmux-opt %s 2>&1 | filecheck %s

func.func @f() {
  %0 = spec.constant spec_id(0) = "x"
  func.return
}
// CHECK: expected a typed integer or float literal, e.g. 42 : i32
