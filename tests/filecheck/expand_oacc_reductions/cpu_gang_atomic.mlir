// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' | filecheck %s
// Gang fini into a copy object with an atomic RMW for the type/op (f32 add, i32 max): done by
// local linear id 0 only; init = init_val; the gang lock vanishes (every fini is atomic);
// gang fork/join vanish.

func.func @k(%a: f32, %b: i32, %r: memref<f32>, %s: memref<i32>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>} {
  %a1 = oacc.reduction_setup gang add %a res(%r : memref<f32>) lid 0 rid 0 : f32
  %b1 = oacc.reduction_setup gang max %b res(%s : memref<i32>) lid 0 rid 1 : i32
  oacc.fork gang
  %a2 = oacc.reduction_init gang add %a1 res(%r : memref<f32>) lid 0 rid 0 : f32
  %b2 = oacc.reduction_init gang max %b1 res(%s : memref<i32>) lid 0 rid 1 : i32
  "test.op"(%a2, %b2) : (f32, i32) -> ()
  oacc.lock gang lid 0
  %a3 = oacc.reduction_fini gang add %a2 res(%r : memref<f32>) lid 0 rid 0 : f32
  %b3 = oacc.reduction_fini gang max %b2 res(%s : memref<i32>) lid 0 rid 1 : i32
  oacc.unlock gang lid 0
  oacc.join gang
  %a4 = oacc.reduction_teardown gang add %a3 res(%r : memref<f32>) lid 0 rid 0 : f32
  %b4 = oacc.reduction_teardown gang max %b3 res(%s : memref<i32>) lid 0 rid 1 : i32
  "test.op"(%a4, %b4) : (f32, i32) -> ()
  func.return
}

// CHECK-NOT:  __oacc_gang_lock
// CHECK:      func.func @k(%a: f32, %b: i32, %r: memref<f32>, %s: memref<i32>)
// CHECK-SAME:   mux.reqd_work_group_size = array<i64: 32, 4, 1>
// CHECK-NEXT:   %a2 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %b2 = arith.constant -2147483648 : i32
// CHECK-NEXT:   "test.op"(%a2, %b2) : (f32, i32) -> ()
// CHECK-NEXT:   %0 = mux.get_local_linear_id : index
// CHECK-NEXT:   %1 = arith.constant 0 : index
// CHECK-NEXT:   %2 = arith.cmpi eq, %0, %1 : index
// CHECK-NEXT:   scf.if %2 {
// CHECK-NEXT:     %3 = memref.extract_aligned_pointer_as_index %r : memref<f32> -> index
// CHECK-NEXT:     %4 = arith.index_cast %3 : index to i64
// CHECK-NEXT:     %5 = llvm.inttoptr %4 : i64 to !llvm.ptr
// CHECK-NEXT:     %6 = llvm.atomicrmw fadd %5, %a2 acq_rel : !llvm.ptr, f32
// CHECK-NEXT:   }
// CHECK-NEXT:   %7 = mux.get_local_linear_id : index
// CHECK-NEXT:   %8 = arith.constant 0 : index
// CHECK-NEXT:   %9 = arith.cmpi eq, %7, %8 : index
// CHECK-NEXT:   scf.if %9 {
// CHECK-NEXT:     %10 = memref.extract_aligned_pointer_as_index %s : memref<i32> -> index
// CHECK-NEXT:     %11 = arith.index_cast %10 : index to i64
// CHECK-NEXT:     %12 = llvm.inttoptr %11 : i64 to !llvm.ptr
// CHECK-NEXT:     %13 = llvm.atomicrmw max %12, %b2 acq_rel : !llvm.ptr, i32
// CHECK-NEXT:   }
// CHECK-NEXT:   "test.op"(%a2, %b2) : (f32, i32) -> ()
// CHECK-NEXT:   func.return
