// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s
// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s --check-prefix=ZERO

// When prepare-barriers already gave the kernel's barriers ids, the barriers made here are
// numbered with them in walk order (1, 2, ... as prepare-barriers would); ids still all 0 are
// left for prepare-barriers.

func.func @k(%x: i32) attributes {mux.kernel = "entry_point"} {
  mux.work_group_barrier id 1, work_group, <acq_rel, work_group_memory>
  %r = mux.work_group_reduce id 2, add %x : i32
  mux.work_group_barrier id 3, work_group, <acq_rel, work_group_memory>
  func.return
}

func.func @fresh(%x: i32) attributes {mux.kernel = "entry_point"} {
  %r = mux.work_group_reduce add %x : i32
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  func.return
}

// CHECK-LABEL: func.func @k
// CHECK:       mux.work_group_barrier id 1,
// CHECK:       mux.work_group_barrier id 2,
// CHECK:       mux.work_group_barrier id 3,
// CHECK:       mux.work_group_barrier id 4,
// ZERO-LABEL:  func.func @fresh
// ZERO-COUNT-3: mux.work_group_barrier work_group,
