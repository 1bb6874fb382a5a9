// RUN: not xmux-opt %s 2>&1 | filecheck %s
// A matrix type names its operand kind: "AOp", "BOp" or "COp".

gpu.module @m {
  gpu.func @k(%v: f32) kernel {
    %c = gpu.subgroup_mma_constant_matrix %v : !gpu.mma_matrix<16x16xf32, "DOp">
    gpu.return
  }
}
// CHECK: !gpu.mma_matrix operand must be "AOp", "BOp" or "COp", got "DOp"
