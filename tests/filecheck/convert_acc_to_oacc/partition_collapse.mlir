// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Several control variables (collapse(2)): the iteration space is linearized (last variable
// fastest) and partitioned as one loop, 4 x 6 = 24 iterations over the vector lanes.

func.func @h(%x: memref<4x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  acc.parallel {
    acc.loop vector control(%i : index, %j : index) = (%c0, %c0 : index, index) to (%c4, %c6 : index, index) step (%c1, %c1 : index, index) {
      %f = arith.constant 1.000000e+00 : f32
      memref.store %f, %x[%i, %j] : memref<4x6xf32>
      acc.yield
    } attributes {collapse = [2], collapseDeviceType = [#acc.device_type<none>], independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%x: memref<4x6xf32>)
// CHECK:         oacc.fork vector
// CHECK:         %[[N6:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %[[N:.*]] = arith.constant 24 : index
// CHECK:         scf.for
// CHECK:           %[[K:.*]] = arith.addi
// CHECK-NEXT:      %j = arith.remui %[[K]], %[[N6]] : index
// CHECK-NEXT:      %i = arith.divui %[[K]], %[[N6]] : index
// CHECK-NEXT:      %f = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      memref.store %f, %x[%i, %j] : memref<4x6xf32>
