// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Vec-group collectives on vectors and scalars: reduce and broadcast give the element
// type, scans keep the value's type, any/all give i1.

// CHECK-LABEL: func.func @vec_group
// CHECK-SAME:    (%[[V:.*]]: vector<4xi32>, %[[VF:.*]]: vector<2xf64>, %[[VB:.*]]: vector<4xi1>, %[[I:.*]]: i32, %[[B:.*]]: i1)
// CHECK-NEXT:    %{{.*}} = mux.vec_group_reduce add %[[V]] : vector<4xi32> -> i32
// CHECK-NEXT:    %{{.*}} = mux.vec_group_reduce fmax %[[VF]] : vector<2xf64> -> f64
// CHECK-NEXT:    %{{.*}} = mux.vec_group_reduce smin %[[I]] : i32 -> i32
// CHECK-NEXT:    %{{.*}} = mux.vec_group_scan_inclusive add %[[V]] : vector<4xi32>
// CHECK-NEXT:    %{{.*}} = mux.vec_group_scan_exclusive fmul %[[VF]] : vector<2xf64>
// CHECK-NEXT:    %{{.*}} = mux.vec_group_broadcast %[[V]], %[[I]] : vector<4xi32> -> i32
// CHECK-NEXT:    %{{.*}} = mux.vec_group_any %[[VB]] : vector<4xi1>
// CHECK-NEXT:    %{{.*}} = mux.vec_group_all %[[B]] : i1
// CHECK-NEXT:    func.return

// GENERIC: "mux.vec_group_reduce"(%{{.*}}) <{kind = #mux<kind add>}> : (vector<4xi32>) -> i32
// GENERIC: "mux.vec_group_any"(%{{.*}}) : (vector<4xi1>) -> i1
func.func @vec_group(%v: vector<4xi32>, %vf: vector<2xf64>, %vb: vector<4xi1>, %i: i32, %b: i1) {
  %0 = mux.vec_group_reduce add %v : vector<4xi32> -> i32
  %1 = mux.vec_group_reduce fmax %vf : vector<2xf64> -> f64
  %2 = mux.vec_group_reduce smin %i : i32 -> i32
  %3 = mux.vec_group_scan_inclusive add %v : vector<4xi32>
  %4 = mux.vec_group_scan_exclusive fmul %vf : vector<2xf64>
  %5 = mux.vec_group_broadcast %v, %i : vector<4xi32> -> i32
  %6 = mux.vec_group_any %vb : vector<4xi1>
  %7 = mux.vec_group_all %b : i1
  func.return
}
