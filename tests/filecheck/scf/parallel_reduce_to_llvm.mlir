// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s
// scf.parallel with reductions becomes a sequential loop nest (one loop per dimension, in
// order); the partial values are carried by every loop of the nest and each iteration
// folds its scf.reduce values in through the reduction regions (upstream leaves the order
// open). A 0-d scf.parallel runs its body once.

func.func @sum2(%a: memref<?x?xf32>, %n: index, %m: index, %z: f32, %y: i64) -> (f32, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) init (%z, %y) -> (f32, i64) {
    %x = memref.load %a[%i, %j] : memref<?x?xf32>
    %k = arith.index_cast %j : index to i64
    scf.reduce(%x, %k : f32, i64) {
    ^bb0(%l: f32, %e: f32):
      %s = arith.addf %l, %e : f32
      scf.reduce.return %s : f32
    }, {
    ^bb0(%l: i64, %e: i64):
      %s = arith.maxsi %l, %e : i64
      scf.reduce.return %s : i64
    }
  }
  return %r#0, %r#1 : f32, i64
}
// CHECK-LABEL: llvm.func internal @sum2(
// CHECK-SAME:      %[[N:[0-9]+]]: i64, %[[M:[0-9]+]]: i64, %[[Z:[0-9]+]]: f32, %[[Y:[0-9]+]]: i64)
// CHECK:        llvm.br ^[[H1:bb[0-9]+]](%[[C0:.*]], %[[Z]], %[[Y]] : i64, f32, i64)
// CHECK-NEXT: ^[[H1]](%[[I:.*]]: i64, %[[A1:.*]]: f32, %[[B1:.*]]: i64):
// CHECK-NEXT:   %{{.*}} = llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK-NEXT:   llvm.cond_br %{{.*}}, ^[[B1B:bb[0-9]+]], ^[[X1:bb[0-9]+]]
// CHECK-NEXT: ^[[B1B]]:
// CHECK-NEXT:   llvm.br ^[[H2:bb[0-9]+]](%[[C0]], %[[A1]], %[[B1]] : i64, f32, i64)
// CHECK-NEXT: ^[[H2]](%[[J:.*]]: i64, %[[A2:.*]]: f32, %[[B2:.*]]: i64):
// CHECK-NEXT:   %{{.*}} = llvm.icmp "slt" %[[J]], %[[M]] : i64
// CHECK-NEXT:   llvm.cond_br %{{.*}}, ^[[B2B:bb[0-9]+]], ^[[X2:bb[0-9]+]]
// CHECK-NEXT: ^[[B2B]]:
// CHECK:        %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:        %[[S:.*]] = llvm.fadd %[[A2]], %[[X]] : f32
// CHECK-NEXT:   %[[MX:.*]] = llvm.call_intrinsic "llvm.smax.i64"(%[[B2]], %[[J]]) : (i64, i64) -> i64
// CHECK-NEXT:   %[[J1:.*]] = llvm.add %[[J]], %{{.*}} : i64
// CHECK-NEXT:   llvm.br ^[[H2]](%[[J1]], %[[S]], %[[MX]] : i64, f32, i64)
// CHECK-NEXT: ^[[X2]]:
// CHECK-NEXT:   %[[I1:.*]] = llvm.add %[[I]], %{{.*}} : i64
// CHECK-NEXT:   llvm.br ^[[H1]](%[[I1]], %[[A2]], %[[B2]] : i64, f32, i64)
// CHECK-NEXT: ^[[X1]]:
// CHECK:        llvm.return

func.func @once(%z: f32, %x: f32) -> f32 {
  %r = scf.parallel () = () to () step () init (%z) -> f32 {
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %e: f32):
      %s = arith.mulf %l, %e : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}
// CHECK-LABEL: llvm.func internal @once(%{{.*}}: f32, %{{.*}}: f32) -> f32 {
// CHECK-NEXT:    %[[P:.*]] = llvm.fmul %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    llvm.return %[[P]] : f32
