// Tiled matmul C = A * B, n x n (n = 96), 16 x 16 work-groups (reqd_work_group_size): each
// group stages a 16 x 16 tile of A and of B in work-group local memory per step along k,
// with a barrier after loading the tiles and one before overwriting them.
// get_global_id(0) is the column, get_global_id(1) the row; n must be a multiple of 16.
module {
  "memref.global"() <{sym_name = "tile_a", sym_visibility = "private", type = memref<16x16xf32, 3>, initial_value}> : () -> ()
  "memref.global"() <{sym_name = "tile_b", sym_visibility = "private", type = memref<16x16xf32, 3>, initial_value}> : () -> ()

  func.func @matmul_tiled(%n: i32, %a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>)
      attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
    %col = mux.get_global_id 0 : index
    %row = mux.get_global_id 1 : index
    %lx = mux.get_local_id 0 : index
    %ly = mux.get_local_id 1 : index
    %ta = memref.get_global @tile_a : memref<16x16xf32, 3>
    %tb = memref.get_global @tile_b : memref<16x16xf32, 3>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %nn = arith.index_cast %n : i32 to index
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %t = %c0 to %nn step %c16 iter_args(%s = %zero) -> (f32) {
      // this work-item loads A[row][t + lx] and B[t + ly][col]
      %ka = arith.addi %t, %lx : index
      %kb = arith.addi %t, %ly : index
      %x = memref.load %a[%row, %ka] : memref<?x?xf32>
      %y = memref.load %b[%kb, %col] : memref<?x?xf32>
      memref.store %x, %ta[%ly, %lx] : memref<16x16xf32, 3>
      memref.store %y, %tb[%ly, %lx] : memref<16x16xf32, 3>
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      %part = scf.for %k = %c0 to %c16 step %c1 iter_args(%p = %s) -> (f32) {
        %u = memref.load %ta[%ly, %k] : memref<16x16xf32, 3>
        %v = memref.load %tb[%k, %lx] : memref<16x16xf32, 3>
        %m = arith.mulf %u, %v : f32
        %q = arith.addf %p, %m : f32
        scf.yield %q : f32
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      scf.yield %part : f32
    }
    memref.store %acc, %c[%row, %col] : memref<?x?xf32>
    func.return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 96 : index
    %n32 = arith.constant 96 : i32
    %wg = arith.constant 16 : index
    %c7 = arith.constant 7 : i32
    %c5 = arith.constant 5 : i32
    %c3 = arith.constant 3 : i32
    %scale = arith.constant 0.25 : f32
    %a = memref.alloc(%n, %n) : memref<?x?xf32>
    %b = memref.alloc(%n, %n) : memref<?x?xf32>
    %c = memref.alloc(%n, %n) : memref<?x?xf32>
    // A[i][j] = ((i + 2j) mod 7 - 3) / 4 and B[i][j] = ((3i + j) mod 5) / 4: exact in f32
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %j2 = arith.addi %jj, %jj : i32
        %s1 = arith.addi %ii, %j2 : i32
        %m1 = arith.remsi %s1, %c7 : i32
        %d1 = arith.subi %m1, %c3 : i32
        %f1 = arith.sitofp %d1 : i32 to f32
        %v1 = arith.mulf %f1, %scale : f32
        %i3 = arith.muli %ii, %c3 : i32
        %s2 = arith.addi %i3, %jj : i32
        %m2 = arith.remsi %s2, %c5 : i32
        %f2 = arith.sitofp %m2 : i32 to f32
        %v2 = arith.mulf %f2, %scale : f32
        memref.store %v1, %a[%i, %j] : memref<?x?xf32>
        memref.store %v2, %b[%i, %j] : memref<?x?xf32>
      }
    }
    mux.launch @matmul_tiled(%n32, %a, %b, %c) global_size(%n, %n) local_size(%wg, %wg)
        : (i32, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>)
    %u = "memref.cast"(%c) : (memref<?x?xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %a : memref<?x?xf32>
    memref.dealloc %b : memref<?x?xf32>
    memref.dealloc %c : memref<?x?xf32>
    func.return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
