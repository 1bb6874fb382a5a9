// RUN: not xmux-opt %s -p work-item-loops 2>&1 | filecheck %s

// A barrier reached through a call is found too.

func.func @helper() {
  scf.execute_region {
    mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
    scf.yield
  }
  func.return
}

func.func @k() attributes {mux.kernel = "entry_point"} {
  func.call @helper() : () -> ()
  func.return
}

// CHECK: error: work-item-loops: 'mux.sub_group_barrier' in kernel @k (in @helper, called from it) is not supported by this pipeline yet
