// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native}' | filecheck %s

// Ported from sycl-post-link's SYCL-2020-zeroinitializer-array-of-arrays.ll:
// coeff_id = std::array<std::array<float, 3>, 3> zero-initialised (ids 0..8),
// coeff_id2 = {{0, 0, 0}, {0, 1, 2}, {4.1, 5.1, 6.2}} (ids 9..17) and
// coeff_id3 = coeff_str_t { std::array<float, 3>; int64_t } zero-initialised (ids 18..21; the
// 4-byte gap before the i64 follows from its offset 16, no tail padding). One
// spec.constant_composite per std::array level. The blob: 36 + 36 + 24 bytes, packed.

spec.specialization_id @coeff_id = [[[[0.0 : f32, 0.0 : f32, 0.0 : f32]], [[0.0 : f32, 0.0 : f32, 0.0 : f32]], [[0.0 : f32, 0.0 : f32, 0.0 : f32]]]] : !llvm.struct<(array<3 x struct<(array<3 x f32>)>>)>
spec.specialization_id @coeff_id2 = [[[[0.0 : f32, 0.0 : f32, 0.0 : f32]], [[0.0 : f32, 1.0 : f32, 2.0 : f32]], [[4.1 : f32, 5.1 : f32, 6.2 : f32]]]] : !llvm.struct<(array<3 x struct<(array<3 x f32>)>>)>
spec.specialization_id @coeff_id3 = [[[0.0 : f32, 0.0 : f32, 0.0 : f32]], 0 : i64] : !llvm.struct<(struct<(array<3 x f32>)>, i64)>

// CHECK:      spec.property "9f47062a80eecfa7____ZL8coeff_id" : {{.*}} = [(0, 0, 4), (1, 4, 4), (2, 8, 4), (3, 12, 4), (4, 16, 4), (5, 20, 4), (6, 24, 4), (7, 28, 4), (8, 32, 4)]
// CHECK-NEXT: spec.property "405761736d5a1797____ZL9coeff_id2" : {{.*}} = [(9, 0, 4), (10, 4, 4), (11, 8, 4), (12, 12, 4), (13, 16, 4), (14, 20, 4), (15, 24, 4), (16, 28, 4), (17, 32, 4)]
// CHECK-NEXT: spec.property "6da74a122db9f35d____ZL9coeff_id3" : {{.*}} = [(18, 0, 4), (19, 4, 4), (20, 8, 4), (21, 16, 8)]
// CHECK-NEXT: spec.default_values "0x000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000803F00000040333383403333A3406666C640000000000000000000000000000000000000000000000000"
// CHECK-LABEL: func.func @k
// CHECK:         %[[L0:.*]] = spec.constant_composite %{{.*}}, %{{.*}}, %{{.*}} : !llvm.array<3 x f32>
// CHECK-NEXT:    spec.constant_composite %[[L0]] : !llvm.struct<(!llvm.array<3 x f32>)>
func.func @k() attributes {mux.kernel = "entry_point"} {
  %0 = spec.get_composite "9f47062a80eecfa7____ZL8coeff_id", @coeff_id : !llvm.struct<(array<3 x struct<(array<3 x f32>)>>)>
  %1 = spec.get_composite "405761736d5a1797____ZL9coeff_id2", @coeff_id2 : !llvm.struct<(array<3 x struct<(array<3 x f32>)>>)>
  %2 = spec.get_composite "6da74a122db9f35d____ZL9coeff_id3", @coeff_id3 : !llvm.struct<(struct<(array<3 x f32>)>, i64)>
  func.return
}
