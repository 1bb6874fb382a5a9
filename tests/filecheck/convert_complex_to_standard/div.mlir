// RUN: xmux-opt %s -p convert-complex-to-standard | filecheck %s

// Smith's algorithm: the ratio of the smaller to the larger part of the divisor (no c^2 + d^2),
// both branches computed and selected by |c| >= |d|; then C99 Annex G's infinities and zeros
// where that gives NaN + NaN i.
func.func @div(%a: complex<f32>, %b: complex<f32>) -> complex<f32> {
  %r = complex.div %a, %b : complex<f32>
  func.return %r : complex<f32>
}

// CHECK-LABEL: func.func @div
// CHECK:         %[[A:.*]] = complex.re %a : complex<f32>
// CHECK-NEXT:    %[[B:.*]] = complex.im %a : complex<f32>
// CHECK-NEXT:    %[[C:.*]] = complex.re %b : complex<f32>
// CHECK-NEXT:    %[[D:.*]] = complex.im %b : complex<f32>
// CHECK-NEXT:    %[[AC:.*]] = math.absf %[[C]] : f32
// CHECK-NEXT:    %[[AD:.*]] = math.absf %[[D]] : f32
// CHECK-NEXT:    %[[T1:.*]] = arith.divf %[[D]], %[[C]] : f32
// CHECK-NEXT:    %[[DT1:.*]] = arith.mulf %[[D]], %[[T1]] : f32
// CHECK-NEXT:    %[[DEN1:.*]] = arith.addf %[[C]], %[[DT1]] : f32
// CHECK:         %[[RE1:.*]] = arith.divf %{{.*}}, %[[DEN1]] : f32
// CHECK:         %[[IM1:.*]] = arith.divf %{{.*}}, %[[DEN1]] : f32
// CHECK-NEXT:    %[[T2:.*]] = arith.divf %[[C]], %[[D]] : f32
// CHECK:         %[[RE2:.*]] = arith.divf
// CHECK:         %[[IM2:.*]] = arith.divf
// CHECK-NEXT:    %[[BIG:.*]] = arith.cmpf oge, %[[AC]], %[[AD]] : f32
// CHECK-NEXT:    %[[RE:.*]] = arith.select %[[BIG]], %[[RE1]], %[[RE2]] : f32
// CHECK-NEXT:    %[[IM:.*]] = arith.select %[[BIG]], %[[IM1]], %[[IM2]] : f32
// CHECK:         %[[INF:.*]] = arith.constant 0x7f800000 : f32
// CHECK:         math.copysign %[[INF]], %[[C]] : f32
// CHECK:         %[[NRE:.*]] = arith.cmpf uno, %[[RE]], %[[RE]] : f32
// CHECK-NEXT:    %[[NIM:.*]] = arith.cmpf uno, %[[IM]], %[[IM]] : f32
// CHECK-NEXT:    %[[BOTH:.*]] = arith.andi %[[NRE]], %[[NIM]] : i1
// CHECK:         %[[FRE:.*]] = arith.select %[[BOTH]], %{{.*}}, %[[RE]] : f32
// CHECK-NEXT:    %[[FIM:.*]] = arith.select %[[BOTH]], %{{.*}}, %[[IM]] : f32
// CHECK-NEXT:    %r = complex.create %[[FRE]], %[[FIM]] : complex<f32>
