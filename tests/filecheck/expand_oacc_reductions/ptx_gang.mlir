// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=ptx}' | filecheck %s
// Gang level on ptx: init = init_val; the fini is performed once per gang (local linear id 0):
// one relaxed device-scope atomicrmw where LLVM has the operation (lid 0: add), otherwise
// load/OP/store under the gang lock in global memory (lid 1: mul), a cmpxchg loop with
// acquire at device scope + an acquire fence, then a release fence + a release exchange.
// Gang fork/join and a loop's lock whose finis are all atomic vanish.

func.func @k(%a: f32, %b: f64, %r: memref<f32>, %s: memref<f64>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 1, 1>} {
  %a1 = oacc.reduction_setup gang add %a res(%r : memref<f32>) lid 0 rid 0 : f32
  oacc.fork gang
  %a2 = oacc.reduction_init gang add %a1 res(%r : memref<f32>) lid 0 rid 0 : f32
  "test.op"(%a2) : (f32) -> ()
  oacc.lock gang lid 0
  %a3 = oacc.reduction_fini gang add %a2 res(%r : memref<f32>) lid 0 rid 0 : f32
  oacc.unlock gang lid 0
  oacc.join gang
  %a4 = oacc.reduction_teardown gang add %a3 res(%r : memref<f32>) lid 0 rid 0 : f32
  %b1 = oacc.reduction_setup gang mul %b res(%s : memref<f64>) lid 1 rid 0 : f64
  oacc.fork gang
  %b2 = oacc.reduction_init gang mul %b1 res(%s : memref<f64>) lid 1 rid 0 : f64
  "test.op"(%b2) : (f64) -> ()
  oacc.lock gang lid 1
  %b3 = oacc.reduction_fini gang mul %b2 res(%s : memref<f64>) lid 1 rid 0 : f64
  oacc.unlock gang lid 1
  oacc.join gang
  %b4 = oacc.reduction_teardown gang mul %b3 res(%s : memref<f64>) lid 1 rid 0 : f64
  func.return
}

// CHECK:      llvm.mlir.global internal @__oacc_gang_lock(0 : i32) {addr_space = 0 : i32, alignment = 64 : i64} : i32
// CHECK:      %a2 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: "test.op"(%a2) : (f32) -> ()
// CHECK-NEXT: %0 = mux.get_local_linear_id : index
// CHECK-NEXT: %1 = arith.constant 0 : index
// CHECK-NEXT: %2 = arith.cmpi eq, %0, %1 : index
// CHECK-NEXT: scf.if %2 {
// CHECK-NEXT:   %3 = memref.extract_aligned_pointer_as_index %r : memref<f32> -> index
// CHECK-NEXT:   %4 = arith.index_cast %3 : index to i64
// CHECK-NEXT:   %5 = llvm.inttoptr %4 : i64 to !llvm.ptr
// CHECK-NEXT:   %6 = llvm.atomicrmw fadd %5, %a2 syncscope("device") monotonic : !llvm.ptr, f32
// CHECK-NEXT: }
// CHECK-NEXT: %b2 = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: "test.op"(%b2) : (f64) -> ()
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   %[[LOCK:.*]] = llvm.mlir.addressof @__oacc_gang_lock : !llvm.ptr
// CHECK-NEXT:   scf.while () : () -> () {
// CHECK:          llvm.cmpxchg %[[LOCK]], %{{.*}}, %{{.*}} syncscope("device") acquire monotonic : !llvm.ptr, i32
// CHECK:        llvm.fence syncscope("device") acquire
// CHECK-NEXT: }
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   %[[OLD:.*]] = memref.load %s[] : memref<f64>
// CHECK-NEXT:   %[[NEW:.*]] = arith.mulf %[[OLD]], %b2 : f64
// CHECK-NEXT:   memref.store %[[NEW]], %s[] : memref<f64>
// CHECK-NEXT: }
// CHECK:      scf.if %{{.*}} {
// CHECK-NEXT:   %[[LOCK2:.*]] = llvm.mlir.addressof @__oacc_gang_lock : !llvm.ptr
// CHECK-NEXT:   llvm.fence syncscope("device") release
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   llvm.atomicrmw xchg %[[LOCK2]], %[[ZERO]] syncscope("device") release : !llvm.ptr, i32
// CHECK-NEXT: }
// CHECK-NEXT: func.return
