// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s

// The C++ layout forms: an explicit padding member (#spec.undef default), a packed struct
// (on the default and on its record), vec<bool, N> as vector<Nxi1>; custom and generic forms
// re-parse to the same ops.

// CHECK: spec.specialization_id @al = [3.140000e+00 : f32, 8 : i8, 42 : i32, #spec.undef] : !llvm.struct<(f32, i8, i32, !llvm.array<20 x i8>)>
// CHECK: spec.specialization_id @pk = [1 : i8, 2 : i32] : !llvm.struct<(i8, i32)> packed
// CHECK: spec.specialization_id @vb = [true, false] : vector<2xi1>
// CHECK: spec.property "pk" : !llvm.struct<(i8, i32)> packed = [(5, 0, 1), (6, 1, 4)]
spec.specialization_id @al = [3.14 : f32, 8 : i8, 42 : i32, #spec.undef] : !llvm.struct<(f32, i8, i32, array<20 x i8>)>
spec.specialization_id @pk = [1 : i8, 2 : i32] : !llvm.struct<(i8, i32)> packed
spec.specialization_id @vb = [true, false] : vector<2xi1>
spec.property "pk" : !llvm.struct<(i8, i32)> packed = [(5, 0, 1), (6, 1, 4)]
