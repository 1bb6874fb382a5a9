// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// The tile clause of acc.loop is not supported.

func.func @h(%x: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  acc.parallel {
    acc.loop tile({%c2 : index}) control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.loop in acc.parallel in @h (kernel @h_acc_parallel_0): the tile clause is not supported by this pipeline yet
