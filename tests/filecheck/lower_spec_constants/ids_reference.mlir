// RUN: xmux-opt %s -p 'lower-spec-constants' | filecheck %s
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | filecheck %s

// The reference's id assignment (section 1): a scalar gets one id, a composite one per scalar
// leaf (nested structs flattened depth first); ids in order of first use; a repeated use
// reuses them. The records are the same in both modes.

// CHECK:      spec.property "id_int" : i32 = [(0, 0, 4)]
// CHECK-NEXT: spec.property "id_A" : !llvm.struct<(i32, !llvm.struct<(f32, f32)>)> = [(1, 0, 4), (2, 4, 4), (3, 8, 4)]
// CHECK-NEXT: spec.default_values "0x{{[0-9A-F]+}}"
// CHECK-NOT:  spec.specialization_id
// CHECK-NOT:  spec.get_

spec.specialization_id @id_int = 0 : i32
spec.specialization_id @id_A = [0 : i32, [0.0 : f32, 0.0 : f32]] : !llvm.struct<(i32, struct<(f32, f32)>)>

// CHECK-LABEL: func.func @k
// CHECK-SAME:  spec.used_constants = ["id_int", "id_A"]
func.func @k() attributes {mux.kernel = "entry_point"} {
  %0 = spec.get_scalar "id_int", @id_int : i32
  %1 = spec.get_composite "id_A", @id_A : !llvm.struct<(i32, struct<(f32, f32)>)>
  %2 = spec.get_scalar "id_int", @id_int : i32
  %3 = spec.get_composite "id_A", @id_A : !llvm.struct<(i32, struct<(f32, f32)>)>
  func.return
}
