// RUN: xmux-opt %s -p attach-target | filecheck %s --check-prefix=DEFAULT
// RUN: xmux-opt %s -p 'attach-target{chip=znver3 vector-bits=256 vector-registers=16}' | filecheck %s --check-prefix=ZEN3
// RUN: xmux-opt %s -p 'attach-target{triple=nvptx64-nvidia-cuda chip=sm_90 features="+ptx80" vector-bits=0 vector-registers=0}' | filecheck %s --check-prefix=PTX
// RUN: xmux-opt %s -p 'attach-target{chip=znver3 vector-bits=256 vector-registers=16},attach-target{chip=haswell vector-bits=256 vector-registers=16}' | filecheck %s --check-prefix=LAST

// attach-target puts the target its options name on the module (the default one without
// options); a second one replaces the first.

// DEFAULT: builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", chip = "x86-64-v4", vector_bits = 512, vector_registers = 32>} {
// ZEN3: builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", chip = "znver3", vector_bits = 256, vector_registers = 16>} {
// PTX: builtin.module attributes {xmux.target = #xmux.target<"nvptx64-nvidia-cuda", chip = "sm_90", features = "+ptx80">} {
// LAST: builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", chip = "haswell", vector_bits = 256, vector_registers = 16>} {
// LAST-NOT: znver3
builtin.module {
  func.func @f() {
    func.return
  }
}
