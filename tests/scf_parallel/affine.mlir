// Source of the upstream-generated scf.parallel reductions next to it (gen.py runs
// mlir-opt-19 --affine-parallelize='parallel-reductions=1' --lower-affine on it, with and
// without the gpu mapping passes, which leave nests holding reductions on the host).
// Loops with iter_args: a 2-D f32 sum, row sums, a matmul, an i64 sum of squares
// and an f32 maximum carried together; @main fills A (5x7, (3 i + 2 j) mod 11 - 5) and B (7x4) and prints them.
func.func @sum(%a: memref<?x?xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %m = memref.dim %a, %c1 : memref<?x?xf32>
  %z = arith.constant 0.0 : f32
  %s = affine.for %i = 0 to %n iter_args(%acc = %z) -> f32 {
    %r = affine.for %j = 0 to %m iter_args(%acc2 = %acc) -> f32 {
      %x = affine.load %a[%i, %j] : memref<?x?xf32>
      %t = arith.addf %acc2, %x : f32
      affine.yield %t : f32
    }
    affine.yield %r : f32
  }
  affine.store %s, %out[] : memref<f32>
  return
}
func.func @rowsum(%a: memref<?x?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %m = memref.dim %a, %c1 : memref<?x?xf32>
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    %s = affine.for %j = 0 to %m iter_args(%acc = %z) -> f32 {
      %x = affine.load %a[%i, %j] : memref<?x?xf32>
      %t = arith.addf %acc, %x : f32
      affine.yield %t : f32
    }
    affine.store %s, %out[%i] : memref<?xf32>
  }
  return
}
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %k = memref.dim %a, %c1 : memref<?x?xf32>
  %m = memref.dim %b, %c1 : memref<?x?xf32>
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %s = affine.for %l = 0 to %k iter_args(%acc = %z) -> f32 {
        %x = affine.load %a[%i, %l] : memref<?x?xf32>
        %y = affine.load %b[%l, %j] : memref<?x?xf32>
        %p = arith.mulf %x, %y : f32
        %t = arith.addf %acc, %p : f32
        affine.yield %t : f32
      }
      affine.store %s, %c[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
func.func @sqsum_max(%a: memref<?x?xf32>, %out: memref<2xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %m = memref.dim %a, %c1 : memref<?x?xf32>
  %z = arith.constant 0 : i64
  %lo = arith.constant -100.0 : f32
  %s:2 = affine.for %i = 0 to %n iter_args(%acc = %z, %mx = %lo) -> (i64, f32) {
    %r:2 = affine.for %j = 0 to %m iter_args(%acc2 = %acc, %mx2 = %mx) -> (i64, f32) {
      %x = affine.load %a[%i, %j] : memref<?x?xf32>
      %xi = arith.fptosi %x : f32 to i64
      %w = arith.muli %xi, %xi : i64
      %t = arith.addi %acc2, %w : i64
      %u = arith.maximumf %mx2, %x : f32
      affine.yield %t, %u : i64, f32
    }
    affine.yield %r#0, %r#1 : i64, f32
  }
  %mi = arith.fptosi %s#1 : f32 to i64
  affine.store %s#0, %out[0] : memref<2xi64>
  affine.store %mi, %out[1] : memref<2xi64>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI64(memref<*xi64>)
func.func @fill(%m: memref<?x?xf32>, %p: index, %q: index, %r: index, %off: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n0 = memref.dim %m, %c0 : memref<?x?xf32>
  %n1 = memref.dim %m, %c1 : memref<?x?xf32>
  %offi = arith.index_cast %off : index to i32
  scf.for %i = %c0 to %n0 step %c1 {
    scf.for %j = %c0 to %n1 step %c1 {
      %pi = arith.muli %i, %p : index
      %qj = arith.muli %j, %q : index
      %s = arith.addi %pi, %qj : index
      %m0 = arith.remui %s, %r : index
      %mi = arith.index_cast %m0 : index to i32
      %v = arith.subi %mi, %offi : i32
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %a = memref.alloc(%c5, %c7) : memref<?x?xf32>
  %b = memref.alloc(%c7, %c4) : memref<?x?xf32>
  call @fill(%a, %c3, %c2, %c11, %c5) : (memref<?x?xf32>, index, index, index, index) -> ()
  call @fill(%b, %c1, %c4, %c7, %c3) : (memref<?x?xf32>, index, index, index, index) -> ()
  %s = memref.alloc() : memref<f32>
  call @sum(%a, %s) : (memref<?x?xf32>, memref<f32>) -> ()
  %su = memref.cast %s : memref<f32> to memref<*xf32>
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  %rs = memref.alloc(%c5) : memref<?xf32>
  call @rowsum(%a, %rs) : (memref<?x?xf32>, memref<?xf32>) -> ()
  %rsu = memref.cast %rs : memref<?xf32> to memref<*xf32>
  call @printMemrefF32(%rsu) : (memref<*xf32>) -> ()
  %c = memref.alloc(%c5, %c4) : memref<?x?xf32>
  call @matmul(%a, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %cu = memref.cast %c : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%cu) : (memref<*xf32>) -> ()
  %im = memref.alloc() : memref<2xi64>
  call @sqsum_max(%a, %im) : (memref<?x?xf32>, memref<2xi64>) -> ()
  %imu = memref.cast %im : memref<2xi64> to memref<*xi64>
  call @printMemrefI64(%imu) : (memref<*xi64>) -> ()
  return
}
