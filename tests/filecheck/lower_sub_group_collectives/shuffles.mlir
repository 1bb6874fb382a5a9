// RUN: xmux-opt %s -p lower-sub-group-collectives | filecheck %s

// Shuffles with max sub-group size 1: shuffle / shuffle_xor give the own value (index 0; any
// other index is out of range); shuffle_up gives curr for delta 0 and prev otherwise (delta 1
// reads invocation 0 of prev); shuffle_down gives curr for delta 0 and next otherwise.

func.func @k(%v: i8, %p: f32, %c: f32, %n: f32, %d: i32) -> (i8, i8, f32, f32) {
  %s = mux.sub_group_shuffle %v, %d : i8
  %x = mux.sub_group_shuffle_xor %v, %d : i8
  %u = mux.sub_group_shuffle_up %p, %c, %d : f32
  %w = mux.sub_group_shuffle_down %c, %n, %d : f32
  func.return %s, %x, %u, %w : i8, i8, f32, f32
}

// CHECK:      func.func @k(%v: i8, %p: f32, %c: f32, %n: f32, %d: i32) -> (i8, i8, f32, f32) {
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[UP0:.*]] = arith.cmpi eq, %d, %[[Z]] : i32
// CHECK-NEXT:   %u = arith.select %[[UP0]], %c, %p : f32
// CHECK-NEXT:   %[[Z2:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[DN0:.*]] = arith.cmpi eq, %d, %[[Z2]] : i32
// CHECK-NEXT:   %w = arith.select %[[DN0]], %c, %n : f32
// CHECK-NEXT:   func.return %v, %v, %u, %w : i8, i8, f32, f32
