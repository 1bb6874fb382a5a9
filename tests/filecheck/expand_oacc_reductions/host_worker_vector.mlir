// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=host}' | filecheck %s
// Host expansion of a combined worker + vector reduction: every builtin is V = LOCAL, the
// forks, joins and locks vanish, positions are 0 and sizes 1 (one thread runs every iteration).

func.func @k(%a: i32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 1, 4, 32>} {
  %a1 = oacc.reduction_setup worker mul %a lid 1 rid 0 : i32
  oacc.fork worker
  %a2 = oacc.reduction_init worker mul %a1 lid 1 rid 0 : i32
  %b1 = oacc.reduction_setup vector mul %a2 lid 1 rid 0 : i32
  oacc.fork vector
  %b2 = oacc.reduction_init vector mul %b1 lid 1 rid 0 : i32
  %w = oacc.dim_pos worker : index
  %v = oacc.dim_pos vector : index
  %nw = oacc.dim_size worker : index
  %nv = oacc.dim_size vector : index
  "test.op"(%b2, %w, %v, %nw, %nv) : (i32, index, index, index, index) -> ()
  %b3 = oacc.reduction_fini vector mul %b2 lid 1 rid 0 : i32
  oacc.join vector
  %b4 = oacc.reduction_teardown vector mul %b3 lid 1 rid 0 : i32
  oacc.lock worker lid 1
  %a3 = oacc.reduction_fini worker mul %b4 lid 1 rid 0 : i32
  oacc.unlock worker lid 1
  oacc.join worker
  %a4 = oacc.reduction_teardown worker mul %a3 lid 1 rid 0 : i32
  "test.op"(%a4) : (i32) -> ()
  func.return
}

// CHECK:      func.func @k(%a: i32)
// CHECK-SAME:   mux.reqd_work_group_size = array<i64: 1, 1, 1>
// CHECK-NEXT:   %w = arith.constant 0 : index
// CHECK-NEXT:   %v = arith.constant 0 : index
// CHECK-NEXT:   %nw = arith.constant 1 : index
// CHECK-NEXT:   %nv = arith.constant 1 : index
// CHECK-NEXT:   "test.op"(%a, %w, %v, %nw, %nv) : (i32, index, index, index, index) -> ()
// CHECK-NEXT:   "test.op"(%a) : (i32) -> ()
// CHECK-NEXT:   func.return
