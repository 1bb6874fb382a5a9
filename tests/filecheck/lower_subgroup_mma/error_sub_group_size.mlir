// RUN: not xmux-opt %s -p lower-subgroup-mma 2>&1 | filecheck %s

// A matrix is spread over 32 lanes: a kernel requiring other sub-groups is refused.

func.func @k(%f: f32) attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 16 : i64} {
  %z = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">
  func.return
}

// CHECK: lower-subgroup-mma: 'gpu.subgroup_mma_constant_matrix' in @k: needs sub-groups of 32, the kernel's is 16
