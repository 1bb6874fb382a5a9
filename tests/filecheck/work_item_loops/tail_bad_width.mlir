// RUN: not xmux-opt %s -p 'work-item-loops{vector-width=6}' 2>&1 | filecheck %s

// LLVM's loop vectorizer takes power-of-two widths only.

func.func @k() attributes {mux.kernel = "entry_point"} {
  func.return
}

// CHECK: error: work-item-loops: vector-width must be 0, 1 or a power of two, got 6
