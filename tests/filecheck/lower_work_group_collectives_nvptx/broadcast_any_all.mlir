// RUN: xmux-opt %s -p lower-work-group-collectives-nvptx | filecheck %s

// broadcast: the chosen work-item stores slot 0, a barrier, everyone loads it, a barrier
// (before a later collective writes slot 0 again). any / all: bar.red.or / bar.red.and, the
// barrier folds the predicate; no storage, so an i1-only module declares none.

func.func @k(%x: i8, %i: index, %j: index, %p: i1) -> (i8, i1, i1) {
  %b = mux.work_group_broadcast %x, %i, %j, %i : i8
  %a = mux.work_group_any %p : i1
  %l = mux.work_group_all %p : i1
  func.return %b, %a, %l : i8, i1, i1
}

// CHECK:      memref.global "private" @__mux_wg_nvptx_i8 : memref<1x64xi8, 3 : i64>
// CHECK-NOT:  memref.global
// CHECK:      %scratch = memref.get_global @__mux_wg_nvptx_i8 : memref<1x64xi8, 3 : i64>
// CHECK-NEXT: %[[LID:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT: %[[S0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT: %[[S1:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT: %[[ZS:.*]] = arith.muli %i, %[[S1]] : index
// CHECK-NEXT: %[[YZ:.*]] = arith.addi %j, %[[ZS]] : index
// CHECK-NEXT: %[[YZS:.*]] = arith.muli %[[YZ]], %[[S0]] : index
// CHECK-NEXT: %[[CHOSEN:.*]] = arith.addi %i, %[[YZS]] : index
// CHECK-NEXT: %[[ME:.*]] = arith.cmpi eq, %[[LID]], %[[CHOSEN]] : index
// CHECK-NEXT: scf.if %[[ME]] {
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:   memref.store %x, %scratch[%[[Z]], %[[Z]]] : memref<1x64xi8, 3 : i64>
// CHECK-NEXT: }
// CHECK-NEXT: mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %b = memref.load %scratch[%[[Z]], %[[Z]]] : memref<1x64xi8, 3 : i64>
// CHECK-NEXT: mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %[[PA:.*]] = arith.extui %p : i1 to i32
// CHECK-NEXT: %[[RA:.*]] = llvm.call_intrinsic "llvm.nvvm.barrier0.or"(%[[PA]]) : (i32) -> i32
// CHECK-NEXT: %[[ZA:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %a = arith.cmpi ne, %[[RA]], %[[ZA]] : i32
// CHECK-NEXT: %[[PL:.*]] = arith.extui %p : i1 to i32
// CHECK-NEXT: %[[RL:.*]] = llvm.call_intrinsic "llvm.nvvm.barrier0.and"(%[[PL]]) : (i32) -> i32
// CHECK-NEXT: %[[ZL:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %l = arith.cmpi ne, %[[RL]], %[[ZL]] : i32
// CHECK-NEXT: func.return %b, %a, %l : i8, i1, i1
