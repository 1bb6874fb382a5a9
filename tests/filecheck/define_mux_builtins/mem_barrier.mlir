// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s

// mem_barrier → fence with the ordering of its semantics; relaxed → nothing. A work-group
// runs on one thread, so work-group/sub-group/work-item scopes need only a single-thread
// (compiler) fence; device scopes a full one. No scheduling parameters are needed.

func.func @fences() {
  mux.mem_barrier work_group, <acq_rel, work_group_memory>
  mux.mem_barrier sub_group, <acquire, sub_group_memory>
  mux.mem_barrier work_item, <release>
  mux.mem_barrier device, <seq_cst, cross_work_group_memory>
  mux.mem_barrier cross_device, <acq_rel>
  mux.mem_barrier work_group, <work_group_memory>
  func.return
}

// CHECK-LABEL: func.func @fences() {
// CHECK-NEXT:    llvm.fence syncscope("singlethread") acq_rel
// CHECK-NEXT:    llvm.fence syncscope("singlethread") acquire
// CHECK-NEXT:    llvm.fence syncscope("singlethread") release
// CHECK-NEXT:    llvm.fence seq_cst
// CHECK-NEXT:    llvm.fence acq_rel
// CHECK-NEXT:    func.return
