// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' | filecheck %s
// Gang fini without an atomic RMW for the type/op (f64 mul, complex<f32> mul): a plain
// load/OP/store inside the global spin lock @__oacc_gang_lock (cmpxchg 0 -> 1 loop + acquire
// fence; release fence + xchg 0), all by local linear id 0. Complex mul on the parts.

func.func @k(%a: f64, %z: complex<f32>, %r: memref<f64>, %s: memref<complex<f32>>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 1, 1>} {
  oacc.lock gang lid 3
  %a3 = oacc.reduction_fini gang mul %a res(%r : memref<f64>) lid 3 rid 0 : f64
  %z3 = oacc.reduction_fini gang mul %z res(%s : memref<complex<f32>>) lid 3 rid 1 : complex<f32>
  oacc.unlock gang lid 3
  "test.op"(%a3, %z3) : (f64, complex<f32>) -> ()
  func.return
}

// CHECK:      llvm.mlir.global internal @__oacc_gang_lock(0 : i32) {{.*}} : i32
// CHECK:      func.func @k(
// CHECK-NEXT:   %0 = mux.get_local_linear_id : index
// CHECK-NEXT:   %1 = arith.constant 0 : index
// CHECK-NEXT:   %2 = arith.cmpi eq, %0, %1 : index
// CHECK-NEXT:   scf.if %2 {
// CHECK-NEXT:     %3 = llvm.mlir.addressof @__oacc_gang_lock : !llvm.ptr
// CHECK-NEXT:     scf.while () : () -> () {
// CHECK-NEXT:       %4 = arith.constant 0 : i32
// CHECK-NEXT:       %5 = arith.constant 1 : i32
// CHECK-NEXT:       %6 = llvm.cmpxchg %3, %4, %5 acquire monotonic : !llvm.ptr, i32
// CHECK-NEXT:       %7 = llvm.extractvalue %6[1] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:       %8 = arith.constant true
// CHECK-NEXT:       %9 = arith.xori %7, %8 : i1
// CHECK-NEXT:       scf.condition(%9)
// CHECK-NEXT:     } do {
// CHECK-NEXT:       scf.yield
// CHECK-NEXT:     }
// CHECK-NEXT:     llvm.fence acquire
// CHECK-NEXT:   }
// CHECK:        scf.if %{{.*}} {
// CHECK-NEXT:     %[[OLD:.*]] = memref.load %r[] : memref<f64>
// CHECK-NEXT:     %[[NEW:.*]] = arith.mulf %[[OLD]], %a : f64
// CHECK-NEXT:     memref.store %[[NEW]], %r[] : memref<f64>
// CHECK-NEXT:   }
// CHECK:        scf.if %{{.*}} {
// CHECK-NEXT:     %[[C:.*]] = memref.load %s[] : memref<complex<f32>>
// CHECK-NEXT:     %[[A:.*]] = complex.re %[[C]] : complex<f32>
// CHECK-NEXT:     %[[B:.*]] = complex.im %[[C]] : complex<f32>
// CHECK-NEXT:     %[[D:.*]] = complex.re %z : complex<f32>
// CHECK-NEXT:     %[[E:.*]] = complex.im %z : complex<f32>
// CHECK-NEXT:     %[[AD:.*]] = arith.mulf %[[A]], %[[D]] : f32
// CHECK-NEXT:     %[[BE:.*]] = arith.mulf %[[B]], %[[E]] : f32
// CHECK-NEXT:     %[[RE:.*]] = arith.subf %[[AD]], %[[BE]] : f32
// CHECK-NEXT:     %[[AE:.*]] = arith.mulf %[[A]], %[[E]] : f32
// CHECK-NEXT:     %[[BD:.*]] = arith.mulf %[[B]], %[[D]] : f32
// CHECK-NEXT:     %[[IM:.*]] = arith.addf %[[AE]], %[[BD]] : f32
// CHECK-NEXT:     %[[Z:.*]] = complex.create %[[RE]], %[[IM]] : complex<f32>
// CHECK-NEXT:     memref.store %[[Z]], %s[] : memref<complex<f32>>
// CHECK-NEXT:   }
// CHECK:        scf.if %{{.*}} {
// CHECK-NEXT:     %[[P:.*]] = llvm.mlir.addressof @__oacc_gang_lock : !llvm.ptr
// CHECK-NEXT:     llvm.fence release
// CHECK-NEXT:     %[[Z0:.*]] = arith.constant 0 : i32
// CHECK-NEXT:     %{{.*}} = llvm.atomicrmw xchg %[[P]], %[[Z0]] release : !llvm.ptr, i32
// CHECK-NEXT:   }
// CHECK-NEXT:   "test.op"(%a, %z) : (f64, complex<f32>) -> ()
