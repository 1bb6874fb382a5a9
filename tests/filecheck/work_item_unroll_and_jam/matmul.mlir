// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam{factor=4}' | filecheck %s

// The naive matmul after the interchange: the loop over rows runs 4 rows per iteration. The
// interchange's accumulator array gets a copy per row, each row's id is set before its
// query, the k loop and the column loop inside it are jammed: B[k, col] is loaded once for
// the 4 rows, A[row, k] once per row. A remainder loop runs the last ls1 mod 4 rows.

// CHECK-LABEL: func.func @matmul
// CHECK:         %[[LS:.*]] = mux.get_enqueued_local_size 0 : index
// CHECK-NEXT:    %[[ACC0:.*]] = memref.alloca(%[[LS]]) {mux.per_work_item
// CHECK-NEXT:    %[[ACC1:.*]] = memref.alloca(%[[LS]]) {mux.per_work_item
// CHECK-NEXT:    %[[ACC2:.*]] = memref.alloca(%[[LS]]) {mux.per_work_item
// CHECK-NEXT:    %[[ACC3:.*]] = memref.alloca(%[[LS]]) {mux.per_work_item
// CHECK:         %[[LS1:.*]] = mux.get_local_size 1 : index
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[SPAN:.*]] = arith.subi %[[LS1]], %[[LB:.*]] : index
// CHECK-NEXT:    %[[BLOCKS:.*]] = arith.divsi %[[SPAN]], %[[C4]] : index
// CHECK-NEXT:    %[[WHOLE:.*]] = arith.muli %[[BLOCKS]], %[[C4]] : index
// CHECK-NEXT:    %[[MAIN:.*]] = arith.addi %[[LB]], %[[WHOLE]] : index
// CHECK-NEXT:    scf.for %[[Y:.*]] = %[[LB]] to %[[MAIN]] step %[[C4]] {
// CHECK-NEXT:      mux.set_local_id 1, %[[Y]] : index
// CHECK:           %[[Y1:.*]] = arith.addi %[[Y]], %{{.*}} : index
// CHECK:           %[[Y2:.*]] = arith.addi %[[Y]], %{{.*}} : index
// CHECK:           %[[Y3:.*]] = arith.addi %[[Y]], %{{.*}} : index
// CHECK-NEXT:      %[[ROW0:.*]] = mux.get_global_id 1 : index
// CHECK-NEXT:      mux.set_local_id 1, %[[Y1]] : index
// CHECK-NEXT:      %[[ROW1:.*]] = mux.get_global_id 1 : index
// CHECK-NEXT:      mux.set_local_id 1, %[[Y2]] : index
// CHECK-NEXT:      %[[ROW2:.*]] = mux.get_global_id 1 : index
// CHECK-NEXT:      mux.set_local_id 1, %[[Y3]] : index
// CHECK-NEXT:      %[[ROW3:.*]] = mux.get_global_id 1 : index
// CHECK:           scf.for %[[X:.*]] = {{.*}} {
// CHECK-NEXT:        mux.set_local_id 0, %[[X]] : index
// CHECK-NEXT:        memref.store %{{.*}}, %[[ACC0]][%[[X]]] : memref<?xf32>
// CHECK-NEXT:        memref.store %{{.*}}, %[[ACC1]][%[[X]]] : memref<?xf32>
// CHECK-NEXT:        memref.store %{{.*}}, %[[ACC2]][%[[X]]] : memref<?xf32>
// CHECK-NEXT:        memref.store %{{.*}}, %[[ACC3]][%[[X]]] : memref<?xf32>
// CHECK-NEXT:      } {mux.work_item_loop}
// CHECK-NEXT:      scf.for %[[K:.*]] = %{{.*}} to %n step %{{.*}} {
// CHECK-NEXT:        scf.for %[[X2:.*]] = {{.*}} {
// CHECK-NEXT:          mux.set_local_id 0, %[[X2]] : index
// CHECK-NEXT:          %[[A0:.*]] = memref.load %A[%[[ROW0]], %[[K]]]
// CHECK-NEXT:          %[[A1:.*]] = memref.load %A[%[[ROW1]], %[[K]]]
// CHECK-NEXT:          %[[A2:.*]] = memref.load %A[%[[ROW2]], %[[K]]]
// CHECK-NEXT:          %[[A3:.*]] = memref.load %A[%[[ROW3]], %[[K]]]
// CHECK-NEXT:          %[[COL:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:          %[[B:.*]] = memref.load %B[%[[K]], %[[COL]]]
// CHECK-NEXT:          arith.mulf %[[A0]], %[[B]] : f32
// CHECK-NEXT:          arith.mulf %[[A1]], %[[B]] : f32
// CHECK-NEXT:          arith.mulf %[[A2]], %[[B]] : f32
// CHECK-NEXT:          arith.mulf %[[A3]], %[[B]] : f32
// CHECK-NEXT:          memref.load %[[ACC0]][%[[X2]]]
// CHECK-NEXT:          memref.load %[[ACC1]][%[[X2]]]
// CHECK-NEXT:          memref.load %[[ACC2]][%[[X2]]]
// CHECK-NEXT:          memref.load %[[ACC3]][%[[X2]]]
// CHECK-COUNT-4:       arith.addf
// CHECK-COUNT-4:       memref.store
// CHECK-NEXT:        } {mux.work_item_loop}
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.for %[[X3:.*]] = {{.*}} {
// CHECK-NEXT:        mux.set_local_id 0, %[[X3]] : index
// CHECK-COUNT-4:     memref.load
// CHECK-NEXT:        %[[COL3:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:        memref.store %{{.*}}, %C[%[[ROW0]], %[[COL3]]]
// CHECK-NEXT:        memref.store %{{.*}}, %C[%[[ROW1]], %[[COL3]]]
// CHECK-NEXT:        memref.store %{{.*}}, %C[%[[ROW2]], %[[COL3]]]
// CHECK-NEXT:        memref.store %{{.*}}, %C[%[[ROW3]], %[[COL3]]]
// CHECK-NEXT:      } {mux.work_item_loop}
// CHECK-NEXT:    } {xmux.loop_vectorize_width = 1 : i64}
// CHECK-NEXT:    scf.for %[[YR:.*]] = %[[MAIN]] to %[[LS1]] step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 1, %[[YR]] : index
// CHECK-NEXT:      mux.get_global_id 1 : index
// CHECK:           scf.for
// CHECK:             memref.store %{{.*}}, %[[ACC0]]
// CHECK-NOT:         %[[ACC1]]
// CHECK:           } {mux.work_item_loop}
// CHECK:         func.return
func.func @matmul(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
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
