// RUN: not xmux-opt %s -p work-item-loops 2>&1 | filecheck %s

// A barrier directly in a loop whose trip count is the local id: work-items would reach it
// different numbers of times. (A guarded barrier in such a loop is legal: region dispatch.)

func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %l step %c1 {
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  }
  func.return
}

// CHECK: error: work-item-loops: kernel @k: barrier 'mux.work_group_barrier' (id 0) is directly inside an scf.for whose trip count depends on the local id
