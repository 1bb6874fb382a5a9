// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// Exclusive scan: each slot gets the running value *before* its own element is folded in.
// For fmax (maxnum drops a NaN) the fold starts from element 0 and slot 0 gets the identity
// (-inf), so the result is the inclusive scan shifted, a NaN prefix included.

func.func @k(%x: f64) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 7, 1, 1>} {
  %r = mux.work_group_scan_exclusive fmax %x : f64
  func.return
}

// CHECK:      scf.if
// CHECK-NEXT:   %[[N:.*]] = arith.constant 7 : index
// CHECK-NEXT:   %[[S:.*]] = memref.get_global @__mux_wg_scratch_f64 : memref<1x9xf64, 3 : i64>
// CHECK-NEXT:   %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[X0:.*]] = memref.load %[[S]][%[[ROW]], %[[ROW]]]
// CHECK-NEXT:   %[[ID:.*]] = arith.constant 0xfff0000000000000 : f64
// CHECK-NEXT:   memref.store %[[ID]], %[[S]][%[[ROW]], %[[ROW]]]
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %{{.*}} = scf.for %[[I:.*]] = %[[ONE]] to %[[N]] step %[[ONE]] iter_args(%[[A:.*]] = %[[X0]]) -> (f64) {
// CHECK-NEXT:     %[[XI:.*]] = memref.load %[[S]][%[[ROW]], %[[I]]]
// CHECK-NEXT:     %[[M:.*]] = arith.maxnumf %[[A]], %[[XI]] : f64
// CHECK-NEXT:     memref.store %[[A]], %[[S]][%[[ROW]], %[[I]]]
// CHECK-NEXT:     scf.yield %[[M]] : f64
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK:      %[[LID:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT: %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %r = memref.load %{{.*}}[%[[R0]], %[[LID]]] : memref<1x9xf64, 3 : i64>
