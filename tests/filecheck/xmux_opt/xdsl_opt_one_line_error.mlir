// RUN: not xdsl-opt %s -p define-mux-builtins-nvptx 2>&1 | filecheck %s

// Under plain xdsl-opt (xmux through its xdsl.universe entry point), an xmux error is one
// line naming the pass and the kernel, as under xmux-opt: no traceback through xDSL.

func.func @k() attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 16 : i64} {
  func.return
}

// CHECK-NOT:  Traceback
// CHECK:      error: define-mux-builtins-nvptx: @k requires sub-groups of 16; the NVPTX target's sub-groups are warps of 32
// CHECK-NOT:  Traceback
