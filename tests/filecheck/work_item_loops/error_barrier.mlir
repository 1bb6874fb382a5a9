// RUN: not xmux-opt %s -p work-item-loops 2>&1 | filecheck %s

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  func.return
}

// CHECK: error: work-item-loops: 'mux.work_group_barrier' in kernel @k is not supported by this pipeline yet
