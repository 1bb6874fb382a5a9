// 3x3 cross-correlation of an unpadded H x W image with zero padding done by bounds checks
// inside the tap loops (kernels/transforms.cl: conv3x3_bounds), the shape users write:
//   out[y][x] = sum_{j,i=0..2, (y+j-1, x+i-1) inside} w[3j+i] * in[y+j-1][x+i-1]
// An scf.if on the image edges sits inside the two scf.for tap loops, so every work-item
// runs divergent control flow; only the border work-items take the else branch. The taps are
// summed from 0.0 in order j, i (the OpenCL twin's order).
func.func @conv3x3_bounds(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %w: memref<9xf32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %h = memref.dim %in, %c0 : memref<?x?xf32>
  %wd = memref.dim %in, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %acc = scf.for %j = %c0 to %c3 step %c1 iter_args(%a = %zero) -> (f32) {
    %yj = arith.addi %y, %j : index
    %ylo = arith.cmpi uge, %yj, %c1 : index
    %yhi = arith.cmpi ule, %yj, %h : index
    %yin = arith.andi %ylo, %yhi : i1
    %j3 = arith.muli %j, %c3 : index
    %a2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%b = %a) -> (f32) {
      %xi = arith.addi %x, %i : index
      %xlo = arith.cmpi uge, %xi, %c1 : index
      %xhi = arith.cmpi ule, %xi, %wd : index
      %xin = arith.andi %xlo, %xhi : i1
      %inside = arith.andi %yin, %xin : i1
      %r = scf.if %inside -> (f32) {
        %yy = arith.subi %yj, %c1 : index
        %xx = arith.subi %xi, %c1 : index
        %k = arith.addi %j3, %i : index
        %wk = memref.load %w[%k] : memref<9xf32>
        %p = memref.load %in[%yy, %xx] : memref<?x?xf32>
        %t = arith.mulf %wk, %p : f32
        %s = arith.addf %b, %t : f32
        scf.yield %s : f32
      } else {
        scf.yield %b : f32
      }
      scf.yield %r : f32
    }
    scf.yield %a2 : f32
  }
  memref.store %acc, %out[%y, %x] : memref<?x?xf32>
  func.return
}
