// RUN: xmux-opt %s -p lower-scf-parallel | filecheck %s
// RUN: xmux-opt %s -p lower-scf-parallel --print-debuginfo | filecheck %s --check-prefix=LOC
// scf.parallel -> one scf.for per dimension, outermost first; the reductions' partial
// values are iter_args of every loop of the nest, and the reduction regions are inlined as
// region(partial, value) after the body. Nested scf.parallel ops are lowered too; a 0-d one
// is its body, inlined. Locations stay those of the scf.parallel.

func.func @nest(%a: memref<?x?xf32>, %n: index, %z: f32, %y: i32) -> (f32, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r:2 = scf.parallel (%i, %j) = (%c0, %c1) to (%n, %n) step (%c1, %c2) init (%z, %y) -> (f32, i32) {
    %x = memref.load %a[%i, %j] : memref<?x?xf32>
    %k = arith.fptosi %x : f32 to i32
    scf.reduce(%x, %k : f32, i32) {
    ^bb0(%l: f32, %e: f32):
      %s = arith.addf %l, %e : f32
      scf.reduce.return %s : f32
    }, {
    ^bb0(%l: i32, %e: i32):
      %s = arith.maxsi %l, %e : i32
      scf.reduce.return %s : i32
    }
  } loc("nest.mlir":3:5)
  return %r#0, %r#1 : f32, i32
}
// CHECK-LABEL: func.func @nest(
// CHECK:        %{{.*}}, %{{.*}} = scf.for %[[I:.*]] = %c0 to %n step %c1 iter_args(%[[P0:.*]] = %z, %[[Q0:.*]] = %y) -> (f32, i32) {
// CHECK-NEXT:     %[[R0:.*]], %[[R1:.*]] = scf.for %[[J:.*]] = %c1 to %n step %c2 iter_args(%[[P:.*]] = %[[P0]], %[[Q:.*]] = %[[Q0]]) -> (f32, i32) {
// CHECK-NEXT:       %[[X:.*]] = memref.load %a[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK-NEXT:       %[[K:.*]] = arith.fptosi %[[X]] : f32 to i32
// CHECK-NEXT:       %[[S:.*]] = arith.addf %[[P]], %[[X]] : f32
// CHECK-NEXT:       %[[M:.*]] = arith.maxsi %[[Q]], %[[K]] : i32
// CHECK-NEXT:       scf.yield %[[S]], %[[M]] : f32, i32
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.yield %[[R0]], %[[R1]] : f32, i32
// CHECK-NEXT:   }
// CHECK-NOT:    scf.parallel
// CHECK-NOT:    scf.reduce
// LOC:          scf.yield %{{.*}}, %{{.*}} : f32, i32 loc("nest.mlir":3:5)
// LOC-NEXT:   } loc("nest.mlir":3:5)
// LOC-NEXT:   scf.yield %{{.*}}, %{{.*}} : f32, i32 loc("nest.mlir":3:5)
// LOC-NEXT: } loc("nest.mlir":3:5)

func.func @inner(%a: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %s = scf.parallel (%j) = (%c0) to (%n) step (%c1) init (%z) -> f32 {
      %x = memref.load %a[%i, %j] : memref<?x?xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %e: f32):
        %t = arith.addf %l, %e : f32
        scf.reduce.return %t : f32
      }
    }
    memref.store %s, %a[%i, %c0] : memref<?x?xf32>
    scf.reduce
  }
  return
}
// CHECK-LABEL: func.func @inner(
// CHECK:        scf.for %[[I:.*]] = %c0 to %n step %c1 {
// CHECK-NEXT:     %[[S:.*]] = scf.for %[[J:.*]] = %c0 to %n step %c1 iter_args(%[[P:.*]] = %z) -> (f32) {
// CHECK-NEXT:       %[[X:.*]] = memref.load %a[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK-NEXT:       %[[T:.*]] = arith.addf %[[P]], %[[X]] : f32
// CHECK-NEXT:       scf.yield %[[T]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     memref.store %[[S]], %a[%[[I]], %c0] : memref<?x?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return

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
// CHECK-LABEL: func.func @once(
// CHECK-NEXT:    %[[S:.*]] = arith.mulf %z, %x : f32
// CHECK-NEXT:    func.return %[[S]] : f32
