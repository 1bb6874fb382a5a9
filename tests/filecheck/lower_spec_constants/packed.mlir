// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | filecheck %s
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native}' | filecheck %s --check-prefix=NATIVE
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | xmux-opt | filecheck %s --check-prefix=ROUND

// A packed struct (C's __attribute__((packed)) struct { char c; int i; short s; }, LLVM's
// <{ i8, i32, i16 }>): `packed` after the type on spec.specialization_id (the value is the
// ordinary !llvm.struct; the packing is its memory layout). Fields back to back (offsets 0,
// 1, 5), size 7, alignment 1, no tail padding descriptor. Emulated, the value is loaded leaf
// by leaf (unaligned) and put together; the double after it is 8-aligned (one byte of padding
// appended); native, it follows at 7.

spec.specialization_id @p = [1 : i8, 2 : i32, 3 : i16] : !llvm.struct<(i8, i32, i16)> packed
spec.specialization_id @d = 0.5 : f64

// CHECK:      spec.property "P" : !llvm.struct<(i8, i32, i16)> packed = [(0, 0, 1), (1, 1, 4), (2, 5, 2), (padding, 7, 1)]
// CHECK-NEXT: spec.property "D" : f64 = [(3, 0, 8)]
// CHECK-NEXT: spec.default_values "0x0102000000030000000000000000E03F"
// CHECK:      %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i8, i32, i16)>
// CHECK-NEXT: llvm.getelementptr %spec_buffer[0]
// CHECK-NEXT: %[[C:.*]] = llvm.load %{{.*}} {spec.buffer_load, alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT: %[[V0:.*]] = llvm.insertvalue %[[C]], %[[U]][0]
// CHECK-NEXT: llvm.getelementptr %spec_buffer[1]
// CHECK-NEXT: %[[I:.*]] = llvm.load %{{.*}} {spec.buffer_load, alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK-NEXT: %[[V1:.*]] = llvm.insertvalue %[[I]], %[[V0]][1]
// CHECK-NEXT: llvm.getelementptr %spec_buffer[5]
// CHECK-NEXT: %[[S:.*]] = llvm.load %{{.*}} {spec.buffer_load, alignment = 1 : i64} : !llvm.ptr -> i16
// CHECK-NEXT: %v = llvm.insertvalue %[[S]], %[[V1]][2]
// CHECK-NEXT: llvm.getelementptr %spec_buffer[8]
// CHECK-NEXT: %x = llvm.load %{{.*}} {spec.buffer_load, alignment = 8 : i64} : !llvm.ptr -> f64

// NATIVE:      spec.property "P" : !llvm.struct<(i8, i32, i16)> packed = [(0, 0, 1), (1, 1, 4), (2, 5, 2)]
// NATIVE-NEXT: spec.property "D" : f64 = [(3, 0, 8)]
// NATIVE-NEXT: spec.default_values "0x01020000000300000000000000E03F"

// ROUND: spec.property "P" : !llvm.struct<(i8, i32, i16)> packed = [(0, 0, 1), (1, 1, 4), (2, 5, 2), (padding, 7, 1)]
func.func @k() -> (!llvm.struct<(i8, i32, i16)>, f64) attributes {mux.kernel = "entry_point"} {
  %v = spec.get_composite "P", @p : !llvm.struct<(i8, i32, i16)>
  %x = spec.get_scalar "D", @d : f64
  func.return %v, %x : !llvm.struct<(i8, i32, i16)>, f64
}
