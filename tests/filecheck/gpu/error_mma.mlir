// RUN: xmux-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s
// The verifiers of the matrix ops name the op, its function and the rule.

gpu.module @m {
  gpu.func @k(%A: memref<32x32xf16>) kernel {
    %c0 = arith.constant 0 : index
    %a = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %c = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "COp">
    %d = gpu.subgroup_mma_compute %a, %a, %c : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp"> -> !gpu.mma_matrix<16x16xf16, "COp">
    gpu.return
  }
}
// CHECK: 'gpu.subgroup_mma_compute' in @k: operands must be "AOp", "BOp", "COp", got "AOp", "AOp", "COp"

// -----

gpu.module @m {
  gpu.func @k(%A: memref<32x32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %a = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {leadDimension = 32 : index} : memref<32x32xf32> -> !gpu.mma_matrix<16x16xf16, "AOp">
    gpu.return
  }
}
// CHECK: 'gpu.subgroup_mma_load_matrix' in @k: memref element type f32 differs from the matrix's f16

// -----

gpu.module @m {
  gpu.func @k(%A: memref<32x32xf16>) kernel {
    %c0 = arith.constant 0 : index
    %a = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    gpu.subgroup_mma_store_matrix %a, %A[%c0, %c0] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf16, "AOp">, memref<32x32xf16>
    gpu.return
  }
}
// CHECK: 'gpu.subgroup_mma_store_matrix' in @k: stores "COp" matrices, got "AOp"

// -----

gpu.module @m {
  gpu.func @k(%v: f32) kernel {
    %c = gpu.subgroup_mma_constant_matrix %v : !gpu.mma_matrix<16x16xf32, "COp">
    %e = gpu.subgroup_mma_elementwise negatef %c, %c : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.return
  }
}
// CHECK: 'gpu.subgroup_mma_elementwise' in @k: negatef takes 1 operands, got 2
