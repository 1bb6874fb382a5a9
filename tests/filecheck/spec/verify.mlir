// RUN: xmux-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of the spec dialect.

func.func @no_default() {
  %0 = spec.get_scalar "x", @missing : i32
  func.return
}
// CHECK: spec.get_scalar "x": @missing is not a spec.specialization_id

// -----

spec.specialization_id @d = 1 : i32
func.func @type_mismatch() {
  %0 = spec.get_scalar "x", @d : i64
  func.return
}
// CHECK: spec.get_scalar "x": result type i64 differs from the type of @d (i32)

// -----

spec.specialization_id @d = [1 : i32, 2 : i32] : !llvm.struct<(i32, i32)>
func.func @scalar_of_composite() {
  %0 = spec.get_scalar "x", @d : !llvm.struct<(i32, i32)>
  func.return
}
// CHECK: spec.get_scalar "x": result must be a scalar type, got !llvm.struct<(i32, i32)>

// -----

spec.specialization_id @d = 1 : i32
func.func @composite_of_scalar() {
  %0 = spec.get_composite "x", @d : i32
  func.return
}
// CHECK: spec.get_composite "x": result must be a composite type, got i32

// -----

spec.specialization_id @d = [1 : i32] : !llvm.struct<(i32, f32)>
// CHECK: spec.specialization_id @d: value: !llvm.struct<(i32, f32)> has 2 elements, the default value has 1

// -----

spec.specialization_id @d = [1 : i32, 2 : i32] : !llvm.struct<(i32, f32)>
// CHECK: spec.specialization_id @d: value[1]: expected a f32 literal, got 2 : i32

// -----

spec.specialization_id @d = 3 : index
// CHECK: spec.specialization_id @d: index cannot be a specialization constant type

// -----

spec.specialization_id @d = dense<1> : vector<2x2xi32>
// CHECK: spec.specialization_id @d: vector<2x2xi32>: only 1-D fixed vectors are supported

// -----

spec.specialization_id @d = [] : !llvm.struct<()>
// CHECK: spec.specialization_id @d: an empty struct cannot be a specialization constant type

// -----

func.func @constant_type() {
  %0 = "spec.constant"() <{spec_id = 0 : i32, default_value = 1 : i64}> : () -> i32
  func.return
}
// CHECK: spec.constant spec_id(0): default 1 : i64 must be a literal of the result type i32

// -----

func.func @composite_types(%a: i32) {
  %0 = "spec.constant_composite"(%a, %a) : (i32, i32) -> !llvm.struct<(i32, f32)>
  func.return
}
// CHECK: spec.constant_composite: elements of types (i32, i32) do not match !llvm.struct<(i32, f32)>

// -----

func.func @composite_scalar(%a: i32) {
  %0 = "spec.constant_composite"(%a) : (i32) -> i32
  func.return
}
// CHECK: spec.constant_composite: result type i32 is not a composite

// -----

"spec.property"() <{symbolic_id = "p", constant_type = i32, descriptors = array<i64: 0, 0, 0>}> : () -> ()
// CHECK: spec.property "p": bad descriptor (0, 0, 0)

// -----

"spec.property"() <{symbolic_id = "p", constant_type = i32, descriptors = array<i64: 0, 0>}> : () -> ()
// CHECK: spec.property "p": descriptors must be i64 triples

// -----

// #spec.undef (an explicit padding member) only as a struct member, and not everywhere.
spec.specialization_id @undef_in_array = [1 : i8, #spec.undef] : !llvm.array<2 x i8>
// CHECK: spec.specialization_id @undef_in_array: value[1]: #spec.undef is only for struct members (explicit padding)

// -----

spec.specialization_id @all_undef = [#spec.undef] : !llvm.struct<(array<3 x i8>)>
// CHECK: spec.specialization_id @all_undef: value: a specialization constant needs a defined leaf

// -----

spec.specialization_id @packed_scalar = 1 : i32 packed
// CHECK: spec.specialization_id @packed_scalar: i32: only a struct can be packed
