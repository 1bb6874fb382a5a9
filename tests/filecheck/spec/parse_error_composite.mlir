// RUN: not xmux-opt %s 2>&1 | filecheck %s

// The operand count of spec.constant_composite must match its type's elements.

func.func @g(%a: i32) {
  %0 = spec.constant_composite %a : !llvm.struct<(i32, i32)>
  func.return
}
// CHECK: !llvm.struct<(i32, i32)> has 2 elements, got 1 operands
