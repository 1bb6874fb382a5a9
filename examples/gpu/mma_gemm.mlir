// RUN: xmux-run %s | filecheck %s
// Tensor-core ops as upstream's vector-to-gpu clients write them: one warp computes
// D = 2 * (A B + 1) for A 16x32, B 32x16 (f16, small integers: every sum exact), K in two
// steps carried by scf.for, B read transposed from Bt = B^T (row j of Bt is column j of B).
// A[i][k] = (i + k) mod 5 - 2, B[k][j] = (3k + j) mod 7 - 3; expected rows from numpy.

// CHECK:      {{\[\[}}2,   -4,   -10,   12,   6,   0,   8,   2,   -4,   -10,   12,   6,   0,   8,   2,   -4],
// CHECK-NEXT:  [10,   8,   20,   -10,   -12,   -14,   12,   10,   8,   20,   -10,   -12,   -14,   12,   10,   8],
// CHECK-NEXT:  [-12,   -10,   20,   8,   10,   12,   -14,   -12,   -10,   20,   8,   10,   12,   -14,   -12,   -10],
// CHECK-NEXT:  [6,   12,   -10,   -4,   2,   8,   0,   6,   12,   -10,   -4,   2,   8,   0,   6,   12],
// CHECK-NEXT:  [4,   4,   -10,   4,   4,   4,   4,   4,   4,   -10,   4,   4,   4,   4,   4,   4],
// CHECK-NEXT:  [2,   -4,   -10,   12,   6,   0,   8,   2,   -4,   -10,   12,   6,   0,   8,   2,   -4],
// CHECK-NEXT:  [10,   8,   20,   -10,   -12,   -14,   12,   10,   8,   20,   -10,   -12,   -14,   12,   10,   8],
// CHECK-NEXT:  [-12,   -10,   20,   8,   10,   12,   -14,   -12,   -10,   20,   8,   10,   12,   -14,   -12,   -10],
// CHECK-NEXT:  [6,   12,   -10,   -4,   2,   8,   0,   6,   12,   -10,   -4,   2,   8,   0,   6,   12],
// CHECK-NEXT:  [4,   4,   -10,   4,   4,   4,   4,   4,   4,   -10,   4,   4,   4,   4,   4,   4],
// CHECK-NEXT:  [2,   -4,   -10,   12,   6,   0,   8,   2,   -4,   -10,   12,   6,   0,   8,   2,   -4],
// CHECK-NEXT:  [10,   8,   20,   -10,   -12,   -14,   12,   10,   8,   20,   -10,   -12,   -14,   12,   10,   8],
// CHECK-NEXT:  [-12,   -10,   20,   8,   10,   12,   -14,   -12,   -10,   20,   8,   10,   12,   -14,   -12,   -10],
// CHECK-NEXT:  [6,   12,   -10,   -4,   2,   8,   0,   6,   12,   -10,   -4,   2,   8,   0,   6,   12],
// CHECK-NEXT:  [4,   4,   -10,   4,   4,   4,   4,   4,   4,   -10,   4,   4,   4,   4,   4,   4],
// CHECK-NEXT:  [2,   -4,   -10,   12,   6,   0,   8,   2,   -4,   -10,   12,   6,   0,   8,   2,   -4{{\]\]}}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %i2 = arith.constant 2 : index
  %A = memref.alloc() : memref<16x32xf16>
  %Bt = memref.alloc() : memref<16x32xf16>
  %D = memref.alloc() : memref<16x16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %k = %c0 to %c32 step %c1 {
      %s = arith.addi %i, %k : index
      %m = arith.remui %s, %c5 : index
      %a = arith.subi %m, %i2 : index
      %ai = arith.index_cast %a : index to i32
      %af = arith.sitofp %ai : i32 to f16
      memref.store %af, %A[%i, %k] : memref<16x32xf16>
      %k3 = arith.muli %k, %c3 : index
      %t = arith.addi %k3, %i : index
      %tm = arith.remui %t, %c7 : index
      %b = arith.subi %tm, %c3 : index
      %bi = arith.index_cast %b : index to i32
      %bf = arith.sitofp %bi : i32 to f16
      memref.store %bf, %Bt[%i, %k] : memref<16x32xf16>
    }
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %one = arith.constant 1.000000e+00 : f32
    %two = arith.constant 2.000000e+00 : f32
    %z = gpu.subgroup_mma_constant_matrix %one : !gpu.mma_matrix<16x16xf32, "COp">
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%c = %z) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %a = gpu.subgroup_mma_load_matrix %A[%c0, %k] {leadDimension = 32 : index} : memref<16x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %b = gpu.subgroup_mma_load_matrix %Bt[%c0, %k] {leadDimension = 32 : index, transpose} : memref<16x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %d = gpu.subgroup_mma_compute %a, %b, %c {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %d : !gpu.mma_matrix<16x16xf32, "COp">
    }
    %t = gpu.subgroup_mma_constant_matrix %two : !gpu.mma_matrix<16x16xf32, "COp">
    %r = gpu.subgroup_mma_elementwise mulf %acc, %t : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %r, %D[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.terminator
  }
  %all = memref.cast %D : memref<16x16xf32> to memref<*xf32>
  call @printMemrefF32(%all) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
