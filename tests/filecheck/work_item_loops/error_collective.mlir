// RUN: not xmux-opt %s -p work-item-loops 2>&1 | filecheck %s

// Work-group collectives are lowered to barriers and local memory by an earlier pass.

func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xi32>
  %r = mux.work_group_reduce add %v : i32
  memref.store %r, %a[%i] : memref<?xi32>
  func.return
}

// CHECK: error: work-item-loops: 'mux.work_group_reduce' in kernel @k must be lowered before this pass (lower-work-group-collectives)
