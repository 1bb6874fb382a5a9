// RUN: xmux-opt %s -p lower-vector-transfers | filecheck %s
// vector.transfer_write: a (masked) vector store along the unit-stride last dimension, else
// one guarded scalar store per lane.

func.func @minor(%v: vector<4xf32>, %m: memref<?xf32>, %i: index) {
  vector.transfer_write %v, %m[%i] : vector<4xf32>, memref<?xf32>
  return
}
// CHECK-LABEL: func.func @minor
// CHECK:      %[[D:.*]] = memref.dim %m, %{{.*}} : memref<?xf32>
// CHECK-NEXT: %[[N:.*]] = arith.subi %[[D]], %i : index
// CHECK-NEXT: %[[K:.*]] = vector.create_mask %[[N]] : vector<4xi1>
// CHECK-NEXT: vector.maskedstore %m[%i], %[[K]], %v : memref<?xf32>, vector<4xi1>, vector<4xf32>

func.func @in_bounds(%v: vector<4xf32>, %m: memref<?xf32>, %i: index) {
  vector.transfer_write %v, %m[%i] {in_bounds = [true]} : vector<4xf32>, memref<?xf32>
  return
}
// CHECK-LABEL: func.func @in_bounds
// CHECK-NEXT: vector.store %v, %m[%i] : memref<?xf32>, vector<4xf32>

func.func @column(%v: vector<2xi32>, %m: memref<4x8xi32>, %i: index, %j: index) {
  vector.transfer_write %v, %m[%i, %j] {permutation_map = affine_map<(d0, d1) -> (d0)>} : vector<2xi32>, memref<4x8xi32>
  return
}
// CHECK-LABEL: func.func @column
// CHECK:      %[[D:.*]] = memref.dim %m, %{{.*}} : memref<4x8xi32>
// CHECK-NEXT: %[[X0:.*]] = vector.extract %v[0] : i32 from vector<2xi32>
// CHECK-NEXT: %[[OK0:.*]] = arith.cmpi slt, %i, %[[D]] : index
// CHECK-NEXT: scf.if %[[OK0]] {
// CHECK-NEXT:   memref.store %[[X0]], %m[%i, %j] : memref<4x8xi32>
// CHECK-NEXT: }
// CHECK:      %[[I1:.*]] = arith.addi %i, %{{.*}} : index
// CHECK-NEXT: %[[X1:.*]] = vector.extract %v[1] : i32 from vector<2xi32>
// CHECK-NEXT: %[[OK1:.*]] = arith.cmpi slt, %[[I1]], %[[D]] : index
// CHECK-NEXT: scf.if %[[OK1]] {
// CHECK-NEXT:   memref.store %[[X1]], %m[%[[I1]], %j] : memref<4x8xi32>
// CHECK-NOT:  vector.transfer_write
