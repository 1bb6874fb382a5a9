// RUN: xmux-run %s | filecheck %s
// Several gpu.all_reduce kinds in one kernel, over a 2-D block of 3 x 4 threads whose thread
// (x, y) holds v = data[y * 3 + x] of the 12 values below, in two blocks (the second block
// reads the values plus 1). Thread (0, 0) of block b writes row b of the results:
//   block 0: values 5 3 9 12 7 1 14 6 10 2 11 8:
//     add 88, and 0, or 15, xor 6, maxsi 14, minsi 1, maxnumf 14.0
//   block 1: values + 1: add 100, and 0, or 15, xor 10, maxsi 15, minsi 2, maxnumf 15.0
// Results as f32 rows: [add, and, or, xor, maxsi, minsi, maxnumf] (numpy: xor 6 and 10).

// CHECK:      [88,   0,   15,   6,   14,   1,   14],
// CHECK-NEXT: [100,   0,   15,   10,   15,   2,   15]
memref.global "private" constant @values : memref<12xi32> =
    dense<[5, 3, 9, 12, 7, 1, 14, 6, 10, 2, 11, 8]>

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %data = memref.get_global @values : memref<12xi32>
  %out = memref.alloc() : memref<2x7xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c3, %sy = %c4, %sz = %c1) {
    %row = arith.muli %ty, %sx : index
    %i = arith.addi %row, %tx : index
    %raw = memref.load %data[%i] : memref<12xi32>
    %b = arith.index_cast %bx : index to i32
    %v = arith.addi %raw, %b : i32
    %vf = arith.sitofp %v : i32 to f32
    %add = gpu.all_reduce add %v {} : (i32) -> (i32)
    %and = gpu.all_reduce and %v {} : (i32) -> (i32)
    %or = gpu.all_reduce or %v {} : (i32) -> (i32)
    %xor = gpu.all_reduce xor %v {} : (i32) -> (i32)
    %max = gpu.all_reduce maxsi %v uniform {} : (i32) -> (i32)
    %min = gpu.all_reduce minsi %v {} : (i32) -> (i32)
    %maxf = gpu.all_reduce maxnumf %vf {} : (f32) -> (f32)
    %first = arith.cmpi eq, %i, %c0 : index
    scf.if %first {
      %f0 = arith.sitofp %add : i32 to f32
      %f1 = arith.sitofp %and : i32 to f32
      %f2 = arith.sitofp %or : i32 to f32
      %f3 = arith.sitofp %xor : i32 to f32
      %f4 = arith.sitofp %max : i32 to f32
      %f5 = arith.sitofp %min : i32 to f32
      memref.store %f0, %out[%bx, %c0] : memref<2x7xf32>
      memref.store %f1, %out[%bx, %c1] : memref<2x7xf32>
      memref.store %f2, %out[%bx, %c2] : memref<2x7xf32>
      memref.store %f3, %out[%bx, %c3] : memref<2x7xf32>
      memref.store %f4, %out[%bx, %c4] : memref<2x7xf32>
      memref.store %f5, %out[%bx, %c5] : memref<2x7xf32>
      memref.store %maxf, %out[%bx, %c6] : memref<2x7xf32>
    }
    gpu.terminator
  }
  %all = memref.cast %out : memref<2x7xf32> to memref<*xf32>
  call @printMemrefF32(%all) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
