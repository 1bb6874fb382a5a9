// REQUIRES: host-runs-target
// A memref.alloc that cannot be satisfied stops @main with an error naming the op, the
// function, the location and the sizes, instead of a segfault (mutation fuzzer mutants 3-159,
// 9-78 of reduce_wg.mlir: %n = 2^63-1; 9-266: 2^32 f64). Nothing after the alloc runs.
// RUN: not xmux-run %s 2>&1 | filecheck %s
// RUN: not xmux-run --checks %s 2>&1 | filecheck %s

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 9223372036854775807 : index
  %f = arith.constant 1.0 : f32
  %ok = memref.alloc(%c1) : memref<?xf32>
  memref.store %f, %ok[%c0] : memref<?xf32>
  %u = memref.cast %ok : memref<?xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %x = memref.alloc(%n) : memref<?xf32> loc("reduce.mlir":28:10)
  scf.for %i = %c0 to %n step %c1 {
    memref.store %f, %x[%i] : memref<?xf32>
  }
  %v = memref.cast %x : memref<?xf32> to memref<*xf32>
  func.call @printMemrefF32(%v) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)

// CHECK:      Unranked Memref {{.*}} sizes = [1]
// CHECK-NEXT: [1]
// CHECK-NEXT: error: 'memref.alloc' of %x in @main at reduce.mlir:28:10: memref<?xf32>: cannot allocate memory, sizes [9223372036854775807]: the byte count exceeds 2^63-1
// CHECK-NOT:  Unranked Memref
