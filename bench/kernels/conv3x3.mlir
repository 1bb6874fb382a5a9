// 3x3 cross-correlation with the coefficients in a buffer (kernels.cl: conv3x3_const).
// %in is the pre-padded image, (H+2) x (W+2) with a zero border; %out is H x W:
//   out[y][x] = sum_{j,i=0..2} w[3j+i] * in[y+j][x+i]
// The nine taps are summed left to right, the order of kernels.cl and ref.c. The row pitch
// and width of the OpenCL kernel come from the memref shapes here.
func.func @conv3x3(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %w: memref<9xf32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %x1 = arith.addi %x, %c1 : index
  %x2 = arith.addi %x, %c2 : index
  %y1 = arith.addi %y, %c1 : index
  %y2 = arith.addi %y, %c2 : index
  %w0 = memref.load %w[%c0] : memref<9xf32>
  %w1 = memref.load %w[%c1] : memref<9xf32>
  %w2 = memref.load %w[%c2] : memref<9xf32>
  %w3 = memref.load %w[%c3] : memref<9xf32>
  %w4 = memref.load %w[%c4] : memref<9xf32>
  %w5 = memref.load %w[%c5] : memref<9xf32>
  %w6 = memref.load %w[%c6] : memref<9xf32>
  %w7 = memref.load %w[%c7] : memref<9xf32>
  %w8 = memref.load %w[%c8] : memref<9xf32>
  %p0 = memref.load %in[%y, %x] : memref<?x?xf32>
  %p1 = memref.load %in[%y, %x1] : memref<?x?xf32>
  %p2 = memref.load %in[%y, %x2] : memref<?x?xf32>
  %p3 = memref.load %in[%y1, %x] : memref<?x?xf32>
  %p4 = memref.load %in[%y1, %x1] : memref<?x?xf32>
  %p5 = memref.load %in[%y1, %x2] : memref<?x?xf32>
  %p6 = memref.load %in[%y2, %x] : memref<?x?xf32>
  %p7 = memref.load %in[%y2, %x1] : memref<?x?xf32>
  %p8 = memref.load %in[%y2, %x2] : memref<?x?xf32>
  %t0 = arith.mulf %w0, %p0 : f32
  %t1 = arith.mulf %w1, %p1 : f32
  %t2 = arith.mulf %w2, %p2 : f32
  %t3 = arith.mulf %w3, %p3 : f32
  %t4 = arith.mulf %w4, %p4 : f32
  %t5 = arith.mulf %w5, %p5 : f32
  %t6 = arith.mulf %w6, %p6 : f32
  %t7 = arith.mulf %w7, %p7 : f32
  %t8 = arith.mulf %w8, %p8 : f32
  %s1 = arith.addf %t0, %t1 : f32
  %s2 = arith.addf %s1, %t2 : f32
  %s3 = arith.addf %s2, %t3 : f32
  %s4 = arith.addf %s3, %t4 : f32
  %s5 = arith.addf %s4, %t5 : f32
  %s6 = arith.addf %s5, %t6 : f32
  %s7 = arith.addf %s6, %t7 : f32
  %s8 = arith.addf %s7, %t8 : f32
  memref.store %s8, %out[%y, %x] : memref<?x?xf32>
  func.return
}
