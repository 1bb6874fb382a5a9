// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// The warp-level matrix ops (dialects/gpu_mma.py) as mlir-opt prints them (its
// elementwise has two spaces before the kind; either reads).

gpu.module @m {
  gpu.func @k(%A: memref<32x32xf16>, %C: memref<32x32xf32>, %S: memref<64xf16, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %f = arith.constant 1.000000e+00 : f32
    %a = gpu.subgroup_mma_load_matrix %A[%c0, %c16] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %b = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {leadDimension = 32 : index, transpose} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %s = gpu.subgroup_mma_load_matrix %S[%c0] {leadDimension = 16 : index} : memref<64xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %c = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">
    %d = gpu.subgroup_mma_compute %a, %b, %c {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %e = gpu.subgroup_mma_elementwise  addf %d, %c : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    %n = gpu.subgroup_mma_elementwise negatef %e : (!gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %n, %C[%c0, %c0] {leadDimension = 32 : index, transpose} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>
    gpu.return
  }
}

// CHECK:      %a = gpu.subgroup_mma_load_matrix %A[%c0, %c16] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NEXT: %b = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {leadDimension = 32 : index, transpose} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-NEXT: %s = gpu.subgroup_mma_load_matrix %S[%c0] {leadDimension = 16 : index} : memref<64xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK-NEXT: %c = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">
// CHECK-NEXT: %d = gpu.subgroup_mma_compute %a, %b, %c {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK-NEXT: %e = gpu.subgroup_mma_elementwise addf %d, %c : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK-NEXT: %n = gpu.subgroup_mma_elementwise negatef %e : (!gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK-NEXT: gpu.subgroup_mma_store_matrix %n, %C[%c0, %c0] {leadDimension = 32 : index, transpose} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>

// GENERIC: "gpu.subgroup_mma_load_matrix"(%A, %c0, %c16) <{leadDimension = 32 : index}> : (memref<32x32xf16>, index, index) -> !gpu.mma_matrix<16x16xf16, "AOp">
// GENERIC: "gpu.subgroup_mma_compute"(%a, %b, %c) <{b_transpose}>
// GENERIC: "gpu.subgroup_mma_elementwise"(%d, %c) <{opType = #gpu<mma_element_wise addf>}>
