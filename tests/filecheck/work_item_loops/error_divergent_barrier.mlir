// RUN: not xmux-opt %s -p prepare-barriers,work-item-loops 2>&1 | filecheck %s

// A barrier directly under a condition on the local id: the work-items of a group do not
// all reach it.

func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %first = arith.cmpi eq, %l, %c0 : index
  scf.if %first {
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  }
  func.return
}

// CHECK: error: work-item-loops: kernel @k: barrier 'mux.work_group_barrier' (id 2) is directly inside an scf.if whose condition compares the local id, so the work-items of a group do not all reach it (divergent barrier)
