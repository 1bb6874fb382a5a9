// REQUIRES: host-runs-target
// RUN: xmux-run %s | filecheck %s
// RUN: xmux-run --interpret %s | filecheck %s
// Affine host code as a client leaves it before --lower-affine, run with upstream's
// semantics (issue 31): mod never negative, floordiv rounding to -inf, ceildiv to +inf,
// semi-affine maps (symbols as divisors and factors; a negative symbol divides as
// upstream's expansion does), affine.for with max / min bounds, a step and iter_args,
// affine.if, affine.min / max, affine.load / store at symbol(...) indices, affine.parallel.
// The CHECK lines are mlir-cpu-runner-19's output for `mlir-opt-19 --lower-affine ...` of
// this file: tests/test_affine.py compares the two where upstream is installed.

// CHECK: Unranked Memref {{.*}} rank = 2 offset = 0 sizes = [11, 7] strides = [7, 1] data =
// CHECK-NEXT: {{\[\[}}-2,   3,   -1,   -2,   1,   -4,   -14],
// CHECK-NEXT:  [-1,   0,   -1,   -2,   2,   -3,   -11],
// CHECK-NEXT:  [-1,   1,   0,   -1,   0,   -3,   -8],
// CHECK-NEXT:  [-1,   2,   0,   -1,   1,   -2,   -5],
// CHECK-NEXT:  [-1,   3,   0,   -1,   2,   -2,   -2],
// CHECK-NEXT:  [0,   0,   0,   0,   0,   -1,   1],
// CHECK-NEXT:  [0,   1,   1,   0,   1,   -1,   4],
// CHECK-NEXT:  [0,   2,   1,   0,   2,   0,   7],
// CHECK-NEXT:  [0,   3,   1,   1,   0,   0,   10],
// CHECK-NEXT:  [1,   0,   1,   1,   1,   1,   13],
// CHECK-NEXT:  [1,   1,   2,   1,   2,   1,   16{{\]\]}}
// CHECK: Unranked Memref {{.*}} rank = 2 offset = 0 sizes = [2, 11] strides = [11, 1] data =
// CHECK-NEXT: {{\[\[}}0,   0,   -1,   -1,   -1,   0,   0,   0,   -1,   -1,   -1],
// CHECK-NEXT:  [1,   1,   1,   0,   0,   0,   1,   1,   1,   0,   0{{\]\]}}
// CHECK: Unranked Memref {{.*}} rank = 1 offset = 0 sizes = [12] strides = [1] data =
// CHECK-NEXT: [1,  0,  0,  301,  0,  602,  0,  0,  602,  0,  1204,  9]

func.func @main() {
  %c0 = arith.constant 0 : index
  %tab = memref.alloc() : memref<11x7xi64>
  %more = memref.alloc() : memref<12xi64>
  %two = memref.alloc() : memref<2x11xi64>
  // d0 = -5 .. 5; s0 = 3 and -3 (rows of %tab: s0 = 3; %two: floordiv / mod by s0 = -3)
  %s = arith.constant 3 : index
  %t = arith.constant 2 : index
  %ns = arith.constant -3 : index
  affine.for %i = 0 to 11 {
    %d = affine.apply affine_map<(d0) -> (d0 - 5)>(%i)
      %r0 = affine.apply affine_map<(d0) -> (d0 floordiv 4)>(%d)
      %w0 = arith.index_cast %r0 : index to i64
      affine.store %w0, %tab[%i, 0] : memref<11x7xi64>
      %r1 = affine.apply affine_map<(d0) -> (d0 mod 4)>(%d)
      %w1 = arith.index_cast %r1 : index to i64
      affine.store %w1, %tab[%i, 1] : memref<11x7xi64>
      %r2 = affine.apply affine_map<(d0) -> (d0 ceildiv 4)>(%d)
      %w2 = arith.index_cast %r2 : index to i64
      affine.store %w2, %tab[%i, 2] : memref<11x7xi64>
      %r3 = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%d)[%s]
      %w3 = arith.index_cast %r3 : index to i64
      affine.store %w3, %tab[%i, 3] : memref<11x7xi64>
      %r4 = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%d)[%s]
      %w4 = arith.index_cast %r4 : index to i64
      affine.store %w4, %tab[%i, 4] : memref<11x7xi64>
      %r5 = affine.apply affine_map<(d0)[s0, s1] -> ((d0 - s0) ceildiv s1)>(%d)[%s, %t]
      %w5 = arith.index_cast %r5 : index to i64
      affine.store %w5, %tab[%i, 5] : memref<11x7xi64>
      %r6 = affine.apply affine_map<(d0)[s0] -> (d0 * s0 + s0 floordiv 2)>(%d)[%s]
      %w6 = arith.index_cast %r6 : index to i64
      affine.store %w6, %tab[%i, 6] : memref<11x7xi64>
    %f = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%d)[%ns]
    %m = affine.apply affine_map<(d0)[s0] -> (d0 ceildiv s0)>(%d)[%ns]
    %fw = arith.index_cast %f : index to i64
    %mw = arith.index_cast %m : index to i64
    affine.store %fw, %two[0, %i] : memref<2x11xi64>
    affine.store %mw, %two[1, %i] : memref<2x11xi64>
  }
  // more[0..11]: loops with max / min bounds and a step, if, min / max, symbol indices
  %z = arith.constant 0 : i64
  affine.for %i = 0 to 12 {
    affine.store %z, %more[%i] : memref<12xi64>
  }
  %n = arith.constant 10 : index
  %sum = affine.for %i = max affine_map<(d0)[s0] -> (0, d0 - s0)>(%t)[%n]
      to min affine_map<(d0)[s0] -> (d0 * 4, s0 + 1)>(%t)[%n] step 3
      iter_args(%acc = %c0) -> (index) {
    %lo = affine.min affine_map<(d0)[s0] -> (d0, s0)>(%i)[%n]
    %hi = affine.max affine_map<(d0)[s0] -> (d0 * 2 - s0, 1)>(%i)[%n]
    %v = affine.apply affine_map<(d0, d1) -> (d0 * 100 + d1)>(%lo, %hi)
    %vw = arith.index_cast %v : index to i64
    affine.if affine_set<(d0)[s0] : (d0 - 3 >= 0, s0 - d0 - 1 >= 0)>(%i)[%n] {
      affine.store %vw, %more[%i floordiv 2 + symbol(%t)] : memref<12xi64>
    } else {
      affine.store %vw, %more[symbol(%t) - 2] : memref<12xi64>
    }
    %next = arith.addi %acc, %i : index
    affine.yield %next : index
  }
  %sw = arith.index_cast %sum : index to i64
  affine.store %sw, %more[11] : memref<12xi64>
  affine.parallel (%i) = (max(0, symbol(%t) - 5)) to (min(3, symbol(%n))) step (2) {
    %x = affine.load %more[%i + 3] : memref<12xi64>
    %y = arith.addi %x, %x : i64
    affine.store %y, %more[%i + 8] : memref<12xi64>
  }
  %p0 = memref.cast %tab : memref<11x7xi64> to memref<*xi64>
  func.call @printMemrefI64(%p0) : (memref<*xi64>) -> ()
  %p1 = memref.cast %two : memref<2x11xi64> to memref<*xi64>
  func.call @printMemrefI64(%p1) : (memref<*xi64>) -> ()
  %p2 = memref.cast %more : memref<12xi64> to memref<*xi64>
  func.call @printMemrefI64(%p2) : (memref<*xi64>) -> ()
  memref.dealloc %tab : memref<11x7xi64>
  memref.dealloc %two : memref<2x11xi64>
  memref.dealloc %more : memref<12xi64>
  return
}
func.func private @printMemrefI64(memref<*xi64>)
