// RUN: xmux-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of DMA ops: non-memref buffers, non-index sizes, non-event waits.

func.func @not_memref(%p: i64, %g: memref<?xf32>, %w: index) {
  %e = "mux.dma_read_1d"(%p, %g, %w) : (i64, memref<?xf32>, index) -> !mux.event
  func.return
}
// CHECK: operand 'dst' at position 0 does not verify:
// CHECK-NEXT: i64 should be of base attribute memref

// -----

func.func @width_not_index(%l: memref<8xf32, 3>, %g: memref<?xf32>, %w: i64) {
  %e = "mux.dma_read_1d"(%l, %g, %w) : (memref<8xf32, 3>, memref<?xf32>, i64) -> !mux.event
  func.return
}
// CHECK: operand 'width' at position 2 does not verify:
// CHECK-NEXT: i64 should be of base attribute index

// -----

func.func @wait_not_event(%i: i32) {
  "mux.dma_wait"(%i) : (i32) -> ()
  func.return
}
// CHECK: operand 'events' at position 0 does not verify:
// CHECK-NEXT: i32 should be of base attribute mux.event
