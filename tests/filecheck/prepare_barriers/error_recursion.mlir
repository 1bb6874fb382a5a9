// RUN: not xmux-opt %s -p prepare-barriers 2>&1 | filecheck %s

func.func private @ping(%n: i32) {
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  func.call @pong(%n) : (i32) -> ()
  func.return
}

func.func private @pong(%n: i32) {
  func.call @ping(%n) : (i32) -> ()
  func.return
}

func.func @k(%n: i32) attributes {mux.kernel = "entry_point"} {
  func.call @ping(%n) : (i32) -> ()
  func.return
}

// CHECK: error: prepare-barriers: recursion through a barrier: @ping -> @pong -> @ping
