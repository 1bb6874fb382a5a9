// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s

// A private array written in vector-single mode from a call's result (only lane 0 calls)
// and read in a vector loop would need its whole content broadcast: rejected clearly.

func.func private @f() -> i32

func.func @h(%out: memref<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %vl = arith.constant 8 : i32
  acc.parallel vector_length(%vl : i32) {
    %p = memref.alloca() : memref<8xi32>
    %v = func.call @f() : () -> i32
    memref.store %v, %p[%c0] : memref<8xi32>
    acc.loop vector control(%i : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
      %x = memref.load %p[%c0] : memref<8xi32>
      memref.store %x, %out[%i] : memref<8xi32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}
// CHECK: error: convert-acc-to-oacc: acc.parallel in @h (kernel @h_acc_parallel_0): private variable of type memref<8xi32> written in worker- or vector-single mode from a value that differs between work-items (a call or atomic result) and used in a partitioned loop is not supported by this pipeline yet
