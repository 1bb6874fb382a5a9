// RUN: not xmux-opt %s 2>&1 | filecheck %s

// An unknown memory scope is a parse error listing the valid ones.

func.func @bad_scope() {
  mux.mem_barrier work_grp, <acq_rel>
  func.return
}
// CHECK: mux.mem_barrier work_grp, <acq_rel>
// CHECK: Expected `cross_device`, `device`, `work_group`, `sub_group`, or `work_item`.
