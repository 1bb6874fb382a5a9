// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// The property-set records: descriptors (padding leaves spelled `padding`, id 0xFFFFFFFF)
// and the default-value blob as a hex string.

// CHECK:      spec.property "id_int" : i32 = [(0, 0, 4)]
// CHECK-NEXT: spec.property "id_s" : !llvm.struct<(i8, f64)> = [(1, 0, 1), (padding, 1, 7), (2, 8, 8)]
// CHECK-NEXT: spec.default_values "0x2A000000000000000100000000000000000000000000F03F"
// GENERIC:      "spec.property"() <{symbolic_id = "id_s", constant_type = !llvm.struct<(i8, f64)>, descriptors = array<i64: 1, 0, 1, 4294967295, 1, 7, 2, 8, 8>}> : () -> ()
// GENERIC-NEXT: "spec.default_values"() <{values = array<i8: 42, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -16, 63>}> : () -> ()
spec.property "id_int" : i32 = [(0, 0, 4)]
spec.property "id_s" : !llvm.struct<(i8, f64)> = [(1, 0, 1), (padding, 1, 7), (2, 8, 8)]
spec.default_values "0x2a000000000000000100000000000000000000000000f03f"
