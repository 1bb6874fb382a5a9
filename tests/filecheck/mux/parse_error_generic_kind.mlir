// RUN: not xmux-opt %s 2>&1 | filecheck %s

// The generic form checks enum values too.

func.func @bad_generic_kind(%i: i32) {
  %0 = "mux.sub_group_reduce"(%i) <{kind = #mux<kind plus>}> : (i32) -> i32
  func.return
}
// CHECK: Expected `add`, `fadd`, {{.*}} or `logical_xor`.
