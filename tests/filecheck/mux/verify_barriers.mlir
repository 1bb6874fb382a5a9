// RUN: xmux-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of barriers: two orderings (unknown enum values: parse_error_*.mlir).

func.func @two_orderings() {
  mux.mem_barrier work_group, <acquire, release, work_group_memory>
  func.return
}
// CHECK: 'mux.mem_barrier' semantics may set one ordering only, got acquire, release

// -----

func.func @two_orderings_sub_group() {
  mux.sub_group_barrier id 1, sub_group, <seq_cst, acq_rel>
  func.return
}
// CHECK: 'mux.sub_group_barrier' semantics may set one ordering only, got acq_rel, seq_cst
