// RUN: xmux-opt %s -p lower-vector-transfers | filecheck %s
// vector.transfer_read as linalg vectorization leaves it: along the unit-stride last dimension
// a (masked) vector load whose pass-through is the padding; along another dimension one
// guarded scalar load per lane; a broadcast map one scalar load.

func.func @minor(%m: memref<?x?xf32>, %i: index, %j: index, %pad: f32) -> vector<8xf32> {
  %v = vector.transfer_read %m[%i, %j], %pad : memref<?x?xf32>, vector<8xf32>
  return %v : vector<8xf32>
}
// CHECK-LABEL: func.func @minor
// CHECK:      %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[D:.*]] = memref.dim %m, %[[C1]] : memref<?x?xf32>
// CHECK-NEXT: %[[N:.*]] = arith.subi %[[D]], %j : index
// CHECK-NEXT: %[[K:.*]] = vector.create_mask %[[N]] : vector<8xi1>
// CHECK-NEXT: %[[P:.*]] = vector.broadcast %pad : f32 to vector<8xf32>
// CHECK-NEXT: %v = vector.maskedload %m[%i, %j], %[[K]], %[[P]] : memref<?x?xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK-NOT:  vector.transfer_read

func.func @in_bounds(%m: memref<16xf32>, %i: index, %pad: f32) -> vector<4xf32> {
  %v = vector.transfer_read %m[%i], %pad {in_bounds = [true]} : memref<16xf32>, vector<4xf32>
  return %v : vector<4xf32>
}
// CHECK-LABEL: func.func @in_bounds
// CHECK-NEXT:  %v = vector.load %m[%i] : memref<16xf32>, vector<4xf32>

func.func @masked(%m: memref<16xf32>, %i: index, %pad: f32, %k: vector<4xi1>) -> vector<4xf32> {
  %v = vector.transfer_read %m[%i], %pad, %k : memref<16xf32>, vector<4xf32>
  return %v : vector<4xf32>
}
// CHECK-LABEL: func.func @masked
// CHECK:      %[[B:.*]] = vector.create_mask %{{.*}} : vector<4xi1>
// CHECK-NEXT: %[[K:.*]] = arith.andi %[[B]], %k : vector<4xi1>
// CHECK:      vector.maskedload %m[%i], %[[K]]

func.func @column(%m: memref<4x8xf32>, %i: index, %j: index, %pad: f32) -> vector<2xf32> {
  %v = vector.transfer_read %m[%i, %j], %pad {permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<2xf32>
  return %v : vector<2xf32>
}
// CHECK-LABEL: func.func @column
// CHECK:      %[[V0:.*]] = vector.broadcast %pad : f32 to vector<2xf32>
// CHECK:      %[[D:.*]] = memref.dim %m, %{{.*}} : memref<4x8xf32>
// CHECK-NEXT: %[[OK0:.*]] = arith.cmpi slt, %i, %[[D]] : index
// CHECK-NEXT: %[[X0:.*]] = scf.if %[[OK0]] -> (f32) {
// CHECK-NEXT:   %[[L0:.*]] = memref.load %m[%i, %j] : memref<4x8xf32>
// CHECK-NEXT:   scf.yield %[[L0]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT:   scf.yield %pad : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[V1:.*]] = vector.insert %[[X0]], %[[V0]] [0] : f32 into vector<2xf32>
// CHECK:      %[[I1:.*]] = arith.addi %i, %{{.*}} : index
// CHECK-NEXT: %[[OK1:.*]] = arith.cmpi slt, %[[I1]], %[[D]] : index
// CHECK:        memref.load %m[%[[I1]], %j] : memref<4x8xf32>
// CHECK:      %v = vector.insert %{{.*}}, %[[V1]] [1] : f32 into vector<2xf32>

func.func @strided(%m: memref<8xf32, strided<[2]>>, %i: index, %pad: f32) -> vector<2xf32> {
  %v = vector.transfer_read %m[%i], %pad {in_bounds = [true]} : memref<8xf32, strided<[2]>>, vector<2xf32>
  return %v : vector<2xf32>
}
// CHECK-LABEL: func.func @strided
// CHECK-NOT:  scf.if
// CHECK:      memref.load %m[%i] : memref<8xf32, strided<[2]>>
// CHECK:      memref.load %m[%{{.*}}] : memref<8xf32, strided<[2]>>

func.func @broadcast(%m: memref<4x8xf32>, %i: index, %j: index, %pad: f32) -> vector<4xf32> {
  %v = vector.transfer_read %m[%i, %j], %pad {permutation_map = affine_map<(d0, d1) -> (0)>, in_bounds = [true]} : memref<4x8xf32>, vector<4xf32>
  return %v : vector<4xf32>
}
// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT: %[[X:.*]] = memref.load %m[%i, %j] : memref<4x8xf32>
// CHECK-NEXT: %v = vector.broadcast %[[X]] : f32 to vector<4xf32>
