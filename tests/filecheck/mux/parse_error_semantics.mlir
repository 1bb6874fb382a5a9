// RUN: not xmux-opt %s 2>&1 | filecheck %s

// An unknown memory-semantics flag is a parse error listing the valid ones.

func.func @bad_semantics() {
  mux.work_group_barrier work_group, <acq_rel, local_memory>
  func.return
}
// CHECK: Expected `acquire`, `release`, `acq_rel`, `seq_cst`, `sub_group_memory`, `work_group_memory`, or `cross_work_group_memory`.
