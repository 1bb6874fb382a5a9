// RUN: not xmux-opt %s -p work-item-loops 2>&1 | filecheck %s

func.func @k() attributes {mux.kernel = "entry_point", mux.work_item_order = array<i64: 0, 0, 2>} {
  func.return
}

// CHECK: error: work-item-loops: @k: mux.work_item_order must be a permutation of 0, 1, 2, got [0, 0, 2]
