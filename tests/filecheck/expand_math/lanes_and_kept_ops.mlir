// RUN: xmux-opt %s -p 'expand-math{all=true}' | filecheck %s

// vectors: lane by lane (xDSL's arith.cmpf and sitofp take no vectors), each lane the
// scalar expansion, the lanes inserted into the operand's vector
func.func @tanh_v2(%v: vector<2xf32>) -> vector<2xf32> {
  %r = math.tanh %v : vector<2xf32>
  func.return %r : vector<2xf32>
}

// CHECK-LABEL: func.func @tanh_v2
// CHECK-NEXT:    %0 = vector.extract %v[0] : f32 from vector<2xf32>
// CHECK-NEXT:    %1 = arith.extf %0 : f32 to f64
// CHECK:         %[[L0:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT:    %[[V0:.*]] = vector.insert %[[L0]], %v [0] : f32 into vector<2xf32>
// CHECK-NEXT:    %{{.*}} = vector.extract %v[1] : f32 from vector<2xf32>
// CHECK:         %[[L1:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT:    %r = vector.insert %[[L1]], %[[V0]] [1] : f32 into vector<2xf32>
// CHECK-NEXT:    func.return %r : vector<2xf32>

// what every target computes exactly is left to convert-to-llvm (sqrt.rn, fma.rn, cvt.rmi...)
// and f64 rsqrt stays 1 / sqrt; f32 rsqrt is 1 / sqrt in f64, rounded once
func.func @kept(%x: f64, %y: f32, %i: i32) -> (f64, f64, f64, i32, f64, f32) {
  %a = math.sqrt %x : f64
  %b = math.fma %x, %x, %x : f64
  %c = math.floor %x : f64
  %d = math.ctlz %i : i32
  %e = math.rsqrt %x : f64
  %f = math.rsqrt %y : f32
  func.return %a, %b, %c, %d, %e, %f : f64, f64, f64, i32, f64, f32
}

// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %a = math.sqrt %x : f64
// CHECK-NEXT:    %b = math.fma %x, %x, %x : f64
// CHECK-NEXT:    %c = math.floor %x : f64
// CHECK-NEXT:    %d = math.ctlz %i : i32
// CHECK-NEXT:    %e = math.rsqrt %x : f64
// CHECK-NEXT:    %0 = arith.extf %y : f32 to f64
// CHECK-NEXT:    %1 = math.sqrt %0 : f64
// CHECK-NEXT:    %2 = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    %3 = arith.divf %2, %1 : f64
// CHECK-NEXT:    %f = arith.truncf %3 : f64 to f32
