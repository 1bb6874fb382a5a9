// RUN: not xmux-opt %s -p prepare-barriers 2>&1 | filecheck %s

func.func private @f(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  func.return
^b:
  func.return
}

func.func @k(%c: i1) attributes {mux.kernel = "entry_point"} {
  scf.if %c {
    func.call @f(%c) : (i1) -> ()
  }
  func.return
}

// CHECK: error: prepare-barriers: cannot inline @f (several blocks, reaches a barrier) into structured control flow of kernel @k
