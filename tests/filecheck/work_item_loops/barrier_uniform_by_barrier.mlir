// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// The loop bound is loaded from memory (not provably uniform), but the loop runs a barrier
// in every iteration, which OpenCL requires every work-item to reach equally often: the
// bound is uniform in every legal program. Each work-item stores its bound, the group-level
// loop reads work-item 0's.

func.func @k(%a: memref<?xi32>, %counts: memref<?xindex>, %t: memref<8xi32, 3>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %g = mux.get_group_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.load %counts[%g] : memref<?xindex>
  scf.for %k = %c0 to %n step %c1 {
    %ki = arith.index_cast %k : index to i32
    memref.store %ki, %t[%l] : memref<8xi32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  }
  func.return
}

// CHECK:        %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:        %[[NS:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xindex>
// CHECK:        scf.for %x = {{.*}} {
// CHECK-NEXT:     mux.set_local_id 0, %x : index
// CHECK-NEXT:     %n = memref.load %counts[%g] : memref<?xindex>
// CHECK-NEXT:     memref.store %n, %[[NS]][%x] : memref<?xindex>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   %[[N0:.*]] = memref.load %[[NS]][%[[ZERO]]] : memref<?xindex>
// CHECK-NEXT:   scf.for %k = %c0 to %[[N0]] step %c1 {
// CHECK-NEXT:     %ki = arith.index_cast %k : index to i32
// CHECK-NEXT:     scf.for
// CHECK:          } {mux.work_item_loop}
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   }
