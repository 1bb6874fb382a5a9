// 256-bin histogram of bytes with one global atomic per work-item, as users write it in
// OpenCL (bench/kernels/histogram.cl: histogram_global):
//   bins[data[gid]] += 1  with  atomic_inc(&bins[data[gid]])
// `bins` accumulates across launches (the caller zeroes it); counts wrap modulo 2^32.
func.func @histogram(%data: memref<?xi8>, %bins: memref<256xi32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %b = memref.load %data[%i] : memref<?xi8>
  %b32 = arith.extui %b : i8 to i32
  %bin = arith.index_cast %b32 : i32 to index
  %one = arith.constant 1 : i32
  %old = memref.atomic_rmw addi %one, %bins[%bin] : (i32, memref<256xi32>) -> i32
  func.return
}
