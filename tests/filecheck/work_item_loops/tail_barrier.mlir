// RUN: xmux-opt %s -p 'work-item-loops{vector-width=4}' | filecheck %s

// Tail scheduling with a barrier: each barrier region's x loop gets its own main part and
// scalar tail; the value crossing the barrier is stored and loaded at the work-item's index
// x (= xb + xi in the main part), so both parts share one per-work-item array.

func.func @k(%a: memref<?xf32>, %b: memref<?xf32>, %t: memref<?xf32, 3>)
    attributes {mux.kernel = "entry_point", mux.max_work_dim = 1 : i64} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %t[%l] : memref<?xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %w = memref.load %t[%l] : memref<?xf32, 3>
  %s = arith.addf %w, %v : f32
  memref.store %s, %b[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @k
// CHECK-SAME:    mux.vector_schedule = array<i64: 4, 0, 1>
// CHECK:         %[[LS0:.*]] = mux.get_local_size 0 : index
// CHECK:         %[[V:.*]] = memref.alloca(%[[LS0]]) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK:         %main = arith.muli
// CHECK-NEXT:    scf.for %xb = %{{.*}} to %main step %{{.*}} {
// CHECK-NEXT:      scf.for %xi = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %x = arith.addi %xb, %xi : index
// CHECK:             memref.store %v, %[[V]][%x] : memref<?xf32>
// CHECK-NEXT:      } {mux.work_item_loop, xmux.loop_vectorize_width = 4 : i64}
// CHECK-NEXT:    } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    scf.for %[[XT:.*]] = %main to %[[LS0]] step %{{.*}} {
// CHECK:           memref.store %{{.*}}, %[[V]][%[[XT]]] : memref<?xf32>
// CHECK-NEXT:    } {mux.work_item_loop, xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK:         %[[MAIN2:.*]] = arith.muli
// CHECK-NEXT:    scf.for %[[XB2:.*]] = %{{.*}} to %[[MAIN2]] step %{{.*}} {
// CHECK-NEXT:      scf.for %[[XI2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[X2:.*]] = arith.addi %[[XB2]], %[[XI2]] : index
// CHECK:             %{{.*}} = memref.load %[[V]][%[[X2]]] : memref<?xf32>
// CHECK:           } {mux.work_item_loop, xmux.loop_vectorize_width = 4 : i64}
// CHECK-NEXT:    } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    scf.for %[[XT2:.*]] = %[[MAIN2]] to %[[LS0]] step %{{.*}} {
// CHECK:           %{{.*}} = memref.load %[[V]][%[[XT2]]] : memref<?xf32>
// CHECK:         } {mux.work_item_loop, xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    func.return
