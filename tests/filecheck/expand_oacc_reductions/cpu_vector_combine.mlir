// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' | filecheck %s
// Vector level on cpu: init keeps LOCAL in lane 0 and init_val elsewhere; fork/join are
// work-group barriers; fini stores each lane's value at [row][worker * vl + lane] of
// @__oacc_vector_red_f32 (rows x nw*vl); teardown folds the worker's lanes in lane order, so
// every lane gets the same combined value. The fold is marked not to vectorize (a loop over at
// most vector-length lanes; LLVM 22's loop vectorizer asserts on its fmaxnum chains).

func.func @k(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>} {
  %a1 = oacc.reduction_setup vector max %a lid 2 rid 0 : f32
  oacc.fork vector
  %a2 = oacc.reduction_init vector max %a1 lid 2 rid 0 : f32
  "test.op"(%a2) : (f32) -> ()
  %a3 = oacc.reduction_fini vector max %a2 lid 2 rid 0 : f32
  oacc.join vector
  %a4 = oacc.reduction_teardown vector max %a3 lid 2 rid 0 : f32
  "test.op"(%a4) : (f32) -> ()
  func.return
}

// CHECK:      memref.global "private" @__oacc_vector_red_f32 : memref<1x128xf32, 3 : i64> = uninitialized {alignment = 64 : i64}
// CHECK:        mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %0 = mux.get_local_id 0 : index
// CHECK-NEXT:   %1 = arith.constant 0 : index
// CHECK-NEXT:   %2 = arith.cmpi eq, %0, %1 : index
// CHECK-NEXT:   %3 = arith.constant 0xff800000 : f32
// CHECK-NEXT:   %a2 = arith.select %2, %a, %3 : f32
// CHECK-NEXT:   "test.op"(%a2) : (f32) -> ()
// CHECK-NEXT:   %4 = memref.get_global @__oacc_vector_red_f32 : memref<1x128xf32, 3 : i64>
// CHECK-NEXT:   %5 = arith.constant 0 : index
// CHECK-NEXT:   %6 = arith.constant 32 : index
// CHECK-NEXT:   %7 = mux.get_local_id 1 : index
// CHECK-NEXT:   %8 = arith.muli %7, %6 : index
// CHECK-NEXT:   %9 = mux.get_local_id 0 : index
// CHECK-NEXT:   %10 = arith.addi %8, %9 : index
// CHECK-NEXT:   memref.store %a2, %4[%5, %10] : memref<1x128xf32, 3 : i64>
// CHECK-NEXT:   mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   %11 = memref.get_global @__oacc_vector_red_f32 : memref<1x128xf32, 3 : i64>
// CHECK-NEXT:   %12 = arith.constant 0 : index
// CHECK-NEXT:   %13 = arith.constant 32 : index
// CHECK-NEXT:   %14 = mux.get_local_id 1 : index
// CHECK-NEXT:   %15 = arith.muli %14, %13 : index
// CHECK-NEXT:   %16 = memref.load %11[%12, %15] : memref<1x128xf32, 3 : i64>
// CHECK-NEXT:   %17 = arith.constant 1 : index
// CHECK-NEXT:   %a4 = scf.for %18 = %17 to %13 step %17 iter_args(%19 = %16) -> (f32) {
// CHECK-NEXT:     %20 = arith.addi %15, %18 : index
// CHECK-NEXT:     %21 = memref.load %11[%12, %20] : memref<1x128xf32, 3 : i64>
// CHECK-NEXT:     %22 = arith.maxnumf %19, %21 : f32
// CHECK-NEXT:     scf.yield %22 : f32
// CHECK-NEXT:   } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:   "test.op"(%a4) : (f32) -> ()
