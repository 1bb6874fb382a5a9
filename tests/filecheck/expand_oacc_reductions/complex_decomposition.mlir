// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' | filecheck %s
// complex<f64> worker reductions use two slots of the f64 buffer (real and imaginary part,
// distinct per rid); complex add combines part by part.

func.func @k(%z: complex<f64>, %w: complex<f64>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 2, 4, 1>} {
  %z1 = oacc.reduction_setup worker add %z lid 0 rid 0 : complex<f64>
  %w1 = oacc.reduction_setup worker add %w lid 0 rid 1 : complex<f64>
  %z3 = oacc.reduction_fini worker add %z1 lid 0 rid 0 : complex<f64>
  %z4 = oacc.reduction_teardown worker add %z3 lid 0 rid 0 : complex<f64>
  "test.op"(%z4, %w1) : (complex<f64>, complex<f64>) -> ()
  func.return
}

// CHECK:      memref.global "private" @__oacc_worker_red_f64 : memref<4xf64, 3 : i64>
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   %[[BUF:.*]] = memref.get_global @__oacc_worker_red_f64 : memref<4xf64, 3 : i64>
// CHECK-NEXT:   %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[S1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[RE:.*]] = complex.re %z : complex<f64>
// CHECK-NEXT:   %[[IM:.*]] = complex.im %z : complex<f64>
// CHECK-NEXT:   memref.store %[[RE]], %[[BUF]][%[[S0]]] : memref<4xf64, 3 : i64>
// CHECK-NEXT:   memref.store %[[IM]], %[[BUF]][%[[S1]]] : memref<4xf64, 3 : i64>
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   %[[BUF:.*]] = memref.get_global @__oacc_worker_red_f64 : memref<4xf64, 3 : i64>
// CHECK-NEXT:   %[[S2:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[S3:.*]] = arith.constant 3 : index
// CHECK-NEXT:   %[[RE:.*]] = complex.re %w : complex<f64>
// CHECK-NEXT:   %[[IM:.*]] = complex.im %w : complex<f64>
// CHECK-NEXT:   memref.store %[[RE]], %[[BUF]][%[[S2]]] : memref<4xf64, 3 : i64>
// CHECK-NEXT:   memref.store %[[IM]], %[[BUF]][%[[S3]]] : memref<4xf64, 3 : i64>
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   %[[BUF:.*]] = memref.get_global @__oacc_worker_red_f64 : memref<4xf64, 3 : i64>
// CHECK-NEXT:   %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[S1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[A:.*]] = memref.load %[[BUF]][%[[S0]]] : memref<4xf64, 3 : i64>
// CHECK-NEXT:   %[[B:.*]] = memref.load %[[BUF]][%[[S1]]] : memref<4xf64, 3 : i64>
// CHECK-NEXT:   %[[C:.*]] = complex.re %z : complex<f64>
// CHECK-NEXT:   %[[D:.*]] = complex.im %z : complex<f64>
// CHECK-NEXT:   %[[X:.*]] = arith.addf %[[A]], %[[C]] : f64
// CHECK-NEXT:   %[[Y:.*]] = arith.addf %[[B]], %[[D]] : f64
// CHECK-NEXT:   memref.store %[[X]], %[[BUF]][%[[S0]]] : memref<4xf64, 3 : i64>
// CHECK-NEXT:   memref.store %[[Y]], %[[BUF]][%[[S1]]] : memref<4xf64, 3 : i64>
// CHECK-NEXT: }
// CHECK-NEXT: %[[BUF:.*]] = memref.get_global @__oacc_worker_red_f64 : memref<4xf64, 3 : i64>
// CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[S1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[A:.*]] = memref.load %[[BUF]][%[[S0]]] : memref<4xf64, 3 : i64>
// CHECK-NEXT: %[[B:.*]] = memref.load %[[BUF]][%[[S1]]] : memref<4xf64, 3 : i64>
// CHECK-NEXT: %z4 = complex.create %[[A]], %[[B]] : complex<f64>
// CHECK-NEXT: "test.op"(%z4, %w) : (complex<f64>, complex<f64>) -> ()
