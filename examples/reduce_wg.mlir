// Work-group reduction with the collective: mux.work_group_reduce fadd sums 16384 floats per
// work-group of 256 work-items (64 groups); work-item 0 of each group writes the sum.
module {
  func.func @reduce_wg(%x: memref<?xf32>, %sums: memref<?xf32>)
      attributes {mux.kernel = "entry_point"} {
    %i = mux.get_global_id 0 : index
    %l = mux.get_local_id 0 : index
    %g = mux.get_group_id 0 : index
    %v = memref.load %x[%i] : memref<?xf32>
    %s = mux.work_group_reduce fadd %v : f32
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %l, %c0 : index
    scf.if %first {
      memref.store %s, %sums[%g] : memref<?xf32>
    }
    func.return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 16384 : index
    %groups = arith.constant 64 : index
    %wg = arith.constant 256 : index
    %c13 = arith.constant 13 : i32
    %c6 = arith.constant 6 : i32
    %x = memref.alloc(%n) : memref<?xf32>
    %sums = memref.alloc(%groups) : memref<?xf32>
    // x[i] = (i mod 13) - 6: integer values, so every sum is exact
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %m = arith.remsi %ii, %c13 : i32
      %d = arith.subi %m, %c6 : i32
      %f = arith.sitofp %d : i32 to f32
      memref.store %f, %x[%i] : memref<?xf32>
    }
    mux.launch @reduce_wg(%x, %sums) global_size(%n) local_size(%wg)
        : (memref<?xf32>, memref<?xf32>)
    %u = "memref.cast"(%sums) : (memref<?xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %x : memref<?xf32>
    memref.dealloc %sums : memref<?xf32>
    func.return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
