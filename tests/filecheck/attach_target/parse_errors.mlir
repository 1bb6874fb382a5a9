// RUN: not xmux-opt %s 2>&1 | filecheck %s

// Bad attribute text names the parameter (tests/test_target.py has the other parse errors).

// CHECK: xmux.target: unknown parameter 'lanes' (expected chip, features, vector_bits, vector_registers)
builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu", chip = "znver3", lanes = 8>} {
}
