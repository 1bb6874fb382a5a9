// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// %w is defined before the first barrier and used after the second: stored once where it
// is defined, loaded in the third region only (nothing in the second region touches it).

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %v = memref.load %a[%i] : memref<?xi32>
  %w = arith.muli %v, %v : i32
  memref.store %v, %t[%l] : memref<8xi32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %c0 = arith.constant 0 : index
  %x = memref.load %t[%c0] : memref<8xi32, 3>
  memref.store %x, %a[%i] : memref<?xi32>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %y = memref.load %a[%i] : memref<?xi32>
  %o = arith.addi %w, %y : i32
  memref.store %o, %a[%i] : memref<?xi32>
  func.return
}

// CHECK:        %[[WS:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
// CHECK-NOT:    memref.alloca
// CHECK:          %w = arith.muli %v, %v : i32
// CHECK:          memref.store %w, %[[WS]][%x] : memref<?xi32>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   mux.mem_barrier
// CHECK:        scf.for
// CHECK-NOT:      %[[WS]]
// CHECK:        } {mux.work_item_loop}
// CHECK-NEXT:   mux.mem_barrier
// CHECK-NEXT:   scf.for %[[X:.*]] = {{.*}} {
// CHECK:          %[[Y:.*]] = memref.load %a[%{{.*}}] : memref<?xi32>
// CHECK-NEXT:     %[[W:.*]] = memref.load %[[WS]][%[[X]]] : memref<?xi32>
// CHECK-NEXT:     %{{.*}} = arith.addi %[[W]], %[[Y]] : i32
