// Local-memory tree reduction: 16384 floats summed per work-group of 256 work-items. Each
// work-item stores its value in a work-group local buffer; then log2(256) = 8 halving steps,
// each followed by a barrier, leave the group's sum in element 0, which work-item 0 writes
// to sums[group]. The 64 partial sums are printed.
module {
  "memref.global"() <{sym_name = "partial", sym_visibility = "private", type = memref<256xf32, 3>, initial_value}> : () -> ()

  func.func @reduce_local(%x: memref<?xf32>, %sums: memref<?xf32>)
      attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 256, 1, 1>} {
    %i = mux.get_global_id 0 : index
    %l = mux.get_local_id 0 : index
    %g = mux.get_group_id 0 : index
    %buf = memref.get_global @partial : memref<256xf32, 3>
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %buf[%l] : memref<256xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    // step s: the first h = 128 >> s work-items add element l + h into element l
    scf.for %s = %c0 to %c8 step %c1 {
      %h = arith.shrui %c128, %s : index
      %active = arith.cmpi ult, %l, %h : index
      scf.if %active {
        %j = arith.addi %l, %h : index
        %a = memref.load %buf[%l] : memref<256xf32, 3>
        %b = memref.load %buf[%j] : memref<256xf32, 3>
        %t = arith.addf %a, %b : f32
        memref.store %t, %buf[%l] : memref<256xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    %first = arith.cmpi eq, %l, %c0 : index
    scf.if %first {
      %r = memref.load %buf[%c0] : memref<256xf32, 3>
      memref.store %r, %sums[%g] : memref<?xf32>
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
    mux.launch @reduce_local(%x, %sums) global_size(%n) local_size(%wg)
        : (memref<?xf32>, memref<?xf32>)
    %u = "memref.cast"(%sums) : (memref<?xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %x : memref<?xf32>
    memref.dealloc %sums : memref<?xf32>
    func.return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
