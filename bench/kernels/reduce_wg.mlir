// One partial sum per work-group through the work-group collective (kernels.cl:
// reduce_wg_builtin, work_group_reduce_add; no required work-group size, as there).
func.func @reduce_wg(%x: memref<?xf32>, %partial: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %lid = mux.get_local_id 0 : index
  %g = mux.get_group_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
    memref.store %s, %partial[%g] : memref<?xf32>
  }
  func.return
}
