// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// any / all are or / and reductions of i1 sharing one batch (two rows of the i1 scratch).

func.func @k(%b: i1) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %any = mux.work_group_any %b : i1
  %all = mux.work_group_all %b : i1
  func.return
}

// CHECK:      : memref<2x10xi1, 3 : i64> = uninitialized
// CHECK:      memref.store %b, %{{.*}}[%{{.*}}, %[[LID:.*]]] : memref<2x10xi1, 3 : i64>
// CHECK-NEXT: %{{.*}} = arith.constant 1 : index
// CHECK-NEXT: memref.store %b, %{{.*}}[%{{.*}}, %[[LID]]] : memref<2x10xi1, 3 : i64>
// CHECK-NEXT: mux.work_group_barrier
// CHECK:        arith.ori %{{.*}}, %{{.*}} : i1
// CHECK:        arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:      mux.work_group_barrier
// CHECK:      %any = memref.load
// CHECK:      %all = memref.load
// CHECK-NOT:  mux.work_group_barrier
