"""The specialization-constant convolution of bench/spec_conv.py and bench/launch_stalls.py:
a 3x3 filter whose coefficients are a composite spec constant (default: a box blur)."""

from __future__ import annotations

import numpy as np

#: the default of the spec constant (a box blur); the benchmarks set others
BOX = [1.0 / 9] * 9

KERNEL = """
// out[y][x] = sum over j, i in 0..2 of coeff[3j+i] * in[y+j][x+i], taps left to right
spec.specialization_id @coeff_default = [{default}] : !llvm.array<9 x f32>
func.func @conv(%in: memref<?x?xf32>, %out: memref<?x?xf32>)
    attributes {{mux.kernel = "entry_point"}} {{
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x1 = arith.addi %x, %c1 : index
  %x2 = arith.addi %x, %c2 : index
  %y1 = arith.addi %y, %c1 : index
  %y2 = arith.addi %y, %c2 : index
  %w = spec.get_composite "coeff", @coeff_default : !llvm.array<9 x f32>
{taps}
  %s1 = arith.addf %t0, %t1 : f32
  %s2 = arith.addf %s1, %t2 : f32
  %s3 = arith.addf %s2, %t3 : f32
  %s4 = arith.addf %s3, %t4 : f32
  %s5 = arith.addf %s4, %t5 : f32
  %s6 = arith.addf %s5, %t6 : f32
  %s7 = arith.addf %s6, %t7 : f32
  %s8 = arith.addf %s7, %t8 : f32
  memref.store %s8, %out[%y, %x] : memref<?x?xf32>
  func.return
}}
"""


def kernel_text() -> str:
    rows, cols = ("%y", "%y1", "%y2"), ("%x", "%x1", "%x2")
    taps = []
    for k in range(9):
        j, i = divmod(k, 3)
        taps += [
            f"  %w{k} = llvm.extractvalue %w[{k}] : !llvm.array<9 x f32>",
            f"  %p{k} = memref.load %in[{rows[j]}, {cols[i]}] : memref<?x?xf32>",
            f"  %t{k} = arith.mulf %w{k}, %p{k} : f32",
        ]
    default = ", ".join(f"{float(v)!r} : f32" for v in np.float32(BOX))
    return KERNEL.format(default=default, taps="\n".join(taps))
