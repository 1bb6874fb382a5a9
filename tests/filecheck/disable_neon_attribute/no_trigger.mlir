// RUN: xmux-opt %s -p 'disable-neon-attribute' | filecheck %s
// Only a vector i64 -> f32 conversion triggers the pass: scalar i64 -> f32, vector
// i32 -> f32 and vector i64 -> f64 are converted exactly once by NEON, so nothing changes.

// CHECK:      builtin.module attributes {xmux.target = #xmux.target<"aarch64-unknown-linux-gnu", chip = "cortex-a72", vector_bits = 128, vector_registers = 32>} {
// CHECK-NOT:  -neon
builtin.module attributes {xmux.target = #xmux.target<"aarch64-unknown-linux-gnu", chip = "cortex-a72", vector_bits = 128, vector_registers = 32>} {
  // CHECK: llvm.func @scalar(%{{.*}}: i64) -> f32 {
  llvm.func @scalar(%v: i64) -> f32 {
    %f = llvm.sitofp %v : i64 to f32
    llvm.return %f : f32
  }
  // CHECK: llvm.func @narrow(%{{.*}}: vector<4xi32>) -> vector<4xf32> {
  llvm.func @narrow(%v: vector<4xi32>) -> vector<4xf32> {
    %f = llvm.uitofp %v : vector<4xi32> to vector<4xf32>
    llvm.return %f : vector<4xf32>
  }
  // CHECK: llvm.func @to_double(%{{.*}}: vector<2xi64>) -> vector<2xf64> {
  llvm.func @to_double(%v: vector<2xi64>) -> vector<2xf64> {
    %f = llvm.sitofp %v : vector<2xi64> to vector<2xf64>
    llvm.return %f : vector<2xf64>
  }
}
