// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | filecheck %s
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native}' | filecheck %s --check-prefix=NATIVE
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated padding=gaps}' | filecheck %s --check-prefix=GAPS
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native padding=gaps}' | filecheck %s --check-prefix=GAPS

// Alignment and padding: middle padding ({char, double}), tail padding ({double, char}),
// both ({char, int, char}), a vector whose store size is less than its allocation
// (vector<3xf32>: 12 of 16 bytes), an array of padded structs, and head padding between
// constants.
//
// By default (padding=dpcpp) the records are sycl-post-link's: a padding descriptor only for a
// struct's tail padding (inner gaps follow from the offsets; a vector has none: it takes its
// store size, 12), and, in emulated mode only, the gap before the next constant appended to the
// previous one at its end with the blob aligned: offsets 0, 8, 24, 40, 64, 76, 84. Native
// sycl-post-link packs the blob without gaps.
//
// padding=gaps is xmux's self-describing form: a padding descriptor for every gap, in both
// modes; the descriptors tile the buffer: offsets 0, 8, 24, 40, 64, 80, 88.

spec.specialization_id @c = 7 : i8
spec.specialization_id @cd = [1 : i8, 2.0 : f64] : !llvm.struct<(i8, f64)>
spec.specialization_id @dc = [3.0 : f64, 4 : i8] : !llvm.struct<(f64, i8)>
spec.specialization_id @cic = [5 : i8, 6 : i32, 7 : i8] : !llvm.struct<(i8, i32, i8)>
spec.specialization_id @v3 = dense<1.0> : vector<3xf32>
spec.specialization_id @arr = [[1 : i16, 2 : i8], [3 : i16, 4 : i8]] : !llvm.array<2 x struct<(i16, i8)>>
spec.specialization_id @last = 9 : i8

// CHECK:      spec.property "c" : i8 = [(0, 0, 1), (padding, 1, 7)]
// CHECK-NEXT: spec.property "cd" : !llvm.struct<(i8, f64)> = [(1, 0, 1), (2, 8, 8)]
// CHECK-NEXT: spec.property "dc" : !llvm.struct<(f64, i8)> = [(3, 0, 8), (4, 8, 1), (padding, 9, 7)]
// CHECK-NEXT: spec.property "cic" : !llvm.struct<(i8, i32, i8)> = [(5, 0, 1), (6, 4, 4), (7, 8, 1), (padding, 9, 3), (padding, 12, 12)]
// CHECK-NEXT: spec.property "v3" : vector<3xf32> = [(8, 0, 4), (9, 4, 4), (10, 8, 4)]
// CHECK-NEXT: spec.property "arr" : !llvm.array<2 x !llvm.struct<(i16, i8)>> = [(11, 0, 2), (12, 2, 1), (padding, 3, 1), (13, 4, 2), (14, 6, 1), (padding, 7, 1)]
// CHECK-NEXT: spec.property "last" : i8 = [(15, 0, 1)]
// CHECK-NEXT: spec.default_values "0x070000000000000001000000000000000000000000000040000000000000084004000000000000000500000006000000070000000000000000000000000000000000803F0000803F0000803F010002000300040009"

// NATIVE:      spec.property "c" : i8 = [(0, 0, 1)]
// NATIVE-NEXT: spec.property "cd" : !llvm.struct<(i8, f64)> = [(1, 0, 1), (2, 8, 8)]
// NATIVE-NEXT: spec.property "dc" : !llvm.struct<(f64, i8)> = [(3, 0, 8), (4, 8, 1), (padding, 9, 7)]
// NATIVE-NEXT: spec.property "cic" : !llvm.struct<(i8, i32, i8)> = [(5, 0, 1), (6, 4, 4), (7, 8, 1), (padding, 9, 3)]
// NATIVE-NEXT: spec.property "v3" : vector<3xf32> = [(8, 0, 4), (9, 4, 4), (10, 8, 4)]
// NATIVE-NEXT: spec.property "arr" : !llvm.array<2 x !llvm.struct<(i16, i8)>> = [(11, 0, 2), (12, 2, 1), (padding, 3, 1), (13, 4, 2), (14, 6, 1), (padding, 7, 1)]
// NATIVE-NEXT: spec.property "last" : i8 = [(15, 0, 1)]
// NATIVE-NEXT: spec.default_values "0x0701000000000000000000000000000040000000000000084004000000000000000500000006000000070000000000803F0000803F0000803F010002000300040009"

// GAPS:      spec.property "c" : i8 = [(0, 0, 1), (padding, 1, 7)]
// GAPS-NEXT: spec.property "cd" : !llvm.struct<(i8, f64)> = [(1, 0, 1), (padding, 1, 7), (2, 8, 8)]
// GAPS-NEXT: spec.property "dc" : !llvm.struct<(f64, i8)> = [(3, 0, 8), (4, 8, 1), (padding, 9, 7)]
// GAPS-NEXT: spec.property "cic" : !llvm.struct<(i8, i32, i8)> = [(5, 0, 1), (padding, 1, 3), (6, 4, 4), (7, 8, 1), (padding, 9, 3), (padding, 12, 12)]
// GAPS-NEXT: spec.property "v3" : vector<3xf32> = [(8, 0, 4), (9, 4, 4), (10, 8, 4), (padding, 12, 4)]
// GAPS-NEXT: spec.property "arr" : !llvm.array<2 x !llvm.struct<(i16, i8)>> = [(11, 0, 2), (12, 2, 1), (padding, 3, 1), (13, 4, 2), (14, 6, 1), (padding, 7, 1)]
// GAPS-NEXT: spec.property "last" : i8 = [(15, 0, 1)]
// GAPS-NEXT: spec.default_values "0x070000000000000001000000000000000000000000000040000000000000084004000000000000000500000006000000070000000000000000000000000000000000803F0000803F0000803F00000000010002000300040009"


// CHECK-LABEL: func.func @k(%spec_buffer: !llvm.ptr)
// CHECK-NEXT:    llvm.getelementptr %spec_buffer[0]
// CHECK-NEXT:    llvm.load %{{.*}} {spec.buffer_load, alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    llvm.getelementptr %spec_buffer[8]
// CHECK-NEXT:    llvm.load %{{.*}} {spec.buffer_load, alignment = 8 : i64} : !llvm.ptr -> !llvm.struct<(i8, f64)>
// CHECK-NEXT:    llvm.getelementptr %spec_buffer[24]
// CHECK-NEXT:    llvm.load %{{.*}} {spec.buffer_load, alignment = 8 : i64} : !llvm.ptr -> !llvm.struct<(f64, i8)>
// CHECK-NEXT:    llvm.getelementptr %spec_buffer[40]
// CHECK-NEXT:    llvm.load %{{.*}} {spec.buffer_load, alignment = 4 : i64} : !llvm.ptr -> !llvm.struct<(i8, i32, i8)>
// CHECK-NEXT:    llvm.getelementptr %spec_buffer[64]
// CHECK-NEXT:    llvm.load %{{.*}} {spec.buffer_load, alignment = 16 : i64} : !llvm.ptr -> vector<3xf32>
// CHECK-NEXT:    llvm.getelementptr %spec_buffer[76]
// CHECK-NEXT:    llvm.load %{{.*}} {spec.buffer_load, alignment = 2 : i64} : !llvm.ptr -> !llvm.array<2 x !llvm.struct<(i16, i8)>>
// CHECK-NEXT:    llvm.getelementptr %spec_buffer[84]
// CHECK-NEXT:    llvm.load %{{.*}} {spec.buffer_load, alignment = 1 : i64} : !llvm.ptr -> i8
func.func @k() attributes {mux.kernel = "entry_point"} {
  %0 = spec.get_scalar "c", @c : i8
  %1 = spec.get_composite "cd", @cd : !llvm.struct<(i8, f64)>
  %2 = spec.get_composite "dc", @dc : !llvm.struct<(f64, i8)>
  %3 = spec.get_composite "cic", @cic : !llvm.struct<(i8, i32, i8)>
  %4 = spec.get_composite "v3", @v3 : vector<3xf32>
  %5 = spec.get_composite "arr", @arr : !llvm.array<2 x struct<(i16, i8)>>
  %6 = spec.get_scalar "last", @last : i8
  func.return
}
