// RUN: not xmux-opt %s -p lower-vector-transfers 2>&1 | filecheck %s
// n-D vectors reach no lowering: a 2-D transfer is an error naming the op.

func.func @two_d(%m: memref<4x8xf32>, %i: index, %pad: f32) -> vector<2x4xf32> {
  %v = vector.transfer_read %m[%i, %i], %pad : memref<4x8xf32>, vector<2x4xf32>
  return %v : vector<2x4xf32>
}
// CHECK: lower-vector-transfers: 'vector.transfer_read' in @two_d: only 1-D fixed vectors are supported, got vector<2x4xf32>
