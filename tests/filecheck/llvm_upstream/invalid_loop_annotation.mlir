// RUN: not xmux-opt %s 2>&1 | filecheck %s

// A parameter upstream's loop annotation does not have (or that xmux does not model).
llvm.func @f() {
  llvm.br ^bb1 {loop_annotation = #llvm.loop_annotation<mustProgress = true, speed = true>}
^bb1:
  llvm.return
}
// CHECK: llvm.loop_annotation: unexpected parameter 'speed'
