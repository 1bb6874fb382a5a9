"""xmux: SIMT kernels lowered through xDSL to LLVM and JIT-run on the CPU."""
