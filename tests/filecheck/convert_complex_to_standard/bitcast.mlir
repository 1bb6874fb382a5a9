// RUN: xmux-opt %s -p convert-complex-to-standard | filecheck %s

// complex.bitcast: the memory layout of complex<f32> (numpy's complex64): the real part's bits
// in the low half.
func.func @bits(%z: complex<f32>, %i: i64, %d: f64) -> (i64, complex<f32>, complex<f32>) {
  %w = complex.bitcast %z : complex<f32> to i64
  %c = complex.bitcast %i : i64 to complex<f32>
  %e = complex.bitcast %d : f64 to complex<f32>
  func.return %w, %c, %e : i64, complex<f32>, complex<f32>
}

// CHECK-LABEL: func.func @bits
// CHECK:         %[[RE:.*]] = complex.re %z : complex<f32>
// CHECK-NEXT:    %[[IM:.*]] = complex.im %z : complex<f32>
// CHECK-NEXT:    %[[RB:.*]] = arith.bitcast %[[RE]] : f32 to i32
// CHECK-NEXT:    %[[LO:.*]] = arith.extui %[[RB]] : i32 to i64
// CHECK-NEXT:    %[[IB:.*]] = arith.bitcast %[[IM]] : f32 to i32
// CHECK-NEXT:    %[[HI:.*]] = arith.extui %[[IB]] : i32 to i64
// CHECK-NEXT:    %[[K:.*]] = arith.constant 32 : i64
// CHECK-NEXT:    %[[SH:.*]] = arith.shli %[[HI]], %[[K]] : i64
// CHECK-NEXT:    %[[W:.*]] = arith.ori %[[LO]], %[[SH]] : i64
// CHECK-NEXT:    %[[K2:.*]] = arith.constant 32 : i64
// CHECK-NEXT:    %[[L:.*]] = arith.trunci %i : i64 to i32
// CHECK-NEXT:    %[[LF:.*]] = arith.bitcast %[[L]] : i32 to f32
// CHECK-NEXT:    %[[S:.*]] = arith.shrui %i, %[[K2]] : i64
// CHECK-NEXT:    %[[H:.*]] = arith.trunci %[[S]] : i64 to i32
// CHECK-NEXT:    %[[HF:.*]] = arith.bitcast %[[H]] : i32 to f32
// CHECK-NEXT:    %[[C:.*]] = complex.create %[[LF]], %[[HF]] : complex<f32>
// CHECK-NEXT:    %[[DI:.*]] = arith.bitcast %d : f64 to i64
// CHECK:         %[[E:.*]] = complex.create
// CHECK-NEXT:    func.return %[[W]], %[[C]], %[[E]] : i64, complex<f32>, complex<f32>
