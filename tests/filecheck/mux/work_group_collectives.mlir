// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Work-group collectives: every op, integer / float / logical kinds, optional barrier id.

// CHECK-LABEL: func.func @work_group
// CHECK-SAME:    (%[[I:.*]]: i32, %[[F:.*]]: f32, %[[D:.*]]: f64, %[[B:.*]]: i1, %[[X:.*]]: index, %[[L:.*]]: i64)
// CHECK-NEXT:    %{{.*}} = mux.work_group_reduce add %[[I]] : i32
// CHECK-NEXT:    %{{.*}} = mux.work_group_reduce id 3, fadd %[[F]] : f32
// CHECK-NEXT:    %{{.*}} = mux.work_group_reduce umin %[[L]] : i64
// CHECK-NEXT:    %{{.*}} = mux.work_group_reduce logical_xor %[[B]] : i1
// CHECK-NEXT:    %{{.*}} = mux.work_group_scan_inclusive mul %[[I]] : i32
// CHECK-NEXT:    %{{.*}} = mux.work_group_scan_inclusive fmax %[[D]] : f64
// CHECK-NEXT:    %{{.*}} = mux.work_group_scan_exclusive fmul %[[D]] : f64
// CHECK-NEXT:    %{{.*}} = mux.work_group_scan_exclusive id 1, smax %[[X]] : index
// CHECK-NEXT:    %{{.*}} = mux.work_group_broadcast %[[I]], %[[X]], %[[X]], %[[X]] : i32
// CHECK-NEXT:    %{{.*}} = mux.work_group_broadcast id 4, %[[F]], %[[X]], %[[X]], %[[X]] : f32
// CHECK-NEXT:    %{{.*}} = mux.work_group_any %[[B]] : i1
// CHECK-NEXT:    %{{.*}} = mux.work_group_all id 5, %[[B]] : i1
// CHECK-NEXT:    func.return

// GENERIC: "mux.work_group_reduce"(%{{.*}}) <{kind = #mux<kind add>, id = 0 : i32}> : (i32) -> i32
// GENERIC: "mux.work_group_reduce"(%{{.*}}) <{id = 3 : i32, kind = #mux<kind fadd>}> : (f32) -> f32
// GENERIC: "mux.work_group_broadcast"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{id = 0 : i32}> : (i32, index, index, index) -> i32
// GENERIC: "mux.work_group_any"(%{{.*}}) <{id = 0 : i32}> : (i1) -> i1
func.func @work_group(%i: i32, %f: f32, %d: f64, %b: i1, %x: index, %l: i64) {
  %0 = mux.work_group_reduce add %i : i32
  %1 = mux.work_group_reduce id 3, fadd %f : f32
  %2 = mux.work_group_reduce umin %l : i64
  %3 = mux.work_group_reduce logical_xor %b : i1
  %4 = mux.work_group_scan_inclusive mul %i : i32
  %5 = mux.work_group_scan_inclusive fmax %d : f64
  %6 = mux.work_group_scan_exclusive fmul %d : f64
  %7 = mux.work_group_scan_exclusive id 1, smax %x : index
  %8 = mux.work_group_broadcast %i, %x, %x, %x : i32
  %9 = mux.work_group_broadcast id 4, %f, %x, %x, %x : f32
  %10 = mux.work_group_any %b : i1
  %11 = mux.work_group_all id 5, %b : i1
  func.return
}
