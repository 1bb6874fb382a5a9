// RUN: not xmux-opt %s -p define-mux-builtins 2>&1 | filecheck %s

// Control barriers must have been scheduled by work-item-loops (issue 3) before.

func.func @helper() {
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  func.return
}

// CHECK: error: define-mux-builtins: 'mux.work_group_barrier' in @helper is not supported by this pipeline yet
