// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s

// The target attribute's custom syntax: the triple, then chip, features, vector_bits and
// vector_registers (the last three printed only when set).

// CHECK: builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", chip = "znver3", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16>} {
// CHECK: builtin.module attributes {xmux.target = #xmux.target<"aarch64-unknown-linux-gnu", chip = "neoverse-v1", vector_bits = 128, vector_registers = 32>} {
builtin.module {
  builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", chip = "znver3", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16>} {
  }
  builtin.module attributes {xmux.target = #xmux.target<"aarch64-unknown-linux-gnu", vector_registers = 32, chip = "neoverse-v1", vector_bits = 128>} {
  }
}
