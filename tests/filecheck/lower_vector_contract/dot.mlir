// RUN: xmux-opt %s -p lower-vector-contract | filecheck %s
// A 1-D vector.contract (dot product) is the lanes' products reduced from the accumulator,
// as mlir-opt-19 --convert-vector-to-llvm (llvm.intr.vector.reduce.fadd(acc, a*b)); another
// combining kind reduces the products with it.

func.func @dot(%a: vector<4xf32>, %b: vector<4xf32>, %c: f32) -> f32 {
  %r = vector.contract {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4xf32>, vector<4xf32> into f32
  return %r : f32
}
// CHECK-LABEL: func.func @dot
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %a, %b : vector<4xf32>
// CHECK-NEXT:    %[[R:.*]] = vector.reduction <add>, %[[P]], %c : vector<4xf32> into f32
// CHECK-NEXT:    func.return %[[R]] : f32

func.func @maxsi(%a: vector<8xi32>, %b: vector<8xi32>, %c: i32) -> i32 {
  %r = vector.contract {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"], kind = #vector.kind<maxsi>} %a, %b, %c : vector<8xi32>, vector<8xi32> into i32
  return %r : i32
}
// CHECK-LABEL: func.func @maxsi
// CHECK-NEXT:    %[[P:.*]] = arith.muli %a, %b : vector<8xi32>
// CHECK-NEXT:    %[[R:.*]] = vector.reduction <maxsi>, %[[P]], %c : vector<8xi32> into i32
// CHECK-NEXT:    func.return %[[R]] : i32
// CHECK-NOT:   vector.contract
