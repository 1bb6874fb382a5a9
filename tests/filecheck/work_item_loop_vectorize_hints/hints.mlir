// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-loop-vectorize-hints' | filecheck %s

// A tile copy: with a known local size the work-item loop over x has a constant trip count;
// from 4 to 32 iterations it gets a vectorization hint of the largest power of two up to
// min(trips, 16), so LLVM vectorizes it instead of unrolling it fully.

// CHECK-LABEL: func.func @sixteen
// CHECK:           memref.store
// CHECK-NEXT:    } {mux.work_item_loop, xmux.loop_vectorize_width = 16 : i64}
func.func @sixteen(%A: memref<?x?xf32>, %T: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %row = mux.get_global_id 1 : index
  %v = memref.load %A[%row, %lx] : memref<?x?xf32>
  memref.store %v, %T[%ly, %lx] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @six
// CHECK:           memref.store
// CHECK-NEXT:    } {mux.work_item_loop, xmux.loop_vectorize_width = 4 : i64}
func.func @six(%A: memref<?x?xf32>, %T: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 6, 4, 1>} {
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %row = mux.get_global_id 1 : index
  %v = memref.load %A[%row, %lx] : memref<?x?xf32>
  memref.store %v, %T[%ly, %lx] : memref<?x?xf32>
  func.return
}

// Left alone: too short, long enough for LLVM's vectorizer anyway, unknown trip count.
// CHECK-LABEL: func.func @two
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @two(%A: memref<?x?xf32>, %T: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 2, 8, 1>} {
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %row = mux.get_global_id 1 : index
  %v = memref.load %A[%row, %lx] : memref<?x?xf32>
  memref.store %v, %T[%ly, %lx] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @long
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @long(%A: memref<?x?xf32>, %T: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 64, 2, 1>} {
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %row = mux.get_global_id 1 : index
  %v = memref.load %A[%row, %lx] : memref<?x?xf32>
  memref.store %v, %T[%ly, %lx] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @dynamic
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @dynamic(%A: memref<?x?xf32>, %T: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %row = mux.get_global_id 1 : index
  %v = memref.load %A[%row, %lx] : memref<?x?xf32>
  memref.store %v, %T[%ly, %lx] : memref<?x?xf32>
  func.return
}

// The naive matmul after the interchange: the work-item loop right inside the uniform k
// loop is left to LLVM's unroller (then the accumulators stay in registers across k); the
// loops storing the initial values and the results get the hint.
// CHECK-LABEL: func.func @matmul
// CHECK:           memref.store
// CHECK-NEXT:    } {mux.work_item_loop, xmux.loop_vectorize_width = 16 : i64}
// CHECK:         scf.for
// CHECK:             memref.store
// CHECK-NEXT:      } {mux.work_item_loop}
// CHECK-NEXT:    }
// CHECK:           memref.store
// CHECK-NEXT:    } {mux.work_item_loop, xmux.loop_vectorize_width = 16 : i64}
func.func @matmul(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
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

// The same without a local size (the generic code): the work-item loop inside the k loop
// has an unknown trip count, so it cannot be unrolled; it gets one vector register of f32
// (16 without a target). The loops before and after the k loop are left to LLVM.
// CHECK-LABEL: func.func @matmul_generic
// CHECK:           memref.store
// CHECK-NEXT:    } {mux.work_item_loop}
// CHECK:         scf.for
// CHECK:             memref.store
// CHECK-NEXT:      } {mux.work_item_loop, xmux.loop_vectorize_width = 16 : i64}
// CHECK-NEXT:    }
// CHECK:           memref.store
// CHECK-NEXT:    } {mux.work_item_loop}
func.func @matmul_generic(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>,
                          %C: memref<?x?xf32>) attributes {mux.kernel = "entry_point"} {
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

// Left alone as LLVM could not vectorize them without runtime checks (a hinted loop it
// cannot vectorize gets a warning on stderr): a stride-2 store, an address loaded from
// memory, control flow in the body.
// CHECK-LABEL: func.func @stride_two
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @stride_two(%A: memref<?xf32>, %T: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %c2 = arith.constant 2 : index
  %j = arith.muli %i, %c2 : index
  %v = memref.load %A[%i] : memref<?xf32>
  memref.store %v, %T[%j] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @indirect
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @indirect(%A: memref<?xf32>, %I: memref<?xindex>, %T: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %j = memref.load %I[%i] : memref<?xindex>
  %v = memref.load %A[%j] : memref<?xf32>
  memref.store %v, %T[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @branch
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @branch(%A: memref<?xf32>, %T: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %A[%i] : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  %pos = arith.cmpf ogt, %v, %zero : f32
  scf.if %pos {
    memref.store %v, %T[%i] : memref<?xf32>
  }
  func.return
}

// A unit-stride address through the global id plus a uniform offset, a uniform row.
// CHECK-LABEL: func.func @offset
// CHECK:           memref.store
// CHECK-NEXT:    } {mux.work_item_loop, xmux.loop_vectorize_width = 8 : i64}
func.func @offset(%A: memref<?x?xf32>, %T: memref<?xf32>, %off: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %g = mux.get_group_id 0 : index
  %j = arith.addi %i, %off : index
  %v = memref.load %A[%g, %j] : memref<?x?xf32>
  memref.store %v, %T[%i] : memref<?xf32>
  func.return
}

// A rank-0 memref: one address for every work-item.
// CHECK-LABEL: func.func @scalar_cell
// CHECK:           memref.store
// CHECK-NEXT:    } {mux.work_item_loop, xmux.loop_vectorize_width = 8 : i64}
func.func @scalar_cell(%s: memref<f32>, %T: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %s[] : memref<f32>
  memref.store %v, %T[%i] : memref<?xf32>
  func.return
}
