// RUN: xmux-opt %s -p 'work-item-loops{check-plan=true}' | filecheck %s

// check-plan's run-time half: each per-work-item array gets a shadow byte per slot, zeroed
// when the work-group starts; a store sets its byte, a load tests it first and reports an
// unwritten slot through xmux_check_failed (the checking mode's channel).

func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  memref.store %v, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:      %[[ARR:.*]] = memref.alloca(%[[N:.*]]) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT: %[[SH:.*]] = memref.alloca(%[[N]]) {mux.per_work_item, alignment = 64 : i64} : memref<?xi8>
// CHECK:      scf.for %[[S:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:   memref.store %{{.*}}, %[[SH]][%[[S]]] : memref<?xi8>
// CHECK-NEXT: }
// CHECK:        memref.store %v, %[[ARR]][%[[X:.*]]] : memref<?xf32>
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i8
// CHECK-NEXT:   memref.store %[[ONE]], %[[SH]][%[[X]]] : memref<?xi8>
// CHECK:        mux.mem_barrier
// CHECK:        %[[F:.*]] = memref.load %[[SH]][%[[X2:.*]]] : memref<?xi8>
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : i8
// CHECK-NEXT:   %[[U:.*]] = arith.cmpi eq, %[[F]], %[[Z]] : i8
// CHECK-NEXT:   scf.if %[[U]] {
// CHECK:          func.call @xmux_check_failed(
// CHECK:        }
// CHECK-NEXT:   %{{.*}} = memref.load %[[ARR]][%[[X2]]] : memref<?xf32>
// CHECK: llvm.mlir.global internal constant @xmux.check.0("kernel @k: per-work-item array #0 read before it was written (work-item-loops storage plan)\00")
