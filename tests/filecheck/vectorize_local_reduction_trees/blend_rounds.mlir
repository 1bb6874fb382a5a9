// RUN: xmux-opt %s -p 'prepare-barriers,vectorize-local-reduction-trees' | filecheck %s

// Rounds that do not halve: s = 2, 3, 4 in a 4-item group over 8 slots, `buf[lid] -=
// buf[lid + s]`. Each round reads slots the one before did not write, so the vector keeps its
// 8 lanes: a round's new lanes [0, c) are blended into it (the round's vector widened to 8
// lanes first, as LLVM's shufflevector wants operands of one type); the last round writes
// slots 0-3, stored from its own vector; slots 4-7 were never written (no store).

module {
  memref.global "private" @buf : memref<8xf32, 3> = uninitialized
  func.func @rounds(%x: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c3 step %c1 {
      %s = arith.addi %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.subf %a, %b : f32
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    func.return
  }
}

// CHECK:      %[[V:.*]] = vector.load %buf[%[[C0:.*]]] : memref<8xf32, 3 : i64>, vector<8xf32>
// CHECK-NEXT: %[[A:.*]] = vector.shuffle %[[V]], %[[V]] [0, 1] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[B:.*]] = vector.shuffle %[[V]], %[[V]] [2, 3] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[T:.*]] = arith.subf %[[A]], %[[B]] : vector<2xf32>
// CHECK-NEXT: %[[W:.*]] = vector.shuffle %[[T]], %[[T]] [0, 1, 0, 1, 0, 1, 0, 1] : vector<2xf32>, vector<2xf32>
// CHECK-NEXT: %[[V1:.*]] = vector.shuffle %[[W]], %[[V]] [0, 1, 10, 11, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[A1:.*]] = vector.shuffle %[[V1]], %[[V1]] [0, 1, 2] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[B1:.*]] = vector.shuffle %[[V1]], %[[V1]] [3, 4, 5] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[T1:.*]] = arith.subf %[[A1]], %[[B1]] : vector<3xf32>
// CHECK-NEXT: %[[W1:.*]] = vector.shuffle %[[T1]], %[[T1]] [0, 1, 2, 0, 1, 2, 0, 1] : vector<3xf32>, vector<3xf32>
// CHECK-NEXT: %[[V2:.*]] = vector.shuffle %[[W1]], %[[V1]] [0, 1, 2, 11, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[A2:.*]] = vector.shuffle %[[V2]], %[[V2]] [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[B2:.*]] = vector.shuffle %[[V2]], %[[V2]] [4, 5, 6, 7] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[T2:.*]] = arith.subf %[[A2]], %[[B2]] : vector<4xf32>
// CHECK-NEXT: vector.store %[[T2]], %buf[%[[C0]]] : memref<8xf32, 3 : i64>, vector<4xf32>
// CHECK-NEXT: }{mux.single_work_item}
