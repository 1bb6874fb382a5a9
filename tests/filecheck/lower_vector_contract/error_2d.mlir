// RUN: not xmux-opt %s -p lower-vector-contract 2>&1 | filecheck %s
// n-D vectors reach no lowering in xmux: a matmul-shaped contract is an error naming the op.

func.func @mm(%a: vector<2x3xf32>, %b: vector<3x4xf32>, %c: vector<2x4xf32>) -> vector<2x4xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<2x3xf32>, vector<3x4xf32> into vector<2x4xf32>
  return %r : vector<2x4xf32>
}
// CHECK: error: lower-vector-contract: 'vector.contract' in @mm: vector<2x3xf32>, vector<3x4xf32> into vector<2x4xf32>: only the 1-D dot product is lowered (n-D vectors reach no lowering in xmux)
