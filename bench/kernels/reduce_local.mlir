// One partial sum per work-group of 256: tree reduction in work-group local memory with a
// barrier after the load and after each of the 8 halving steps (kernels.cl: reduce_local,
// RED_WG = 256, required work-group size).
module {
  "memref.global"() <{sym_name = "scratch", sym_visibility = "private", type = memref<256xf32, 3>, initial_value}> : () -> ()

  func.func @reduce_local(%x: memref<?xf32>, %partial: memref<?xf32>)
      attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 256, 1, 1>} {
    %i = mux.get_global_id 0 : index
    %lid = mux.get_local_id 0 : index
    %g = mux.get_group_id 0 : index
    %buf = memref.get_global @scratch : memref<256xf32, 3>
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %buf[%lid] : memref<256xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    // for (s = 128; s > 0; s >>= 1): step j has s = 128 >> j
    scf.for %j = %c0 to %c8 step %c1 {
      %s = arith.shrui %c128, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<256xf32, 3>
        %b = memref.load %buf[%o] : memref<256xf32, 3>
        %t = arith.addf %a, %b : f32
        memref.store %t, %buf[%lid] : memref<256xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    %first = arith.cmpi eq, %lid, %c0 : index
    scf.if %first {
      %r = memref.load %buf[%c0] : memref<256xf32, 3>
      memref.store %r, %partial[%g] : memref<?xf32>
    }
    func.return
  }
}
