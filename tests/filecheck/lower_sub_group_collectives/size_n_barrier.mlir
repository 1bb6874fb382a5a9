// RUN: xmux-opt %s -p 'prepare-barriers,lower-sub-group-collectives{sub-group-size=4}' | filecheck %s

// At size N a sub-group barrier is a work-group barrier (a valid, stronger synchronisation)
// with the same scope and semantics; ids continue prepare-barriers' numbering, the
// collectives' new barriers included. All of them are marked mux.sub_group_scope (their
// control need only be uniform per sub-group); the user's work-group barrier is not. No
// scratch without collectives.

func.func @k(%x: i32) -> i32 attributes {mux.kernel = "entry_point"} {
  mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
  %r = mux.sub_group_reduce add %x : i32
  mux.work_group_barrier work_group, <seq_cst, work_group_memory>
  mux.sub_group_barrier sub_group, <acquire, sub_group_memory>
  func.return %r : i32
}
func.func @only_barrier() attributes {mux.kernel = "entry_point"} {
  mux.sub_group_barrier sub_group, <release, sub_group_memory>
  func.return
}

// CHECK:      func.func @k(%x: i32) -> i32 attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64, mux.max_work_group_size = 1024 : i64} {
// CHECK-NEXT:   mux.work_group_barrier id 1, sub_group, <acq_rel, sub_group_memory> {mux.sub_group_scope}
// CHECK:        mux.work_group_barrier id 2, work_group, <acq_rel, work_group_memory> {mux.sub_group_scope}
// CHECK:        mux.work_group_barrier id 3, work_group, <acq_rel, work_group_memory> {mux.sub_group_scope}
// CHECK-NEXT:   mux.work_group_barrier id 4, work_group, <seq_cst, work_group_memory>{{$}}
// CHECK-NEXT:   mux.work_group_barrier id 5, sub_group, <acquire, sub_group_memory> {mux.sub_group_scope}
// CHECK-NEXT:   func.return %r : i32
// CHECK:      func.func @only_barrier() attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64} {
// CHECK-NEXT:   mux.work_group_barrier id 1, sub_group, <release, sub_group_memory> {mux.sub_group_scope}
// CHECK-NOT:  memref.global
// CHECK-NEXT:   func.return
