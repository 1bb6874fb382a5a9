// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' | filecheck %s
// cpu expansion of a gang reduction into a private RESULT (no res): setup/teardown V = LOCAL,
// init V = init_val, fini is a NOP (the reference: reductions into a private at gang level
// have no defined result outside the gang) and no lock is needed.

func.func @k(%a: i64) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 1, 1>} {
  %a1 = oacc.reduction_setup gang min %a lid 0 rid 0 : i64
  oacc.fork gang
  %a2 = oacc.reduction_init gang min %a1 lid 0 rid 0 : i64
  %s = arith.addi %a2, %a2 : i64
  oacc.lock gang lid 0
  %a3 = oacc.reduction_fini gang min %s lid 0 rid 0 : i64
  oacc.unlock gang lid 0
  oacc.join gang
  %a4 = oacc.reduction_teardown gang min %a3 lid 0 rid 0 : i64
  "test.op"(%a4) : (i64) -> ()
  func.return
}

// CHECK-NOT:  __oacc_gang_lock
// CHECK:      func.func @k(%a: i64)
// CHECK-NEXT:   %a2 = arith.constant 9223372036854775807 : i64
// CHECK-NEXT:   %s = arith.addi %a2, %a2 : i64
// CHECK-NEXT:   "test.op"(%s) : (i64) -> ()
// CHECK-NEXT:   func.return
