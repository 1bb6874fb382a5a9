// RUN: xmux-run %s | filecheck %s
// gpu.all_reduce in region form: the xor of the thread ids 0..34 of one block of 35 threads
// is 35 (0 ^ 1 ^ ... ^ 34 = 35, as 34 mod 4 = 2); every thread stores it.

// CHECK: [35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35]
func.func @main() {
  %buf = memref.alloc() : memref<35xf32>
  %out = memref.cast %buf : memref<35xf32> to memref<?xf32>
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  %all = memref.cast %out : memref<?xf32> to memref<*xf32>
  gpu.host_register %all : memref<*xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %id = arith.index_cast %tx : index to i32
    %x = gpu.all_reduce %id uniform {
    ^bb0(%a : i32, %b : i32):
      %c = arith.xori %a, %b : i32
      gpu.yield %c : i32
    } : (i32) -> (i32)
    %f = arith.sitofp %x : i32 to f32
    memref.store %f, %out[%tx] : memref<?xf32>
    gpu.terminator
  }
  call @printMemrefF32(%all) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
