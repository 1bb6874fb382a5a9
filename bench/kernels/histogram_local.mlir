// 256-bin histogram of bytes through a private histogram per work-group in local memory, then
// one global atomic per non-empty bin and group, as users write it in OpenCL
// (bench/kernels/histogram.cl: histogram_local). `bins` accumulates across launches.
module {
  "memref.global"() <{sym_name = "local_bins", sym_visibility = "private", type = memref<256xi32, 3>, initial_value}> : () -> ()

  func.func @histogram_local(%data: memref<?xi8>, %bins: memref<256xi32>)
      attributes {mux.kernel = "entry_point"} {
    %i = mux.get_global_id 0 : index
    %lid = mux.get_local_id 0 : index
    %lsz = mux.get_local_size 0 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %lb = memref.get_global @local_bins : memref<256xi32, 3>
    scf.for %b = %lid to %c256 step %lsz {
      memref.store %zero, %lb[%b] : memref<256xi32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %v = memref.load %data[%i] : memref<?xi8>
    %v32 = arith.extui %v : i8 to i32
    %bin = arith.index_cast %v32 : i32 to index
    %o = memref.atomic_rmw addi %one, %lb[%bin] : (i32, memref<256xi32, 3>) -> i32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %b = %lid to %c256 step %lsz {
      %c = memref.load %lb[%b] : memref<256xi32, 3>
      %nz = arith.cmpi ne, %c, %zero : i32
      scf.if %nz {
        %og = memref.atomic_rmw addi %c, %bins[%b] : (i32, memref<256xi32>) -> i32
      }
    }
    func.return
  }
}
