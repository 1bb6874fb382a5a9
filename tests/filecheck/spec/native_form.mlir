// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// The native form: spec.constant leaves and spec.constant_composite of structs, arrays and
// vectors; the element types come from the result type.

// CHECK-LABEL: func.func @native
// CHECK-NEXT:    %0 = spec.constant spec_id(0) = 42 : i32
// CHECK-NEXT:    %1 = spec.constant spec_id(1) = 2.000000e+00 : f32
// CHECK-NEXT:    %2 = spec.constant spec_id(2) = true
// CHECK-NEXT:    %3 = spec.constant spec_id(3) = -1 : i64
// CHECK-NEXT:    %4 = spec.constant_composite %0, %1 : !llvm.struct<(i32, f32)>
// CHECK-NEXT:    %5 = spec.constant_composite %4, %4 : !llvm.array<2 x !llvm.struct<(i32, f32)>>
// CHECK-NEXT:    %6 = spec.constant_composite %0, %0 : vector<2xi32>
// CHECK-NEXT:    %7 = spec.constant_composite %5, %6 : !llvm.struct<(!llvm.array<2 x !llvm.struct<(i32, f32)>>, vector<2xi32>)>
// CHECK-NEXT:    func.return
// GENERIC:      "spec.constant"() <{spec_id = 0 : i32, default_value = 42 : i32}> : () -> i32
// GENERIC:      "spec.constant_composite"(%{{.*}}, %{{.*}}) : (i32, f32) -> !llvm.struct<(i32, f32)>
func.func @native() {
  %0 = spec.constant spec_id(0) = 42 : i32
  %1 = spec.constant spec_id(1) = 2.0 : f32
  %2 = spec.constant spec_id(2) = true
  %3 = spec.constant spec_id(3) = -1 : i64
  %4 = spec.constant_composite %0, %1 : !llvm.struct<(i32, f32)>
  %5 = spec.constant_composite %4, %4 : !llvm.array<2 x struct<(i32, f32)>>
  %6 = spec.constant_composite %0, %0 : vector<2xi32>
  %7 = spec.constant_composite %5, %6 : !llvm.struct<(array<2 x struct<(i32, f32)>>, vector<2xi32>)>
  func.return
}
