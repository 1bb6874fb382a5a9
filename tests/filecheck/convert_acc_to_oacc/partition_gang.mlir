// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// A gang loop over constant bounds [2, 100) step 3 (33 iterations): each gang takes a
// contiguous chunk of ceil(33 / ng) iterations starting at gang * chunk, clamped to the end
// (min(chunk, 33 - min(start, 33))), and runs it as a plain loop. Fork/join surround it.

func.func @h(%x: memref<100xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c100 = arith.constant 100 : index
  %c8 = arith.constant 8 : i64
  acc.parallel num_gangs({%c8 : i64}) {
    acc.loop gang control(%i : index) = (%c2 : index) to (%c100 : index) step (%c3 : index) {
      %f = arith.constant 1.000000e+00 : f32
      memref.store %f, %x[%i] : memref<100xf32>
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(%x: memref<100xf32>)
// CHECK:         oacc.fork gang
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[N:.*]] = arith.constant 33 : index
// CHECK-NEXT:    %[[POS:.*]] = oacc.dim_pos gang : index
// CHECK-NEXT:    %[[SIZE:.*]] = oacc.dim_size gang : index
// CHECK-NEXT:    %[[SM1:.*]] = arith.subi %[[SIZE]], %[[C1]] : index
// CHECK-NEXT:    %[[NP:.*]] = arith.addi %[[N]], %[[SM1]] : index
// CHECK-NEXT:    %[[CHUNK:.*]] = arith.divsi %[[NP]], %[[SIZE]] : index
// CHECK-NEXT:    %[[START:.*]] = arith.muli %[[POS]], %[[CHUNK]] : index
// CHECK-NEXT:    %[[CL:.*]] = arith.minui %[[START]], %[[N]] : index
// CHECK-NEXT:    %[[REST:.*]] = arith.subi %[[N]], %[[CL]] : index
// CHECK-NEXT:    %[[MINE:.*]] = arith.minui %[[REST]], %[[CHUNK]] : index
// CHECK-NEXT:    scf.for %[[R:.*]] = %[[C0]] to %[[MINE]] step %[[C1]] {
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[START]], %[[R]] : index
// CHECK-NEXT:      %[[B:.*]] = arith.muli %[[K]], %c3 : index
// CHECK-NEXT:      %i = arith.addi %c2, %[[B]] : index
// CHECK-NEXT:      %f = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      memref.store %f, %x[%i] : memref<100xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    oacc.join gang
// CHECK-NEXT:    func.return
