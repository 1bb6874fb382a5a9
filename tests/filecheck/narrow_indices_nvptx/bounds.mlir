// RUN: xmux-opt %s -p record-kernel-abi,add-kernel-wrapper-nvptx,narrow-indices-nvptx | filecheck %s

// What the interval analysis proves. A loop bounded by memref.dim (a size is below 2^31 under
// the launch condition) runs on i32 and i - 1 is an i32 subi (nsw: i >= 1); a static layout's
// strides are i32 constants, a strided layout's dynamic offset and stride come from the
// descriptor; an inner loop bounded by the outer induction variable runs on i32 too (a loop
// of at most 64 iterations, all constant, would not: LLVM unrolls it, untouched.mlir).

func.func @shapes(%x: memref<?xf32>, %y: memref<16x8xf32>,
                  %z: memref<?xf32, strided<[?], offset: ?>>)
    attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c1 to %n step %c1 {
    %im1 = arith.subi %i, %c1 : index
    %v = memref.load %x[%im1] : memref<?xf32>
    memref.store %v, %z[%i] : memref<?xf32, strided<[?], offset: ?>>
  }
  %rows = memref.dim %y, %c0 : memref<16x8xf32>
  scf.for %r = %c0 to %rows step %c1 {
    scf.for %c = %r to %c8 step %c2 {
      %w = memref.load %y[%r, %c] : memref<16x8xf32>
      memref.store %w, %y[%c, %r] : memref<16x8xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @"shapes.mux-kernel.i32"(
// CHECK-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    %y_flat = memref.reinterpret_cast %y to offset: [0], sizes: [2147483647], strides: [1] : memref<16x8xf32> to memref<2147483647xf32>
// CHECK-NEXT:    %{{.*}}, %[[ZOFF:.*]], %{{.*}}, %[[ZST:.*]] = memref.extract_strided_metadata %z
// CHECK-NEXT:    %[[ZOFF32:.*]] = arith.index_cast %[[ZOFF]] : index to i32
// CHECK-NEXT:    %[[ZST32:.*]] = arith.index_cast %[[ZST]] : index to i32
// CHECK-NEXT:    %z_flat = memref.reinterpret_cast %z to offset: [0], sizes: [2147483647], strides: [1] : memref<?xf32, strided<[?], offset: ?>> to memref<2147483647xf32>
// CHECK-NEXT:    %x_flat = memref.reinterpret_cast %x
// CHECK:         %n = memref.dim %x, %c0 : memref<?xf32>
// CHECK-NEXT:    %[[N32:.*]] = arith.index_cast %n : index to i32
// CHECK-NEXT:    scf.for %i = %[[ONE:.*]] to %[[N32]] step %[[ONE]] : i32 {
// CHECK-NEXT:      %i_1 = arith.index_cast %i : i32 to index
// CHECK-NEXT:      %im1 = arith.subi %i_1, %c1 : index
// CHECK-NEXT:      %[[IM1:.*]] = arith.subi %i, %[[ONE]] overflow<nsw> : i32
// CHECK-NEXT:      %[[AT:.*]] = arith.index_cast %[[IM1]] : i32 to index
// CHECK-NEXT:      %v = memref.load %x_flat[%[[AT]]] : memref<2147483647xf32>
// CHECK-NEXT:      %[[T:.*]] = arith.muli %i, %[[ZST32]] overflow<nsw,nuw> : i32
// CHECK-NEXT:      %[[O:.*]] = arith.addi %[[ZOFF32]], %[[T]] overflow<nsw,nuw> : i32
// CHECK-NEXT:      %[[ZAT:.*]] = arith.index_cast %[[O]] : i32 to index
// CHECK-NEXT:      memref.store %v, %z_flat[%[[ZAT]]] : memref<2147483647xf32>
// CHECK:         %rows = memref.dim %y, %c0 : memref<16x8xf32>
// CHECK-NEXT:    %[[ROWS:.*]] = arith.index_cast %rows : index to i32
// CHECK-NEXT:    scf.for %r = %{{.*}} to %[[ROWS]] step %{{.*}} : i32 {
// CHECK-NEXT:      %r_1 = arith.index_cast %r : i32 to index
// CHECK-NEXT:      scf.for %c = %r to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:        %c_1 = arith.index_cast %c : i32 to index
// CHECK-NEXT:        %[[RS:.*]] = arith.muli %r, %[[EIGHT]] overflow<nsw,nuw> : i32
// CHECK-NEXT:        %[[RO:.*]] = arith.addi %[[RS]], %c overflow<nsw,nuw> : i32
// CHECK-NEXT:        %[[RAT:.*]] = arith.index_cast %[[RO]] : i32 to index
// CHECK-NEXT:        %w = memref.load %y_flat[%[[RAT]]] : memref<2147483647xf32>
// CHECK-LABEL: func.func @shapes__xmux_i32(

// PTX's special registers have CUDA's ranges (tid.x < 1024): t + tid.x is an i32 addi of the
// loop's i32 induction variable and tid.x itself (nsw and nuw: both non-negative).

func.func @tiles(%x: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %lx64 = arith.extui %tid : i32 to i64
  %lx = arith.index_cast %lx64 : i64 to index
  %one = arith.constant 1.0 : f32
  scf.for %t = %c0 to %c4096 step %c16 {
    %at = arith.addi %t, %lx : index
    memref.store %one, %x[%at] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @"tiles.mux-kernel.i32"(
// CHECK:         %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
// CHECK:         scf.for %t = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:      %t_1 = arith.index_cast %t : i32 to index
// CHECK-NEXT:      %at = arith.addi %t_1, %lx : index
// CHECK-NEXT:      %[[AT:.*]] = arith.addi %t, %tid overflow<nsw,nuw> : i32
// CHECK-NEXT:      %[[I:.*]] = arith.index_cast %[[AT]] : i32 to index
// CHECK-NEXT:      memref.store %one, %x_flat[%[[I]]] : memref<2147483647xf32>
