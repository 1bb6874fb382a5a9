// RUN: xmux-opt %s -p convert-complex-to-standard | filecheck %s
// RUN: xmux-opt %s -p convert-complex-to-standard | not grep -E "complex\.(abs|angle|atan2|bitcast|conj|div|exp|expm1|log|log1p|neg|pow|rsqrt|sign|sin|cos|sqrt|tan|tanh) "

// Every function of the dialect goes; add/mul/eq (convert-to-llvm has them) stay.
func.func @f(%a: complex<f32>, %b: complex<f32>) -> complex<f32> {
  %0 = complex.atan2 %a, %b : complex<f32>
  %1 = complex.pow %0, %b : complex<f32>
  %2 = complex.expm1 %1 : complex<f32>
  %3 = complex.log1p %2 : complex<f32>
  %4 = complex.rsqrt %3 : complex<f32>
  %5 = complex.sign %4 : complex<f32>
  %6 = complex.sin %5 : complex<f32>
  %7 = complex.cos %6 : complex<f32>
  %8 = complex.tan %7 : complex<f32>
  %9 = complex.tanh %8 : complex<f32>
  %10 = complex.log %9 : complex<f32>
  %11 = complex.sqrt %10 : complex<f32>
  %12 = complex.add %11, %a : complex<f32>
  func.return %12 : complex<f32>
}

// CHECK-LABEL: func.func @f
// CHECK:         math.atan2
// CHECK:         math.powf
// CHECK:         math.expm1
// CHECK:         math.fma
// CHECK:         math.log1p
// CHECK:         math.rsqrt
// CHECK:         %{{.*}} = complex.add %{{.*}}, %a : complex<f32>
