// y = alpha * x + y (in place) over 4096 elements, with a global offset of 96:
// only y[96..4095] change.
module {
  func.func @saxpy(%alpha: f32, %x: memref<?xf32>, %y: memref<?xf32>)
      attributes {mux.kernel = "entry_point"} {
    %i = mux.get_global_id 0 : index
    %xv = memref.load %x[%i] : memref<?xf32>
    %yv = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %alpha, %xv : f32
    %s = arith.addf %p, %yv : f32
    memref.store %s, %y[%i] : memref<?xf32>
    func.return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 4096 : index
    %off = arith.constant 96 : index
    %gsz = arith.constant 4000 : index
    %wg = arith.constant 128 : index
    %alpha = arith.constant 1.5 : f32
    %three = arith.constant 3.0 : f32
    %x = memref.alloc(%n) : memref<?xf32>
    %y = memref.alloc(%n) : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %g = arith.subf %three, %f : f32
      memref.store %f, %x[%i] : memref<?xf32>
      memref.store %g, %y[%i] : memref<?xf32>
    }
    mux.launch @saxpy(%alpha, %x, %y) global_size(%gsz) local_size(%wg) global_offset(%off)
        : (f32, memref<?xf32>, memref<?xf32>)
    %u = "memref.cast"(%y) : (memref<?xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %x : memref<?xf32>
    memref.dealloc %y : memref<?xf32>
    func.return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
