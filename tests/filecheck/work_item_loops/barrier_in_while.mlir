// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// A barrier in an scf.while whose iteration value (the stride) is uniform: the loop and
// its condition run at group level with the stride as a group-level value; nothing is
// stored per work-item.

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = memref.load %a[%i] : memref<?xi32>
  memref.store %v, %t[%l] : memref<8xi32, 3>
  %s_end = scf.while (%s = %c1) : (index) -> index {
    %go = arith.cmpi ult, %s, %c8 : index
    scf.condition(%go) %s : index
  } do {
  ^bb0(%s1: index):
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %p = arith.addi %l, %s1 : index
    %inb = arith.cmpi ult, %p, %c8 : index
    scf.if %inb {
      %x = memref.load %t[%p] : memref<8xi32, 3>
      memref.store %x, %a[%i] : memref<?xi32>
    }
    %s2 = arith.addi %s1, %s1 : index
    scf.yield %s2 : index
  }
  func.return
}

// CHECK-NOT:    memref.alloca
// CHECK:        } {mux.work_item_loop}
// CHECK-NEXT:   %{{.*}} = scf.while (%s = %c1) : (index) -> index {
// CHECK-NEXT:     %go = arith.cmpi ult, %s, %c8 : index
// CHECK-NEXT:     scf.condition(%go) %s : index
// CHECK-NEXT:   } do {
// CHECK-NEXT:   ^{{.*}}(%s1: index):
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:     %s2 = arith.addi %s1, %s1 : index
// CHECK-NEXT:     scf.for %[[X:.*]] = {{.*}} {
// CHECK-NEXT:       mux.set_local_id 0, %[[X]] : index
// CHECK-NEXT:       %[[L:.*]] = mux.get_local_id 0 : index
// CHECK-NEXT:       %[[P:.*]] = arith.addi %[[L]], %s1 : index
// CHECK:            scf.if
// CHECK:          } {mux.work_item_loop}
// CHECK-NEXT:     scf.yield %s2 : index
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
