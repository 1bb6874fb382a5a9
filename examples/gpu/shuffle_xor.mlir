// RUN: xmux-run %s | filecheck %s
// RUN: xmux-run --interpret %s | filecheck %s
// gpu.shuffle xor across a block of 13 threads with width 13: thread t reads thread t ^ 4;
// threads 9..11 would read 13..15, outside the width: `valid` is false and they store -1.

// CHECK: [4, 5, 6, 7, 0, 1, 2, 3, 12, -1, -1, -1, 8]
func.func @main() {
  %buf = memref.alloc() : memref<13xf32>
  %out = memref.cast %buf : memref<13xf32> to memref<?xf32>
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  %all = memref.cast %out : memref<?xf32> to memref<*xf32>
  gpu.host_register %all : memref<*xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %v = arith.sitofp %t : i32 to f32
    %w = arith.index_cast %sx : index to i32
    %four = arith.constant 4 : i32
    %r, %ok = gpu.shuffle xor %v, %four, %w : f32
    cf.cond_br %ok, ^store(%r : f32), ^miss
  ^miss:
    %m1 = arith.constant -1.0 : f32
    cf.br ^store(%m1 : f32)
  ^store(%x : f32):
    memref.store %x, %out[%tx] : memref<?xf32>
    gpu.terminator
  }
  call @printMemrefF32(%all) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
