// RUN: xmux-opt %s -p convert-complex-to-standard | filecheck %s

// abs: max * sqrt(1 + (min/max)^2), no overflow of x^2 + y^2; NaN (0/0, inf/inf) -> min.
// Fastmath flags parse and are ignored (the full formula).
func.func @abs(%z: complex<f32>) -> f32 {
  %r = complex.abs %z fastmath<nnan,ninf> : complex<f32>
  func.return %r : f32
}

// CHECK-LABEL: func.func @abs
// CHECK:         %[[X:.*]] = complex.re %z : complex<f32>
// CHECK-NEXT:    %[[Y:.*]] = complex.im %z : complex<f32>
// CHECK-NEXT:    %[[AX:.*]] = math.absf %[[X]] : f32
// CHECK-NEXT:    %[[AY:.*]] = math.absf %[[Y]] : f32
// CHECK-NEXT:    %[[HI:.*]] = arith.maximumf %[[AX]], %[[AY]] : f32
// CHECK-NEXT:    %[[LO:.*]] = arith.minimumf %[[AX]], %[[AY]] : f32
// CHECK-NEXT:    %[[Q:.*]] = arith.divf %[[LO]], %[[HI]] : f32
// CHECK-NEXT:    %[[Q2:.*]] = arith.mulf %[[Q]], %[[Q]] : f32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[Q2]], %[[ONE]] : f32
// CHECK-NEXT:    %[[RT:.*]] = math.sqrt %[[S]] : f32
// CHECK-NEXT:    %[[R:.*]] = arith.mulf %[[HI]], %[[RT]] : f32
// CHECK-NEXT:    %[[NAN:.*]] = arith.cmpf uno, %[[R]], %[[R]] : f32
// CHECK-NEXT:    %r = arith.select %[[NAN]], %[[LO]], %[[R]] : f32
// CHECK-NEXT:    func.return %r : f32

func.func @angle_conj_neg(%z: complex<f64>) -> (f64, complex<f64>, complex<f64>) {
  %a = complex.angle %z : complex<f64>
  %c = complex.conj %z : complex<f64>
  %n = complex.neg %z : complex<f64>
  func.return %a, %c, %n : f64, complex<f64>, complex<f64>
}

// CHECK-LABEL: func.func @angle_conj_neg
// CHECK:         %[[X:.*]] = complex.re %z : complex<f64>
// CHECK-NEXT:    %[[Y:.*]] = complex.im %z : complex<f64>
// CHECK-NEXT:    %a = math.atan2 %[[Y]], %[[X]] : f64
// CHECK:         %[[X2:.*]] = complex.re %z : complex<f64>
// CHECK-NEXT:    %[[Y2:.*]] = complex.im %z : complex<f64>
// CHECK-NEXT:    %[[NY:.*]] = arith.negf %[[Y2]] : f64
// CHECK-NEXT:    %c = complex.create %[[X2]], %[[NY]] : complex<f64>
// CHECK:         %[[X3:.*]] = complex.re %z : complex<f64>
// CHECK-NEXT:    %[[Y3:.*]] = complex.im %z : complex<f64>
// CHECK-NEXT:    %[[NX3:.*]] = arith.negf %[[X3]] : f64
// CHECK-NEXT:    %[[NY3:.*]] = arith.negf %[[Y3]] : f64
// CHECK-NEXT:    %n = complex.create %[[NX3]], %[[NY3]] : complex<f64>

// exp: e^x (cos y + i sin y)
func.func @exp(%z: complex<f64>) -> complex<f64> {
  %r = complex.exp %z : complex<f64>
  func.return %r : complex<f64>
}

// CHECK-LABEL: func.func @exp
// CHECK:         %[[X:.*]] = complex.re %z : complex<f64>
// CHECK-NEXT:    %[[Y:.*]] = complex.im %z : complex<f64>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[X]] : f64
// CHECK-NEXT:    %[[C:.*]] = math.cos %[[Y]] : f64
// CHECK-NEXT:    %[[RE:.*]] = arith.mulf %[[E]], %[[C]] : f64
// CHECK-NEXT:    %[[S:.*]] = math.sin %[[Y]] : f64
// CHECK-NEXT:    %[[IM:.*]] = arith.mulf %[[E]], %[[S]] : f64
// CHECK-NEXT:    %r = complex.create %[[RE]], %[[IM]] : complex<f64>
