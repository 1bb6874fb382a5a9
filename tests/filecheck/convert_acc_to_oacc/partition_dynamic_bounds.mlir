// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Non-constant bounds and step (i32 control variable, inclusive upper bound) and a negative
// constant step: the trip count is computed at run time, max(0, ceil(n / step)); the control
// variable is lb + k * step converted back to its type.

func.func @h(%x: memref<?xf32>, %lb: i32, %ub: i32, %st: i32, %m: index) {
  %c0 = arith.constant 0 : index
  %cm2 = arith.constant -2 : index
  acc.parallel {
    acc.loop vector control(%j : i32) = (%lb : i32) to (%ub : i32) step (%st : i32) {
      %jj = arith.index_cast %j : i32 to index
      %f = arith.constant 2.000000e+00 : f32
      memref.store %f, %x[%jj] : memref<?xf32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>], inclusiveUpperbound = array<i1: true>}
    acc.loop worker control(%k : index) = (%m : index) to (%c0 : index) step (%cm2 : index) {
      %f = arith.constant 3.000000e+00 : f32
      memref.store %f, %x[%k] : memref<?xf32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%x: memref<?xf32>, %lb: i32, %ub: i32, %st: i32, %m: index)
// CHECK:         oacc.fork vector
// CHECK-NEXT:    %[[LB:.*]] = arith.index_cast %lb : i32 to index
// CHECK-NEXT:    %[[UB:.*]] = arith.index_cast %ub : i32 to index
// CHECK-NEXT:    %[[ST:.*]] = arith.index_cast %st : i32 to index
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[UB1:.*]] = arith.addi %[[UB]], %[[ST]] : index
// CHECK-NEXT:    %[[D:.*]] = arith.subi %[[UB1]], %[[LB]] : index
// CHECK-NEXT:    %[[SM1:.*]] = arith.subi %[[ST]], %[[C1]] : index
// CHECK-NEXT:    %[[D2:.*]] = arith.addi %[[D]], %[[SM1]] : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[D2]], %[[ST]] : index
// CHECK-NEXT:    %[[GT:.*]] = arith.cmpi sgt, %[[D]], %[[C0]] : index
// CHECK-NEXT:    %[[N:.*]] = arith.select %[[GT]], %[[Q]], %[[C0]] : index
// CHECK-NEXT:    %[[POS:.*]] = oacc.dim_pos vector : index
// CHECK-NEXT:    %[[SIZE:.*]] = oacc.dim_size vector : index
// CHECK-NEXT:    %[[FULL:.*]] = arith.divui %[[N]], %[[SIZE]] : index
// CHECK-NEXT:    scf.for %[[R:.*]] = %[[C0]] to %[[FULL]] step %[[C1]] {
// CHECK-NEXT:      %[[A:.*]] = arith.muli %[[R]], %[[SIZE]] : index
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[A]], %[[POS]] : index
// CHECK-NEXT:      %[[B:.*]] = arith.muli %[[K]], %[[ST]] : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[LB]], %[[B]] : index
// CHECK-NEXT:      %j = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:      %jj = arith.index_cast %j : i32 to index
// CHECK:         oacc.join vector
// CHECK-NEXT:    oacc.fork worker
// CHECK-NEXT:    %[[W0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[W1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[W2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[WD:.*]] = arith.addi %m, %[[W1]] : index
// CHECK-NEXT:    %[[WQ:.*]] = arith.divsi %[[WD]], %[[W2]] : index
// CHECK-NEXT:    %[[WGT:.*]] = arith.cmpi sgt, %m, %[[W0]] : index
// CHECK-NEXT:    %[[WN:.*]] = arith.select %[[WGT]], %[[WQ]], %[[W0]] : index
// CHECK:         scf.for
// CHECK:           %[[WB:.*]] = arith.muli %{{.*}}, %cm2 : index
// CHECK-NEXT:      %k = arith.addi %m, %[[WB]] : index
// CHECK:         oacc.join worker
