// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Sub-group collectives (no barrier id) and the four shuffles (i32 index operands).

// CHECK-LABEL: func.func @sub_group
// CHECK-SAME:    (%[[I:.*]]: i32, %[[F:.*]]: f32, %[[D:.*]]: f64, %[[B:.*]]: i1, %[[L:.*]]: i64, %[[C:.*]]: i8, %[[H:.*]]: f16)
// CHECK-NEXT:    %{{.*}} = mux.sub_group_reduce and %[[I]] : i32
// CHECK-NEXT:    %{{.*}} = mux.sub_group_reduce fmin %[[H]] : f16
// CHECK-NEXT:    %{{.*}} = mux.sub_group_reduce logical_or %[[B]] : i1
// CHECK-NEXT:    %{{.*}} = mux.sub_group_scan_inclusive umax %[[L]] : i64
// CHECK-NEXT:    %{{.*}} = mux.sub_group_scan_exclusive xor %[[C]] : i8
// CHECK-NEXT:    %{{.*}} = mux.sub_group_scan_exclusive fadd %[[F]] : f32
// CHECK-NEXT:    %{{.*}} = mux.sub_group_broadcast %[[L]], %[[I]] : i64
// CHECK-NEXT:    %{{.*}} = mux.sub_group_any %[[B]] : i1
// CHECK-NEXT:    %{{.*}} = mux.sub_group_all %[[B]] : i1
// CHECK-NEXT:    %{{.*}} = mux.sub_group_shuffle %[[I]], %[[I]] : i32
// CHECK-NEXT:    %{{.*}} = mux.sub_group_shuffle_up %[[C]], %[[C]], %[[I]] : i8
// CHECK-NEXT:    %{{.*}} = mux.sub_group_shuffle_down %[[F]], %[[F]], %[[I]] : f32
// CHECK-NEXT:    %{{.*}} = mux.sub_group_shuffle_xor %[[D]], %[[I]] : f64
// CHECK-NEXT:    func.return

// GENERIC: "mux.sub_group_reduce"(%{{.*}}) <{kind = #mux<kind and>}> : (i32) -> i32
// GENERIC: "mux.sub_group_broadcast"(%{{.*}}, %{{.*}}) : (i64, i32) -> i64
// GENERIC: "mux.sub_group_shuffle_up"(%{{.*}}, %{{.*}}, %{{.*}}) : (i8, i8, i32) -> i8
func.func @sub_group(%i: i32, %f: f32, %d: f64, %b: i1, %l: i64, %c: i8, %h: f16) {
  %0 = mux.sub_group_reduce and %i : i32
  %1 = mux.sub_group_reduce fmin %h : f16
  %2 = mux.sub_group_reduce logical_or %b : i1
  %3 = mux.sub_group_scan_inclusive umax %l : i64
  %4 = mux.sub_group_scan_exclusive xor %c : i8
  %5 = mux.sub_group_scan_exclusive fadd %f : f32
  %6 = mux.sub_group_broadcast %l, %i : i64
  %7 = mux.sub_group_any %b : i1
  %8 = mux.sub_group_all %b : i1
  %9 = mux.sub_group_shuffle %i, %i : i32
  %10 = mux.sub_group_shuffle_up %c, %c, %i : i8
  %11 = mux.sub_group_shuffle_down %f, %f, %i : f32
  %12 = mux.sub_group_shuffle_xor %d, %i : f64
  func.return
}
