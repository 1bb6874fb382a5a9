// RUN: not xmux-opt %s -p 'attach-target{vector-bits=100}' 2>&1 | filecheck %s --check-prefix=BITS
// RUN: not xmux-opt %s -p 'attach-target{triple=nvptx64-nvidia-cuda chip=sm_90}' 2>&1 | filecheck %s --check-prefix=GPU

// Bad options are errors naming the pass and the parameter.

// BITS: error: attach-target: xmux.target: vector_bits must be 0 or a power of two >= 64, got 100
// GPU: error: attach-target: xmux.target: an nvptx64-nvidia-cuda target has no vector registers to budget (vector_bits must be 0)
builtin.module {
}
