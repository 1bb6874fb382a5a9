// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// Independent consecutive collectives form one batch: two barriers for all of them, one row
// per member of each element type; the add that uses the first result moves after the
// read phase, the pure op that does not stays in front.

func.func @k(%x: f32, %i: i32) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 32, 1, 1>} {
  %a = mux.work_group_reduce fadd %x : f32
  %twice = arith.addf %a, %a : f32
  %y = arith.mulf %x, %x : f32
  %b = mux.work_group_reduce fmax %y : f32
  %c = mux.work_group_scan_inclusive add %i : i32
  func.return
}

// CHECK-DAG:  : memref<2x34xf32, 3 : i64> = uninitialized
// CHECK-DAG:  : memref<1x34xi32, 3 : i64> = uninitialized
// CHECK:      %y = arith.mulf %x, %x : f32
// CHECK-NEXT: mux.get_local_linear_id
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK-NOT:  mux.work_group_barrier
// CHECK:      %a = memref.load
// CHECK:      %b = memref.load
// CHECK:      %c = memref.load
// CHECK-NEXT: %twice = arith.addf %a, %a : f32
// CHECK-NEXT: func.return
