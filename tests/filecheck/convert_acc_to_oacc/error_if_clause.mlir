// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// The if clause of acc.parallel is not supported.

func.func @h(%x: memref<f32>, %c: i1) {
  acc.parallel if(%c) {
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.parallel in @h (kernel @h_acc_parallel_0): the if clause is not supported by this pipeline yet
