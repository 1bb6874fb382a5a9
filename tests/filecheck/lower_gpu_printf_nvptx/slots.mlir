// RUN: xmux-opt %s -p 'gpu-launch-outlining,convert-gpu-to-mux{sub-group-size=32},drop-host-code,lower-gpu-printf-nvptx' | filecheck %s
// gpu.printf on the GPU: CUDA's vprintf with the arguments laid out as C's variadic
// promotion does for the format: %d takes a 4-byte int (aligned to 4), %lld an 8-byte
// one and %f a double (aligned to 8); an f32 printed with %d is converted as the CPU
// printer does. The host printer's call, declaration and record are gone.

// CHECK:      func.func @hello()
// CHECK:        %[[FMT:.*]] = llvm.mlir.addressof @xmux.printf.0 : !llvm.ptr
// CHECK-NEXT:   %[[A:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK-NEXT:   %[[F:.*]] = arith.bitcast %{{.*}} : i64 to f64
// CHECK-NEXT:   %[[FI:.*]] = arith.fptosi %[[F]] : f64 to i64
// CHECK-NEXT:   %[[B:.*]] = arith.trunci %[[FI]] : i64 to i32
// CHECK-NEXT:   %[[N:.*]] = arith.constant 24 : i64
// CHECK-NEXT:   %[[BUF:.*]] = llvm.alloca %[[N]] x i8 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:   llvm.store %[[A]], %[[BUF]] : i32, !llvm.ptr
// CHECK-NEXT:   %[[P1:.*]] = llvm.getelementptr %[[BUF]][4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   llvm.store %[[B]], %[[P1]] : i32, !llvm.ptr
// CHECK-NEXT:   %[[P2:.*]] = llvm.getelementptr %[[BUF]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   llvm.store %{{.*}}, %[[P2]] : i64, !llvm.ptr
// CHECK-NEXT:   %[[P3:.*]] = llvm.getelementptr %[[BUF]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   llvm.store %{{.*}}, %[[P3]] : i64, !llvm.ptr
// CHECK-NEXT:   %{{.*}} = func.call @vprintf(%[[FMT]], %[[BUF]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NOT:    arith.constant
// CHECK:        %[[FMT2:.*]] = llvm.mlir.addressof @xmux.printf.1 : !llvm.ptr
// CHECK-NEXT:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:   %{{.*}} = func.call @vprintf(%[[FMT2]], %[[NULL]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT:   func.return
// CHECK-NOT:  xmux_gpu_printf
// CHECK-NOT:  __gpu_printf_
// CHECK:      llvm.mlir.global internal constant @xmux.printf.0("%d %d %lld %f\0A\00")
// CHECK:      llvm.mlir.global internal constant @xmux.printf.1("done\0A\00")
// CHECK:      func.func private @vprintf(!llvm.ptr, !llvm.ptr) -> i32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hello() kernel {
      %a = arith.constant 7 : i32
      %f = arith.constant 2.5 : f32
      %b = arith.constant -1 : i64
      %d = arith.constant 0.5 : f64
      gpu.printf "%d %d %lld %f\n", %a, %f, %b, %d : i32, f32, i64, f64
      gpu.printf "done\n"
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@hello blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
