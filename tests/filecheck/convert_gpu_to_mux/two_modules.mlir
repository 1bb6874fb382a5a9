// RUN: xmux-opt %s -p convert-gpu-to-mux | filecheck %s
// Two gpu.modules with kernels of one name: the second becomes @<module>_<name>; a module's
// func.func helpers move with it and its calls follow renames.

module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @k(%m: memref<4xi32>) kernel {
      %i = gpu.thread_id x
      %v = arith.index_cast %i : index to i32
      memref.store %v, %m[%i] : memref<4xi32>
      gpu.return
    }
  }
  gpu.module @b {
    func.func @helper(%x: i32) -> i32 {
      %c = arith.constant 10 : i32
      %r = arith.muli %x, %c : i32
      return %r : i32
    }
    gpu.func @k(%m: memref<4xi32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<4xi32>
      %w = func.call @helper(%v) : (i32) -> i32
      memref.store %w, %m[%i] : memref<4xi32>
      gpu.return
    }
  }
  func.func @main(%m: memref<4xi32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @a::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%m : memref<4xi32>)
    gpu.launch_func @b::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%m : memref<4xi32>)
    return
  }
}
// CHECK:      func.func @k(%{{.*}}: memref<4xi32>) attributes {mux.kernel = "entry_point"}
// CHECK:      func.func @helper(%{{.*}}: i32) -> i32
// CHECK:      func.func @b_k(%{{.*}}: memref<4xi32>) attributes {mux.kernel = "entry_point"}
// CHECK:        func.call @helper(
// CHECK:      func.func @main(
// CHECK:        mux.launch @k(
// CHECK:        mux.launch @b_k(
