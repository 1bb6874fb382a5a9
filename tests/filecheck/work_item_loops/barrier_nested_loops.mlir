// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// Barriers at two loop depths: both loops are lifted, each region between barriers is its
// own work-item loop. %pi (uniform: a cast of the outer induction variable) stays at group
// level; %x (a load) crosses the inner barrier in an array.

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>, %n: index, %m: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %p = %c0 to %n step %c1 {
    %pi = arith.index_cast %p : index to i32
    memref.store %pi, %t[%l] : memref<8xi32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %q = %c0 to %m step %c1 {
      %x = memref.load %t[%q] : memref<8xi32, 3>
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      memref.store %x, %a[%i] : memref<?xi32>
    }
  }
  func.return
}

// CHECK:        %[[X:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %c1 = arith.constant 1 : index
// CHECK-NEXT:   scf.for %p = %c0 to %n step %c1 {
// CHECK-NEXT:     %pi = arith.index_cast %p : index to i32
// CHECK-NEXT:     scf.for %[[X0:.*]] = {{.*}} {
// CHECK-NEXT:       mux.set_local_id 0, %[[X0]] : index
// CHECK-NEXT:       %[[L:.*]] = mux.get_local_id 0 : index
// CHECK-NEXT:       memref.store %pi, %t[%[[L]]] : memref<8xi32, 3 : i64>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:     scf.for %q = %c0 to %m step %c1 {
// CHECK-NEXT:       scf.for %[[X1:.*]] = {{.*}} {
// CHECK-NEXT:         mux.set_local_id 0, %[[X1]] : index
// CHECK-NEXT:         %[[V:.*]] = memref.load %t[%q] : memref<8xi32, 3 : i64>
// CHECK-NEXT:         memref.store %[[V]], %[[X]][%[[X1]]] : memref<?xi32>
// CHECK-NEXT:       } {mux.work_item_loop}
// CHECK-NEXT:       mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:       scf.for %[[X2:.*]] = {{.*}} {
// CHECK-NEXT:         mux.set_local_id 0, %[[X2]] : index
// CHECK-NEXT:         %[[V2:.*]] = memref.load %[[X]][%[[X2]]] : memref<?xi32>
// CHECK-NEXT:         %[[I:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:         memref.store %[[V2]], %a[%[[I]]] : memref<?xi32>
// CHECK-NEXT:       } {mux.work_item_loop}
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
