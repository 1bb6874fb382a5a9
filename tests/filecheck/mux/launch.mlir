// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Host-side mux.launch: 1 to 3 dimensions, with and without global_offset, no arguments.

func.func @k(%a: memref<?xf32>, %b: memref<?xf32>) {
  func.return
}
func.func @noargs() {
  func.return
}

// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[A:.*]]: memref<?xf32>, %[[B:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[L:.*]]: index)
// CHECK-NEXT:    mux.launch @k(%[[A]], %[[B]]) global_size(%[[N]]) local_size(%[[L]]) : (memref<?xf32>, memref<?xf32>)
// CHECK-NEXT:    mux.launch @k(%[[A]], %[[B]]) global_size(%[[N]], %[[N]]) local_size(%[[L]], %[[L]]) global_offset(%[[L]], %[[L]]) : (memref<?xf32>, memref<?xf32>)
// CHECK-NEXT:    mux.launch @noargs() global_size(%[[N]], %[[N]], %[[N]]) local_size(%[[L]], %[[L]], %[[L]]) : ()
// CHECK-NEXT:    func.return

// GENERIC: "mux.launch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{kernel = @k, operandSegmentSizes = array<i32: 2, 1, 1, 0>}> : (memref<?xf32>, memref<?xf32>, index, index) -> ()
// GENERIC: "mux.launch"({{.*}}) <{kernel = @k, operandSegmentSizes = array<i32: 2, 2, 2, 2>}>
// GENERIC: "mux.launch"({{.*}}) <{kernel = @noargs, operandSegmentSizes = array<i32: 0, 3, 3, 0>}>
func.func @main(%a: memref<?xf32>, %b: memref<?xf32>, %n: index, %l: index) {
  mux.launch @k(%a, %b) global_size(%n) local_size(%l) : (memref<?xf32>, memref<?xf32>)
  mux.launch @k(%a, %b) global_size(%n, %n) local_size(%l, %l) global_offset(%l, %l) : (memref<?xf32>, memref<?xf32>)
  mux.launch @noargs() global_size(%n, %n, %n) local_size(%l, %l, %l) : ()
  func.return
}
