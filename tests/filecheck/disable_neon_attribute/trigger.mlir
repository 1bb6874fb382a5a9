// RUN: xmux-opt %s -p 'disable-neon-attribute' | filecheck %s
// A vector i64 -> f32 conversion on AArch64: NEON would round twice (i64 -> f64 -> f32),
// so every function of the module is marked -neon, and so is the module's target.

// CHECK:      builtin.module attributes {xmux.target = #xmux.target<"aarch64-unknown-linux-gnu", chip = "neoverse-n1", features = "-neon", vector_bits = 128, vector_registers = 32>} {
builtin.module attributes {xmux.target = #xmux.target<"aarch64-unknown-linux-gnu", chip = "neoverse-n1", vector_bits = 128, vector_registers = 32>} {
  // CHECK:      llvm.func @convert(%{{.*}}: vector<4xi64>) -> vector<4xf32>
  // CHECK-SAME: target_features = #llvm.target_features<["-neon"]>
  // CHECK-NEXT:   %{{.*}} = llvm.sitofp %{{.*}} : vector<4xi64> to vector<4xf32>
  llvm.func @convert(%v: vector<4xi64>) -> vector<4xf32> {
    %f = llvm.sitofp %v : vector<4xi64> to vector<4xf32>
    llvm.return %f : vector<4xf32>
  }
  // a function without the conversion is marked too (one calling convention)
  // CHECK:      llvm.func @other(%{{.*}}: f32) -> f32
  // CHECK-SAME: target_features = #llvm.target_features<["-neon"]>
  llvm.func @other(%x: f32) -> f32 {
    llvm.return %x : f32
  }
}
