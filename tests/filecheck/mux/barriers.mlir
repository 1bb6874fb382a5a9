// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Memory and control barriers: every scope, relaxed and combined semantics, barrier ids
// (id 0 is the default and is not printed).

// CHECK-LABEL: func.func @barriers
// CHECK-NEXT:    mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    mux.mem_barrier cross_device, <relaxed>
// CHECK-NEXT:    mux.mem_barrier device, <seq_cst, sub_group_memory, work_group_memory, cross_work_group_memory>
// CHECK-NEXT:    mux.mem_barrier work_item, <acquire>
// CHECK-NEXT:    mux.mem_barrier sub_group, <release, sub_group_memory>
// CHECK-NEXT:    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    mux.work_group_barrier id 7, device, <acq_rel, cross_work_group_memory>
// CHECK-NEXT:    mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
// CHECK-NEXT:    mux.sub_group_barrier id 2, sub_group, <relaxed>
// CHECK-NEXT:    func.return

// GENERIC: "mux.mem_barrier"() <{scope = #mux<scope work_group>, semantics = #mux.semantics<acq_rel, work_group_memory>}> : () -> ()
// GENERIC: "mux.mem_barrier"() <{scope = #mux<scope cross_device>, semantics = #mux.semantics<relaxed>}> : () -> ()
// GENERIC: "mux.work_group_barrier"() <{{{.*}}id = 0 : i32{{.*}}}> : () -> ()
// GENERIC: "mux.work_group_barrier"() <{{{.*}}id = 7 : i32{{.*}}}> : () -> ()
func.func @barriers() {
  mux.mem_barrier work_group, <acq_rel, work_group_memory>
  mux.mem_barrier cross_device, <relaxed>
  // flags are printed in a fixed order whatever order they were written in
  mux.mem_barrier device, <cross_work_group_memory, seq_cst, work_group_memory, sub_group_memory>
  mux.mem_barrier work_item, <acquire>
  mux.mem_barrier sub_group, <release, sub_group_memory>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  mux.work_group_barrier id 7, device, <acq_rel, cross_work_group_memory>
  mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
  mux.sub_group_barrier id 2, sub_group, <relaxed>
  func.return
}
