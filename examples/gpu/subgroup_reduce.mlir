// RUN: xmux-run %s | filecheck %s
// gpu.subgroup_reduce over one block of 64 threads (two subgroups of 32): thread t holds t.
// Row 0: the subgroup sums, 496 (0+..+31) and 1520 (32+..+63), one per thread.
// Row 1: maxsi over clusters of 4 lanes: 3, 3, 3, 3, 7, 7, 7, 7, ... (printed: first 8).
// Row 2: add over clusters of 2 lanes 4 apart (lanes t and t^4): t + (t^4).

// CHECK:      [496,   496,   496,   496,   496,   496,   496,   496],
// CHECK-NEXT: [3,   3,   3,   3,   7,   7,   7,   7],
// CHECK-NEXT: [4,   6,   8,   10,   4,   6,   8,   10]
// CHECK:      1520
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @reduce(%out: memref<3x64xi32>) kernel {
      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      %sum = gpu.subgroup_reduce add %v : (i32) -> i32
      %max4 = gpu.subgroup_reduce maxsi %v cluster(size = 4) : (i32) -> i32
      %pair = gpu.subgroup_reduce add %v cluster(size = 2, stride = 4) : (i32) -> i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      memref.store %sum, %out[%c0, %t] : memref<3x64xi32>
      memref.store %max4, %out[%c1, %t] : memref<3x64xi32>
      memref.store %pair, %out[%c2, %t] : memref<3x64xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<3x64xi32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%out : memref<3x64xi32>)
    %first = memref.subview %out[0, 0] [3, 8] [1, 1]
        : memref<3x64xi32> to memref<3x8xi32, strided<[64, 1]>>
    %u = memref.cast %first : memref<3x8xi32, strided<[64, 1]>> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    %last = memref.load %out[%c0, %c63] : memref<3x64xi32>
    vector.print %last : i32
    return
  }
  func.func private @printMemrefI32(memref<*xi32>)
}
