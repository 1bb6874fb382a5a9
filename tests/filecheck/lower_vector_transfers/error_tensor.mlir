// RUN: not xmux-opt %s -p lower-vector-transfers 2>&1 | filecheck %s
// A tensor source (not bufferized) is an error naming the op and its function.

func.func @tensor(%t: tensor<8xf32>, %i: index, %pad: f32) -> vector<4xf32> {
  %v = vector.transfer_read %t[%i], %pad : tensor<8xf32>, vector<4xf32>
  return %v : vector<4xf32>
}
// CHECK: lower-vector-transfers: 'vector.transfer_read' in @tensor: only memref sources are supported (bufferize first), got tensor<8xf32>
