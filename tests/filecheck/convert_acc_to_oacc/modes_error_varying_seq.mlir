// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// A sequential loop around a vector loop inside a worker loop, whose trip count depends on
// the worker's iteration: the vector loop's forks/joins (work-group barriers on the CPU)
// would run a different number of times per worker; rejected clearly.

func.func @h(%out: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1 : i32
  %nw = arith.constant 4 : i32
  %vl = arith.constant 8 : i32
  acc.parallel num_workers(%nw : i32) vector_length(%vl : i32) {
    acc.loop worker control(%k : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
      acc.loop control(%m : index) = (%c0 : index) to (%k : index) step (%c1 : index) {
        acc.loop vector control(%i : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
          memref.store %one, %out[%i] : memref<64xi32>
          acc.yield
        } attributes {independent = [#acc.device_type<none>]}
        acc.yield
      } attributes {seq = [#acc.device_type<none>]}
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.loop in acc.parallel in @h (kernel @h_acc_parallel_0): 'acc.loop' around a partitioned loop inside a worker loop, with a trip count that differs between workers is not supported by this pipeline yet
