// Sparse matrix (ELLPACK, column-major: entry k of row i at k*n + i) times dense vector, one
// row per work-item (kernels/transforms.cl: spmv_ell): a small loop with uniform bounds (K, a
// kernel argument) around a gather, y[i] = sum_{k<K} vals[k*n+i] * x[cols[k*n+i]], summed
// from 0.0 in k order; n = the length of y.
func.func @spmv_ell(%K: i32, %cols: memref<?xi32>, %vals: memref<?xf32>, %x: memref<?xf32>,
                    %y: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %y, %c0 : memref<?xf32>
  %kk = arith.index_cast %K : i32 to index
  %zero = arith.constant 0.000000e+00 : f32
  %acc = scf.for %k = %c0 to %kk step %c1 iter_args(%a = %zero) -> (f32) {
    %kn = arith.muli %k, %n : index
    %j = arith.addi %kn, %i : index
    %c32 = memref.load %cols[%j] : memref<?xi32>
    %c = arith.index_cast %c32 : i32 to index
    %v = memref.load %vals[%j] : memref<?xf32>
    %xv = memref.load %x[%c] : memref<?xf32>
    %t = arith.mulf %v, %xv : f32
    %b = arith.addf %a, %t : f32
    scf.yield %b : f32
  }
  memref.store %acc, %y[%i] : memref<?xf32>
  func.return
}
