// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=host}' | filecheck %s
// Host expansion of a gang reduction into a private RESULT (no res): every builtin is
// V = LOCAL, so the single thread accumulates straight into the private variable.

func.func @k(%a: i64) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 1, 1>} {
  %a1 = oacc.reduction_setup gang xor %a lid 0 rid 0 : i64
  oacc.fork gang
  %a2 = oacc.reduction_init gang xor %a1 lid 0 rid 0 : i64
  %s = arith.addi %a2, %a2 : i64
  oacc.lock gang lid 0
  %a3 = oacc.reduction_fini gang xor %s lid 0 rid 0 : i64
  oacc.unlock gang lid 0
  oacc.join gang
  %a4 = oacc.reduction_teardown gang xor %a3 lid 0 rid 0 : i64
  "test.op"(%a4) : (i64) -> ()
  func.return
}

// CHECK:      func.func @k(%a: i64)
// CHECK-NEXT:   %s = arith.addi %a, %a : i64
// CHECK-NEXT:   "test.op"(%s) : (i64) -> ()
// CHECK-NEXT:   func.return
