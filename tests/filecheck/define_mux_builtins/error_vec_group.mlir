// RUN: not xmux-opt %s -p define-mux-builtins 2>&1 | filecheck %s

// Any mux op this pass cannot define is reported, not left behind.

func.func @v(%x: vector<4xi32>) -> i32 {
  %r = mux.vec_group_reduce add %x : vector<4xi32> -> i32
  func.return %r : i32
}

// CHECK: error: define-mux-builtins: 'mux.vec_group_reduce' in @v is not supported by this pipeline yet
