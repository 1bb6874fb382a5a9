// RUN: xmux-opt %s -p lower-vector-transfers | filecheck %s
// vector.splat -> broadcast, vector.step -> a constant, vector.outerproduct -> per row
// broadcast + fma (a float add with an accumulator, as upstream) or mul + the kind's op; a
// 2-D outer product read by shape_cast to 1-D is built flat with shuffles.

func.func @splat_step(%x: f32) -> (vector<4xf32>, vector<4xindex>) {
  %s = vector.splat %x : vector<4xf32>
  %i = vector.step : vector<4xindex>
  return %s, %i : vector<4xf32>, vector<4xindex>
}
// CHECK-LABEL: func.func @splat_step
// CHECK-NEXT: %s = vector.broadcast %x : f32 to vector<4xf32>
// CHECK-NEXT: %i = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>

func.func @axpy(%a: vector<4xi32>, %x: i32, %acc: vector<4xi32>) -> vector<4xi32> {
  %r = vector.outerproduct %a, %x, %acc {kind = #vector.kind<maxsi>} : vector<4xi32>, i32
  return %r : vector<4xi32>
}
// CHECK-LABEL: func.func @axpy
// CHECK-NEXT: %[[X:.*]] = vector.broadcast %x : i32 to vector<4xi32>
// CHECK-NEXT: %[[P:.*]] = arith.muli %a, %[[X]] : vector<4xi32>
// CHECK-NEXT: %r = arith.maxsi %[[P]], %acc : vector<4xi32>

func.func @outer(%a: vector<2xf32>, %b: vector<3xf32>, %c: vector<6xf32>) -> vector<6xf32> {
  %acc = vector.shape_cast %c : vector<6xf32> to vector<2x3xf32>
  %o = vector.outerproduct %a, %b, %acc : vector<2xf32>, vector<3xf32>
  %f = vector.shape_cast %o : vector<2x3xf32> to vector<6xf32>
  return %f : vector<6xf32>
}
// CHECK-LABEL: func.func @outer
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<6xf32>
// CHECK-NEXT: %[[A0:.*]] = vector.extract %a[0] : f32 from vector<2xf32>
// CHECK-NEXT: %[[C0:.*]] = vector.shuffle %c, %c [0, 1, 2] : vector<6xf32>, vector<6xf32>
// CHECK-NEXT: %[[B0:.*]] = vector.broadcast %[[A0]] : f32 to vector<3xf32>
// CHECK-NEXT: %[[R0:.*]] = vector.fma %b, %[[B0]], %[[C0]] : vector<3xf32>
// CHECK-NEXT: %[[W0:.*]] = vector.shuffle %[[R0]], %[[R0]] [0, 1, 2, 0, 1, 2] : vector<3xf32>, vector<3xf32>
// CHECK-NEXT: %[[F0:.*]] = vector.shuffle %[[Z]], %[[W0]] [6, 7, 8, 3, 4, 5] : vector<6xf32>, vector<6xf32>
// CHECK:      %[[C1:.*]] = vector.shuffle %c, %c [3, 4, 5] : vector<6xf32>, vector<6xf32>
// CHECK:      %f = vector.shuffle %[[F0]], %{{.*}} [0, 1, 2, 6, 7, 8] : vector<6xf32>, vector<6xf32>
// CHECK-NEXT: func.return %f : vector<6xf32>
