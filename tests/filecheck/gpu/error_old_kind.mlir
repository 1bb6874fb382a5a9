// RUN: not xmux-opt %s 2>&1 | filecheck %s
// all_reduce kinds of LLVM 17 and older (max, min) are rejected by name, as mlir-opt 19 does.

gpu.module @k {
  gpu.func @f(%v: f32) kernel {
    %a = gpu.all_reduce max %v {} : (f32) -> f32
    gpu.return
  }
}
// CHECK: all-reduce kind 'max' is upstream MLIR's pre-LLVM-18 spelling; write maxsi/maxui/maxnumf
