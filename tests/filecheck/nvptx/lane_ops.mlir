// RUN: env XMUX_NVPTX_ARCH=sm_90 xmux-run --target nvptx --emit ptx %s | filecheck %s

// The newer lane ops on NVPTX, through the mux sub-group ops: gpu.rotate and
// gpu.subgroup_broadcast are shfl.sync.idx over the warp's live lanes;
// gpu.warp_execute_on_lane_0 stores the distributed slices to a shared buffer row per warp,
// bar.warp.sync, lane 0 runs the region, bar.warp.sync, every lane loads its slice (a block
// of 64 threads: two rows of 32 floats).

// CHECK:       .shared .align 16 .b8 __gpu_warp_0_0[256];
// CHECK:       .shared .align 16 .b8 __gpu_warp_0_1[256];
// CHECK:       shfl.sync.idx.b32
// CHECK:       shfl.sync.idx.b32
// CHECK:       st.shared.b32
// CHECK:       bar.warp.sync
// CHECK:       ld.shared
// CHECK:       bar.warp.sync
// CHECK:       ld.shared.b32
func.func @main() {
  %out = memref.alloc() : memref<64xf32>
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %f = arith.sitofp %t : i32 to f32
    %r, %ok = gpu.rotate %f, 3, 16 : f32
    %b = gpu.subgroup_broadcast %r, first_active_lane : f32
    %v = vector.broadcast %b : f32 to vector<1xf32>
    %lane = gpu.lane_id
    %w = gpu.warp_execute_on_lane_0(%lane)[32] args(%v : vector<1xf32>) -> (vector<1xf32>) {
    ^bb0(%all: vector<32xf32>):
      %two = arith.addf %all, %all : vector<32xf32>
      gpu.yield %two : vector<32xf32>
    }
    %e = vector.extract %w[0] : f32 from vector<1xf32>
    memref.store %e, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
