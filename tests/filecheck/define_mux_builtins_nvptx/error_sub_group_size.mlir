// RUN: not xmux-opt %s -p define-mux-builtins-nvptx 2>&1 | filecheck %s

// The NVPTX target's sub-groups are warps: a kernel requiring another size is refused.

func.func @k() attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 16 : i64} {
  %s = mux.get_sub_group_size : i32
  func.return
}

// CHECK: error: define-mux-builtins-nvptx: @k requires sub-groups of 16; the NVPTX target's sub-groups are warps of 32
