"""memref ops in upstream's syntax (issue 31): generic_atomic_rmw, rank, memory_space_cast,
alloca_scope, assume_alignment (LLVM 19), scf.forall and ub.unreachable on a path not taken;
the CPU and the interpreter against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.runtime import cuda

KERNEL = """
func.func @k(%x: memref<?xf32>, %acc: memref<3xf32>, %out: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c3 = arith.constant 3 : index
  %row = arith.remui %i, %c3 : index
  memref.assume_alignment %x, 4 : memref<?xf32>
  %v = memref.load %x[%i] : memref<?xf32>
  %old = memref.generic_atomic_rmw %acc[%row] : memref<3xf32> {
  ^bb0(%cur: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %cur, %sq : f32
    memref.atomic_yield %s : f32
  }
  %r = memref.rank %x : memref<?xf32>
  %rf = arith.index_cast %r : index to i32
  %rk = arith.sitofp %rf : i32 to f32
  %g = memref.memory_space_cast %out : memref<?xf32> to memref<?xf32, 1>
  %w = memref.alloca_scope -> (f32) {
    %t = memref.alloca() : memref<2xf32>
    %c0 = arith.constant 0 : index
    memref.store %v, %t[%c0] : memref<2xf32>
    %u = memref.load %t[%c0] : memref<2xf32>
    %y = arith.addf %u, %rk : f32
    memref.alloca_scope.return %y : f32
  }
  %neg = arith.cmpf olt, %w, %rk : f32
  cf.cond_br %neg, ^never, ^done
^never:
  ub.unreachable
^done:
  scf.forall (%j) in (1) {
    memref.store %w, %g[%i] : memref<?xf32, 1>
  }
  return
}
"""


@pytest.mark.parametrize("interpret", [False, True])
def test_against_numpy(interpret: bool) -> None:
    n = 12
    x = np.arange(n, dtype=np.float32) / 2
    acc, out = np.zeros(3, np.float32), np.zeros(n, np.float32)
    if interpret:
        xmux.interpret(KERNEL, "k", x, acc, out, global_size=n, local_size=4)
    else:
        xmux.compile(KERNEL).kernel("k")(x, acc, out, global_size=n, local_size=4)
    np.testing.assert_array_equal(acc, [(x[r::3] ** 2).sum() for r in range(3)])
    np.testing.assert_array_equal(out, x + 1)  # + rank 1


def test_ptx_has_the_cas_loop() -> None:
    ptx = xmux.compile(KERNEL, target="nvptx", cache=False).ptx
    assert ".visible .entry k(" in ptx and ".global.cas.b32" in ptx


@pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
def test_gpu_against_numpy() -> None:
    n = 12
    x = np.arange(n, dtype=np.float32) / 2
    acc, out = np.zeros(3, np.float32), np.zeros(n, np.float32)
    xmux.compile(KERNEL, target="nvptx").kernel("k")(x, acc, out, global_size=n, local_size=4)
    np.testing.assert_array_equal(acc, [(x[r::3] ** 2).sum() for r in range(3)])
    np.testing.assert_array_equal(out, x + 1)
