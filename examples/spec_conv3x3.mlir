// The convolution of DPC++'s "Specialization constants" design: a 3x3 filter whose
// coefficients (coeff_t = std::array<std::array<float, 3>, 3>) are a specialization
// constant, over an unpadded image with the reference's bounds checks (neighbours outside
// the image are skipped). get_global_id(0) is the column, get_global_id(1) the row:
//   out[y][x] = sum over i, j in -1..1 with (y+i, x+j) inside of coeff[i+1][j+1] * in[y+i][x+j]
// The default coefficients are a Gaussian blur; from Python:
//   prog = xmux.compile("examples/spec_conv3x3.mlir")
//   prog["conv3x3"](img, out, global_size=(w, h), local_size=(8, 4),
//                   spec_constants={"coeff_id": np.ones((3, 3), np.float32) / 9})
// The kernel is JIT-specialized for each coefficient set: after the 3x3 loops are unrolled
// LLVM sees the nine coefficients as literals. xmux-run runs @main with the defaults.
module {
  spec.specialization_id @coeff_default = [
      [0.0625 : f32, 0.125 : f32, 0.0625 : f32],
      [0.125 : f32, 0.25 : f32, 0.125 : f32],
      [0.0625 : f32, 0.125 : f32, 0.0625 : f32]] : !llvm.array<3 x array<3 x f32>>

  func.func @conv3x3(%in: memref<?x?xf32>, %out: memref<?x?xf32>)
      attributes {mux.kernel = "entry_point"} {
    %x = mux.get_global_id 0 : index
    %y = mux.get_global_id 1 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %h = memref.dim %in, %c0 : memref<?x?xf32>
    %w = memref.dim %in, %c1 : memref<?x?xf32>
    %zero = arith.constant 0.0 : f32
    // coeff_t coeff = h.get_specialization_constant<coeff_id>();
    %coeff = spec.get_composite "coeff_id", @coeff_default : !llvm.array<3 x array<3 x f32>>
    // indexed with the loop counters through a private copy (SROA folds it away)
    %one = llvm.mlir.constant(1 : i64) : i64
    %copy = llvm.alloca %one x !llvm.array<3 x array<3 x f32>> : (i64) -> !llvm.ptr
    llvm.store %coeff, %copy : !llvm.array<3 x array<3 x f32>>, !llvm.ptr
    // i, j run over 0..2 (the reference's -1..1 shifted by one)
    %acc = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %zero) -> (f32) {
      %yi = arith.addi %y, %i : index
      %row_ok_lo = arith.cmpi uge, %yi, %c1 : index
      %row = arith.subi %yi, %c1 : index
      %row_ok_hi = arith.cmpi ult, %row, %h : index
      %row_ok = arith.andi %row_ok_lo, %row_ok_hi : i1
      %srow = scf.if %row_ok -> (f32) {
        %inner = scf.for %j = %c0 to %c3 step %c1 iter_args(%t = %s) -> (f32) {
          %xj = arith.addi %x, %j : index
          %col_ok_lo = arith.cmpi uge, %xj, %c1 : index
          %col = arith.subi %xj, %c1 : index
          %col_ok_hi = arith.cmpi ult, %col, %w : index
          %col_ok = arith.andi %col_ok_lo, %col_ok_hi : i1
          %tn = scf.if %col_ok -> (f32) {
            %i64 = arith.index_cast %i : index to i64
            %j64 = arith.index_cast %j : index to i64
            %p = llvm.getelementptr inbounds %copy[0, %i64, %j64]
                : (!llvm.ptr, i64, i64) -> !llvm.ptr, !llvm.array<3 x array<3 x f32>>
            %k = llvm.load %p : !llvm.ptr -> f32
            %v = memref.load %in[%row, %col] : memref<?x?xf32>
            %m = arith.mulf %k, %v : f32
            %r = arith.addf %t, %m : f32
            scf.yield %r : f32
          } else {
            scf.yield %t : f32
          }
          scf.yield %tn : f32
        }
        scf.yield %inner : f32
      } else {
        scf.yield %s : f32
      }
      scf.yield %srow : f32
    }
    memref.store %acc, %out[%y, %x] : memref<?x?xf32>
    func.return
  }

  // A 24 x 20 image, pixel (y, x) = (x * y) mod 11, blurred with the default coefficients.
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %h = arith.constant 20 : index
    %w = arith.constant 24 : index
    %wgx = arith.constant 8 : index
    %wgy = arith.constant 4 : index
    %c11 = arith.constant 11 : i32
    %in = memref.alloc(%h, %w) : memref<?x?xf32>
    %out = memref.alloc(%h, %w) : memref<?x?xf32>
    scf.for %i = %c0 to %h step %c1 {
      scf.for %j = %c0 to %w step %c1 {
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %p = arith.muli %ii, %jj : i32
        %m = arith.remsi %p, %c11 : i32
        %f = arith.sitofp %m : i32 to f32
        memref.store %f, %in[%i, %j] : memref<?x?xf32>
      }
    }
    mux.launch @conv3x3(%in, %out) global_size(%w, %h) local_size(%wgx, %wgy)
        : (memref<?x?xf32>, memref<?x?xf32>)
    %u = "memref.cast"(%out) : (memref<?x?xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %in : memref<?x?xf32>
    memref.dealloc %out : memref<?x?xf32>
    func.return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
