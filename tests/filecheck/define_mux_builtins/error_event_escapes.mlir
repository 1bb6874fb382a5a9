// RUN: not xmux-opt %s -p define-mux-builtins 2>&1 | filecheck %s

func.func private @keep(!mux.event)

func.func @k(%l: memref<4xf32, 3>, %g: memref<?xf32>, %n: index) {
  %e = mux.dma_read_1d %l, %g width(%n) : memref<4xf32, 3>, memref<?xf32>
  func.call @keep(%e) : (!mux.event) -> ()
  func.return
}

// CHECK: error: define-mux-builtins: a !mux.event of 'mux.dma_read_1d' in @k is used by 'func.call': events may only be used by DMA ops and mux.dma_wait
