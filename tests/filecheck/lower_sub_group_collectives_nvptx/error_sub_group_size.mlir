// RUN: not xmux-opt %s -p lower-sub-group-collectives-nvptx 2>&1 | filecheck %s

// Sub-groups are warps of 32 on NVPTX: a kernel that requires another size is refused.

func.func @k(%x: i32) -> i32 attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 8 : i32} {
  %r = mux.sub_group_reduce add %x : i32
  func.return %r : i32
}

// CHECK: lower-sub-group-collectives-nvptx: @k requires sub-groups of 8 and uses sub-group collectives; the NVPTX target's sub-groups are warps of 32
