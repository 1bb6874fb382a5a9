// RUN: not xmux-opt %s -p 'lower-spec-constants{mode=emulated}' 2>&1 | filecheck %s

// One symbolic id with two default values.

spec.specialization_id @a = 1 : i32
spec.specialization_id @b = 2 : i32
func.func @k() {
  %0 = spec.get_scalar "id", @a : i32
  %1 = spec.get_scalar "id", @b : i32
  func.return
}
// CHECK: error: spec.get_scalar "id": default @b here but @a before
