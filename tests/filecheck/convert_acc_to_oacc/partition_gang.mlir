// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// A gang loop over constant bounds [2, 100) step 3 (33 iterations) in uniform-trip-count
// form: full rounds for r in [0, 33 / ng) take iteration r*ng + gang unguarded, then one
// remainder round guarded by r*ng + gang < 33. Fork/join surround the partitioned loop.

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
// CHECK-NEXT:    %[[FULL:.*]] = arith.divui %[[N]], %[[SIZE]] : index
// CHECK-NEXT:    scf.for %[[R:.*]] = %[[C0]] to %[[FULL]] step %[[C1]] {
// CHECK-NEXT:      %[[A:.*]] = arith.muli %[[R]], %[[SIZE]] : index
// CHECK-NEXT:      %[[K:.*]] = arith.addi %[[A]], %[[POS]] : index
// CHECK-NEXT:      %[[B:.*]] = arith.muli %[[K]], %c3 : index
// CHECK-NEXT:      %i = arith.addi %c2, %[[B]] : index
// CHECK-NEXT:      %f = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      memref.store %f, %x[%i] : memref<100xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[A2:.*]] = arith.muli %[[FULL]], %[[SIZE]] : index
// CHECK-NEXT:    %[[K2:.*]] = arith.addi %[[A2]], %[[POS]] : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi ult, %[[K2]], %[[N]] : index
// CHECK-NEXT:    scf.if %[[OK]] {
// CHECK-NEXT:      %[[B2:.*]] = arith.muli %[[K2]], %c3 : index
// CHECK-NEXT:      %[[I2:.*]] = arith.addi %c2, %[[B2]] : index
// CHECK-NEXT:      %{{.*}} = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      memref.store %{{.*}}, %x[%[[I2]]] : memref<100xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    oacc.join gang
// CHECK-NEXT:    func.return
