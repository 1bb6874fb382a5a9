// REQUIRES: host-runs-target
// With --checks, host code's accesses are bounds-checked too and a failure stops @main
// (mutation fuzzer mutant 5-7 of gpu/tree_reduction.mlir: a host loop of step -2^31-1
// stored at x[-2^31-1] and segfaulted). Without --checks that access is undefined.
// RUN: not xmux-run --checks %s 2>&1 | filecheck %s

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant -2147483649 : index
  %n = arith.constant 64 : index
  %f = arith.constant 2.0 : f32
  %x = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %f, %x[%i] : memref<?xf32>
  }
  %u = memref.cast %x : memref<?xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)

// CHECK-NOT:  Unranked Memref
// CHECK:      error: host function @main: 'memref.store' out of bounds of memref<?xf32>: indices [-2147483649], sizes [64]
