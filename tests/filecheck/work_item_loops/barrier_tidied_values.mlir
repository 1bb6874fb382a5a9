// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// Barrier tidying: ids, casts and affine functions of them (%ii, %twice, %ls) are
// re-computed after the barrier, uniform values (%n, %c2) are computed once at group level;
// only the loaded %v gets per-work-item storage. Three loop dimensions: the storage index
// is the linear work-item index (x fastest).

func.func @k(%a: memref<?xi32>, %t: memref<?xi32, 3>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 1 : index
  %n = mux.get_local_size 0 : index
  %ii = arith.index_cast %i : index to i32
  %c2 = arith.constant 2 : i32
  %twice = arith.muli %ii, %c2 : i32
  %ls = arith.muli %l, %n : index
  %v = memref.load %a[%i] : memref<?xi32>
  memref.store %v, %t[%ls] : memref<?xi32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %w = arith.addi %twice, %v : i32
  memref.store %w, %t[%ls] : memref<?xi32, 3>
  func.return
}

// CHECK:        %[[LS0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT:   %[[LS1:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT:   %[[LS2:.*]] = mux.get_local_size 2 : index
// CHECK-NEXT:   %[[P:.*]] = arith.muli %[[LS2]], %[[LS1]] : index
// CHECK-NEXT:   %[[SIZE:.*]] = arith.muli %[[P]], %[[LS0]] : index
// CHECK-NEXT:   %[[VS:.*]] = memref.alloca(%[[SIZE]]) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
// CHECK-NOT:    memref.alloca
// CHECK-NEXT:   %n = mux.get_local_size 0 : index
// CHECK-NEXT:   %c2 = arith.constant 2 : i32
// CHECK-NEXT:   scf.for %z = {{.*}} {
// CHECK-NEXT:     mux.set_local_id 2, %z : index
// CHECK-NEXT:     scf.for %y = {{.*}} {
// CHECK-NEXT:       mux.set_local_id 1, %y : index
// CHECK-NEXT:       scf.for %x = {{.*}} {
// CHECK-NEXT:         mux.set_local_id 0, %x : index
// CHECK-NEXT:         %[[ZY:.*]] = arith.muli %z, %[[LS1]] : index
// CHECK-NEXT:         %[[ZY2:.*]] = arith.addi %[[ZY]], %y : index
// CHECK-NEXT:         %[[ZYX:.*]] = arith.muli %[[ZY2]], %[[LS0]] : index
// CHECK-NEXT:         %lin = arith.addi %[[ZYX]], %x : index
// CHECK:              memref.store %v, %[[VS]][%lin] : memref<?xi32>
// CHECK-NEXT:       } {mux.work_item_loop}
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK:              %lin_1 = arith.addi %{{.*}}, %x_1 : index
// CHECK-NEXT:         %[[I:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:         %[[II:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:         %[[TW:.*]] = arith.muli %[[II]], %c2 : i32
// CHECK-NEXT:         %[[V:.*]] = memref.load %[[VS]][%lin_1] : memref<?xi32>
// CHECK-NEXT:         %[[W:.*]] = arith.addi %[[TW]], %[[V]] : i32
// CHECK-NEXT:         %[[L:.*]] = mux.get_local_id 1 : index
// CHECK-NEXT:         %[[LSV:.*]] = arith.muli %[[L]], %n : index
// CHECK-NEXT:         memref.store %[[W]], %t[%[[LSV]]] : memref<?xi32, 3 : i64>
