// RUN: xmux-opt %s -p 'lower-sub-group-collectives{sub-group-size=4}' | filecheck %s

// Shuffles at size 4 (scratch sized by the required work-group size 8): shuffle_up stores
// prev and curr, shuffle_down curr and next (two rows each). The source lane k is read where
// it exists (k < size of this sub-group, unsigned), else the own slot (lid):
//   shuffle: k = lid operand (zero-extended); shuffle_xor: k = lane xor mask;
//   shuffle_up: i = lane - delta (sign-extended): curr of lane i, else prev of lane i + 4
//     when i < 0 (and i + 4 < size), else the own prev;
//   shuffle_down: i = lane + delta (zero-extended): curr of lane i, else next of lane i - 4
//     when i >= 4 (and i - 4 < size), else the own next.

func.func @k(%v: i8, %p: f32, %c: f32, %n: f32, %d: i32) -> (i8, i8, f32, f32) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %s = mux.sub_group_shuffle %v, %d : i8
  %x = mux.sub_group_shuffle_xor %v, %d : i8
  %u = mux.sub_group_shuffle_up %p, %c, %d : f32
  %w = mux.sub_group_shuffle_down %c, %n, %d : f32
  func.return %s, %x, %u, %w : i8, i8, f32, f32
}

// CHECK:      memref.global "private" @__mux_sg_scratch_f32 : memref<4x8xf32, 3 : i64>
// CHECK-NEXT: memref.global "private" @__mux_sg_scratch_i8 : memref<2x8xi8, 3 : i64>
// CHECK:        %[[LID:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT:   %[[B:.*]] = memref.get_global @__mux_sg_scratch_i8
// CHECK-NEXT:   %[[F:.*]] = memref.get_global @__mux_sg_scratch_f32
// CHECK-NEXT:   %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   memref.store %v, %[[B]][%[[R0]], %[[LID]]]
// CHECK-NEXT:   %[[R1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   memref.store %v, %[[B]][%[[R1]], %[[LID]]]
// CHECK-NEXT:   memref.store %p, %[[F]][%[[R0]], %[[LID]]]
// CHECK-NEXT:   memref.store %c, %[[F]][%[[R1]], %[[LID]]]
// CHECK-NEXT:   %[[R2:.*]] = arith.constant 2 : index
// CHECK-NEXT:   memref.store %c, %[[F]][%[[R2]], %[[LID]]]
// CHECK-NEXT:   %[[R3:.*]] = arith.constant 3 : index
// CHECK-NEXT:   memref.store %n, %[[F]][%[[R3]], %[[LID]]]
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %[[ME:.*]] = mux.get_local_linear_id : index
// CHECK:        %[[N:.*]] = arith.constant 4 : index
// CHECK-NEXT:   %[[SG:.*]] = arith.divui %[[ME]], %[[N]] : index
// CHECK-NEXT:   %[[BASE:.*]] = arith.muli %[[SG]], %[[N]] : index
// CHECK-NEXT:   %[[LANE:.*]] = arith.subi %[[ME]], %[[BASE]] : index
// CHECK-NEXT:   %[[LEFT:.*]] = arith.subi %{{.*}}, %[[BASE]] : index
// CHECK-NEXT:   %[[SIZE:.*]] = arith.minui %[[LEFT]], %[[N]] : index
// CHECK-NEXT:   %[[B1:.*]] = memref.get_global @__mux_sg_scratch_i8
// CHECK-NEXT:   %[[F1:.*]] = memref.get_global @__mux_sg_scratch_f32
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : index

// shuffle
// CHECK-NEXT:   %[[D64:.*]] = arith.extui %d : i32 to i64
// CHECK-NEXT:   %[[K:.*]] = arith.index_cast %[[D64]] : i64 to index
// CHECK-NEXT:   %[[IN:.*]] = arith.cmpi ult, %[[K]], %[[SIZE]] : index
// CHECK-NEXT:   %[[AT:.*]] = arith.addi %[[BASE]], %[[K]] : index
// CHECK-NEXT:   %[[SLOT:.*]] = arith.select %[[IN]], %[[AT]], %[[ME]] : index
// CHECK-NEXT:   %s = memref.load %[[B1]][%[[ZERO]], %[[SLOT]]]

// shuffle_xor
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[M64:.*]] = arith.extui %d : i32 to i64
// CHECK-NEXT:   %[[M:.*]] = arith.index_cast %[[M64]] : i64 to index
// CHECK-NEXT:   %[[XK:.*]] = arith.xori %[[LANE]], %[[M]] : index
// CHECK-NEXT:   %[[XIN:.*]] = arith.cmpi ult, %[[XK]], %[[SIZE]] : index
// CHECK-NEXT:   %[[XAT:.*]] = arith.addi %[[BASE]], %[[XK]] : index
// CHECK-NEXT:   %[[XSLOT:.*]] = arith.select %[[XIN]], %[[XAT]], %[[ME]] : index
// CHECK-NEXT:   %x = memref.load %[[B1]][%[[ONE]], %[[XSLOT]]]

// shuffle_up: rows 0 (prev) and 1 (curr)
// CHECK-NEXT:   %[[U64:.*]] = arith.extsi %d : i32 to i64
// CHECK-NEXT:   %[[UD:.*]] = arith.index_cast %[[U64]] : i64 to index
// CHECK-NEXT:   %[[UI:.*]] = arith.subi %[[LANE]], %[[UD]] : index
// CHECK-NEXT:   %[[UIN:.*]] = arith.cmpi ult, %[[UI]], %[[SIZE]] : index
// CHECK-NEXT:   %[[UAT:.*]] = arith.addi %[[BASE]], %[[UI]] : index
// CHECK-NEXT:   %[[USLOT:.*]] = arith.select %[[UIN]], %[[UAT]], %[[ME]] : index
// CHECK-NEXT:   %[[UC:.*]] = memref.load %[[F1]][%[[ONE]], %[[USLOT]]]
// CHECK-NEXT:   %[[UP:.*]] = arith.addi %[[UI]], %[[N]] : index
// CHECK-NEXT:   %[[NEG:.*]] = arith.cmpi slt, %[[UI]], %[[ZERO]] : index
// CHECK-NEXT:   %[[PIN:.*]] = arith.cmpi ult, %[[UP]], %[[SIZE]] : index
// CHECK-NEXT:   %[[PREV:.*]] = arith.andi %[[NEG]], %[[PIN]] : i1
// CHECK-NEXT:   %[[PAT:.*]] = arith.addi %[[BASE]], %[[UP]] : index
// CHECK-NEXT:   %[[PSLOT:.*]] = arith.select %[[PREV]], %[[PAT]], %[[ME]] : index
// CHECK-NEXT:   %[[UPV:.*]] = memref.load %[[F1]][%[[ZERO]], %[[PSLOT]]]
// CHECK-NEXT:   %u = arith.select %[[UIN]], %[[UC]], %[[UPV]] : f32

// shuffle_down: rows 2 (curr) and 3 (next)
// CHECK-NEXT:   %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT:   %[[W64:.*]] = arith.extui %d : i32 to i64
// CHECK-NEXT:   %[[WD:.*]] = arith.index_cast %[[W64]] : i64 to index
// CHECK-NEXT:   %[[WI:.*]] = arith.addi %[[LANE]], %[[WD]] : index
// CHECK-NEXT:   %[[WIN:.*]] = arith.cmpi ult, %[[WI]], %[[SIZE]] : index
// CHECK-NEXT:   %[[WAT:.*]] = arith.addi %[[BASE]], %[[WI]] : index
// CHECK-NEXT:   %[[WSLOT:.*]] = arith.select %[[WIN]], %[[WAT]], %[[ME]] : index
// CHECK-NEXT:   %[[WC:.*]] = memref.load %[[F1]][%[[TWO]], %[[WSLOT]]]
// CHECK-NEXT:   %[[WN:.*]] = arith.subi %[[WI]], %[[N]] : index
// CHECK-NEXT:   %[[ABOVE:.*]] = arith.cmpi uge, %[[WI]], %[[N]] : index
// CHECK-NEXT:   %[[NIN:.*]] = arith.cmpi ult, %[[WN]], %[[SIZE]] : index
// CHECK-NEXT:   %[[NEXT:.*]] = arith.andi %[[ABOVE]], %[[NIN]] : i1
// CHECK-NEXT:   %[[NAT:.*]] = arith.addi %[[BASE]], %[[WN]] : index
// CHECK-NEXT:   %[[NSLOT:.*]] = arith.select %[[NEXT]], %[[NAT]], %[[ME]] : index
// CHECK-NEXT:   %[[WNV:.*]] = memref.load %[[F1]][%[[THREE]], %[[NSLOT]]]
// CHECK-NEXT:   %w = arith.select %[[WIN]], %[[WC]], %[[WNV]] : f32
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   func.return %s, %x, %u, %w : i8, i8, f32, f32
