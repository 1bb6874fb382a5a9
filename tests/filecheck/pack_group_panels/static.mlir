// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam,pack-group-panels' | filecheck %s

// k's trip count is a constant (64 rows of B from row 8): the buffer holds exactly the
// panel, P[k - 8][x], and no versioning is needed. A panel of i32 (4 bytes) alike.

// CHECK-LABEL: func.func @fixed_depth
// CHECK:         %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64x16xi32>
// CHECK-NOT:     scf.if
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[KREL:.*]] = arith.subi %[[K]], %{{.*}} : index
// CHECK:             mux.set_local_id 0, %[[X:.*]] : index
// CHECK-NEXT:        %[[COL:.*]] = mux.get_global_id 0 : index
// CHECK-NEXT:        %[[V:.*]] = memref.load %B[%[[K]], %[[COL]]] : memref<?x?xi32>
// CHECK-NEXT:        memref.store %[[V]], %[[P]][%[[KREL]], %[[X]]] : memref<64x16xi32>
// CHECK:         memref.load %[[P]][
// CHECK-NOT:     memref.load %B
// CHECK:         func.return
func.func @fixed_depth(%A: memref<?x?xi32>, %B: memref<?x?xi32>, %C: memref<?x?xi32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c8 = arith.constant 8 : index
  %c72 = arith.constant 72 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %acc = scf.for %k = %c8 to %c72 step %c1 iter_args(%s = %zero) -> (i32) {
    %a = memref.load %A[%row, %k] : memref<?x?xi32>
    %b = memref.load %B[%k, %col] : memref<?x?xi32>
    %p = arith.muli %a, %b : i32
    %t = arith.addi %s, %p : i32
    scf.yield %t : i32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xi32>
  func.return
}
