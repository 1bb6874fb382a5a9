// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=true}' 2>&1 | filecheck %s

// An scf.while whose condition forwards a per-work-item before-argument unchanged: the
// after-argument and the result share its array (the copy is "same"). The after body
// computes the next value before its barrier while the after-argument, which lives in that
// array too, is read after it: that copy stays at the edge.

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xi32>
  %r:2 = scf.while (%x = %v, %j = %c0) : (i32, index) -> (i32, index) {
    %go = arith.cmpi ult, %j, %n : index
    scf.condition(%go) %x, %j : i32, index
  } do {
  ^bb0(%x1: i32, %j1: index):
    %x2 = arith.addi %x1, %x1 : i32
    memref.store %x2, %t[%l] : memref<8xi32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %w = memref.load %t[%j1] : memref<8xi32, 3>
    %x3 = arith.addi %x1, %w : i32
    memref.store %x3, %t[%l] : memref<8xi32, 3>
    %j2 = arith.addi %j1, %c1 : index
    scf.yield %x2, %j2 : i32, index
  }
  memref.store %r#0, %a[%i] : memref<?xi32>
  func.return
}

// CHECK:      work-item-loops plan @k:
// CHECK:        array #0 i32: %x, %x1, %r
// CHECK:        copy scf.while entry: %v -> %x (#0) edge
// CHECK:        copy scf.while before end: %x -> %x1 (#0) same
// CHECK:        copy scf.while after end: %x2 -> %x (#0) edge
