// RUN: not xmux-opt %s 2>&1 | filecheck %s

// vectorize must be a #llvm.loop_vectorize attribute.
llvm.func @f() {
  llvm.br ^bb1 {loop_annotation = #llvm.loop_annotation<vectorize = true>}
^bb1:
  llvm.return
}
// CHECK: llvm.loop_annotation: invalid vectorize = true
