// RUN: not xmux-opt %s 2>&1 | filecheck %s
// The LLVM 19 recipe form sets the recipe on the operand's data-clause op: an operand from
// anything else, or a data op that names another recipe, is an error.

func.func @f(%x: memref<f32>) {
  acc.parallel reduction(@add -> %x : memref<f32>) {
    acc.yield
  }
  return
}

// CHECK: 'acc.parallel': reduction(@add -> ...) needs an operand defined by 'acc.reduction', got a block argument
