// RUN: xmux-run %s --shared-libs=libmlir_runner_utils.so --entry-point-result=void -e main | filecheck %s
// RUN: xmux-run --interpret %s | filecheck %s
// gpu.printf from a kernel of one block of 2 threads, with an index, an i8 and an f32
// argument: the output is C printf's, one line per thread in thread order. The RUN line
// passes mlir-runner's options, which xmux-run accepts.

// CHECK:      Hello from 0, 2, 3.000000
// CHECK-NEXT: Hello from 1, 2, 3.000000
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hello() kernel {
      %0 = gpu.thread_id x
      %csti8 = arith.constant 2 : i8
      %cstf32 = arith.constant 3.0 : f32
      gpu.printf "Hello from %lld, %d, %f\n", %0, %csti8, %cstf32 : index, i8, f32
      gpu.return
    }
  }

  func.func @main() {
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@hello blocks in (%c1, %c1, %c1) threads in (%c2, %c1, %c1)
    return
  }
}
