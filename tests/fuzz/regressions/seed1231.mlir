// xmux fuzz repro: kernel seed 1231, mismatch
// 63 of 128 outputs differ; at [3, 5, 7, 9, 11, 13]: got [0, 0, 0, 0, 0, 0] want [-12345, -24690, -37035, -49380, -61725, -74070]
// build: xmux.compile(src, cache=False)
// launch: global_size=(64,) local_size=(64,) global_offset=None threads=1 -- launched twice: the second launch runs the local-size variant
// scalars: p0=5 p1=-12345 k0=1 k1=0; a, out: see seed1231.py
// shape: wg.any if->2{st}
// class: other
"memref.global"() <{sym_name = "tile_k1231", type = memref<3x128xi32, 3>, sym_visibility = "private", initial_value}> : () -> ()
func.func @k1231(%a: memref<?xi32>, %out: memref<?xi32>, %p0: i32, %p1: i32, %k0: index, %k1: index) attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_linear_id : index
  %lid = mux.get_local_linear_id : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  %ls2 = mux.get_local_size 2 : index
  %n01 = arith.muli %ls0, %ls1 : index
  %n = arith.muli %n01, %ls2 : index
  %t = memref.get_global @tile_k1231 : memref<3x128xi32, 3>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cS = arith.constant 2 : index
  %obase = arith.muli %gid, %cS : index
  %v = memref.load %a[%gid] : memref<?xi32>
  %lidi = arith.index_cast %lid : index to i32
  %row0 = arith.constant 0 : index
  %row1 = arith.constant 1 : index
  %row2 = arith.constant 2 : index
  %os0 = arith.constant 0 : index
  %oi0 = arith.addi %obase, %os0 : index
  %os1 = arith.constant 1 : index
  %oi1 = arith.addi %obase, %os1 : index
  %k_1 = arith.constant 0 : index
  %k_4 = arith.constant 0 : i32
  %x_20 = arith.minsi %p0, %p1 : i32
  %x_21 = arith.muli %x_20, %lidi : i32
  %c_25 = arith.constant false
  %g_24 = mux.work_group_any %c_25 : i1
  memref.store %k_4, %out[%oi1] : memref<?xi32>
  %c_26 = arith.cmpi ne, %x_21, %p0 : i32
  %r_27, %r_28 = scf.if %c_26 -> (index, index) {
    memref.store %p0, %t[%row2, %lid] : memref<3x128xi32, 3>
    memref.store %x_21, %out[%oi1] : memref<?xi32>
    scf.yield %k_1, %k_1 : index, index
  } else {
    scf.yield %k_1, %k_1 : index, index
  }
  %f_33 = arith.constant 0 : i32
  memref.store %f_33, %out[%oi0] : memref<?xi32>
  func.return
}
