// RUN: xmux-opt %s -p convert-gpu-to-mux,lower-subgroup-mma-nvptx | filecheck %s

// Each op is one WMMA intrinsic on the element pointer of its memref position; fragments
// travel as register vectors (A / B: 16 halves, f32 C: 8 floats), also through scf.for.

gpu.module @m {
  gpu.func @gemm(%A: memref<32x32xf16>, %B: memref<32x32xf16>, %C: memref<32x32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %f = arith.constant 0.000000e+00 : f32
    %z = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%c = %z) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %a = gpu.subgroup_mma_load_matrix %A[%c0, %k] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %b = gpu.subgroup_mma_load_matrix %B[%k, %c0] {leadDimension = 32 : index, transpose} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %d = gpu.subgroup_mma_compute %a, %b, %c {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %d : !gpu.mma_matrix<16x16xf32, "COp">
    }
    gpu.subgroup_mma_store_matrix %acc, %C[%c0, %c0] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>
    gpu.return
  }
}

// CHECK:      %z = vector.broadcast %f : f32 to vector<8xf32>
// CHECK-NEXT: %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%c = %z) -> (vector<8xf32>) {
// CHECK:        %[[LD:.*]] = arith.constant 32 : i32
// CHECK-NEXT:   %[[SA:.*]] = llvm.call_intrinsic "llvm.nvvm.wmma.m16n16k16.load.a.row.stride.f16.p0"(%{{.*}}, %[[LD]]) : (!llvm.ptr, i32) -> !llvm.struct<(vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>)>
// CHECK-COUNT-8: llvm.extractvalue %[[SA]][{{[0-7]}}]
// CHECK:        %a = vector.insert %{{.*}}, %{{.*}} [15] : f16 into vector<16xf16>
// CHECK:        llvm.call_intrinsic "llvm.nvvm.wmma.m16n16k16.load.b.col.stride.f16.p0"
// CHECK:        %[[SD:.*]] = llvm.call_intrinsic "llvm.nvvm.wmma.m16n16k16.mma.row.col.f32.f32"({{.*}}) : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK:        %d = vector.insert %{{.*}}, %{{.*}} [7] : f32 into vector<8xf32>
// CHECK-NEXT:   scf.yield %d : vector<8xf32>
// CHECK:      llvm.call_intrinsic "llvm.nvvm.wmma.m16n16k16.store.d.row.stride.f32.p0"({{.*}}) : (!llvm.ptr, f32, f32, f32, f32, f32, f32, f32, f32, i32) -> ()
// CHECK-NOT:  gpu.subgroup_mma
