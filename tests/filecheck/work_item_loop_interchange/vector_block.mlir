// RUN: xmux-opt %s -p 'work-item-loops{vector-width=8},work-item-loop-interchange' | filecheck %s

// The interchange also works on the main part of work-item-loops' vector schedule: the
// work-item loop is the inner loop of trip count 8 whose header is x = xb + xi. The uniform
// k loop moves out of it, inside the loop over blocks; the new work-item loops keep the
// header and the vectorization hint, and the stored accumulator is indexed by x.

func.func @mm(%n: index, %A: memref<?x?xf32>, %B: memref<?xf32>, %C: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 1, 1>} {
  %col = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%k, %col] : memref<?x?xf32>
    %b = memref.load %B[%k] : memref<?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%col] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @mm
// CHECK-SAME:    mux.vector_schedule = array<i64: 8, 0, 0>
// CHECK:         %[[ACC:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xf32>
// CHECK:         %[[W:.*]] = arith.constant 8 : index
// CHECK-NEXT:    scf.for %xb = %{{.*}} to %{{.*}} step %[[W]] {
// CHECK:           scf.for %xi = %{{.*}} to %[[W]] step %{{.*}} {
// CHECK-NEXT:        %x = arith.addi %xb, %xi : index
// CHECK-NEXT:        mux.set_local_id 0, %x : index
// CHECK-NEXT:        memref.store %zero, %[[ACC]][%x] : memref<?xf32>
// CHECK-NEXT:      } {mux.work_item_loop, xmux.loop_vectorize_width = 8 : i64}
// CHECK-NEXT:      scf.for %k = %c0 to %n step %c1 {
// CHECK-NEXT:        scf.for %[[XI1:.*]] = %{{.*}} to %[[W]] step %{{.*}} {
// CHECK-NEXT:          %[[X1:.*]] = arith.addi %xb, %[[XI1]] : index
// CHECK-NEXT:          mux.set_local_id 0, %[[X1]] : index
// CHECK:               %[[S:.*]] = memref.load %[[ACC]][%[[X1]]] : memref<?xf32>
// CHECK-NEXT:          %t = arith.addf %[[S]], %p : f32
// CHECK-NEXT:          memref.store %t, %[[ACC]][%[[X1]]] : memref<?xf32>
// CHECK-NEXT:        } {mux.work_item_loop, xmux.loop_vectorize_width = 8 : i64}
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.for %[[XI2:.*]] = %{{.*}} to %[[W]] step %{{.*}} {
// CHECK-NEXT:        %[[X2:.*]] = arith.addi %xb, %[[XI2]] : index
// CHECK-NEXT:        mux.set_local_id 0, %[[X2]] : index
// CHECK-NEXT:        %{{.*}} = memref.load %[[ACC]][%[[X2]]] : memref<?xf32>
// CHECK:           } {mux.work_item_loop, xmux.loop_vectorize_width = 8 : i64}
// CHECK-NEXT:    } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    func.return
