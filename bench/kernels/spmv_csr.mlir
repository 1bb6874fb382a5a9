// Sparse matrix (CSR) times dense vector, one row per work-item (kernels/transforms.cl:
// spmv_csr): y[i] = sum_{k=rowptr[i]}^{rowptr[i+1]-1} vals[k] * x[cols[k]], summed from 0.0
// in k order. The row loop's bounds are data (row lengths differ per work-item) and every
// iteration gathers from x.
func.func @spmv_csr(%rowptr: memref<?xi32>, %cols: memref<?xi32>, %vals: memref<?xf32>,
                    %x: memref<?xf32>, %y: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c1 = arith.constant 1 : index
  %i1 = arith.addi %i, %c1 : index
  %s32 = memref.load %rowptr[%i] : memref<?xi32>
  %e32 = memref.load %rowptr[%i1] : memref<?xi32>
  %s = arith.index_cast %s32 : i32 to index
  %e = arith.index_cast %e32 : i32 to index
  %zero = arith.constant 0.000000e+00 : f32
  %acc = scf.for %k = %s to %e step %c1 iter_args(%a = %zero) -> (f32) {
    %c32 = memref.load %cols[%k] : memref<?xi32>
    %c = arith.index_cast %c32 : i32 to index
    %v = memref.load %vals[%k] : memref<?xf32>
    %xv = memref.load %x[%c] : memref<?xf32>
    %t = arith.mulf %v, %xv : f32
    %b = arith.addf %a, %t : f32
    scf.yield %b : f32
  }
  memref.store %acc, %y[%i] : memref<?xf32>
  func.return
}
