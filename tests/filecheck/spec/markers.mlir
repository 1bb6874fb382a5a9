// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Default values (scalar, nested struct, array, vector as dense or list, i1) and the two
// markers, with and without the runtime-buffer operand.

// CHECK:      spec.specialization_id @id_int = 42 : i32
// CHECK-NEXT: spec.specialization_id @id_A = [1 : i32, [3.000000e+00 : f32, 4.000000e+00 : f32]] : !llvm.struct<(i32, !llvm.struct<(f32, f32)>)>
// CHECK-NEXT: spec.specialization_id @id_arr = [1 : i8, 2 : i8, 3 : i8] : !llvm.array<3 x i8>
// CHECK-NEXT: spec.specialization_id @id_vec = dense<[5.000000e+00, 6.000000e+00]> : vector<2xf32>
// CHECK-NEXT: spec.specialization_id @id_vec2 = [7 : i16, 8 : i16] : vector<2xi16>
// CHECK-NEXT: spec.specialization_id @id_flag = true
// CHECK-NEXT: spec.specialization_id @id_h = 1.500000e+00 : f16
spec.specialization_id @id_int = 42 : i32
spec.specialization_id @id_A = [1 : i32, [3.0 : f32, 4.0 : f32]] : !llvm.struct<(i32, struct<(f32, f32)>)>
spec.specialization_id @id_arr = [1 : i8, 2 : i8, 3 : i8] : !llvm.array<3 x i8>
spec.specialization_id @id_vec = dense<[5.0, 6.0]> : vector<2xf32>
spec.specialization_id @id_vec2 = [7 : i16, 8 : i16] : vector<2xi16>
spec.specialization_id @id_flag = true
spec.specialization_id @id_h = 1.5 : f16

// CHECK-LABEL: func.func @k(%buf: !llvm.ptr)
// CHECK-NEXT:    %x = spec.get_scalar "id_int", @id_int : i32
// CHECK-NEXT:    %y = spec.get_scalar "id_int", @id_int, %buf : i32
// CHECK-NEXT:    %a = spec.get_composite "id_A", @id_A : !llvm.struct<(i32, !llvm.struct<(f32, f32)>)>
// CHECK-NEXT:    %b = spec.get_composite "id_A", @id_A, %buf : !llvm.struct<(i32, !llvm.struct<(f32, f32)>)>
// CHECK-NEXT:    %v = spec.get_composite "vec", @id_vec : vector<2xf32>
// CHECK-NEXT:    %f = spec.get_scalar "flag", @id_flag : i1
// CHECK-NEXT:    func.return
// GENERIC:      "spec.specialization_id"() <{sym_name = "id_int", value = 42 : i32, constant_type = i32}> : () -> ()
// GENERIC:      "spec.get_scalar"() <{symbolic_id = "id_int", default_value = @id_int}> : () -> i32
// GENERIC-NEXT: "spec.get_scalar"(%{{.*}}) <{symbolic_id = "id_int", default_value = @id_int}> : (!llvm.ptr) -> i32
func.func @k(%buf: !llvm.ptr) {
  %x = spec.get_scalar "id_int", @id_int : i32
  %y = spec.get_scalar "id_int", @id_int, %buf : i32
  %a = spec.get_composite "id_A", @id_A : !llvm.struct<(i32, struct<(f32, f32)>)>
  %b = spec.get_composite "id_A", @id_A, %buf : !llvm.struct<(i32, struct<(f32, f32)>)>
  %v = spec.get_composite "vec", @id_vec : vector<2xf32>
  %f = spec.get_scalar "flag", @id_flag : i1
  func.return
}
