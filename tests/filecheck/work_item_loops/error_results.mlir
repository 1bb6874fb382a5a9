// RUN: not xmux-opt %s -p work-item-loops 2>&1 | filecheck %s

func.func @k(%x: i32) -> i32 attributes {mux.kernel = "entry_point"} {
  func.return %x : i32
}

// CHECK: error: {{.*}}error_results.mlir:3:1: work-item-loops: kernel @k: a kernel must return nothing, it returns i32
