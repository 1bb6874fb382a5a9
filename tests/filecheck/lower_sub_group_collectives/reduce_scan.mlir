// RUN: xmux-opt %s -p lower-sub-group-collectives | filecheck %s

// Sub-groups of one work-item: reduce and inclusive scan give the value, an exclusive scan
// the kind's identity; logical kinds on wider integers are normalised to 0 or 1.

func.func @k(%x: i32, %f: f64, %b: i1) -> (i32, i32, f64, i32, f64, i1, i64) {
  %r = mux.sub_group_reduce add %x : i32
  %s = mux.sub_group_scan_inclusive umax %x : i32
  %t = mux.sub_group_reduce fmul %f : f64
  %l = mux.sub_group_reduce logical_or %x : i32
  %e = mux.sub_group_scan_exclusive fmin %f : f64
  %lb = mux.sub_group_scan_inclusive logical_xor %b : i1
  %w = arith.extsi %x : i32 to i64
  %ei = mux.sub_group_scan_exclusive smin %w : i64
  func.return %r, %s, %t, %l, %e, %lb, %ei : i32, i32, f64, i32, f64, i1, i64
}

// CHECK:      func.func @k(%x: i32, %f: f64, %b: i1)
// CHECK-NEXT:   %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %[[NZ:.*]] = arith.cmpi ne, %x, %[[Z]] : i32
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:   %l = arith.select %[[NZ]], %[[ONE]], %[[ZERO]] : i32
// CHECK-NEXT:   %e = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:   %w = arith.extsi %x : i32 to i64
// CHECK-NEXT:   %ei = arith.constant 9223372036854775807 : i64
// CHECK-NEXT:   func.return %x, %x, %f, %l, %e, %b, %ei : i32, i32, f64, i32, f64, i1, i64
