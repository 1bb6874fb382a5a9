// RUN: xmux-opt %s -p lower-sub-group-collectives | filecheck %s

// A sub-group barrier of one work-item keeps only its memory part: a mux.mem_barrier with the
// same scope and semantics. Vec-group ops are not this pass's business.

func.func @k(%v: vector<4xi32>) -> i32 {
  mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
  mux.sub_group_barrier id 3, work_group, <seq_cst, work_group_memory>
  %r = mux.vec_group_reduce add %v : vector<4xi32> -> i32
  func.return %r : i32
}

// CHECK:      func.func @k(%v: vector<4xi32>) -> i32 {
// CHECK-NEXT:   mux.mem_barrier sub_group, <acq_rel, sub_group_memory>
// CHECK-NEXT:   mux.mem_barrier work_group, <seq_cst, work_group_memory>
// CHECK-NEXT:   %r = mux.vec_group_reduce add %v : vector<4xi32> -> i32
// CHECK-NEXT:   func.return %r : i32
