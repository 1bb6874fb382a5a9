// RUN: xmux-opt %s -p lower-sub-group-collectives | filecheck %s

// broadcast (sub-group local id 0 is the only one), any and all give the value itself.

func.func @k(%x: f32, %id: i32, %b: i1) -> (f32, i1, i1) {
  %r = mux.sub_group_broadcast %x, %id : f32
  %a = mux.sub_group_any %b : i1
  %l = mux.sub_group_all %b : i1
  func.return %r, %a, %l : f32, i1, i1
}

// CHECK:      func.func @k(%x: f32, %id: i32, %b: i1) -> (f32, i1, i1) {
// CHECK-NEXT:   func.return %x, %b, %b : f32, i1, i1
// CHECK-NEXT: }
