// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' | filecheck %s --check-prefix=CPU
// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=host}' | filecheck %s --check-prefix=HOST
// oacc.dim_pos / oacc.dim_size: cpu maps gang to the group id / the number of gangs and
// worker / vector to local ids / sizes along oacc.level_dims (here gang 1, worker 0,
// vector 2); sizes are constants where oacc.dims has them, queries where dynamic (-1).
// host: positions 0, sizes 1.

func.func @k() attributes {mux.kernel = "entry_point", oacc.dims = array<i64: -1, 4, -1>, oacc.level_dims = array<i64: 1, 0, 2>} {
  %g = oacc.dim_pos gang : index
  %w = oacc.dim_pos worker : index
  %v = oacc.dim_pos vector : index
  %ng = oacc.dim_size gang : index
  %nw = oacc.dim_size worker : index
  %nv = oacc.dim_size vector : index
  "test.op"(%g, %w, %v, %ng, %nw, %nv) : (index, index, index, index, index, index) -> ()
  func.return
}

// CPU:      func.func @k() attributes {mux.kernel = "entry_point", oacc.dims = array<i64: -1, 4, -1>, oacc.level_dims = array<i64: 1, 0, 2>} {
// CPU-NEXT:   %g = mux.get_group_id 1 : index
// CPU-NEXT:   %w = mux.get_local_id 0 : index
// CPU-NEXT:   %v = mux.get_local_id 2 : index
// CPU-NEXT:   %ng = mux.get_num_groups 1 : index
// CPU-NEXT:   %nw = arith.constant 4 : index
// CPU-NEXT:   %nv = mux.get_local_size 2 : index
// CPU-NEXT:   "test.op"(%g, %w, %v, %ng, %nw, %nv)

// HOST:      func.func @k()
// HOST-NEXT:   %g = arith.constant 0 : index
// HOST-NEXT:   %w = arith.constant 0 : index
// HOST-NEXT:   %v = arith.constant 0 : index
// HOST-NEXT:   %ng = arith.constant 1 : index
// HOST-NEXT:   %nw = arith.constant 1 : index
// HOST-NEXT:   %nv = arith.constant 1 : index
// HOST-NEXT:   "test.op"(%g, %w, %v, %ng, %nw, %nv)
