// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// A kernel doing nothing still gets its (empty) nest: the loops only set the ids.

func.func @nop() attributes {mux.kernel = "entry_point", mux.max_work_dim = 1 : i64} {
  func.return
}

// CHECK:         scf.for %x = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 0, %x : index
// CHECK-NEXT:    } {mux.work_item_loop}
// CHECK-NEXT:    func.return
