// RUN: xmux-opt %s -p 'lower-sub-group-collectives{sub-group-size=8},work-item-loops' | filecheck %s
// RUN: not xmux-opt %s -p 'lower-sub-group-collectives{sub-group-size=16},work-item-loops' 2>&1 | filecheck %s --check-prefix=DIVERGENT

// Barriers standing in for sub-group ones (mux.sub_group_scope) need uniform control only
// within each sub-group. Sub-groups of 8 in an 8x3 group are rows, so a loop bound on
// local id y is fine: it is not uniform across the group, so the body takes region
// dispatch (not fission). Sub-groups of 16 span two rows: a divergent barrier.

func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 3, 1>} {
  %g = mux.get_global_linear_id : index
  %y = mux.get_local_id 1 : index
  %x = memref.load %a[%g] : memref<?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %y step %c1 iter_args(%v = %x) -> (i32) {
    %s = mux.sub_group_reduce add %v : i32
    scf.yield %s : i32
  }
  memref.store %r, %a[%g] : memref<?xi32>
  func.return
}

// CHECK: func.func @k(
// CHECK: func.call @"k.mux-region-0"(
// CHECK: func.func private @"k.mux-region-0"(
// CHECK: func.func private @"k.mux-region-1"(
// CHECK: func.func private @"k.mux-region-2"(

// DIVERGENT: work-item-loops: kernel @k: barrier 'mux.work_group_barrier' (id 0) is directly inside an scf.for whose trip count depends on the local id, so the work-items of a group do not all reach it (divergent barrier)
