// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// Broadcast: the work-item whose local linear id is x + (y + z·ls1)·ls0 stores its value in
// the staging slot (capacity + 1), work-item 0 copies it to the result slot (capacity)
// between the barriers, everyone reads the result slot.

func.func @k(%v: i64, %x: index, %y: index, %z: index) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 3, 2>} {
  %r = mux.work_group_broadcast %v, %x, %y, %z : i64
  func.return
}

// CHECK:      %[[LID:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT: %[[S:.*]] = memref.get_global @__mux_wg_scratch_i64 : memref<1x26xi64, 3 : i64>
// CHECK-NEXT: %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[L0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT: %[[L1:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT: %[[ZL1:.*]] = arith.muli %z, %[[L1]] : index
// CHECK-NEXT: %[[YZ:.*]] = arith.addi %y, %[[ZL1]] : index
// CHECK-NEXT: %[[YZL0:.*]] = arith.muli %[[YZ]], %[[L0]] : index
// CHECK-NEXT: %[[CHOSEN:.*]] = arith.addi %x, %[[YZL0]] : index
// CHECK-NEXT: %[[IS:.*]] = arith.cmpi eq, %[[LID]], %[[CHOSEN]] : index
// CHECK-NEXT: %[[STAGE:.*]] = arith.constant 25 : index
// CHECK-NEXT: scf.if %[[IS]] {
// CHECK-NEXT:   memref.store %v, %[[S]][%[[ROW]], %[[STAGE]]] : memref<1x26xi64, 3 : i64>
// CHECK-NEXT: }
// CHECK-NEXT: mux.work_group_barrier
// CHECK:      scf.if
// CHECK-NOT:    mux.get_local_size
// CHECK:        %[[S1:.*]] = memref.get_global @__mux_wg_scratch_i64
// CHECK-NEXT:   %[[R:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[RES:.*]] = arith.constant 24 : index
// CHECK-NEXT:   %[[ST:.*]] = arith.constant 25 : index
// CHECK-NEXT:   %[[V:.*]] = memref.load %[[S1]][%[[R]], %[[ST]]]
// CHECK-NEXT:   memref.store %[[V]], %[[S1]][%[[R]], %[[RES]]]
// CHECK-NEXT: }
// CHECK-NEXT: mux.work_group_barrier
// CHECK-NEXT: %[[S2:.*]] = memref.get_global @__mux_wg_scratch_i64
// CHECK-NEXT: %[[C24:.*]] = arith.constant 24 : index
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %r = memref.load %[[S2]][%[[C0]], %[[C24]]] : memref<1x26xi64, 3 : i64>
