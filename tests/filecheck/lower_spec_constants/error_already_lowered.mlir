// RUN: not xmux-opt %s -p 'lower-spec-constants' 2>&1 | filecheck %s

// Records of an earlier run and new markers: ids would clash.

spec.property "old" : i32 = [(0, 0, 4)]
spec.default_values "0x01000000"
spec.specialization_id @a = 1 : i32
func.func @k() {
  %0 = spec.get_scalar "new", @a : i32
  func.return
}
// CHECK: error: lower-spec-constants: the module already has specialization-constant records (spec.property / spec.default_values) and new markers (spec.get_scalar "new")
