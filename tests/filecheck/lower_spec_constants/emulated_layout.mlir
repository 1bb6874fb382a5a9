// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | filecheck %s
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native}' | filecheck %s --check-prefix=BLOB

// The reference's buffer-layout example (section 2.2) with the constructed defaults of its
// default-value example (section 3): id_int = 42, id_A = A(1, 2.0, 3.0) = {1, {3.0, 4.0}},
// id_Nested = Nested(4.0, 5.0) = {5.0, 6.0}. Offsets 0 / 4 / 16; the blob is exactly the
// bytes of [42, 1, 3.0, 4.0, 5.0, 6.0] (i32, i32, then f32s), in both modes.

spec.specialization_id @id_int = 42 : i32
spec.specialization_id @id_A = [1 : i32, [3.0 : f32, 4.0 : f32]] : !llvm.struct<(i32, struct<(f32, f32)>)>
spec.specialization_id @id_Nested = [5.0 : f32, 6.0 : f32] : !llvm.struct<(f32, f32)>

// CHECK:      spec.property "id_int" : i32 = [(0, 0, 4)]
// CHECK-NEXT: spec.property "id_A" : !llvm.struct<(i32, !llvm.struct<(f32, f32)>)> = [(1, 0, 4), (2, 4, 4), (3, 8, 4)]
// CHECK-NEXT: spec.property "id_Nested" : !llvm.struct<(f32, f32)> = [(4, 0, 4), (5, 4, 4)]
// CHECK-NEXT: spec.default_values "0x2A0000000100000000004040000080400000A0400000C040"
// BLOB:       spec.default_values "0x2A0000000100000000004040000080400000A0400000C040"

// CHECK-LABEL: func.func @k(%spec_buffer: !llvm.ptr)
// CHECK-SAME:    spec.buffer_arg = 0 : i64
// CHECK-NEXT:    %0 = llvm.getelementptr %spec_buffer[0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %x = llvm.load %0 {spec.buffer_load, alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:    %1 = llvm.getelementptr %spec_buffer[4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %a = llvm.load %1 {spec.buffer_load, alignment = 4 : i64} : !llvm.ptr -> !llvm.struct<(i32, !llvm.struct<(f32, f32)>)>
// CHECK-NEXT:    %2 = llvm.getelementptr %spec_buffer[16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    %n = llvm.load %2 {spec.buffer_load, alignment = 4 : i64} : !llvm.ptr -> !llvm.struct<(f32, f32)>
// CHECK-NEXT:    func.return
func.func @k() attributes {mux.kernel = "entry_point"} {
  %x = spec.get_scalar "id_int", @id_int : i32
  %a = spec.get_composite "id_A", @id_A : !llvm.struct<(i32, struct<(f32, f32)>)>
  %n = spec.get_composite "id_Nested", @id_Nested : !llvm.struct<(f32, f32)>
  func.return
}
