// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// The affine forms xDSL 0.74 lacks, as upstream prints them (dialects/affine_ops.py,
// patches in dialects/xdsl_compat.py): affine.max, affine.if, affine.parallel, symbol(...)
// operands, semi-affine maps; printed back in the custom form.

#semi = affine_map<(d0)[s0, s1] -> ((d0 - s0) ceildiv s1, d0 * s0, d0 mod s1)>
func.func @f(%a: memref<?x4xf32>, %n: index, %m: index) -> (index, f32) {
  %x = affine.max #semi(%n)[%m, %n]
  %y = affine.if affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 mod 2 == 0)>(%x)[%m] -> index {
    affine.yield %x : index
  } else {
    affine.yield %n : index
  }
  affine.if affine_set<(d0) : (d0 >= 0)>(%y) {
    %v = affine.load %a[%y + symbol(%m), 0] : memref<?x4xf32>
    affine.store %v, %a[symbol(%n) floordiv 2, 1] : memref<?x4xf32>
  }
  affine.parallel (%i, %j) = (max(0, symbol(%m) - 2), 0) to (min(symbol(%n), 10), 4) step (2, 1) {
    %v = affine.load %a[%i, %j] : memref<?x4xf32>
    affine.store %v, %a[%i, %j] : memref<?x4xf32>
  }
  %r = affine.parallel (%i) = (0) to (symbol(%n)) reduce ("maximumf") -> (f32) {
    %v = affine.load %a[%i, 0] : memref<?x4xf32>
    affine.yield %v : f32
  }
  return %y, %r : index, f32
}

// CHECK:      %[[X:.*]] = affine.max affine_map<(d0)[s0, s1] -> (((d0 + (s0 * -1)) ceildiv s1), (d0 * s0), (d0 mod s1))> (%[[N:.*]])[%[[M:.*]], %[[N]]]
// CHECK-NEXT: %[[Y:.*]] = affine.if affine_set<(d0)[s0] : ((d0 + (s0 * -1)) >= 0, (d0 mod 2) == 0)> (%[[X]])[%[[M]]] -> (index) {
// CHECK-NEXT:   affine.yield %[[X]] : index
// CHECK-NEXT: } else {
// CHECK-NEXT:   affine.yield %[[N]] : index
// CHECK-NEXT: }
// CHECK-NEXT: affine.if affine_set<(d0) : (d0 >= 0)> (%[[Y]]) {
// CHECK-NEXT:   %{{.*}} = affine.load %{{.*}}[%[[Y]] + %[[M]], 0] : memref<?x4xf32>
// CHECK-NEXT:   affine.store %{{.*}}, %{{.*}}[%[[N]] floordiv 2, 1] : memref<?x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: affine.parallel (%[[I:.*]], %[[J:.*]]) = (max(0, %[[M]] + -2), 0) to (min(%[[N]], 10), 4) step (2, 1) {
// CHECK-NEXT:   affine.load %{{.*}}[%[[I]], %[[J]]] : memref<?x4xf32>
// CHECK-NEXT:   affine.store
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}} = affine.parallel (%{{.*}}) = (0) to (%[[N]]) reduce ("maximumf") -> (f32) {
// CHECK-NEXT:   %[[V:.*]] = affine.load
// CHECK-NEXT:   affine.yield %[[V]] : f32
// CHECK-NEXT: }
