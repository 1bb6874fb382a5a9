// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// scf.parallel and scf.reduce as mlir-opt-19 prints them: induction variables, bounds and
// steps in parentheses, `init (...) -> types`, the terminator printed (`scf.reduce` with no
// values; one region per value, comma-separated), the attribute dictionary after the body.
// An scf.parallel written without a terminator gets an empty scf.reduce (upstream's parser).

func.func @f(%a: memref<?xf32>, %n: index) -> (f32, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.000000e+00 : f32
  %c0_i32 = arith.constant 0 : i32
  %0:2 = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) init (%cst, %c0_i32) -> (f32, i32) {
    %1 = memref.load %a[%i] : memref<?xf32>
    %2 = arith.fptosi %1 : f32 to i32
    scf.reduce(%1, %2 : f32, i32) {
    ^bb0(%l: f32, %r: f32):
      %3 = arith.addf %l, %r : f32
      scf.reduce.return %3 : f32
    }, {
    ^bb0(%l: i32, %r: i32):
      %3 = arith.maxsi %l, %r : i32
      scf.reduce.return %3 : i32
    }
  }
  %s = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%cst) -> f32 {
    scf.reduce(%cst : f32) {
    ^bb0(%l: f32, %r: f32):
      scf.reduce.return %r : f32
    }
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %cst, %a[%i] : memref<?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %cst, %a[%i] : memref<?xf32>
  }
  return %0#0, %0#1 : f32, i32
}

// CHECK:      %{{.*}}, %{{.*}} = scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%n, %n) step (%c1, %c1) init (%cst, %c0_i32) -> (f32, i32) {
// CHECK-NEXT:   %{{.*}} = memref.load %a[%[[I]]] : memref<?xf32>
// CHECK-NEXT:   %{{.*}} = arith.fptosi %{{.*}} : f32 to i32
// CHECK-NEXT:   scf.reduce(%{{.*}}, %{{.*}} : f32, i32) {
// CHECK-NEXT:   ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32):
// CHECK-NEXT:     %[[S:.*]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT:     scf.reduce.return %[[S]] : f32
// CHECK-NEXT:   }, {
// CHECK-NEXT:   ^bb0(%[[L2:.*]]: i32, %[[R2:.*]]: i32):
// CHECK-NEXT:     %[[M:.*]] = arith.maxsi %[[L2]], %[[R2]] : i32
// CHECK-NEXT:     scf.reduce.return %[[M]] : i32
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: %s = scf.parallel (%{{.*}}) = (%c0) to (%n) step (%c1) init (%cst) -> f32 {
// CHECK-NEXT:   scf.reduce(%cst : f32) {
// CHECK:          scf.reduce.return
// CHECK-NEXT:   }
// CHECK-NEXT: } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK-NEXT: scf.parallel (%[[K:.*]]) = (%c0) to (%n) step (%c1) {
// CHECK-NEXT:   memref.store %cst, %a[%[[K]]] : memref<?xf32>
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: scf.parallel (%[[K:.*]]) = (%c0) to (%n) step (%c1) {
// CHECK-NEXT:   memref.store %cst, %a[%[[K]]] : memref<?xf32>
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }
