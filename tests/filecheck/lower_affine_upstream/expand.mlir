// RUN: xmux-opt %s -p lower-affine-upstream | filecheck %s
// RUN: xmux-opt %s -p lower-affine-upstream --print-debuginfo | filecheck %s --check-prefix=LOC
// lower-affine-upstream expands affine expressions as upstream's AffineApplyExpander
// (issue 31): mod corrected to be non-negative, floordiv / ceildiv through a sign test,
// semi-affine maps (a symbol as factor or divisor) alike; new ops keep the op's location.

func.func @mod(%i: index) -> index {
  %r = affine.apply affine_map<(d0) -> (d0 mod 4)>(%i) loc("a.mlir":1:1)
  return %r : index
}
// CHECK-LABEL: func.func @mod(
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[R:.*]] = arith.remsi %{{.*}}, %[[C4]] : index
// LOC:           arith.remsi {{.*}} loc("a.mlir":1:1)
// LOC:           arith.select {{.*}} loc("a.mlir":1:1)
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[R]], %[[Z]] : index
// CHECK-NEXT:    %[[ADJ:.*]] = arith.addi %[[R]], %[[C4]] : index
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[NEG]], %[[ADJ]], %[[R]] : index
// CHECK-NEXT:    func.return %[[S]] : index

func.func @floordiv_by_symbol(%i: index, %s: index) -> index {
  %r = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%i)[%s]
  return %r : index
}
// CHECK-LABEL: func.func @floordiv_by_symbol(
// CHECK-SAME:      %[[I:.*]]: index, %[[S:.*]]: index
// CHECK-NEXT:    %[[M1:.*]] = arith.constant -1 : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[I]], %[[Z]] : index
// CHECK-NEXT:    %[[ND:.*]] = arith.subi %[[M1]], %[[I]] : index
// CHECK-NEXT:    %[[DV:.*]] = arith.select %[[NEG]], %[[ND]], %[[I]] : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[DV]], %[[S]] : index
// CHECK-NEXT:    %[[NQ:.*]] = arith.subi %[[M1]], %[[Q]] : index
// CHECK-NEXT:    arith.select %[[NEG]], %[[NQ]], %[[Q]] : index

func.func @ceildiv_semi_affine(%i: index, %s: index, %t: index) -> index {
  %r = affine.apply affine_map<(d0)[s0, s1] -> ((d0 - s0) ceildiv s1)>(%i)[%s, %t]
  return %r : index
}
// CHECK-LABEL: func.func @ceildiv_semi_affine(
// CHECK-SAME:      %[[I:.*]]: index, %[[S:.*]]: index, %[[T:.*]]: index
// CHECK-NEXT:    %[[M1:.*]] = arith.constant -1 : index
// CHECK-NEXT:    %[[NS:.*]] = arith.muli %[[S]], %[[M1]] : index
// CHECK-NEXT:    %[[D:.*]] = arith.addi %[[I]], %[[NS]] : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[NP:.*]] = arith.cmpi sle, %[[D]], %[[Z]] : index
// CHECK-NEXT:    %[[NEGD:.*]] = arith.subi %[[Z]], %[[D]] : index
// CHECK-NEXT:    %[[DEC:.*]] = arith.subi %[[D]], %[[ONE]] : index
// CHECK-NEXT:    %[[DV:.*]] = arith.select %[[NP]], %[[NEGD]], %[[DEC]] : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[DV]], %[[T]] : index
// CHECK-NEXT:    %[[NQ:.*]] = arith.subi %[[Z]], %[[Q]] : index
// CHECK-NEXT:    %[[IQ:.*]] = arith.addi %[[Q]], %[[ONE]] : index
// CHECK-NEXT:    arith.select %[[NP]], %[[NQ]], %[[IQ]] : index

func.func @min_max_mul(%i: index, %s: index) -> (index, index) {
  %a = affine.min affine_map<(d0)[s0] -> (d0 * s0, 7, s0)>(%i)[%s]
  %b = affine.max affine_map<(d0) -> (d0, 0)>(%i)
  return %a, %b : index, index
}
// CHECK-LABEL: func.func @min_max_mul(
// CHECK-SAME:      %[[I:.*]]: index, %[[S:.*]]: index
// CHECK-NEXT:    %[[P:.*]] = arith.muli %[[I]], %[[S]] : index
// CHECK-NEXT:    %[[C7:.*]] = arith.constant 7 : index
// CHECK-NEXT:    %[[M:.*]] = arith.minsi %[[P]], %[[C7]] : index
// CHECK-NEXT:    %[[A:.*]] = arith.minsi %[[M]], %[[S]] : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[B:.*]] = arith.maxsi %[[I]], %[[Z]] : index
// CHECK-NEXT:    func.return %[[A]], %[[B]] : index, index

func.func @loops(%a: memref<?xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %r = affine.for %i = max affine_map<(d0) -> (0, d0 - 4)>(%n) to min affine_map<()[s0] -> (s0, 16)>()[%n] step 2 iter_args(%acc = %c0) -> (index) {
    affine.if affine_set<(d0)[s0] : (d0 - 1 >= 0, s0 - d0 == 0)>(%i)[%n] {
      %v = affine.load %a[%i + symbol(%n) floordiv 2] : memref<?xf32>
      affine.store %v, %a[%i] : memref<?xf32>
    }
    %s = arith.addi %acc, %i : index
    affine.yield %s : index
  }
  return %r : index
}
// CHECK-LABEL: func.func @loops(
// CHECK-SAME:      %[[A:.*]]: memref<?xf32>, %[[N:.*]]: index
// CHECK:         %[[LB:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK:         %[[UB:.*]] = arith.minsi %[[N]], %{{.*}} : index
// CHECK-NEXT:    %[[STEP:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %{{.*}} = scf.for %[[I:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (index) {
// CHECK:           %[[GE:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK:           %[[EQ:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[C:.*]] = arith.andi %[[GE]], %[[EQ]] : i1
// CHECK-NEXT:      scf.if %[[C]] {
// CHECK:             %[[IDX:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[A]][%[[IDX]]] : memref<?xf32>
// CHECK-NEXT:        memref.store %[[V]], %[[A]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[ACC]], %[[I]] : index
// CHECK-NEXT:      scf.yield %[[S]] : index

func.func @parallel(%a: memref<?xf32>, %n: index) -> f32 {
  %r = affine.parallel (%i) = (0) to (symbol(%n)) reduce ("addf") -> (f32) {
    %v = affine.load %a[%i] : memref<?xf32>
    affine.yield %v : f32
  }
  affine.parallel (%i, %j) = (0, max(1, symbol(%n) - 8)) to (4, min(symbol(%n), 8)) step (1, 2) {
    %v = affine.vector_load %a[%i * 4 + %j] : memref<?xf32>, vector<4xf32>
    affine.vector_store %v, %a[%i] : memref<?xf32>, vector<4xf32>
  }
  return %r : f32
}
// CHECK-LABEL: func.func @parallel(
// CHECK:         %[[INIT:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %{{.*}} = scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) init (%[[INIT]]) -> f32 {
// CHECK-NEXT:      %[[V:.*]] = memref.load %{{.*}}[%[[I]]] : memref<?xf32>
// CHECK-NEXT:      scf.reduce(%[[V]] : f32) {
// CHECK-NEXT:      ^{{.*}}(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:        scf.reduce.return %[[SUM]] : f32
// CHECK:         %[[LB1:.*]] = arith.maxsi
// CHECK:         %[[UB1:.*]] = arith.minsi
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %[[LB1]]) to (%{{.*}}, %[[UB1]]) step
// CHECK:           %[[W:.*]] = vector.load %{{.*}}[%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT:      vector.store %[[W]], %{{.*}}[%{{.*}}] : memref<?xf32>, vector<4xf32>
// CHECK-NEXT:      scf.reduce
