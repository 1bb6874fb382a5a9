// 3x3 convolution over a 48 x 40 image (pre-padded to 50 x 42 with a zero border),
// coefficients in a buffer (a Gaussian blur), work-groups of 8 x 4.
module {
  func.func @conv3x3(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %w: memref<9xf32>)
      attributes {mux.kernel = "entry_point"} {
    %x = mux.get_global_id 0 : index
    %y = mux.get_global_id 1 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %dy = %c0 to %c3 step %c1 iter_args(%s = %zero) -> (f32) {
      %row = arith.addi %y, %dy : index
      %inner = scf.for %dx = %c0 to %c3 step %c1 iter_args(%t = %s) -> (f32) {
        %col = arith.addi %x, %dx : index
        %v = memref.load %in[%row, %col] : memref<?x?xf32>
        %k3 = arith.muli %dy, %c3 : index
        %k = arith.addi %k3, %dx : index
        %wk = memref.load %w[%k] : memref<9xf32>
        %p = arith.mulf %v, %wk : f32
        %r = arith.addf %t, %p : f32
        scf.yield %r : f32
      }
      scf.yield %inner : f32
    }
    memref.store %acc, %out[%y, %x] : memref<?x?xf32>
    func.return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %h = arith.constant 40 : index
    %wd = arith.constant 48 : index
    %hp = arith.constant 42 : index
    %wp = arith.constant 50 : index
    %c9 = arith.constant 9 : index
    %wgx = arith.constant 8 : index
    %wgy = arith.constant 4 : index
    %c11 = arith.constant 11 : i32
    %zero = arith.constant 0.0 : f32
    %in = memref.alloc(%hp, %wp) : memref<?x?xf32>
    %out = memref.alloc(%h, %wd) : memref<?x?xf32>
    %w = memref.alloc() : memref<9xf32>
    // interior pixel (y, x) = (x * y) mod 11, border 0
    scf.for %i = %c0 to %hp step %c1 {
      scf.for %j = %c0 to %wp step %c1 {
        memref.store %zero, %in[%i, %j] : memref<?x?xf32>
      }
    }
    scf.for %i = %c0 to %h step %c1 {
      scf.for %j = %c0 to %wd step %c1 {
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %p = arith.muli %ii, %jj : i32
        %m = arith.remsi %p, %c11 : i32
        %f = arith.sitofp %m : i32 to f32
        %i1 = arith.addi %i, %c1 : index
        %j1 = arith.addi %j, %c1 : index
        memref.store %f, %in[%i1, %j1] : memref<?x?xf32>
      }
    }
    // w = [1 2 1; 2 4 2; 1 2 1] / 16
    %w0 = arith.constant 0.0625 : f32
    %w1 = arith.constant 0.125 : f32
    %w4 = arith.constant 0.25 : f32
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k3 = arith.constant 3 : index
    %k4 = arith.constant 4 : index
    %k5 = arith.constant 5 : index
    %k6 = arith.constant 6 : index
    %k7 = arith.constant 7 : index
    %k8 = arith.constant 8 : index
    memref.store %w0, %w[%c0] : memref<9xf32>
    memref.store %w1, %w[%k1] : memref<9xf32>
    memref.store %w0, %w[%k2] : memref<9xf32>
    memref.store %w1, %w[%k3] : memref<9xf32>
    memref.store %w4, %w[%k4] : memref<9xf32>
    memref.store %w1, %w[%k5] : memref<9xf32>
    memref.store %w0, %w[%k6] : memref<9xf32>
    memref.store %w1, %w[%k7] : memref<9xf32>
    memref.store %w0, %w[%k8] : memref<9xf32>
    mux.launch @conv3x3(%in, %out, %w) global_size(%wd, %h) local_size(%wgx, %wgy)
        : (memref<?x?xf32>, memref<?x?xf32>, memref<9xf32>)
    %u = "memref.cast"(%out) : (memref<?x?xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %in : memref<?x?xf32>
    memref.dealloc %out : memref<?x?xf32>
    memref.dealloc %w : memref<9xf32>
    func.return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
