// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native}' | filecheck %s

// The reference's %struct.POD example (section 2.1): %struct.POD = { [2 x %struct.A],
// <2 x i32> }, %struct.A = { i32, float }. Leaves get ids 1..6 depth first (the reference's
// listing repeats id 4 and spells the vector node __spirv_SpecConstant: typos); one
// spec.constant_composite per composite, the outermost included. Native sycl-post-link appends
// no padding for the gap before the 8-aligned POD (that is emulated mode's); the blob is packed.

spec.specialization_id @gold_scalar_default = 42 : i32
spec.specialization_id @gold_default = [[[1 : i32, 2.0 : f32], [2 : i32, 3.0 : f32]], dense<44> : vector<2xi32>] : !llvm.struct<(array<2 x struct<(i32, f32)>>, vector<2xi32>)>

// CHECK:      spec.property "gold_scalar_identifier" : i32 = [(0, 0, 4)]
// CHECK-NEXT: spec.property "gold_identifier" : !llvm.struct<(!llvm.array<2 x !llvm.struct<(i32, f32)>>, vector<2xi32>)> = [(1, 0, 4), (2, 4, 4), (3, 8, 4), (4, 12, 4), (5, 16, 4), (6, 20, 4)]
// CHECK-NEXT: spec.default_values "0x2A000000010000000000004002000000000040402C0000002C000000"

// CHECK-LABEL: func.func @k
// CHECK-NEXT:    %gold_scalar = spec.constant spec_id(0) = 42 : i32
// CHECK-NEXT:    %[[A0X:.*]] = spec.constant spec_id(1) = 1 : i32
// CHECK-NEXT:    %[[A0Y:.*]] = spec.constant spec_id(2) = 2.000000e+00 : f32
// CHECK-NEXT:    %[[A0:.*]] = spec.constant_composite %[[A0X]], %[[A0Y]] : !llvm.struct<(i32, f32)>
// CHECK-NEXT:    %[[A1X:.*]] = spec.constant spec_id(3) = 2 : i32
// CHECK-NEXT:    %[[A1Y:.*]] = spec.constant spec_id(4) = 3.000000e+00 : f32
// CHECK-NEXT:    %[[A1:.*]] = spec.constant_composite %[[A1X]], %[[A1Y]] : !llvm.struct<(i32, f32)>
// CHECK-NEXT:    %[[A:.*]] = spec.constant_composite %[[A0]], %[[A1]] : !llvm.array<2 x !llvm.struct<(i32, f32)>>
// CHECK-NEXT:    %[[B0:.*]] = spec.constant spec_id(5) = 44 : i32
// CHECK-NEXT:    %[[B1:.*]] = spec.constant spec_id(6) = 44 : i32
// CHECK-NEXT:    %[[B:.*]] = spec.constant_composite %[[B0]], %[[B1]] : vector<2xi32>
// CHECK-NEXT:    %gold = spec.constant_composite %[[A]], %[[B]] : !llvm.struct<(!llvm.array<2 x !llvm.struct<(i32, f32)>>, vector<2xi32>)>
// CHECK-NEXT:    func.return %gold_scalar, %gold
func.func @k() -> (i32, !llvm.struct<(array<2 x struct<(i32, f32)>>, vector<2xi32>)>) {
  %gold_scalar = spec.get_scalar "gold_scalar_identifier", @gold_scalar_default : i32
  %gold = spec.get_composite "gold_identifier", @gold_default : !llvm.struct<(array<2 x struct<(i32, f32)>>, vector<2xi32>)>
  func.return %gold_scalar, %gold : i32, !llvm.struct<(array<2 x struct<(i32, f32)>>, vector<2xi32>)>
}
