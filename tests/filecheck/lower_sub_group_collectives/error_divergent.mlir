// RUN: not xmux-opt %s -p 'lower-sub-group-collectives{sub-group-size=4},work-item-loops' 2>&1 | filecheck %s

// A sub-group collective at size N is two work-group barriers: under control flow that
// provably differs between work-items it gets work-item-loops' divergent-barrier error.

func.func @k(%x: i32) attributes {mux.kernel = "entry_point"} {
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %l, %c0 : index
  scf.if %first {
    %r = mux.sub_group_reduce add %x : i32
  }
  func.return
}

// CHECK: work-item-loops: kernel @k: barrier 'mux.work_group_barrier' (id 0) is directly inside an scf.if whose condition compares the local id, so the work-items of a group do not all reach it (divergent barrier)
