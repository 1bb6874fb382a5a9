// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// Inclusive scan: work-item 0 rewrites scratch[0, 1..n) with the running products in
// local-linear-id order (element 0 is its own prefix), each work-item reads its own slot.
// No required size: the scratch is sized for MAX_WORK_GROUP_SIZE = 1024 (+ 2 slots).

func.func @k(%x: i32) attributes {mux.kernel = "entry_point"} {
  %r = mux.work_group_scan_inclusive mul %x : i32
  func.return
}

// CHECK:      : memref<1x1026xi32, 3 : i64> = uninitialized
// CHECK:      memref.store %x, %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x1026xi32, 3 : i64>
// CHECK-NEXT: mux.work_group_barrier
// CHECK:      scf.if
// CHECK:        %[[S:.*]] = memref.get_global @__mux_wg_scratch_i32
// CHECK-NEXT:   %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %{{.*}} = arith.constant 1024 : index
// CHECK-NEXT:   %[[X0:.*]] = memref.load %[[S]][%[[ROW]], %[[ROW]]]
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %{{.*}} = scf.for %[[I:.*]] = %[[ONE]] to %{{.*}} step %[[ONE]] iter_args(%[[A:.*]] = %[[X0]]) -> (i32) {
// CHECK-NEXT:     %[[XI:.*]] = memref.load %[[S]][%[[ROW]], %[[I]]]
// CHECK-NEXT:     %[[P:.*]] = arith.muli %[[A]], %[[XI]] : i32
// CHECK-NEXT:     memref.store %[[P]], %[[S]][%[[ROW]], %[[I]]]
// CHECK-NEXT:     scf.yield %[[P]] : i32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: mux.work_group_barrier
// CHECK-NEXT: %[[S2:.*]] = memref.get_global @__mux_wg_scratch_i32
// CHECK-NEXT: %[[LID:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT: %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %r = memref.load %[[S2]][%[[R0]], %[[LID]]] : memref<1x1026xi32, 3 : i64>
// CHECK-NEXT: func.return
