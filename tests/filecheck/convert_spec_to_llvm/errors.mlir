// RUN: not xmux-opt %s -p 'convert-spec-to-llvm' 2>&1 | filecheck %s --check-prefix=MARKER
// RUN: not xmux-opt %s -p 'lower-spec-constants,convert-spec-to-llvm{values="0=x"}' 2>&1 | filecheck %s --check-prefix=BADINT
// RUN: not xmux-opt %s -p 'lower-spec-constants,convert-spec-to-llvm{values="0"}' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not xmux-opt %s -p 'lower-spec-constants,convert-spec-to-llvm{values="5=1"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not xmux-opt %s -p 'lower-spec-constants,convert-spec-to-llvm{values="1=2"}' 2>&1 | filecheck %s --check-prefix=BADBOOL

// MARKER: error: convert-spec-to-llvm: spec.get_scalar "n" is not lowered; run lower-spec-constants first
// BADINT: error: convert-spec-to-llvm: value 'x' for spec_id(0) is not a i32
// SYNTAX: error: convert-spec-to-llvm: bad values entry '0' (expected numeric-id=value)
// UNKNOWN: error: convert-spec-to-llvm: no spec.constant with spec_id 5 in the module
// BADBOOL: error: convert-spec-to-llvm: value '2' for spec_id(1) is not a i1

spec.specialization_id @n = 1 : i32
spec.specialization_id @b = false
func.func @k() {
  %x = spec.get_scalar "n", @n : i32
  %y = spec.get_scalar "b", @b : i1
  func.return
}
