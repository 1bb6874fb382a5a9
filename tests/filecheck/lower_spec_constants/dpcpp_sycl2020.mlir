// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | filecheck %s
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native}' | filecheck %s --check-prefix=NATIVE

// Ported from sycl-post-link's SYCL-2020.ll: half, int, three structs (ComposConst { int;
// double; myConst { int; float; } }, ComposConst2 { char; myConst; double; }, ComposConst3
// zero-initialised), sycl::vec<int, 2> (a struct around <2 x i32>) and marray<int, N> (structs
// around arrays). Repeated reads (id_half, id_compos) reuse their ids and offsets.
// Its facts: native descriptors (id_compos 2..5 at 0, 8, 16, 20; id_compos2 6..9 at 0, 4, 8,
// 16; id_vector 14, 15; id_marray 16, 17); emulated buffer offsets 0, 4, 0, 8, 32, 8, 56, 72,
// 80 for the reads in order, and the 2 bytes of padding after the half appended to it
// ("_ZTS..id_halfEE", 0, 0, 2, -1, 2, 2). Further: marray<int, 3> (12 bytes) then
// marray<int64_t, 3> (8-aligned): 4 bytes appended, offsets 88, 104, 128.

// CHECK:      spec.property "_ZTS14name_generatorIL_Z9id_halfEE" : f16 = [(0, 0, 2), (padding, 2, 2)]
// CHECK-NEXT: spec.property "_ZTS14name_generatorIL_Z6id_intEE" : i32 = [(1, 0, 4)]
// CHECK-NEXT: spec.property "_ZTS14name_generatorIL_Z9id_composEE" : {{.*}} = [(2, 0, 4), (3, 8, 8), (4, 16, 4), (5, 20, 4)]
// CHECK-NEXT: spec.property "_ZTS14name_generatorIL_Z10id_compos2EE" : {{.*}} = [(6, 0, 1), (7, 4, 4), (8, 8, 4), (9, 16, 8)]
// CHECK-NEXT: spec.property "_ZTS14name_generatorIL_Z10id_compos3EE" : {{.*}} = [(10, 0, 4), (11, 4, 4), (12, 8, 4), (13, 12, 4)]
// CHECK-NEXT: spec.property "_ZTS14name_generatorIL_Z10id_vectorEE" : {{.*}} = [(14, 0, 4), (15, 4, 4)]
// CHECK-NEXT: spec.property "_ZTS14name_generatorIL_Z10id_marrayEE" : {{.*}} = [(16, 0, 4), (17, 4, 4)]
// CHECK-NEXT: spec.property "_ZTS14name_generatorIL_Z10id_marray2EE" : {{.*}} = [(18, 0, 4), (19, 4, 4), (20, 8, 4), (padding, 12, 4)]
// CHECK-NEXT: spec.property "_ZTS14name_generatorIL_Z10id_marray3EE" : {{.*}} = [(21, 0, 8), (22, 8, 8), (23, 16, 8)]
// CHECK-NEXT: spec.property "_ZTS14name_generatorIL_Z10id_marray4EE" : {{.*}} = [(24, 0, 4), {{.*}}, (35, 44, 4)]
// half 2.0, 2 zero bytes, 42, ComposConst {1, _, 2.0, 13, 8.2}, ...
// CHECK-NEXT: spec.default_values "0x004000002A000000010000000000000000000000000000400D00000033330341
// CHECK-SAME: {{.*}}0100000000000000020000000000000003000000000000000100000002000000{{.*}}"
// CHECK-LABEL: func.func @_Z4testv
// CHECK:       llvm.getelementptr %spec_buffer[0]
// CHECK:       llvm.getelementptr %spec_buffer[4]
// CHECK:       llvm.getelementptr %spec_buffer[0]
// CHECK:       llvm.getelementptr %spec_buffer[8]
// CHECK:       llvm.getelementptr %spec_buffer[32]
// CHECK:       llvm.getelementptr %spec_buffer[8]
// CHECK:       llvm.getelementptr %spec_buffer[56]
// CHECK:       llvm.getelementptr %spec_buffer[72]
// CHECK:       llvm.getelementptr %spec_buffer[80]
// CHECK:       llvm.getelementptr %spec_buffer[88]
// CHECK:       llvm.getelementptr %spec_buffer[104]
// CHECK:       llvm.getelementptr %spec_buffer[128]

// Native: the same leaves, no padding between constants, the blob packed.
// NATIVE:      spec.property "_ZTS14name_generatorIL_Z9id_halfEE" : f16 = [(0, 0, 2)]
// NATIVE:      spec.property "_ZTS14name_generatorIL_Z10id_marray2EE" : {{.*}} = [(18, 0, 4), (19, 4, 4), (20, 8, 4)]
// NATIVE:      spec.default_values "0x00402A000000010000000000000000000000000000400D00000033330341
// NATIVE-LABEL: func.func @_Z4testv
// NATIVE:      spec.constant spec_id(0) = 2.000000e+00 : f16
// NATIVE:      spec.constant spec_id(1) = 42 : i32
// NATIVE:      spec.constant spec_id(0) = 2.000000e+00 : f16

spec.specialization_id @id_half = 2.0 : f16
spec.specialization_id @id_int = 42 : i32
spec.specialization_id @id_compos = [1 : i32, 2.0 : f64, [13 : i32, 8.2 : f32]] : !llvm.struct<(i32, f64, struct<(i32, f32)>)>
spec.specialization_id @id_compos2 = [1 : i8, [52 : i32, 47.2 : f32], 2.0 : f64] : !llvm.struct<(i8, struct<(i32, f32)>, f64)>
spec.specialization_id @id_compos3 = [0 : i32, 0 : i32, [0 : i32, 0.0 : f32]] : !llvm.struct<(i32, i32, struct<(i32, f32)>)>
spec.specialization_id @id_vector = [dense<[1, 2]> : vector<2xi32>] : !llvm.struct<(vector<2xi32>)>
spec.specialization_id @id_marray = [[1 : i32, 2 : i32]] : !llvm.struct<(array<2 x i32>)>
spec.specialization_id @id_marray2 = [[1 : i32, 2 : i32, 3 : i32]] : !llvm.struct<(array<3 x i32>)>
spec.specialization_id @id_marray3 = [[1 : i64, 2 : i64, 3 : i64]] : !llvm.struct<(array<3 x i64>)>
spec.specialization_id @id_marray4 = [[[[1 : i32, 2 : i32, 3 : i32], [1 : i32, 2 : i32, 3 : i32]], [[1 : i32, 2 : i32, 3 : i32], [1 : i32, 2 : i32, 3 : i32]]]] : !llvm.struct<(array<2 x array<2 x array<3 x i32>>>)>
func.func @_Z4testv() attributes {mux.kernel = "entry_point"} {
  %0 = spec.get_scalar "_ZTS14name_generatorIL_Z9id_halfEE", @id_half : f16
  %1 = spec.get_scalar "_ZTS14name_generatorIL_Z6id_intEE", @id_int : i32
  %2 = spec.get_scalar "_ZTS14name_generatorIL_Z9id_halfEE", @id_half : f16
  %3 = spec.get_composite "_ZTS14name_generatorIL_Z9id_composEE", @id_compos : !llvm.struct<(i32, f64, struct<(i32, f32)>)>
  %4 = spec.get_composite "_ZTS14name_generatorIL_Z10id_compos2EE", @id_compos2 : !llvm.struct<(i8, struct<(i32, f32)>, f64)>
  %5 = spec.get_composite "_ZTS14name_generatorIL_Z9id_composEE", @id_compos : !llvm.struct<(i32, f64, struct<(i32, f32)>)>
  %6 = spec.get_composite "_ZTS14name_generatorIL_Z10id_compos3EE", @id_compos3 : !llvm.struct<(i32, i32, struct<(i32, f32)>)>
  %7 = spec.get_composite "_ZTS14name_generatorIL_Z10id_vectorEE", @id_vector : !llvm.struct<(vector<2xi32>)>
  %8 = spec.get_composite "_ZTS14name_generatorIL_Z10id_marrayEE", @id_marray : !llvm.struct<(array<2 x i32>)>
  %9 = spec.get_composite "_ZTS14name_generatorIL_Z10id_marray2EE", @id_marray2 : !llvm.struct<(array<3 x i32>)>
  %10 = spec.get_composite "_ZTS14name_generatorIL_Z10id_marray3EE", @id_marray3 : !llvm.struct<(array<3 x i64>)>
  %11 = spec.get_composite "_ZTS14name_generatorIL_Z10id_marray4EE", @id_marray4 : !llvm.struct<(array<2 x array<2 x array<3 x i32>>>)>
  func.return
}
