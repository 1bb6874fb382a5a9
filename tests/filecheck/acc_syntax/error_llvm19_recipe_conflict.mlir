// RUN: not xmux-opt %s 2>&1 | filecheck %s
// A data-clause op that names another recipe than the LLVM 19 clause is an error.

func.func @g(%x: memref<f32>) {
  %r = acc.reduction varPtr(%x : memref<f32>) recipe(@mul) -> memref<f32>
  acc.parallel reduction(@add -> %r : memref<f32>) {
    acc.yield
  }
  return
}

// CHECK: 'acc.parallel': reduction operand's 'acc.reduction' names recipe @mul, the clause names @add
