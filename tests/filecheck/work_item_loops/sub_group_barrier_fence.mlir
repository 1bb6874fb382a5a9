// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// Sub-groups have one work-item: a sub-group barrier is a fence with its scope and
// semantics (also in called functions), and the kernel keeps its single loop nest.

func.func private @helper() {
  mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
  func.return
}

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
  %i = mux.get_global_id 0 : index
  mux.sub_group_barrier id 3, sub_group, <acq_rel, sub_group_memory>
  func.call @helper() : () -> ()
  func.return
}

// CHECK-LABEL: func.func private @helper() {
// CHECK-NEXT:    mux.mem_barrier sub_group, <acq_rel, sub_group_memory>
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func @k
// CHECK:         scf.for %x = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 0, %x : index
// CHECK-NEXT:      %i = mux.get_global_id 0 : index
// CHECK-NEXT:      mux.mem_barrier sub_group, <acq_rel, sub_group_memory>
// CHECK-NEXT:      func.call @helper() : () -> ()
// CHECK-NEXT:    } {mux.work_item_loop}
// CHECK-NEXT:    func.return
