// RUN: not xmux-opt %s -p 'lower-spec-constants' 2>&1 | filecheck %s

// One symbolic id read with two types (the default symbol differs too: the type is checked
// first).

spec.specialization_id @a = 1 : i32
spec.specialization_id @b = 1 : i64
func.func @k() {
  %0 = spec.get_scalar "id", @a : i32
  %1 = spec.get_scalar "id", @b : i64
  func.return
}
// CHECK: error: spec.get_scalar "id": read as i64 here but as i32 before
