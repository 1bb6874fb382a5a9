// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange' | filecheck %s

// A uniform reduction loop moves out of the work-item loop; its accumulator lives in a
// per-work-item array; cheap id computations are re-computed in each loop (where used).
func.func @dot(%n: index, %a: memref<?x?xf32>, %b: memref<?xf32>, %out: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %x = memref.load %a[%k, %i] : memref<?x?xf32>
    %y = memref.load %b[%k] : memref<?xf32>
    %p = arith.mulf %x, %y : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %out[%i] : memref<?xf32>
  func.return
}

// CHECK:      func.func @dot(%n: index, %a: memref<?x?xf32>, %b: memref<?xf32>, %out: memref<?xf32>)
// CHECK-NEXT:   %[[LEN:.*]] = arith.constant 8 : index
// CHECK-NEXT:   %[[ACC:.*]] = memref.alloca(%[[LEN]]) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK:        scf.for %[[X0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     mux.set_local_id 0, %[[X0]] : index
// CHECK-NEXT:     memref.store %zero, %[[ACC]][%[[X0]]] : memref<?xf32>
// CHECK-NEXT:   } {mux.work_item_loop}
// CHECK-NEXT:   scf.for %[[K:.*]] = %{{.*}} to %n step %{{.*}} {
// CHECK-NEXT:     scf.for %[[X1:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:       mux.set_local_id 0, %[[X1]] : index
// CHECK-NEXT:       %[[I:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:       %{{.*}} = memref.load %a[%[[K]], %[[I]]] : memref<?x?xf32>
// CHECK:            %[[S:.*]] = memref.load %[[ACC]][%[[X1]]] : memref<?xf32>
// CHECK-NEXT:       %[[T:.*]] = arith.addf %[[S]], %{{.*}} : f32
// CHECK-NEXT:       memref.store %[[T]], %[[ACC]][%[[X1]]] : memref<?xf32>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.for %[[X2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:     mux.set_local_id 0, %[[X2]] : index
// CHECK-NEXT:     %[[R:.*]] = memref.load %[[ACC]][%[[X2]]] : memref<?xf32>
// CHECK-NEXT:     %[[I2:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:     memref.store %[[R]], %out[%[[I2]]] : memref<?xf32>
// CHECK-NEXT:   } {mux.work_item_loop}
