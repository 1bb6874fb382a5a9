// RUN: xmux-run %s | filecheck %s
// gpu.alloc host_shared + gpu.memset on the host, a kernel doubling each element in place,
// and vector.print of scalars (MLIR runner's format: integers in decimal, floats as %g).

// CHECK:      2000
// CHECK-NEXT: 14
// CHECK-NEXT: 2.5
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @twice(%m: memref<8xi32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<8xi32>
      %d = arith.addi %v, %v : i32
      memref.store %d, %m[%i] : memref<8xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c1000 = arith.constant 1000 : i32
    %seven = arith.constant 7 : i32
    %m = gpu.alloc host_shared () : memref<8xi32>
    gpu.memset %m, %seven : memref<8xi32>, i32
    memref.store %c1000, %m[%c3] : memref<8xi32>
    gpu.launch_func @k::@twice blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%m : memref<8xi32>)
    %a = memref.load %m[%c3] : memref<8xi32>
    %b = memref.load %m[%c7] : memref<8xi32>
    vector.print %a : i32
    vector.print %b : i32
    %f = arith.constant 2.5 : f32
    vector.print %f : f32
    gpu.dealloc %m : memref<8xi32>
    return
  }
}
