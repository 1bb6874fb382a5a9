// RUN: xmux-opt %s -p 'attach-target{triple=nvptx64-nvidia-cuda chip=sm_90 features="+ptx80" vector-bits=0 vector-registers=0},expand-math' | filecheck %s
// RUN: xmux-opt %s -p 'expand-math{all=true}' | filecheck %s

// A GPU target (no C math library), or all=true on any: f32 is the f64 algorithm on the widened operand, one rounding at the end; exp is
// Cody-Waite by ln 2 (roundeven, exact fma), a Taylor polynomial in fma steps, and the
// scaling by 2^k built from its exponent bits in two halves (subnormal results round once).

func.func @exp_f32(%x: f32) -> f32 {
  %r = math.exp %x : f32
  func.return %r : f32
}

// CHECK-LABEL: func.func @exp_f32(%x: f32) -> f32 {
// CHECK-NEXT:    %0 = arith.extf %x : f32 to f64
// CHECK:         %{{.*}} = arith.constant 1.4426950408889634 : f64
// CHECK:         %[[K:.*]] = math.roundeven %{{.*}} : f64
// CHECK-NEXT:    %[[NK:.*]] = arith.negf %[[K]] : f64
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 0.69314718060195446 : f64
// CHECK-NEXT:    %{{.*}} = math.fma %[[NK]], %[[HI]], %{{.*}} : f64
// CHECK:         %{{.*}} = arith.constant 0.16666666666666666 : f64
// CHECK:         %[[KI:.*]] = arith.fptosi %[[K]] : f64 to i64
// CHECK:         %{{.*}} = arith.shrsi %[[KI]], %{{.*}} : i64
// CHECK:         %{{.*}} = arith.shli %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    %{{.*}} = arith.bitcast %{{.*}} : i64 to f64
// CHECK:         %[[R:.*]] = arith.select %{{.*}}, %0, %{{.*}} : f64
// CHECK-NEXT:    %r = arith.truncf %[[R]] : f64 to f32
// CHECK-NEXT:    func.return %r : f32

// f64 stays f64; no math function is left, and no libm call will be
func.func @funcs_f64(%x: f64, %y: f64) -> (f64, f64, f64, f64) {
  %a = math.sin %x : f64
  %b = math.powf %x, %y : f64
  %c = math.atan2 %x, %y : f64
  %d = math.erf %x : f64
  func.return %a, %b, %c, %d : f64, f64, f64, f64
}

// CHECK-LABEL: func.func @funcs_f64
// CHECK-NOT:     math.sin
// CHECK-NOT:     math.powf
// CHECK-NOT:     math.atan2
// CHECK-NOT:     math.erf
// CHECK-NOT:     arith.extf
// CHECK:         func.return
