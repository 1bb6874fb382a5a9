// REQUIRES: host-runs-target
// RUN: xmux-run %s | filecheck %s
// RUN: xmux-run --interpret %s | filecheck %s
// linalg.matmul 7x9 * 9x6 as mlir-opt-19 leaves it after --convert-linalg-to-affine-loops
// --affine-super-vectorize="virtual-vector-size=4 test-fastest-varying=0" (a broadcast map, tails
// past the 6 columns: masked loads and stores). The CHECK lines are what mlir-cpu-runner-19
// prints for upstream's own lowering (--lower-affine --convert-vector-to-scf ... convert-to-llvm).

#map = affine_map<(d0, d1) -> (0)>
module {
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @mm(%arg0: memref<7x9xf32>, %arg1: memref<9x6xf32>, %arg2: memref<7x6xf32>) {
    affine.for %arg3 = 0 to 7 {
      affine.for %arg4 = 0 to 6 step 4 {
        affine.for %arg5 = 0 to 9 {
          %cst = arith.constant 0.000000e+00 : f32
          %0 = vector.transfer_read %arg0[%arg3, %arg5], %cst {in_bounds = [true], permutation_map = #map} : memref<7x9xf32>, vector<4xf32>
          %cst_0 = arith.constant 0.000000e+00 : f32
          %1 = vector.transfer_read %arg1[%arg5, %arg4], %cst_0 : memref<9x6xf32>, vector<4xf32>
          %cst_1 = arith.constant 0.000000e+00 : f32
          %2 = vector.transfer_read %arg2[%arg3, %arg4], %cst_1 : memref<7x6xf32>, vector<4xf32>
          %3 = arith.mulf %0, %1 : vector<4xf32>
          %4 = arith.addf %2, %3 : vector<4xf32>
          vector.transfer_write %4, %arg2[%arg3, %arg4] : vector<4xf32>, memref<7x6xf32>
        }
      }
    }
    return
  }
  func.func @main() {
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c9 = arith.constant 9 : index
    %cst = arith.constant 5.000000e-01 : f32
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %alloc = memref.alloc() : memref<7x9xf32>
    %alloc_0 = memref.alloc() : memref<9x6xf32>
    %alloc_1 = memref.alloc() : memref<7x6xf32>
    affine.for %arg0 = 0 to 7 {
      affine.for %arg1 = 0 to 6 step 4 {
        %cst_2 = arith.constant dense<5.000000e-01> : vector<4xf32>
        vector.transfer_write %cst_2, %alloc_1[%arg0, %arg1] : vector<4xf32>, memref<7x6xf32>
      }
    }
    scf.for %arg0 = %c0 to %c9 step %c1 {
      scf.for %arg1 = %c0 to %c9 step %c1 {
        %0 = arith.index_cast %arg0 : index to i32
        %1 = arith.index_cast %arg1 : index to i32
        %2 = arith.muli %0, %1 : i32
        %3 = arith.sitofp %2 : i32 to f32
        %4 = arith.cmpi ult, %arg0, %c7 : index
        %5 = arith.cmpi ult, %arg1, %c6 : index
        scf.if %4 {
          memref.store %3, %alloc[%arg0, %arg1] : memref<7x9xf32>
        }
        scf.if %5 {
          memref.store %3, %alloc_0[%arg0, %arg1] : memref<9x6xf32>
        }
      }
    }
    call @mm(%alloc, %alloc_0, %alloc_1) : (memref<7x9xf32>, memref<9x6xf32>, memref<7x6xf32>) -> ()
    %cast = memref.cast %alloc_1 : memref<7x6xf32> to memref<*xf32>
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    return
  }
}


// CHECK:      sizes = [7, 6] strides = [6, 1] data =
// CHECK-NEXT: {{\[}}{{\[}}0.5,   0.5,   0.5,   0.5,   0.5,   0.5],
// CHECK-NEXT:  {{\[}}0.5,   204.5,   408.5,   612.5,   816.5,   1020.5],
// CHECK-NEXT:  {{\[}}0.5,   408.5,   816.5,   1224.5,   1632.5,   2040.5],
// CHECK-NEXT:  {{\[}}0.5,   612.5,   1224.5,   1836.5,   2448.5,   3060.5],
// CHECK-NEXT:  {{\[}}0.5,   816.5,   1632.5,   2448.5,   3264.5,   4080.5],
// CHECK-NEXT:  {{\[}}0.5,   1020.5,   2040.5,   3060.5,   4080.5,   5100.5],
// CHECK-NEXT:  {{\[}}0.5,   1224.5,   2448.5,   3672.5,   4896.5,   6120.5]]
