// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// DMA reads/writes in 1, 2 and 3 dimensions (sizes in bytes), chained events, dma_wait.

// CHECK-LABEL: func.func @dma
// CHECK-SAME:    (%[[LOC:.*]]: memref<64xf32, 3 : i64>, %[[G:.*]]: memref<?xf32>, %[[W:.*]]: index, %[[L2:.*]]: memref<8x8xf32, 3 : i64>, %[[G2:.*]]: memref<?x?xf32>)
// CHECK-NEXT:    %[[E0:.*]] = mux.dma_read_1d %[[LOC]], %[[G]] width(%[[W]]) : memref<64xf32, 3 : i64>, memref<?xf32>
// CHECK-NEXT:    %[[E1:.*]] = mux.dma_write_1d %[[G]], %[[LOC]] width(%[[W]]) event(%[[E0]]) : memref<?xf32>, memref<64xf32, 3 : i64>
// CHECK-NEXT:    %[[E2:.*]] = mux.dma_read_2d %[[L2]], %[[G2]] width(%[[W]]) dst_stride(%[[W]]) src_stride(%[[W]]) height(%[[W]]) : memref<8x8xf32, 3 : i64>, memref<?x?xf32>
// CHECK-NEXT:    %[[E3:.*]] = mux.dma_write_2d %[[G2]], %[[L2]] width(%[[W]]) dst_stride(%[[W]]) src_stride(%[[W]]) height(%[[W]]) event(%[[E2]]) : memref<?x?xf32>, memref<8x8xf32, 3 : i64>
// CHECK-NEXT:    %[[E4:.*]] = mux.dma_read_3d %[[LOC]], %[[G]] width(%[[W]]) dst_line_stride(%[[W]]) src_line_stride(%[[W]]) height(%[[W]]) dst_plane_stride(%[[W]]) src_plane_stride(%[[W]]) depth(%[[W]]) : memref<64xf32, 3 : i64>, memref<?xf32>
// CHECK-NEXT:    %[[E5:.*]] = mux.dma_write_3d %[[G]], %[[LOC]] width(%[[W]]) dst_line_stride(%[[W]]) src_line_stride(%[[W]]) height(%[[W]]) dst_plane_stride(%[[W]]) src_plane_stride(%[[W]]) depth(%[[W]]) event(%[[E4]]) : memref<?xf32>, memref<64xf32, 3 : i64>
// CHECK-NEXT:    mux.dma_wait %[[E0]], %[[E1]], %[[E3]], %[[E5]]
// CHECK-NEXT:    mux.dma_wait
// CHECK-NEXT:    func.return

// Operands in the reference's order: dst, src, sizes/strides, then the optional event.
// GENERIC: "mux.dma_read_1d"(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<64xf32, 3 : i64>, memref<?xf32>, index) -> !mux.event
// GENERIC: "mux.dma_write_1d"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?xf32>, memref<64xf32, 3 : i64>, index, !mux.event) -> !mux.event
// GENERIC: "mux.dma_wait"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!mux.event, !mux.event, !mux.event, !mux.event) -> ()
func.func @dma(%loc: memref<64xf32, 3>, %glob: memref<?xf32>, %w: index, %l2: memref<8x8xf32, 3>, %g2: memref<?x?xf32>) {
  %e0 = mux.dma_read_1d %loc, %glob width(%w) : memref<64xf32, 3>, memref<?xf32>
  %e1 = mux.dma_write_1d %glob, %loc width(%w) event(%e0) : memref<?xf32>, memref<64xf32, 3>
  %e2 = mux.dma_read_2d %l2, %g2 width(%w) dst_stride(%w) src_stride(%w) height(%w) : memref<8x8xf32, 3>, memref<?x?xf32>
  %e3 = mux.dma_write_2d %g2, %l2 width(%w) dst_stride(%w) src_stride(%w) height(%w) event(%e2) : memref<?x?xf32>, memref<8x8xf32, 3>
  %e4 = mux.dma_read_3d %loc, %glob width(%w) dst_line_stride(%w) src_line_stride(%w) height(%w) dst_plane_stride(%w) src_plane_stride(%w) depth(%w) : memref<64xf32, 3>, memref<?xf32>
  %e5 = mux.dma_write_3d %glob, %loc width(%w) dst_line_stride(%w) src_line_stride(%w) height(%w) dst_plane_stride(%w) src_plane_stride(%w) depth(%w) event(%e4) : memref<?xf32>, memref<64xf32, 3>
  mux.dma_wait %e0, %e1, %e3, %e5
  mux.dma_wait
  func.return
}
