// RUN: xmux-opt %s | filecheck %s
// vector.contract reads and prints in upstream's custom syntax (iterator types as strings,
// the kind always printed; docs/coverage.md checks that mlir-opt-19 reads it back).

func.func @mm(%a: vector<2x3xf32>, %b: vector<3x4xf32>, %c: vector<2x4xf32>) -> vector<2x4xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} %a, %b, %c : vector<2x3xf32>, vector<3x4xf32> into vector<2x4xf32>
  return %r : vector<2x4xf32>
}
// CHECK: vector.contract {indexing_maps = [{{.*}}], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %{{.*}}, %{{.*}}, %{{.*}} : vector<2x3xf32>, vector<3x4xf32> into vector<2x4xf32>
