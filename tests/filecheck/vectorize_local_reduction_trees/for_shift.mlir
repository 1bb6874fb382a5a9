// RUN: xmux-opt %s -p 'prepare-barriers,vectorize-local-reduction-trees' | filecheck %s
// RUN: xmux-opt %s -p 'prepare-barriers,vectorize-local-reduction-trees{max-bytes=16}' | filecheck %s --check-prefix=SMALL

// The halving tree of a required 8-item group over local memory (rounds s = 4, 2, 1) becomes
// one step of work-item 0 between barriers: the 8 slots as a vector, each round's active
// lanes [0, s) added to lanes [s, 2s) in the tree's order; the slots a round wrote are stored
// once no later round touches them (slots 4-7 were never written: no store), so the buffer
// ends as the tree leaves it, and the vector halves with the rounds. With max-bytes=16 the
// 32 bytes of slots do not fit: the loop stays.

// SMALL:     scf.for
// SMALL-NOT: vector.

module {
  "memref.global"() <{sym_name = "buf", sym_visibility = "private", type = memref<8xf32, 3>, initial_value}> : () -> ()
  func.func @tree(%x: memref<?xf32>, %out: memref<?xf32>)
      attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
    %i = mux.get_global_id 0 : index
    %lid = mux.get_local_id 0 : index
    %g = mux.get_group_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %buf[%lid] : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c3 step %c1 {
      %s = arith.shrui %c4, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    %first = arith.cmpi eq, %lid, %c0 : index
    scf.if %first {
      %r = memref.load %buf[%c0] : memref<8xf32, 3>
      memref.store %r, %out[%g] : memref<?xf32>
    }
    func.return
  }
}

// CHECK:      memref.store %v, %buf[%lid] : memref<8xf32, 3 : i64>
// CHECK-NEXT: mux.work_group_barrier id 1, work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %[[L:.*]] = mux.get_local_linear_id : index
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[F:.*]] = arith.cmpi eq, %[[L]], %[[Z]] : index
// CHECK-NEXT: scf.if %[[F]] {
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[V:.*]] = vector.load %buf[%[[C0]]] : memref<8xf32, 3 : i64>, vector<8xf32>
// CHECK-NEXT:   %[[A:.*]] = vector.shuffle %[[V]], %[[V]] [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT:   %[[B:.*]] = vector.shuffle %[[V]], %[[V]] [4, 5, 6, 7] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT:   %[[T:.*]] = arith.addf %[[A]], %[[B]] : vector<4xf32>
// CHECK-NEXT:   %[[A1:.*]] = vector.shuffle %[[T]], %[[T]] [0, 1] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT:   %[[B1:.*]] = vector.shuffle %[[T]], %[[T]] [2, 3] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT:   %[[T1:.*]] = arith.addf %[[A1]], %[[B1]] : vector<2xf32>
// CHECK-NEXT:   %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:   vector.store %[[B1]], %buf[%[[C2]]] : memref<8xf32, 3 : i64>, vector<2xf32>
// CHECK-NEXT:   %[[A2:.*]] = vector.shuffle %[[T1]], %[[T1]] [0] : vector<2xf32>, vector<2xf32>
// CHECK-NEXT:   %[[B2:.*]] = vector.shuffle %[[T1]], %[[T1]] [1] : vector<2xf32>, vector<2xf32>
// CHECK-NEXT:   %[[T2:.*]] = arith.addf %[[A2]], %[[B2]] : vector<1xf32>
// CHECK-NEXT:   vector.store %[[T2]], %buf[%[[C0]]] : memref<8xf32, 3 : i64>, vector<1xf32>
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   vector.store %[[B2]], %buf[%[[C1]]] : memref<8xf32, 3 : i64>, vector<1xf32>
// CHECK-NEXT: }{mux.single_work_item}
// CHECK-NEXT: mux.work_group_barrier id 2, work_group, <acq_rel, work_group_memory>
// CHECK-NOT:  scf.for
// CHECK-NOT:  mux.work_group_barrier
