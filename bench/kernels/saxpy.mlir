// y = alpha * x + y, in place (kernels.cl: saxpy).
func.func @saxpy(%alpha: f32, %x: memref<?xf32>, %y: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %xi = memref.load %x[%i] : memref<?xf32>
  %yi = memref.load %y[%i] : memref<?xf32>
  %ax = arith.mulf %alpha, %xi : f32
  %r = arith.addf %ax, %yi : f32
  memref.store %r, %y[%i] : memref<?xf32>
  func.return
}
