// RUN: not xmux-opt %s -p lower-vector-transfers 2>&1 | filecheck %s
// A 2-D outer product that something other than vector.shape_cast to 1-D reads.

func.func @outer(%a: vector<2xf32>, %b: vector<3xf32>) -> vector<2x3xf32> {
  %o = vector.outerproduct %a, %b : vector<2xf32>, vector<3xf32>
  return %o : vector<2x3xf32>
}
// CHECK: lower-vector-transfers: 'vector.outerproduct' in @outer: a 2-D outer product is supported only flattened
