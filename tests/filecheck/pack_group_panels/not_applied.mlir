// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam,pack-group-panels' | filecheck %s

// Where a panel is not packed: the copy would read what the kernel does not, or could read
// a value the work-item itself writes before its load, or there is nothing to reuse.

// Unknown local size (the generic build): the work-item loop's trip count is not a constant.
// CHECK-LABEL: func.func @unknown_size
// CHECK-NOT:     scf.if
// CHECK-NOT:     memref.alloca() {alignment = 64 : i64} : memref<
// CHECK:         func.return
func.func @unknown_size(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
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

// The work-item stores to an argument before its loads (B may be C): the copy in front of
// the nest would miss its own store.
// CHECK-LABEL: func.func @store_before
// CHECK-NOT:     scf.if
// CHECK-NOT:     memref.alloca() {alignment = 64 : i64} : memref<
// CHECK:         func.return
func.func @store_before(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %C[%row, %col] : memref<?x?xf32>
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

// The load is conditional (a bounds test on the column): the copy would read columns past
// the test.
// CHECK-LABEL: func.func @guarded_load
// CHECK-NOT:     memref.alloca() {alignment = 64 : i64} : memref<
// CHECK:         func.return
func.func @guarded_load(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %in = arith.cmpi ult, %col, %n : index
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %v = scf.if %in -> (f32) {
      %b = memref.load %B[%k, %col] : memref<?x?xf32>
      scf.yield %b : f32
    } else {
      scf.yield %zero : f32
    }
    %p = arith.mulf %a, %v : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

// An atomic in the k loop: work-items may talk through memory.
// CHECK-LABEL: func.func @atomic_inside
// CHECK-NOT:     memref.alloca() {alignment = 64 : i64} : memref<
// CHECK:         func.return
func.func @atomic_inside(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>,
                         %cnt: memref<1xi32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %old = memref.atomic_rmw addi %one, %cnt[%c0] : (i32, memref<1xi32>) -> i32
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

// B read along its columns (B[col, k]): not a row-major panel, left alone.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT:     memref.alloca() {alignment = 64 : i64} : memref<
// CHECK:         func.return
func.func @transposed(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%col, %k] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

// One row per group (16x1): no block of rows reuses the panel.
// CHECK-LABEL: func.func @one_row
// CHECK-NOT:     memref.alloca() {alignment = 64 : i64} : memref<
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
