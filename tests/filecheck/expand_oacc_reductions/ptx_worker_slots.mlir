// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=ptx}' | filecheck %s
// Worker level on ptx: a shared-memory slot per worker in each (lid, rid) row of
// @__oacc_worker_red_i64 (no lock: the worker lock vanishes); setup keeps LOCAL, init gives it
// to worker 0 (init_val elsewhere); fini: vector lane 0 of each worker writes its slot;
// fork/join are work-group barriers (bar.sync); teardown folds the row's slots in worker
// order (every thread the same value). The vector fork in worker-single code (workers not
// forked) is a work-group barrier too: what worker 0 wrote is read by every worker.

func.func @k(%a: i64, %n: index) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "test.op"() {before} : () -> ()
  oacc.fork vector
  oacc.join vector
  scf.for %i = %c0 to %n step %c1 {
    %a1 = oacc.reduction_setup worker add %a lid 1 rid 0 : i64
    oacc.fork worker
    %a2 = oacc.reduction_init worker add %a1 lid 1 rid 0 : i64
    "test.op"(%a2) : (i64) -> ()
    oacc.lock worker lid 1
    %a3 = oacc.reduction_fini worker add %a2 lid 1 rid 0 : i64
    oacc.unlock worker lid 1
    oacc.join worker
    %a4 = oacc.reduction_teardown worker add %a3 lid 1 rid 0 : i64
    "test.op"(%a4) : (i64) -> ()
  }
  func.return
}

// CHECK:      memref.global "private" @__oacc_worker_red_i64 : memref<1x4xi64, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK-NOT:  lock
// CHECK:      %c1 = arith.constant 1 : index
// CHECK-NEXT: "test.op"() {before} : () -> ()
// CHECK-NEXT: mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: scf.for %i = %c0 to %n step %c1 {
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %0 = mux.get_local_id 1 : index
// CHECK-NEXT:   %1 = arith.constant 0 : index
// CHECK-NEXT:   %2 = arith.cmpi eq, %0, %1 : index
// CHECK-NEXT:   %3 = arith.constant 0 : i64
// CHECK-NEXT:   %a2 = arith.select %2, %a, %3 : i64
// CHECK-NEXT:   "test.op"(%a2) : (i64) -> ()
// CHECK-NEXT:   %4 = mux.get_local_id 0 : index
// CHECK-NEXT:   %5 = arith.constant 0 : index
// CHECK-NEXT:   %6 = arith.cmpi eq, %4, %5 : index
// CHECK-NEXT:   scf.if %6 {
// CHECK-NEXT:     %7 = memref.get_global @__oacc_worker_red_i64 : memref<1x4xi64, 3 : i64>
// CHECK-NEXT:     %8 = arith.constant 0 : index
// CHECK-NEXT:     %9 = mux.get_local_id 1 : index
// CHECK-NEXT:     memref.store %a2, %7[%8, %9] : memref<1x4xi64, 3 : i64>
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %10 = memref.get_global @__oacc_worker_red_i64 : memref<1x4xi64, 3 : i64>
// CHECK-NEXT:   %11 = arith.constant 0 : index
// CHECK-NEXT:   %12 = arith.constant 4 : index
// CHECK-NEXT:   %13 = memref.load %10[%11, %11] : memref<1x4xi64, 3 : i64>
// CHECK-NEXT:   %14 = arith.constant 1 : index
// CHECK-NEXT:   %a4 = scf.for %15 = %14 to %12 step %14 iter_args(%16 = %13) -> (i64) {
// CHECK-NEXT:     %17 = arith.addi %11, %15 : index
// CHECK-NEXT:     %18 = memref.load %10[%11, %17] : memref<1x4xi64, 3 : i64>
// CHECK-NEXT:     %19 = arith.addi %16, %18 : i64
// CHECK-NEXT:     scf.yield %19 : i64
// CHECK-NEXT:   } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:   "test.op"(%a4) : (i64) -> ()
// CHECK-NEXT: }
