// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// A reduce: every work-item stores its value at scratch[0, lid], barrier, work-item 0 folds
// scratch[0, 0..n) into the result slot (capacity = 64 from the required size), barrier,
// everyone loads the result slot. The fold starts from fadd's exact identity -0.0 (no peeled
// element 0) and, with every kernel requiring 16x4, n is the constant 64 (a fully unrolled,
// vectorized fold).

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 4, 1>} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %r = mux.work_group_reduce fadd %x : f32
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:      memref.global "private" @__mux_wg_scratch_f32 : memref<1x66xf32, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK:      %x = memref.load %a[%i] : memref<?xf32>
// CHECK-NEXT: %[[LID:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT: %[[S:.*]] = memref.get_global @__mux_wg_scratch_f32 : memref<1x66xf32, 3 : i64>
// CHECK-NEXT: %[[ROW:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %x, %[[S]][%[[ROW]], %[[LID]]] : memref<1x66xf32, 3 : i64>
// CHECK-NEXT: mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %[[LID1:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[LID1]], %[[C0]] : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT:   %[[N:.*]] = arith.constant 64 : index
// CHECK-NEXT:   %[[S1:.*]] = memref.get_global @__mux_wg_scratch_f32 : memref<1x66xf32, 3 : i64>
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[ID:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[ACC:.*]] = scf.for %[[I:.*]] = %[[Z]] to %[[N]] step %[[ONE]] iter_args(%[[A:.*]] = %[[ID]]) -> (f32) {
// CHECK-NEXT:     %[[XI:.*]] = memref.load %[[S1]][%[[Z]], %[[I]]] : memref<1x66xf32, 3 : i64>
// CHECK-NEXT:     %[[SUM:.*]] = arith.addf %[[A]], %[[XI]] fastmath<reassoc> : f32
// CHECK-NEXT:     scf.yield %[[SUM]] : f32
// CHECK-NEXT:   }
// CHECK-NEXT:   memref.store %[[ACC]], %[[S1]][%[[Z]], %[[N]]] : memref<1x66xf32, 3 : i64>
// CHECK-NEXT: }{mux.single_work_item}
// CHECK-NEXT: mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %[[S2:.*]] = memref.get_global @__mux_wg_scratch_f32 : memref<1x66xf32, 3 : i64>
// CHECK-NEXT: %[[R64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %r = memref.load %[[S2]][%[[R0]], %[[R64]]] : memref<1x66xf32, 3 : i64>
// CHECK-NEXT: memref.store %r, %a[%i] : memref<?xf32>
// CHECK-NEXT: func.return
// CHECK-NOT:  mux.work_group_reduce
