// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s

// A 1-D transfer is an element loop (bytes / element size); a wait disappears with the
// events: a transfer is complete when its op returns. No scheduling parameters needed.

func.func @read(%l: memref<64xf32, 3>, %g: memref<?xf32>, %bytes: index) {
  %e = mux.dma_read_1d %l, %g width(%bytes) : memref<64xf32, 3>, memref<?xf32>
  %e2 = mux.dma_write_1d %g, %l width(%bytes) event(%e) : memref<?xf32>, memref<64xf32, 3>
  mux.dma_wait %e, %e2
  func.return
}

// CHECK-LABEL: func.func @read(%l: memref<64xf32, 3 : i64>, %g: memref<?xf32>, %bytes: index) {
// CHECK-NEXT:    %[[ES:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[N:.*]] = arith.divui %bytes, %[[ES]] : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]] {
// CHECK-NEXT:      %[[V:.*]] = memref.load %g[%[[I]]] : memref<?xf32>
// CHECK-NEXT:      memref.store %[[V]], %l[%[[I]]] : memref<64xf32, 3 : i64>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[ES2:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[D0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[M:.*]] = arith.divui %bytes, %[[ES2]] : index
// CHECK-NEXT:    scf.for %[[J:.*]] = %[[D0]] to %[[M]] step %[[D1]] {
// CHECK-NEXT:      %[[W:.*]] = memref.load %l[%[[J]]] : memref<64xf32, 3 : i64>
// CHECK-NEXT:      memref.store %[[W]], %g[%[[J]]] : memref<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
