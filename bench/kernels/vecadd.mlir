// c = a + b, one element per work-item (kernels.cl: vecadd).
func.func @vecadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = memref.load %b[%i] : memref<?xf32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %c[%i] : memref<?xf32>
  func.return
}
