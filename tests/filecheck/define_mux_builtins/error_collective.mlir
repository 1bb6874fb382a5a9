// RUN: not xmux-opt %s -p define-mux-builtins 2>&1 | filecheck %s

func.func @k(%x: f32) -> f32 {
  %r = mux.sub_group_reduce fadd %x : f32
  func.return %r : f32
}

// CHECK: error: define-mux-builtins: 'mux.sub_group_reduce' in @k is not supported by this pipeline yet
