// RUN: xmux-opt %s -p convert-gpu-to-mux,lower-subgroup-mma | filecheck %s

// A K loop of computes: each fragment lives in a private 8-element buffer per work-item (lane
// l: row l / 2, columns 8 * (l % 2) ..), the loop-carried accumulator in one buffer that the
// init and the yield copy into (the loop keeps no fragment iter_args); compute stores A and B
// pieces into the sub-group's rows of the scratch, waits, combines, waits.

gpu.module @m {
  gpu.func @gemm(%A: memref<32x32xf16>, %B: memref<32x32xf16>, %C: memref<32x32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %f = arith.constant 0.000000e+00 : f32
    %z = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%c = %z) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %a = gpu.subgroup_mma_load_matrix %A[%c0, %k] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %b = gpu.subgroup_mma_load_matrix %B[%k, %c0] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %d = gpu.subgroup_mma_compute %a, %b, %c : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %d : !gpu.mma_matrix<16x16xf32, "COp">
    }
    gpu.subgroup_mma_store_matrix %acc, %C[%c0, %c0] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>
    gpu.return
  }
}

// CHECK:      memref.global "private" @__xmux_mma_scratch_f16 : memref<1024x16xf16, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK:      func.func @gemm({{.*}}) attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 32 : i64, mux.max_work_group_size = 1024 : i64} {
// CHECK-NEXT:   %[[D:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:   %[[B:.*]] = memref.alloca() : memref<8xf16>
// CHECK-NEXT:   %[[A:.*]] = memref.alloca() : memref<8xf16>
// CHECK-NEXT:   %[[ACC:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:   %[[Z:.*]] = memref.alloca() : memref<8xf32>
// CHECK:        %[[SPLAT:.*]] = vector.broadcast %f : f32 to vector<8xf32>
// CHECK:        vector.store %[[SPLAT]], %[[Z]][%{{.*}}] : memref<8xf32>, vector<8xf32>
// CHECK:        %[[INIT:.*]] = vector.load %[[Z]][%{{.*}}] : memref<8xf32>, vector<8xf32>
// CHECK-NEXT:   vector.store %[[INIT]], %[[ACC]][%{{.*}}] : memref<8xf32>, vector<8xf32>
// CHECK-NEXT:   scf.for %k = %c0 to %c32 step %c16 {
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> f16
// CHECK:          %[[AV:.*]] = vector.insert %{{.*}}, %{{.*}} [7] : f16 into vector<8xf16>
// CHECK:          vector.store %[[AV]], %[[A]][%{{.*}}] : memref<8xf16>, vector<8xf16>
// CHECK:          %[[S:.*]] = memref.get_global @__xmux_mma_scratch_f16 : memref<1024x16xf16, 3 : i64>
// CHECK:          %[[AP:.*]] = vector.load %[[A]][%[[C0:.*]]] : memref<8xf16>, vector<8xf16>
// CHECK-NEXT:     vector.store %[[AP]], %[[S]][%[[LID:.*]], %[[C0]]] : memref<1024x16xf16, 3 : i64>, vector<8xf16>
// CHECK-NEXT:     %[[BP:.*]] = vector.load %[[B]][%[[C0]]] : memref<8xf16>, vector<8xf16>
// CHECK-NEXT:     vector.store %[[BP]], %[[S]][%[[LID]], %{{.*}}] : memref<1024x16xf16, 3 : i64>, vector<8xf16>
// CHECK-NEXT:     mux.work_group_barrier work_group, <acq_rel, work_group_memory> {mux.sub_group_scope}
// CHECK:          %[[C:.*]] = vector.load %[[ACC]][%{{.*}}] : memref<8xf32>, vector<8xf32>
// CHECK-COUNT-16: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:          %[[R:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NEXT:     vector.store %[[R]], %[[D]][%{{.*}}] : memref<8xf32>, vector<8xf32>
// CHECK-NEXT:     mux.work_group_barrier work_group, <acq_rel, work_group_memory> {mux.sub_group_scope}
// CHECK:          %[[Y:.*]] = vector.load %[[D]][%{{.*}}] : memref<8xf32>, vector<8xf32>
// CHECK-NEXT:     vector.store %[[Y]], %[[ACC]][%{{.*}}] : memref<8xf32>, vector<8xf32>
// CHECK-NEXT:   }
// CHECK:        %[[OUT:.*]] = vector.load %[[ACC]][%{{.*}}] : memref<8xf32>, vector<8xf32>
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NOT:    gpu.subgroup_mma
