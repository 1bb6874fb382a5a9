// RUN: not xmux-opt %s -p define-mux-builtins-nvptx 2>&1 | filecheck %s

func.func @k(%x: f32) -> f32 {
  %r = mux.sub_group_reduce fadd %x : f32
  func.return %r : f32
}

// CHECK: error: define-mux-builtins-nvptx: 'mux.sub_group_reduce' in @k is not supported on the NVPTX target (collectives are lowered by lower-*-group-collectives-nvptx before this pass)
