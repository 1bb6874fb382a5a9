// RUN: xmux-opt %s -p lower-work-group-collectives-nvptx | filecheck %s
// RUN: xmux-opt %s -p 'lower-work-group-collectives-nvptx{one_reader=false}' | filecheck %s --check-prefix=OFF

// The one-reader reduce: the value is read only inside `scf.if`s that pin local ids to 0
// (first_item_reads.reader_dims) and nothing after it needs the shared slots (is_last). It
// stays in work-item 0: one barrier, no store/load of the result. Dimensions the
// condition does not pin are checked at launch (local size 1: the fast path; else the
// broadcast after a second barrier).

// The bench's shape (bench/kernels/reduce_wg.mlir): local id 0 == 0 pins dimension 0;
// the local sizes of dimensions 1 and 2 are checked.
func.func @reduce_wg(%x: memref<?xf32>, %partial: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %lid = mux.get_local_id 0 : index
  %g = mux.get_group_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
    memref.store %s, %partial[%g] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @reduce_wg(
// CHECK:         %warp_total = scf.if
// CHECK:         mux.work_group_barrier
// CHECK:         %group_total = scf.if
// CHECK:         %[[NY:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[Y1:.*]] = arith.cmpi eq, %[[NY]], %[[C1]] : index
// CHECK-NEXT:    %[[NZ:.*]] = mux.get_local_size 2 : index
// CHECK-NEXT:    %[[Z1:.*]] = arith.cmpi eq, %[[NZ]], %[[C1]] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.andi %[[Y1]], %[[Z1]] : i1
// CHECK-NEXT:    %s = scf.if %[[ONE]] -> (f32) {
// CHECK-NEXT:      scf.yield %group_total : f32
// CHECK-NEXT:    } else {
// CHECK:           memref.store %group_total, %scratch
// CHECK-NEXT:      }
// CHECK-NEXT:      mux.work_group_barrier
// CHECK-NEXT:      %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[R32:.*]] = arith.constant 32 : index
// CHECK-NEXT:      %[[B:.*]] = memref.load %scratch[%[[R0]], %[[R32]]]
// CHECK-NEXT:      scf.yield %[[B]] : f32
// CHECK-NEXT:    }
// CHECK:         scf.if %first {
// CHECK-NEXT:      memref.store %s, %partial[%g] : memref<?xf32>

// OFF-LABEL: func.func @reduce_wg(
// OFF:         mux.work_group_barrier
// OFF:         mux.work_group_barrier
// OFF-NOT:     mux.get_local_size
// OFF:         %s = memref.load %scratch

// All three dimensions pinned (the linear id; an andi of per-dimension tests, nested
// ifs): nothing to check at launch, one barrier. The value may pass through arith ops
// outside the region (run by everyone, read in work-item 0) and leave it through a yield.
func.func @linear(%x: memref<?xi32>, %o: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %s = mux.work_group_reduce smax %v : i32
  %c3 = arith.constant 3 : i32
  %t = arith.muli %s, %c3 : i32
  %l = mux.get_local_linear_id : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %c0, %l : index
  %y = scf.if %first -> (i32) {
    scf.yield %t : i32
  } else {
    scf.yield %c3 : i32
  }
  memref.store %y, %o[%i] : memref<?xi32>
  func.return
}

// CHECK-LABEL: func.func @linear(
// CHECK:         mux.work_group_barrier
// CHECK-NOT:     mux.work_group_barrier
// CHECK-NOT:     mux.get_local_size
// CHECK:         %t = arith.muli %s, %c3 : i32

func.func @xyz(%x: memref<?xf64>, %o: memref<?xf64>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf64>
  %s = mux.work_group_reduce fmin %v : f64
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %l0 = mux.get_local_id 0 : index
  %l1 = mux.get_local_id 1 : i32
  %l2 = mux.get_local_id 2 : index
  %l2i = arith.index_cast %l2 : index to i64
  %c0_i64 = arith.constant 0 : i64
  %a = arith.cmpi eq, %l0, %c0 : index
  %b = arith.cmpi eq, %l1, %c0_i32 : i32
  %c = arith.cmpi ule, %l2i, %c0_i64 : i64
  %ab = arith.andi %a, %b : i1
  scf.if %ab {
    scf.if %c {
      memref.store %s, %o[%c0] : memref<?xf64>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @xyz(
// CHECK:         mux.work_group_barrier
// CHECK-NOT:     mux.work_group_barrier
// CHECK-NOT:     mux.get_local_size

// Dimension 0 pinned, a kernel limited to one dimension (mux.max_work_dim = 1): nothing
// to check at launch.
func.func @one_dim(%x: memref<?xf32>, %o: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.max_work_dim = 1 : i32} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  %lid = mux.get_local_id 0 : index
  %c1 = arith.constant 1 : index
  %first = arith.cmpi ult, %lid, %c1 : index
  scf.if %first {
    memref.store %s, %o[%i] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @one_dim(
// CHECK:         mux.work_group_barrier
// CHECK-NOT:     mux.work_group_barrier
// CHECK-NOT:     mux.get_local_size

// Local ids of two dimensions used, only dimension 0 pinned: the local size of dimension
// 1 is checked at launch (the broadcast where it is not 1: every (0, y) work-item reads).
func.func @two_dims(%x: memref<?xi32>, %o: memref<?xi32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i32: 32, 4, 1>} {
  %i = mux.get_global_id 0 : index
  %j = mux.get_local_id 1 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %s = mux.work_group_reduce add %v : i32
  %lid = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
    memref.store %s, %o[%j] : memref<?xi32>
  }
  func.return
}

// CHECK-LABEL: func.func @two_dims(
// CHECK:         mux.work_group_barrier
// CHECK:         %[[NY:.*]] = mux.get_local_size 1 : index
// CHECK-NOT:     mux.get_local_size 2
// CHECK:         %s = scf.if
// CHECK:           mux.work_group_barrier
// CHECK-NOT:     mux.work_group_barrier
