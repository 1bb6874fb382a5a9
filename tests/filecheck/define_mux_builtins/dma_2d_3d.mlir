// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s

// 2-D: rows `height`, strides in bytes; elements are located row-major over each memref's
// shape (rank > 1 memrefs are delinearized).

func.func @tile(%l: memref<8x8xi32, 3>, %g: memref<?x?xi32>, %row_bytes: index) {
  %w = arith.constant 32 : index
  %h = arith.constant 8 : index
  %e = mux.dma_read_2d %l, %g width(%w) dst_stride(%w) src_stride(%row_bytes) height(%h) : memref<8x8xi32, 3>, memref<?x?xi32>
  mux.dma_wait %e
  func.return
}

// CHECK-LABEL: func.func @tile(
// CHECK:         %[[ES:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[DST_STRIDE:.*]] = arith.divui %w, %[[ES]] : index
// CHECK-NEXT:    %[[SRC_STRIDE:.*]] = arith.divui %row_bytes, %[[ES]] : index
// CHECK-NEXT:    %[[WIDTH:.*]] = arith.divui %w, %[[ES]] : index
// CHECK-NEXT:    scf.for %[[R:.*]] = %[[C0]] to %h step %[[C1]] {
// CHECK-NEXT:      %[[DST_ROW:.*]] = arith.muli %[[R]], %[[DST_STRIDE]] : index
// CHECK-NEXT:      %[[SRC_ROW:.*]] = arith.muli %[[R]], %[[SRC_STRIDE]] : index
// CHECK-NEXT:      scf.for %[[C:.*]] = %[[C0]] to %[[WIDTH]] step %[[C1]] {
// CHECK-NEXT:        %[[S:.*]] = arith.addi %[[SRC_ROW]], %[[C]] : index
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:        %[[COLS:.*]] = memref.dim %g, %[[ONE]] : memref<?x?xi32>
// CHECK-NEXT:        %[[SJ:.*]] = arith.remui %[[S]], %[[COLS]] : index
// CHECK-NEXT:        %[[SI:.*]] = arith.divui %[[S]], %[[COLS]] : index
// CHECK-NEXT:        %[[V:.*]] = memref.load %g[%[[SI]], %[[SJ]]] : memref<?x?xi32>
// CHECK-NEXT:        %[[D:.*]] = arith.addi %[[DST_ROW]], %[[C]] : index
// CHECK-NEXT:        %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:        %[[DJ:.*]] = arith.remui %[[D]], %[[EIGHT]] : index
// CHECK-NEXT:        %[[DI:.*]] = arith.divui %[[D]], %[[EIGHT]] : index
// CHECK-NEXT:        memref.store %[[V]], %l[%[[DI]], %[[DJ]]] : memref<8x8xi32, 3 : i64>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// 3-D: planes of rows of elements (f64: 8 bytes each).

func.func @box(%l: memref<512xf64, 3>, %g: memref<?xf64>, %w: index, %dl: index, %sl: index, %h: index, %dp: index, %sp: index, %d: index) {
  %e = mux.dma_write_3d %g, %l width(%w) dst_line_stride(%dl) src_line_stride(%sl) height(%h) dst_plane_stride(%dp) src_plane_stride(%sp) depth(%d) : memref<?xf64>, memref<512xf64, 3>
  func.return
}

// CHECK-LABEL: func.func @box(
// CHECK-NEXT:    %[[ES:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[DP:.*]] = arith.divui %dp, %[[ES]] : index
// CHECK-NEXT:    %[[SP:.*]] = arith.divui %sp, %[[ES]] : index
// CHECK-NEXT:    %[[DL:.*]] = arith.divui %dl, %[[ES]] : index
// CHECK-NEXT:    %[[SL:.*]] = arith.divui %sl, %[[ES]] : index
// CHECK-NEXT:    %[[W:.*]] = arith.divui %w, %[[ES]] : index
// CHECK-NEXT:    scf.for %[[P:.*]] = %[[C0]] to %d step %[[C1]] {
// CHECK-NEXT:      %[[DPO:.*]] = arith.muli %[[P]], %[[DP]] : index
// CHECK-NEXT:      %[[SPO:.*]] = arith.muli %[[P]], %[[SP]] : index
// CHECK-NEXT:      scf.for %[[R:.*]] = %[[C0]] to %h step %[[C1]] {
// CHECK-NEXT:        %[[DRM:.*]] = arith.muli %[[R]], %[[DL]] : index
// CHECK-NEXT:        %[[DRO:.*]] = arith.addi %[[DPO]], %[[DRM]] : index
// CHECK-NEXT:        %[[SRM:.*]] = arith.muli %[[R]], %[[SL]] : index
// CHECK-NEXT:        %[[SRO:.*]] = arith.addi %[[SPO]], %[[SRM]] : index
// CHECK-NEXT:        scf.for %[[X:.*]] = %[[C0]] to %[[W]] step %[[C1]] {
// CHECK-NEXT:          %[[S:.*]] = arith.addi %[[SRO]], %[[X]] : index
// CHECK-NEXT:          %[[V:.*]] = memref.load %l[%[[S]]] : memref<512xf64, 3 : i64>
// CHECK-NEXT:          %[[D:.*]] = arith.addi %[[DRO]], %[[X]] : index
// CHECK-NEXT:          memref.store %[[V]], %g[%[[D]]] : memref<?xf64>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
