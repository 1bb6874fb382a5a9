// RUN: xmux-opt %s -p gpu-launch-outlining | filecheck %s

// A constant grid size beyond i32 (legal: the sizes are index values) gets no known-size hint
// (upstream's known_grid_size is an i32 array); the block size, which fits, keeps its own.

// CHECK:      %[[BIG:.*]] = arith.constant 4294967296 : index
// CHECK:      gpu.launch_func @main_kernel::@main_kernel blocks in (%[[BIG]], %{{.*}}, %{{.*}})
// CHECK:      gpu.func @main_kernel() kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
func.func @main() {
  %c1 = arith.constant 1 : index
  %big = arith.constant 4294967296 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %big, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  func.return
}
