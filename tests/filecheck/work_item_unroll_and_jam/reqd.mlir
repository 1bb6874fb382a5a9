// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam' | filecheck %s
// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam{acc_budget=64}' | filecheck %s --check-prefix=AVX2
// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam{factor=4}' | filecheck %s --check-prefix=FOUR
// The budget is the module's target's (#xmux.target), never the host's:
// RUN: xmux-opt %s -p 'attach-target{chip=znver3 vector-bits=256 vector-registers=16},work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam' | filecheck %s --check-prefix=AVX2
// RUN: xmux-opt %s -p 'attach-target{chip=skylake-avx512 vector-bits=512 vector-registers=32},work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam' | filecheck %s

// Known local sizes (a required size, as in the local-size variants xmux.compile builds per
// launch size). The cost model keeps R x 16 accumulators of a 16-wide row in vector
// registers: R = 8 with the default target's budget of 128 floats (AVX-512's 32 registers),
// 4 with 64 (AVX2's 16 registers).
// R is at most the size of the dimension, and a divisor of it close to the factor is
// preferred: no remainder loop then. 5 rows with factor 4: a block of 4 and a remainder.

// CHECK-LABEL: func.func @square
// CHECK:         %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[C16]] step %[[C8]] {
// CHECK-COUNT-8:   mux.get_global_id 1
// CHECK:         } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NOT:     scf.for
// CHECK:         func.return
// AVX2-LABEL: func.func @square
// AVX2:         %[[C4:.*]] = arith.constant 4 : index
// AVX2-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// AVX2-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[C16]] step %[[C4]] {
// AVX2-COUNT-4:   mux.get_global_id 1
// AVX2-NOT:       mux.get_global_id 1
// AVX2:         } {xmux.loop_vectorize_width = 1 : i64}
// AVX2-NOT:     scf.for
// AVX2:         func.return
func.func @square(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @six_rows
// CHECK:         mux.set_local_id 2
// CHECK-NEXT:    %[[C6:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %[[END:.*]] = arith.constant 6 : index
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[END]] step %[[C6]] {
// CHECK:         } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NOT:     scf.for
// CHECK:         func.return
// FOUR-LABEL: func.func @six_rows
// FOUR:         mux.set_local_id 2
// FOUR-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// FOUR-NEXT:    %[[END:.*]] = arith.constant 6 : index
// FOUR-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[END]] step %[[C3]] {
// FOUR-COUNT-3:   mux.get_global_id 1
// FOUR-NOT:       mux.get_global_id 1
// FOUR:         } {xmux.loop_vectorize_width = 1 : i64}
// FOUR-NOT:     scf.for
// FOUR:         func.return
func.func @six_rows(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 6, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

// FOUR-LABEL: func.func @five_rows
// FOUR:         %[[FIVE:.*]] = arith.constant 5 : index
// FOUR:         %[[C4:.*]] = arith.constant 4 : index
// FOUR-NEXT:    %[[MAIN:.*]] = arith.constant 4 : index
// FOUR-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[MAIN]] step %[[C4]] {
// FOUR:         } {xmux.loop_vectorize_width = 1 : i64}
// FOUR-NEXT:    scf.for %[[Y:.*]] = %[[MAIN]] to %[[FIVE]] step %{{.*}} {
// FOUR-NEXT:      mux.set_local_id 1, %[[Y]] : index
// FOUR:         func.return
func.func @five_rows(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 5, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

// One row per group: nothing to jam.
// CHECK-LABEL: func.func @one_row
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @one_row(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 1, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}
