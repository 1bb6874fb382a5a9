// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// A collective that uses an earlier collective's result, or a store between two collectives,
// starts a new batch: two barriers each. Storage is reused: still one row.

func.func @k(%x: i32, %m: memref<?xi32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 1, 1>} {
  %a = mux.work_group_reduce add %x : i32
  %b = mux.work_group_reduce smax %a : i32
  %c0 = arith.constant 0 : index
  memref.store %b, %m[%c0] : memref<?xi32>
  %c = mux.work_group_reduce umin %x : i32
  func.return
}

// CHECK:          : memref<1x18xi32, 3 : i64> = uninitialized
// CHECK-COUNT-2:  mux.work_group_barrier
// CHECK:          %a = memref.load
// CHECK-COUNT-2:  mux.work_group_barrier
// CHECK:          %b = memref.load
// CHECK:          memref.store %b, %m
// CHECK-COUNT-2:  mux.work_group_barrier
// CHECK:          %c = memref.load
// CHECK-NOT:      mux.work_group_barrier
