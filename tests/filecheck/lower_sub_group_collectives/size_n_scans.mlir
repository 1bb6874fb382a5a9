// RUN: xmux-opt %s -p 'lower-sub-group-collectives{sub-group-size=4}' | filecheck %s

// Three independent collectives form one batch: one store each (rows 0..2 of the i32
// scratch), one pair of barriers. An inclusive scan folds lanes base .. lid from lane 0; an
// exclusive scan folds from the kind's identity over lanes base .. lid-1, as does a logical
// kind over base .. lid (its results are 0 or 1).

func.func @k(%x: i32) -> (i32, i32, i32) attributes {mux.kernel = "entry_point"} {
  %s = mux.sub_group_scan_inclusive mul %x : i32
  %e = mux.sub_group_scan_exclusive smax %x : i32
  %l = mux.sub_group_scan_inclusive logical_or %x : i32
  func.return %s, %e, %l : i32, i32, i32
}

// CHECK:      memref.global "private" @__mux_sg_scratch_i32 : memref<3x1024xi32, 3 : i64>
// CHECK:      func.func @k(%x: i32) -> (i32, i32, i32) attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64, mux.max_work_group_size = 1024 : i64} {
// CHECK-NEXT:   %[[LID:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT:   %[[S:.*]] = memref.get_global @__mux_sg_scratch_i32
// CHECK-NEXT:   %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   memref.store %x, %[[S]][%[[R0]], %[[LID]]]
// CHECK-NEXT:   %[[R1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   memref.store %x, %[[S]][%[[R1]], %[[LID]]]
// CHECK-NEXT:   %[[R2:.*]] = arith.constant 2 : index
// CHECK-NEXT:   memref.store %x, %[[S]][%[[R2]], %[[LID]]]
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %[[LID1:.*]] = mux.get_local_linear_id : index
// CHECK:        %[[N:.*]] = arith.constant 4 : index
// CHECK-NEXT:   %[[SG:.*]] = arith.divui %[[LID1]], %[[N]] : index
// CHECK-NEXT:   %[[BASE:.*]] = arith.muli %[[SG]], %[[N]] : index
// CHECK:        %[[S1:.*]] = memref.get_global @__mux_sg_scratch_i32

// inclusive mul: from lane 0, lanes base+1 .. lid
// CHECK-NEXT:   %[[ROW0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[UPTO:.*]] = arith.addi %[[LID1]], %[[ONE]] : index
// CHECK-NEXT:   %[[X0:.*]] = memref.load %[[S1]][%[[ROW0]], %[[BASE]]]
// CHECK-NEXT:   %[[LO:.*]] = arith.addi %[[BASE]], %[[ONE]] : index
// CHECK-NEXT:   %s = scf.for %{{.*}} = %[[LO]] to %[[UPTO]] step %[[ONE]] iter_args(%{{.*}} = %[[X0]]) -> (i32) {
// CHECK:          arith.muli
// CHECK:        }

// exclusive smax: from the identity, lanes base .. lid-1 (row 1 reuses the constant 1)
// CHECK-NEXT:   %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT:   %e = scf.for %[[I:.*]] = %[[BASE]] to %[[LID1]] step %[[ONE]] iter_args(%{{.*}} = %[[MIN]]) -> (i32) {
// CHECK-NEXT:     memref.load %[[S1]][%[[ONE]], %[[I]]]
// CHECK-NEXT:     arith.maxsi
// CHECK:        }

// logical_or: from the identity, lanes base .. lid
// CHECK-NEXT:   %[[ROW2:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[UPTO2:.*]] = arith.addi %[[LID1]], %[[ONE]] : index
// CHECK-NEXT:   %[[F:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %l = scf.for %{{.*}} = %[[BASE]] to %[[UPTO2]] step %[[ONE]] iter_args(%{{.*}} = %[[F]]) -> (i32) {
// CHECK:          arith.ori %{{.*}}, %{{.*}} : i1
// CHECK:          arith.select
// CHECK:        }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   func.return %s, %e, %l : i32, i32, i32
