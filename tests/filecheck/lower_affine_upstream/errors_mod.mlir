// RUN: not xmux-opt %s -p lower-affine-upstream 2>&1 | filecheck %s
// A modulus of 0 in a loop bound: named with the op and its location.

func.func @mod_zero(%n: index) {
  affine.for %i = 0 to affine_map<(d0) -> (d0 mod 0)>(%n) {
  } loc("k.mlir":7:3)
  return
}
// CHECK: 'affine.for' at loc("k.mlir":7:3) in @mod_zero: modulo by the non-positive value 0 in affine_map<(d0) -> ((d0 mod 0))> is not supported (as upstream's lower-affine)

// RUN: not xmux-run %S/inputs/mod_negative_main.mlir 2>&1 | filecheck %s --check-prefix=CLI
// xmux-run (no location without --debug): the op, its function and the map, no traceback
// CLI: 'affine.apply' in @main: modulo by the non-positive value -2 in affine_map<(d0) -> ((d0 mod -2))>
