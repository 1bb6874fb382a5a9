// C = A * B for n x n row-major matrices, one output element per work-item, operands
// straight from global memory (kernels.cl: matmul_naive). Global id 0 is the column, so the
// innermost work-item loop runs along contiguous B and C rows. n is kept as an i32 argument
// to mirror the OpenCL signature; the memref shapes carry it too.
func.func @matmul_naive(%n: i32, %A: memref<?x?xf32>, %B: memref<?x?xf32>,
                        %C: memref<?x?xf32>) attributes {mux.kernel = "entry_point"} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = arith.index_cast %n : i32 to index
  %zero = arith.constant 0.000000e+00 : f32
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}
