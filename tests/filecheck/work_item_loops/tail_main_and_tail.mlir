// RUN: xmux-opt %s -p 'work-item-loops{vector-width=8}' | filecheck %s

// Tail scheduling: with vector-width=8 and no required size, the x loop runs the first
// (ls0 / 8) * 8 work-items 8 at a time (an inner loop of constant trip count 8 that LLVM is
// asked to vectorize 8 wide; the loop over blocks must not be vectorized again), then a
// scalar tail loop over the remainder, marked not to vectorize. The kernel records the
// schedule (width, dimension, tail) for the launcher.

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %s = arith.addf %v, %v : f32
  memref.store %s, %a[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @k
// CHECK-SAME:    mux.vector_schedule = array<i64: 8, 0, 1>
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[LS0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT:    %[[LS1:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT:    %[[LS2:.*]] = mux.get_local_size 2 : index
// CHECK-NEXT:    scf.for %z = %[[C0]] to %[[LS2]] step %[[C1]] {
// CHECK-NEXT:      mux.set_local_id 2, %z : index
// CHECK-NEXT:      scf.for %y = %[[C0]] to %[[LS1]] step %[[C1]] {
// CHECK-NEXT:        mux.set_local_id 1, %y : index
// CHECK-NEXT:        %[[W:.*]] = arith.constant 8 : index
// CHECK-NEXT:        %[[Q:.*]] = arith.divui %[[LS0]], %[[W]] : index
// CHECK-NEXT:        %main = arith.muli %[[Q]], %[[W]] : index
// CHECK-NEXT:        scf.for %xb = %[[C0]] to %main step %[[W]] {
// CHECK-NEXT:          scf.for %xi = %[[C0]] to %[[W]] step %[[C1]] {
// CHECK-NEXT:            %x = arith.addi %xb, %xi : index
// CHECK-NEXT:            mux.set_local_id 0, %x : index
// CHECK-NEXT:            %i = mux.get_global_id 0 : index
// CHECK-NEXT:            %v = memref.load %a[%i] : memref<?xf32>
// CHECK-NEXT:            %s = arith.addf %v, %v : f32
// CHECK-NEXT:            memref.store %s, %a[%i] : memref<?xf32>
// CHECK-NEXT:          } {mux.work_item_loop, xmux.loop_vectorize_width = 8 : i64}
// CHECK-NEXT:        } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:        scf.for %[[XT:.*]] = %main to %[[LS0]] step %[[C1]] {
// CHECK-NEXT:          mux.set_local_id 0, %[[XT]] : index
// CHECK-NEXT:          %[[I2:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:          %[[V2:.*]] = memref.load %a[%[[I2]]] : memref<?xf32>
// CHECK-NEXT:          %[[S2:.*]] = arith.addf %[[V2]], %[[V2]] : f32
// CHECK-NEXT:          memref.store %[[S2]], %a[%[[I2]]] : memref<?xf32>
// CHECK-NEXT:        } {mux.work_item_loop, xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// A required size that is not a multiple of 8: constant bounds, main part [0, 16), tail
// [16, 20).
func.func @r20(%a: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 20, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %a[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @r20
// CHECK-SAME:    mux.vector_schedule = array<i64: 8, 0, 1>
// CHECK:         %[[R20:.*]] = arith.constant 20 : index
// CHECK:         %[[W8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[M16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    scf.for %xb = %{{.*}} to %[[M16]] step %[[W8]] {
// CHECK-NEXT:      scf.for %xi = %{{.*}} to %[[W8]] step %{{.*}} {
// CHECK:           } {mux.work_item_loop, xmux.loop_vectorize_width = 8 : i64}
// CHECK-NEXT:    } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    scf.for %{{.*}} = %[[M16]] to %[[R20]] step %{{.*}} {
// CHECK:         } {mux.work_item_loop, xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    func.return

// A required size below the width: only the scalar loop.
func.func @r3(%a: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 3, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %a[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @r3
// CHECK-NOT:     arith.constant 8
// CHECK:         %[[R3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    mux.set_local_id 1
// CHECK-NEXT:    mux.set_local_id 2
// CHECK-NEXT:    scf.for %x = %{{.*}} to %[[R3]] step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 0, %x : index
// CHECK:         } {mux.work_item_loop, xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    func.return
