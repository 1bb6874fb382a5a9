// RUN: not xmux-opt %s -p 'work-item-loops{vector-width=8 force-no-tail=true}' 2>&1 | filecheck %s

// force-no-tail with a required size that is not a multiple of the width cannot be
// scheduled without a tail: an error naming the kernel.

func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 12, 1, 1>} {
  func.return
}

// CHECK: error: {{.*}}tail_force_no_tail_error.mlir:6:1: work-item-loops: kernel @k: force-no-tail needs a work-group size that is a multiple of the vector width 8 in dimension 0, but reqd_work_group_size is [12, 1, 1]
