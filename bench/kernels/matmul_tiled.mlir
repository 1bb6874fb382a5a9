// C = A * B for n x n row-major matrices with 16 x 16 tiles of A and B staged in work-group
// local memory, two barriers per tile step (kernels.cl: matmul_tiled, TILE = 16). Global id 0
// is the column; n must be a multiple of 16 and the local size 16 x 16 (required size).
module {
  "memref.global"() <{sym_name = "As", sym_visibility = "private", type = memref<16x16xf32, 3>, initial_value}> : () -> ()
  "memref.global"() <{sym_name = "Bs", sym_visibility = "private", type = memref<16x16xf32, 3>, initial_value}> : () -> ()

  func.func @matmul_tiled(%n: i32, %A: memref<?x?xf32>, %B: memref<?x?xf32>,
                          %C: memref<?x?xf32>)
      attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
    %col = mux.get_global_id 0 : index
    %row = mux.get_global_id 1 : index
    %lx = mux.get_local_id 0 : index
    %ly = mux.get_local_id 1 : index
    %as = memref.get_global @As : memref<16x16xf32, 3>
    %bs = memref.get_global @Bs : memref<16x16xf32, 3>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %nk = arith.index_cast %n : i32 to index
    %zero = arith.constant 0.000000e+00 : f32
    %acc = scf.for %t = %c0 to %nk step %c16 iter_args(%s = %zero) -> (f32) {
      // As[ly][lx] = A[row][t + lx]; Bs[ly][lx] = B[t + ly][col]
      %ka = arith.addi %t, %lx : index
      %kb = arith.addi %t, %ly : index
      %a = memref.load %A[%row, %ka] : memref<?x?xf32>
      %b = memref.load %B[%kb, %col] : memref<?x?xf32>
      memref.store %a, %as[%ly, %lx] : memref<16x16xf32, 3>
      memref.store %b, %bs[%ly, %lx] : memref<16x16xf32, 3>
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      %part = scf.for %k = %c0 to %c16 step %c1 iter_args(%p = %s) -> (f32) {
        %u = memref.load %as[%ly, %k] : memref<16x16xf32, 3>
        %v = memref.load %bs[%k, %lx] : memref<16x16xf32, 3>
        %m = arith.mulf %u, %v : f32
        %q = arith.addf %p, %m : f32
        scf.yield %q : f32
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      scf.yield %part : f32
    }
    memref.store %acc, %C[%row, %col] : memref<?x?xf32>
    func.return
  }
}
