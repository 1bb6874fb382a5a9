// RUN: not xmux-opt %s -p work-item-loops 2>&1 | filecheck %s

// A barrier reached through a call: prepare-barriers inlines such calls first.

func.func @helper() {
  scf.execute_region {
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.yield
  }
  func.return
}

func.func @k() attributes {mux.kernel = "entry_point"} {
  func.call @helper() : () -> ()
  func.return
}

// CHECK: error: work-item-loops: 'mux.work_group_barrier' in kernel @k (in @helper, called from it): run prepare-barriers first (it inlines functions that reach barriers)
