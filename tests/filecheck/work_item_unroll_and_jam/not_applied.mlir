// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam' | filecheck %s
// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam{factor=1}' | filecheck %s --check-prefix=OFF

// One dimension (a dot product per work-item): no outer work-item loop whose work-items
// differ. factor=1 turns the pass off.

// CHECK-LABEL: func.func @matvec
// CHECK-NOT:     xmux.loop_vectorize_width
// CHECK:         func.return
func.func @matvec(%n: index, %A: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%i, %k] : memref<?x?xf32>
    %b = memref.load %x[%k] : memref<?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %y[%i] : memref<?xf32>
  func.return
}

// OFF-LABEL: func.func @matmul
// OFF-NOT:     xmux.loop_vectorize_width
// OFF:         func.return
// CHECK-LABEL: func.func @matmul
// CHECK:         xmux.loop_vectorize_width = 1
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
