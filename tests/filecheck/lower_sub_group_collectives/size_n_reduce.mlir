// RUN: xmux-opt %s -p 'lower-sub-group-collectives{sub-group-size=8}' | filecheck %s

// Sub-groups of 8 (the option; the kernel has no mux.reqd_sub_group_size, and gets it): each
// work-item stores its value at its local linear id, a work-group barrier, then folds the
// slots of its own sub-group (base = lid - lid mod 8, size = min(8, L - base)) in lane order
// starting from lane 0 (no reassociation: every lane gets the same bits), a second barrier.
// The scratch holds the required work-group size (16x2) per row.

func.func @k(%x: f32) -> f32 attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 2, 1>} {
  %r = mux.sub_group_reduce fadd %x : f32
  func.return %r : f32
}

// CHECK:      memref.global "private" @__mux_sg_scratch_f32 : memref<1x32xf32, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK-NEXT: func.func @k(%x: f32) -> f32 attributes {{{.*}}mux.reqd_sub_group_size = 8 : i64} {
// CHECK-NEXT:   %[[LID:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT:   %[[S:.*]] = memref.get_global @__mux_sg_scratch_f32 : memref<1x32xf32, 3 : i64>
// CHECK-NEXT:   %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT:   memref.store %x, %[[S]][%[[ROW]], %[[LID]]] : memref<1x32xf32, 3 : i64>
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory> {mux.sub_group_scope}
// CHECK-NEXT:   %[[LID1:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT:   %[[L0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT:   %[[L1:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT:   %[[L2:.*]] = mux.get_local_size 2 : index
// CHECK-NEXT:   %[[L01:.*]] = arith.muli %[[L0]], %[[L1]] : index
// CHECK-NEXT:   %[[L:.*]] = arith.muli %[[L01]], %[[L2]] : index
// CHECK-NEXT:   %[[N:.*]] = arith.constant 8 : index
// CHECK-NEXT:   %[[SG:.*]] = arith.divui %[[LID1]], %[[N]] : index
// CHECK-NEXT:   %[[BASE:.*]] = arith.muli %[[SG]], %[[N]] : index
// CHECK-NEXT:   %{{.*}} = arith.subi %[[LID1]], %[[BASE]] : index
// CHECK-NEXT:   %[[LEFT:.*]] = arith.subi %[[L]], %[[BASE]] : index
// CHECK-NEXT:   %[[SIZE:.*]] = arith.minui %[[LEFT]], %[[N]] : index
// CHECK-NEXT:   %[[S1:.*]] = memref.get_global @__mux_sg_scratch_f32 : memref<1x32xf32, 3 : i64>
// CHECK-NEXT:   %[[ROW1:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[END:.*]] = arith.addi %[[BASE]], %[[SIZE]] : index
// CHECK-NEXT:   %[[X0:.*]] = memref.load %[[S1]][%[[ROW1]], %[[BASE]]] : memref<1x32xf32, 3 : i64>
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[LO:.*]] = arith.addi %[[BASE]], %[[ONE]] : index
// CHECK-NEXT:   %r = scf.for %[[I:.*]] = %[[LO]] to %[[END]] step %[[ONE]] iter_args(%[[A:.*]] = %[[X0]]) -> (f32) {
// CHECK-NEXT:     %[[XI:.*]] = memref.load %[[S1]][%[[ROW1]], %[[I]]] : memref<1x32xf32, 3 : i64>
// CHECK-NEXT:     %[[A2:.*]] = arith.addf %[[A]], %[[XI]] : f32
// CHECK-NEXT:     scf.yield %[[A2]] : f32
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory> {mux.sub_group_scope}
// CHECK-NEXT:   func.return %r : f32
