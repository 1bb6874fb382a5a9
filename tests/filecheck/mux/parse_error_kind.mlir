// RUN: not xmux-opt %s 2>&1 | filecheck %s

// An unknown group operation kind is a parse error listing the valid ones.

func.func @bad_kind(%i: i32) {
  %0 = mux.work_group_reduce sum %i : i32
  func.return
}
// CHECK: Expected `add`, `fadd`, `mul`, `fmul`, `smin`, `umin`, `fmin`, `smax`, `umax`, `fmax`, `and`, `or`, `xor`, `logical_and`, `logical_or`, or `logical_xor`.
