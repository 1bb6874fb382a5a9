// RUN: not xmux-opt %s -p lower-subgroup-mma-nvptx 2>&1 | filecheck %s

// WMMA of f32 (tf32) or integer factors is not lowered: an error naming the op.

func.func @k(%A: memref<32x32xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %a = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {leadDimension = 32 : index} : memref<32x32xf32> -> !gpu.mma_matrix<16x16xf32, "AOp">
  func.return
}

// CHECK: lower-subgroup-mma-nvptx: 'gpu.subgroup_mma_load_matrix' in @k: !gpu.mma_matrix<16x16xf32, "AOp"> is not supported on NVPTX (f16 A and B, f16 or f32 accumulators)
