// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// vector.splat / step / outerproduct / shape_cast (not in xDSL 0.74) as upstream prints them.

func.func @f(%x: f32, %v: vector<4xf32>, %w: vector<2xf32>) {
  %s = vector.splat %x : vector<4xf32>
  %i = vector.step : vector<4xindex>
  %o = vector.outerproduct %w, %v : vector<2xf32>, vector<4xf32>
  %y = vector.outerproduct %v, %x, %s {kind = #vector.kind<maxnumf>} : vector<4xf32>, f32
  %z = vector.outerproduct %v, %x, %s : vector<4xf32>, f32
  %f = vector.shape_cast %o : vector<2x4xf32> to vector<8xf32>
  return
}
// CHECK:      %s = vector.splat %x : vector<4xf32>
// CHECK-NEXT: %i = vector.step : vector<4xindex>
// CHECK-NEXT: %o = vector.outerproduct %w, %v : vector<2xf32>, vector<4xf32>
// CHECK-NEXT: %y = vector.outerproduct %v, %x, %s {kind = #vector.kind<maxnumf>} : vector<4xf32>, f32
// CHECK-NEXT: %z = vector.outerproduct %v, %x, %s : vector<4xf32>, f32
// CHECK-NEXT: %f = vector.shape_cast %o : vector<2x4xf32> to vector<8xf32>
