// RUN: xmux-opt %s -p 'work-item-unroll-and-jam{factor=2}' | filecheck %s

// Private storage, barriers, atomics. An allocation above the row loop that only the loop
// uses gets a copy per row; a per-work-item array also used elsewhere has a slot per
// work-item and is shared; any other allocation used elsewhere, a barrier, an atomic or a
// fence in the nest (work-items may wait for each other: a spin lock would hang once they
// run in step), or loads that all differ between the rows leave the loop alone.

// CHECK-LABEL: func.func @private_inside
// CHECK-NEXT:    %[[T0:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    %[[T1:.*]] = memref.alloca() : memref<4xf32>
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               memref.store %[[P0:.*]], %[[T0]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:          memref.store %[[P1:.*]], %[[T1]][%{{.*}}] : memref<4xf32>
// CHECK:         } {xmux.loop_vectorize_width = 1 : i64}
func.func @private_inside(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %tmp = memref.alloca() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  scf.for %y = %c0 to %ls1 step %c1 {
    mux.set_local_id 1, %y : index
    %row = mux.get_global_id 1 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.for %x = %c0 to %ls0 step %c1 {
        mux.set_local_id 0, %x : index
        %col = mux.get_global_id 0 : index
        %a = memref.load %A[%row, %k] : memref<?x?xf32>
          %b = memref.load %B[%k, %col] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        memref.store %p, %tmp[%c0] : memref<4xf32>
        memref.store %p, %C[%row, %col] : memref<?x?xf32>
      } {mux.work_item_loop}
    }
  }
  func.return
}

// CHECK-LABEL: func.func @per_work_item_elsewhere
// CHECK-NEXT:    %[[T:.*]] = memref.alloca() {mux.per_work_item} : memref<4xf32>
// CHECK-NEXT:    arith.constant
// CHECK:               memref.store %{{.*}}, %[[T]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:          memref.store %{{.*}}, %[[T]][%{{.*}}] : memref<4xf32>
// CHECK:         } {xmux.loop_vectorize_width = 1 : i64}
func.func @per_work_item_elsewhere(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %tmp = memref.alloca() {mux.per_work_item} : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  scf.for %y = %c0 to %ls1 step %c1 {
    mux.set_local_id 1, %y : index
    %row = mux.get_global_id 1 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.for %x = %c0 to %ls0 step %c1 {
        mux.set_local_id 0, %x : index
        %col = mux.get_global_id 0 : index
        %a = memref.load %A[%row, %k] : memref<?x?xf32>
          %b = memref.load %B[%k, %col] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        memref.store %p, %tmp[%c0] : memref<4xf32>
        memref.store %p, %C[%row, %col] : memref<?x?xf32>
      } {mux.work_item_loop}
    }
  }
  %v = memref.load %tmp[%c0] : memref<4xf32>
  memref.store %v, %C[%c0, %c0] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @private_elsewhere
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @private_elsewhere(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %tmp = memref.alloca() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  scf.for %y = %c0 to %ls1 step %c1 {
    mux.set_local_id 1, %y : index
    %row = mux.get_global_id 1 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.for %x = %c0 to %ls0 step %c1 {
        mux.set_local_id 0, %x : index
        %col = mux.get_global_id 0 : index
        %a = memref.load %A[%row, %k] : memref<?x?xf32>
          %b = memref.load %B[%k, %col] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        memref.store %p, %tmp[%c0] : memref<4xf32>
        memref.store %p, %C[%row, %col] : memref<?x?xf32>
      } {mux.work_item_loop}
    }
  }
  %v = memref.load %tmp[%c0] : memref<4xf32>
  memref.store %v, %C[%c0, %c0] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @barrier
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @barrier(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %tmp = memref.alloca() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  scf.for %y = %c0 to %ls1 step %c1 {
    mux.set_local_id 1, %y : index
    %row = mux.get_global_id 1 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.for %x = %c0 to %ls0 step %c1 {
        mux.set_local_id 0, %x : index
        %col = mux.get_global_id 0 : index
        %a = memref.load %A[%row, %k] : memref<?x?xf32>
          %b = memref.load %B[%k, %col] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        memref.store %p, %tmp[%c0] : memref<4xf32>
        memref.store %p, %C[%row, %col] : memref<?x?xf32>
      } {mux.work_item_loop}
        mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @nothing_shared
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @nothing_shared(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %tmp = memref.alloca() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  scf.for %y = %c0 to %ls1 step %c1 {
    mux.set_local_id 1, %y : index
    %row = mux.get_global_id 1 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.for %x = %c0 to %ls0 step %c1 {
        mux.set_local_id 0, %x : index
        %col = mux.get_global_id 0 : index
        %a = memref.load %A[%row, %k] : memref<?x?xf32>
        %b = memref.load %B[%k, %row] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        memref.store %p, %tmp[%c0] : memref<4xf32>
        memref.store %p, %C[%row, %col] : memref<?x?xf32>
      } {mux.work_item_loop}
    }
  }
  func.return
}

// CHECK-LABEL: func.func @atomic
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @atomic(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>,
                  %count: memref<1xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  scf.for %y = %c0 to %ls1 step %c1 {
    mux.set_local_id 1, %y : index
    %row = mux.get_global_id 1 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.for %x = %c0 to %ls0 step %c1 {
        mux.set_local_id 0, %x : index
        %col = mux.get_global_id 0 : index
        %a = memref.load %A[%row, %k] : memref<?x?xf32>
        %b = memref.load %B[%k, %col] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        memref.store %p, %C[%row, %col] : memref<?x?xf32>
        %old = memref.atomic_rmw addi %one, %count[%c0] : (i32, memref<1xi32>) -> i32
      } {mux.work_item_loop}
    }
  }
  func.return
}

// CHECK-LABEL: func.func @fence
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @fence(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  scf.for %y = %c0 to %ls1 step %c1 {
    mux.set_local_id 1, %y : index
    %row = mux.get_global_id 1 : index
    scf.for %k = %c0 to %n step %c1 {
      scf.for %x = %c0 to %ls0 step %c1 {
        mux.set_local_id 0, %x : index
        %col = mux.get_global_id 0 : index
        %a = memref.load %A[%row, %k] : memref<?x?xf32>
        %b = memref.load %B[%k, %col] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        memref.store %p, %C[%row, %col] : memref<?x?xf32>
        mux.mem_barrier work_group, <acq_rel, work_group_memory>
      } {mux.work_item_loop}
    }
  }
  func.return
}
