// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' | filecheck %s
// Worker level on cpu: a work-group local slot per (lid, rid) in @__oacc_worker_red_i32; setup
// writes slot = LOCAL from local linear id 0 (after a barrier: the setup is inside a loop, so
// the previous round's teardown may still read the slot) and resets the worker lock;
// fork/join are work-group barriers; init = init_val; fini under the worker lock
// (singlethread cmpxchg loop) by vector lane 0 only; teardown reads the slot.

func.func @k(%a: i32, %n: index) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a1 = oacc.reduction_setup worker add %a lid 1 rid 0 : i32
    oacc.fork worker
    %a2 = oacc.reduction_init worker add %a1 lid 1 rid 0 : i32
    "test.op"(%a2) : (i32) -> ()
    oacc.lock worker lid 1
    %a3 = oacc.reduction_fini worker add %a2 lid 1 rid 0 : i32
    oacc.unlock worker lid 1
    oacc.join worker
    %a4 = oacc.reduction_teardown worker add %a3 lid 1 rid 0 : i32
    "test.op"(%a4) : (i32) -> ()
  }
  func.return
}

// CHECK:      memref.global "private" @__oacc_worker_lock : memref<1xi32, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" @__oacc_worker_red_i32 : memref<1xi32, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK:      scf.for %i = %c0 to %n step %c1 {
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %0 = mux.get_local_linear_id : index
// CHECK-NEXT:   %1 = arith.constant 0 : index
// CHECK-NEXT:   %2 = arith.cmpi eq, %0, %1 : index
// CHECK-NEXT:   scf.if %2 {
// CHECK-NEXT:     %3 = memref.get_global @__oacc_worker_red_i32 : memref<1xi32, 3 : i64>
// CHECK-NEXT:     %4 = arith.constant 0 : index
// CHECK-NEXT:     memref.store %a, %3[%4] : memref<1xi32, 3 : i64>
// CHECK-NEXT:     %5 = memref.get_global @__oacc_worker_lock : memref<1xi32, 3 : i64>
// CHECK-NEXT:     %6 = arith.constant 0 : i32
// CHECK-NEXT:     memref.store %6, %5[%4] : memref<1xi32, 3 : i64>
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %a2 = arith.constant 0 : i32
// CHECK-NEXT:   "test.op"(%a2) : (i32) -> ()
// CHECK-NEXT:   %7 = mux.get_local_id 0 : index
// CHECK-NEXT:   %8 = arith.constant 0 : index
// CHECK-NEXT:   %9 = arith.cmpi eq, %7, %8 : index
// CHECK-NEXT:   scf.if %9 {
// CHECK-NEXT:     %10 = memref.get_global @__oacc_worker_lock : memref<1xi32, 3 : i64>
// CHECK-NEXT:     %11 = memref.extract_aligned_pointer_as_index %10 : memref<1xi32, 3 : i64> -> index
// CHECK-NEXT:     %12 = arith.index_cast %11 : index to i64
// CHECK-NEXT:     %13 = llvm.inttoptr %12 : i64 to !llvm.ptr
// CHECK-NEXT:     scf.while () : () -> () {
// CHECK-NEXT:       %14 = arith.constant 0 : i32
// CHECK-NEXT:       %15 = arith.constant 1 : i32
// CHECK-NEXT:       %16 = llvm.cmpxchg %13, %14, %15 syncscope("singlethread") acquire monotonic : !llvm.ptr, i32
// CHECK:          llvm.fence syncscope("singlethread") acquire
// CHECK-NEXT:   }
// CHECK-NEXT:   %20 = mux.get_local_id 0 : index
// CHECK-NEXT:   %21 = arith.constant 0 : index
// CHECK-NEXT:   %22 = arith.cmpi eq, %20, %21 : index
// CHECK-NEXT:   scf.if %22 {
// CHECK-NEXT:     %23 = memref.get_global @__oacc_worker_red_i32 : memref<1xi32, 3 : i64>
// CHECK-NEXT:     %24 = arith.constant 0 : index
// CHECK-NEXT:     %25 = memref.load %23[%24] : memref<1xi32, 3 : i64>
// CHECK-NEXT:     %26 = arith.addi %25, %a2 : i32
// CHECK-NEXT:     memref.store %26, %23[%24] : memref<1xi32, 3 : i64>
// CHECK-NEXT:   }
// CHECK:          llvm.fence syncscope("singlethread") release
// CHECK-NEXT:     %34 = arith.constant 0 : i32
// CHECK-NEXT:     %35 = llvm.atomicrmw xchg %33, %34 syncscope("singlethread") release : !llvm.ptr, i32
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %36 = memref.get_global @__oacc_worker_red_i32 : memref<1xi32, 3 : i64>
// CHECK-NEXT:   %37 = arith.constant 0 : index
// CHECK-NEXT:   %a4 = memref.load %36[%37] : memref<1xi32, 3 : i64>
// CHECK-NEXT:   "test.op"(%a4) : (i32) -> ()
// CHECK-NEXT: }
