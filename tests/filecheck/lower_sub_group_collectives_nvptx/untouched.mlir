// RUN: xmux-opt %s -p lower-sub-group-collectives-nvptx | filecheck %s

// Sub-group barriers stay for define-mux-builtins-nvptx (bar.warp.sync); vec-group ops are
// not this pass's business. A function without sub-group collectives is unchanged.

func.func @k(%v: vector<4xi32>) -> i32 {
  mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
  %r = mux.vec_group_reduce add %v : vector<4xi32> -> i32
  func.return %r : i32
}

// CHECK:      func.func @k(%v: vector<4xi32>) -> i32 {
// CHECK-NEXT:   mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
// CHECK-NEXT:   %r = mux.vec_group_reduce add %v : vector<4xi32> -> i32
// CHECK-NEXT:   func.return %r : i32
// CHECK-NEXT: }
