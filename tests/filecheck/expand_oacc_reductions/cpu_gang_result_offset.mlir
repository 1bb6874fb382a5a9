// RUN: xmux-opt %s -p 'expand-oacc-reductions' | filecheck %s
// Atomic gang fini into a RESULT with a static offset (a view): the address is offset in
// elements; complex add is two fadds on the parts (offset counted in parts).

func.func @k(%a: i8, %z: complex<f32>, %r: memref<i8, strided<[], offset: 3>>, %s: memref<complex<f32>, strided<[], offset: 1>>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 2, 1, 1>} {
  %a3 = oacc.reduction_fini gang add %a res(%r : memref<i8, strided<[], offset: 3>>) lid 0 rid 0 : i8
  %z3 = oacc.reduction_fini gang add %z res(%s : memref<complex<f32>, strided<[], offset: 1>>) lid 0 rid 1 : complex<f32>
  func.return
}

// CHECK:      %[[P:.*]] = llvm.getelementptr %{{.*}}[3] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %{{.*}} = llvm.atomicrmw add %[[P]], %a acq_rel : !llvm.ptr, i8
// CHECK:      %[[Q:.*]] = llvm.getelementptr %{{.*}}[2] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT: %[[RE:.*]] = complex.re %z : complex<f32>
// CHECK-NEXT: %[[IM:.*]] = complex.im %z : complex<f32>
// CHECK-NEXT: %{{.*}} = llvm.atomicrmw fadd %[[Q]], %[[RE]] acq_rel : !llvm.ptr, f32
// CHECK-NEXT: %[[Q1:.*]] = llvm.getelementptr %[[Q]][1] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT: %{{.*}} = llvm.atomicrmw fadd %[[Q1]], %[[IM]] acq_rel : !llvm.ptr, f32
