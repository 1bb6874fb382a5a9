// Barrier-cost probe (kernels.cl: barrier_probe, RED_WG = 256): `iters` work-group barriers,
// each after one trivial update buf[lid] = buf[lid] * 0.5 + 1 per work-item, in place on
// data. Timing 0 / 16 / 64 iterations gives the cost of one barrier.
module {
  "memref.global"() <{sym_name = "buf", sym_visibility = "private", type = memref<256xf32, 3>, initial_value}> : () -> ()

  func.func @barrier_probe(%data: memref<?xf32>, %iters: i32)
      attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 256, 1, 1>} {
    %i = mux.get_global_id 0 : index
    %lid = mux.get_local_id 0 : index
    %buf = memref.get_global @buf : memref<256xf32, 3>
    %v = memref.load %data[%i] : memref<?xf32>
    memref.store %v, %buf[%lid] : memref<256xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.index_cast %iters : i32 to index
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    scf.for %it = %c0 to %n step %c1 {
      %b = memref.load %buf[%lid] : memref<256xf32, 3>
      %m = arith.mulf %b, %half : f32
      %a = arith.addf %m, %one : f32
      memref.store %a, %buf[%lid] : memref<256xf32, 3>
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    %r = memref.load %buf[%lid] : memref<256xf32, 3>
    memref.store %r, %data[%i] : memref<?xf32>
    func.return
  }
}
