// RUN: xmux-opt %s -p 'disable-neon-attribute' | filecheck %s
// The trigger on an x86-64 target: not an Arm module, so nothing changes (the pass reads the
// module's target, never the host).

// CHECK:      builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", chip = "znver3", vector_bits = 256, vector_registers = 16>} {
// CHECK-NOT:  -neon
// CHECK:      llvm.func @convert(%{{.*}}: vector<4xi64>) -> vector<4xf32> {
// CHECK-NEXT:   llvm.uitofp
builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", chip = "znver3", vector_bits = 256, vector_registers = 16>} {
  llvm.func @convert(%v: vector<4xi64>) -> vector<4xf32> {
    %f = llvm.uitofp %v : vector<4xi64> to vector<4xf32>
    llvm.return %f : vector<4xf32>
  }
}
