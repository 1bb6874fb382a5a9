// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s
// complex<T> is !llvm.struct<(T, T)> (re, im); memref<?xcomplex<f32>> loads/stores the struct;
// add/sub part by part, mul (ac - bd) + (ad + bc)i, re/im extract, create/constant insert.

func.func @cx(%a: complex<f32>, %m: memref<?xcomplex<f32>>, %i: index) -> f32 {
  %c = complex.constant [1.0 : f32, -2.0 : f32] : complex<f32>
  %x = memref.load %m[%i] : memref<?xcomplex<f32>>
  %s = complex.add %a, %x : complex<f32>
  %d = complex.sub %s, %c : complex<f32>
  %p = complex.mul %d, %a : complex<f32>
  memref.store %p, %m[%i] : memref<?xcomplex<f32>>
  %re = complex.re %p : complex<f32>
  %im = complex.im %p : complex<f32>
  %z = complex.create %im, %re : complex<f32>
  %e = complex.eq %z, %p : complex<f32>
  %r = arith.select %e, %re, %im : f32
  func.return %r : f32
}

// CHECK:      llvm.func internal @cx(%[[A:.*]]: !llvm.struct<(f32, f32)>, %[[M:.*]]: !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>, %[[I:.*]]: i64) -> f32 {
// CHECK-NEXT:   %[[C1:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:   %[[C2:.*]] = llvm.mlir.constant(-2.000000e+00 : f32) : f32
// CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[U1:.*]] = llvm.insertvalue %[[C1]], %[[U]][0] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[C:.*]] = llvm.insertvalue %[[C2]], %[[U1]][1] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[BASE:.*]] = llvm.extractvalue %[[M]][1]
// CHECK-NEXT:   %[[P:.*]] = llvm.getelementptr inbounds %[[BASE]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[X:.*]] = llvm.load %[[P]] : !llvm.ptr -> !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[AR:.*]] = llvm.extractvalue %[[A]][0] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[AI:.*]] = llvm.extractvalue %[[A]][1] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[XR:.*]] = llvm.extractvalue %[[X]][0] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[XI:.*]] = llvm.extractvalue %[[X]][1] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %{{.*}} = llvm.fadd %[[AR]], %[[XR]] : f32
// CHECK-NEXT:   %{{.*}} = llvm.fadd %[[AI]], %[[XI]] : f32
// CHECK:        llvm.fsub
// CHECK-NEXT:   llvm.fsub
// CHECK:        %[[DR:.*]] = llvm.extractvalue %[[D:.*]][0] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[DI:.*]] = llvm.extractvalue %[[D]][1] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[BR:.*]] = llvm.extractvalue %[[A]][0] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[BI:.*]] = llvm.extractvalue %[[A]][1] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:   %[[AC:.*]] = llvm.fmul %[[DR]], %[[BR]] : f32
// CHECK-NEXT:   %[[BD:.*]] = llvm.fmul %[[DI]], %[[BI]] : f32
// CHECK-NEXT:   %[[AD:.*]] = llvm.fmul %[[DR]], %[[BI]] : f32
// CHECK-NEXT:   %[[BC:.*]] = llvm.fmul %[[DI]], %[[BR]] : f32
// CHECK-NEXT:   %[[RE:.*]] = llvm.fsub %[[AC]], %[[BD]] : f32
// CHECK-NEXT:   %[[IM:.*]] = llvm.fadd %[[AD]], %[[BC]] : f32
// CHECK:        llvm.store %{{.*}}, %{{.*}} : !llvm.struct<(f32, f32)>, !llvm.ptr
// CHECK:        llvm.fcmp "oeq"
// CHECK-NEXT:   llvm.fcmp "oeq"
// CHECK-NEXT:   llvm.and
