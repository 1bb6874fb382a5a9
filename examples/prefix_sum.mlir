// Prefix sum (inclusive scan) of 16384 i32 in three launches:
//   1. scan_blocks: mux.work_group_scan_inclusive per work-group of 256; the last work-item
//      of each group writes the group's total;
//   2. scan_totals: one work-group of 64 turns the totals into each group's offset with
//      mux.work_group_scan_exclusive;
//   3. add_offsets: every element adds its group's offset.
module {
  func.func @scan_blocks(%x: memref<?xi32>, %y: memref<?xi32>, %totals: memref<?xi32>)
      attributes {mux.kernel = "entry_point"} {
    %i = mux.get_global_id 0 : index
    %l = mux.get_local_id 0 : index
    %n = mux.get_local_size 0 : index
    %g = mux.get_group_id 0 : index
    %v = memref.load %x[%i] : memref<?xi32>
    %s = mux.work_group_scan_inclusive add %v : i32
    memref.store %s, %y[%i] : memref<?xi32>
    %c1 = arith.constant 1 : index
    %last_id = arith.subi %n, %c1 : index
    %last = arith.cmpi eq, %l, %last_id : index
    scf.if %last {
      memref.store %s, %totals[%g] : memref<?xi32>
    }
    func.return
  }

  func.func @scan_totals(%totals: memref<?xi32>, %offsets: memref<?xi32>)
      attributes {mux.kernel = "entry_point"} {
    %i = mux.get_global_id 0 : index
    %t = memref.load %totals[%i] : memref<?xi32>
    %o = mux.work_group_scan_exclusive add %t : i32
    memref.store %o, %offsets[%i] : memref<?xi32>
    func.return
  }

  func.func @add_offsets(%y: memref<?xi32>, %offsets: memref<?xi32>)
      attributes {mux.kernel = "entry_point"} {
    %i = mux.get_global_id 0 : index
    %g = mux.get_group_id 0 : index
    %o = memref.load %offsets[%g] : memref<?xi32>
    %v = memref.load %y[%i] : memref<?xi32>
    %s = arith.addi %v, %o : i32
    memref.store %s, %y[%i] : memref<?xi32>
    func.return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 16384 : index
    %groups = arith.constant 64 : index
    %wg = arith.constant 256 : index
    %c7 = arith.constant 7 : i32
    %c3 = arith.constant 3 : i32
    %x = memref.alloc(%n) : memref<?xi32>
    %y = memref.alloc(%n) : memref<?xi32>
    %totals = memref.alloc(%groups) : memref<?xi32>
    %offsets = memref.alloc(%groups) : memref<?xi32>
    // x[i] = (i mod 7) - 3
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %m = arith.remsi %ii, %c7 : i32
      %d = arith.subi %m, %c3 : i32
      memref.store %d, %x[%i] : memref<?xi32>
    }
    mux.launch @scan_blocks(%x, %y, %totals) global_size(%n) local_size(%wg)
        : (memref<?xi32>, memref<?xi32>, memref<?xi32>)
    mux.launch @scan_totals(%totals, %offsets) global_size(%groups) local_size(%groups)
        : (memref<?xi32>, memref<?xi32>)
    mux.launch @add_offsets(%y, %offsets) global_size(%n) local_size(%wg)
        : (memref<?xi32>, memref<?xi32>)
    %u = "memref.cast"(%y) : (memref<?xi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    memref.dealloc %x : memref<?xi32>
    memref.dealloc %y : memref<?xi32>
    memref.dealloc %totals : memref<?xi32>
    memref.dealloc %offsets : memref<?xi32>
    func.return
  }

  func.func private @printMemrefI32(memref<*xi32>)
}
