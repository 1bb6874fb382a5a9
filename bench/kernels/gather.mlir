// out[i] = x[idx[i]] with random indices (kernels/transforms.cl: gather): one gather per
// work-item, nothing else.
func.func @gather(%idx: memref<?xi32>, %x: memref<?xf32>, %out: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %j32 = memref.load %idx[%i] : memref<?xi32>
  %j = arith.index_cast %j32 : i32 to index
  %v = memref.load %x[%j] : memref<?xf32>
  memref.store %v, %out[%i] : memref<?xf32>
  func.return
}
