// RUN: not xmux-opt %s -p lower-affine-upstream 2>&1 | filecheck %s
// Maps upstream's lower-affine refuses are errors naming the op, the map and the location,
// not tracebacks (issue 31).

func.func @floordiv_by_negative(%i: index) -> index {
  %r = affine.apply affine_map<(d0) -> (d0 floordiv -2)>(%i) loc("k.mlir":3:8)
  return %r : index
}
// CHECK: 'affine.apply' at loc("k.mlir":3:8) in @floordiv_by_negative: division by the non-positive value -2 in affine_map<(d0) -> ((d0 floordiv -2))> is not supported (as upstream's lower-affine)
