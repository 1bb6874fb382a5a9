// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | filecheck %s
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated padding=gaps}' | filecheck %s --check-prefix=GAPS
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native}' | filecheck %s --check-prefix=NATIVE

// Ported from sycl-post-link's composite-default-value-padding.ll (emulated) and
// composite-padding-desc.ll (native): TestStruct { int; char; } = {20, 'c'} then a bool =
// true. The struct's 3 bytes of tail padding are a descriptor and zeros in the blob, so the
// bool sits at offset 8: blob 14 00 00 00 63 00 00 00 01. sycl-post-link's emulated records
// would be (0, 0, 8) and (1, 0, 1); xmux keeps per-leaf records in both modes. Then a double
// after the bool: emulated, its 7 bytes of head padding are appended to the bool at offset 1
// (native packs: no padding, the double at 9).

spec.specialization_id @s = [20 : i32, 99 : i8] : !llvm.struct<(i32, i8)>
spec.specialization_id @b = true
spec.specialization_id @d = 0.5 : f64

// CHECK:      spec.property "9d329ad59055e972____ZL12StructSpecId" : !llvm.struct<(i32, i8)> = [(0, 0, 4), (1, 4, 1), (padding, 5, 3)]
// CHECK-NEXT: spec.property "9d329ad59055e972____ZL10BoolSpecId" : i1 = [(2, 0, 1), (padding, 1, 7)]
// CHECK-NEXT: spec.property "d" : f64 = [(3, 0, 8)]
// CHECK-NEXT: spec.default_values "0x14000000630000000100000000000000000000000000E03F"
// CHECK:      llvm.getelementptr %spec_buffer[8]
// CHECK:      llvm.getelementptr %spec_buffer[16]

// GAPS:      spec.property "9d329ad59055e972____ZL12StructSpecId" : !llvm.struct<(i32, i8)> = [(0, 0, 4), (1, 4, 1), (padding, 5, 3)]
// GAPS-NEXT: spec.property "9d329ad59055e972____ZL10BoolSpecId" : i1 = [(2, 0, 1), (padding, 1, 7)]

// NATIVE:      spec.property "9d329ad59055e972____ZL12StructSpecId" : !llvm.struct<(i32, i8)> = [(0, 0, 4), (1, 4, 1), (padding, 5, 3)]
// NATIVE-NEXT: spec.property "9d329ad59055e972____ZL10BoolSpecId" : i1 = [(2, 0, 1)]
// NATIVE-NEXT: spec.property "d" : f64 = [(3, 0, 8)]
// NATIVE-NEXT: spec.default_values "0x140000006300000001000000000000E03F"
func.func @k() attributes {mux.kernel = "entry_point"} {
  %0 = spec.get_composite "9d329ad59055e972____ZL12StructSpecId", @s : !llvm.struct<(i32, i8)>
  %1 = spec.get_scalar "9d329ad59055e972____ZL10BoolSpecId", @b : i1
  %2 = spec.get_scalar "d", @d : f64
  func.return
}
