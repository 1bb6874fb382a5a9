// c = a + b over 1000 elements in work-groups of 64: the last group is a non-uniform remainder.
// RUN by `make demo`: xmux-run examples/vecadd.mlir
module {
  func.func @vecadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
      attributes {mux.kernel = "entry_point"} {
    %i = mux.get_global_id 0 : index
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %b[%i] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %c[%i] : memref<?xf32>
    func.return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 1000 : index
    %wg = arith.constant 64 : index
    %half = arith.constant 0.5 : f32
    %a = memref.alloc(%n) : memref<?xf32>
    %b = memref.alloc(%n) : memref<?xf32>
    %c = memref.alloc(%n) : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %g = arith.mulf %f, %half : f32
      memref.store %f, %a[%i] : memref<?xf32>
      memref.store %g, %b[%i] : memref<?xf32>
    }
    mux.launch @vecadd(%a, %b, %c) global_size(%n) local_size(%wg)
        : (memref<?xf32>, memref<?xf32>, memref<?xf32>)
    %u = "memref.cast"(%c) : (memref<?xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %a : memref<?xf32>
    memref.dealloc %b : memref<?xf32>
    memref.dealloc %c : memref<?xf32>
    func.return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
