// RUN: xmux-opt %s -p 'work-item-loops,work-item-unroll-and-jam{factor=2}' | filecheck %s

// Without the interchange: the uniform k loop inside the column loop is jammed with one
// iteration argument per row; the ids of the rows are set inside the column loop before
// their queries; an scf.if whose condition differs between the rows is emitted per row, one
// with the same condition for both rows once, holding both rows' stores.

// CHECK-LABEL: func.func @carried
// CHECK:         scf.for %[[Y:y]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 1, %[[Y]] : index
// CHECK:           %[[Y1:.*]] = arith.addi %[[Y]], %{{.*}} : index
// CHECK-NEXT:      scf.for %[[X:.*]] = {{.*}} {
// CHECK-NEXT:        mux.set_local_id 0, %[[X]] : index
// CHECK-NEXT:        %[[COL:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:        mux.set_local_id 1, %[[Y]] : index
// CHECK-NEXT:        %[[ROW0:.*]] = mux.get_global_id 1 : index
// CHECK-NEXT:        mux.set_local_id 1, %[[Y1]] : index
// CHECK-NEXT:        %[[ROW1:.*]] = mux.get_global_id 1 : index
// CHECK:             %[[R0:.*]], %[[R1:.*]] = scf.for %[[K:.*]] = %{{.*}} to %n step %{{.*}} iter_args(%[[S0:.*]] = %[[ZERO:.*]], %[[S1:.*]] = %[[ZERO]]) -> (f32, f32) {
// CHECK-NEXT:          %[[A0:.*]] = memref.load %A[%[[ROW0]], %[[K]]]
// CHECK-NEXT:          %[[A1:.*]] = memref.load %A[%[[ROW1]], %[[K]]]
// CHECK-NEXT:          %[[B:.*]] = memref.load %B[%[[K]], %[[COL]]]
// CHECK-NEXT:          %[[P0:.*]] = arith.mulf %[[A0]], %[[B]] : f32
// CHECK-NEXT:          %[[P1:.*]] = arith.mulf %[[A1]], %[[B]] : f32
// CHECK-NEXT:          %[[T0:.*]] = arith.addf %[[S0]], %[[P0]] : f32
// CHECK-NEXT:          %[[T1:.*]] = arith.addf %[[S1]], %[[P1]] : f32
// CHECK-NEXT:          scf.yield %[[T0]], %[[T1]] : f32, f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[POS0:.*]] = arith.cmpf ogt, %[[R0]], %[[ZERO]] : f32
// CHECK-NEXT:        %[[POS1:.*]] = arith.cmpf ogt, %[[R1]], %[[ZERO]] : f32
// CHECK-NEXT:        scf.if %[[POS0]] {
// CHECK-NEXT:          memref.store %[[R0]], %C[%[[ROW0]], %[[COL]]]
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.if %[[POS1]] {
// CHECK-NEXT:          memref.store %[[R1]], %C[%[[ROW1]], %[[COL]]]
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[BIG:.*]] = arith.cmpi ugt, %n, %{{.*}} : index
// CHECK-NEXT:        scf.if %[[BIG]] {
// CHECK-NEXT:          memref.store %[[ZERO]], %C[%[[COL]], %[[ROW0]]]
// CHECK-NEXT:          memref.store %[[ZERO]], %C[%[[COL]], %[[ROW1]]]
// CHECK-NEXT:        }
// CHECK-NEXT:      } {mux.work_item_loop}
// CHECK-NEXT:    } {xmux.loop_vectorize_width = 1 : i64}
func.func @carried(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
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
  %pos = arith.cmpf ogt, %acc, %zero : f32
  scf.if %pos {
    memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  }
  %big = arith.cmpi ugt, %n, %c1 : index
  scf.if %big {
    memref.store %zero, %C[%col, %row] : memref<?x?xf32>
  }
  func.return
}

// A short uniform loop (4 iterations) in the column loop is unrolled: the column loop stays
// LLVM's innermost loop, with a hint to vectorize it rather than unroll it.

// CHECK-LABEL: func.func @short
// CHECK:         scf.for %[[Y:y.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[X:x.*]] = {{.*}} {
// CHECK-NOT:         scf.for
// CHECK-COUNT-8:     arith.addf
// CHECK-NOT:         scf.for
// CHECK:           } {mux.work_item_loop, xmux.loop_vectorize_width = 16 : i64}
// CHECK-NEXT:    } {xmux.loop_vectorize_width = 1 : i64}
func.func @short(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

// Three dimensions: the rows (the loop holding the column loop) are jammed, not the batch.

// CHECK-LABEL: func.func @batched
// CHECK:         scf.for %[[Z:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 2, %[[Z]] : index
// CHECK:           scf.for %[[Y:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        mux.set_local_id 1, %[[Y]] : index
// CHECK:           } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:      scf.for %[[YR:.*]] = {{.*}} {
// CHECK-NEXT:        mux.set_local_id 1, %[[YR]] : index
// CHECK:             } {mux.work_item_loop}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @batched(%n: index, %A: memref<?x?x?xf32>, %B: memref<?x?x?xf32>,
                   %C: memref<?x?x?xf32>) attributes {mux.kernel = "entry_point"} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %z = mux.get_global_id 2 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%z, %row, %k] : memref<?x?x?xf32>
    %b = memref.load %B[%z, %k, %col] : memref<?x?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%z, %row, %col] : memref<?x?x?xf32>
  func.return
}
