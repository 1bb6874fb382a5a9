"""vector.transfer_read / transfer_write as linalg vectorization leaves them
(lower-vector-transfers), with splat / step / outerproduct / scf.forall / ub.poison, against
numpy: on the CPU, in the interpreter, PTX built; on a GPU when CuPy finds one."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.runtime import cuda

# rows of %a in chunks of 4 (the last one out of bounds: padding read, lanes masked off in the
# write): out = 2 * a + 1 by an AXPY outer product; half: the same, written only in lanes 0
# and 1 of each chunk (a mask of step[2] lanes)
ROWS = """
func.func @rows(%a: memref<?x?xf32>, %out: memref<?x?xf32>, %half: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %pad = arith.constant -7.0 : f32
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %ones = vector.splat %one : vector<4xf32>
  %step = vector.step : vector<4xindex>
  scf.forall (%c) in (3) {
    %c4 = arith.constant 4 : index
    %j = arith.muli %c, %c4 : index
    %v = vector.transfer_read %a[%i, %j], %pad : memref<?x?xf32>, vector<4xf32>
    %r = vector.outerproduct %v, %two, %ones : vector<4xf32>, f32
    vector.transfer_write %r, %out[%i, %j] : vector<4xf32>, memref<?x?xf32>
    %k2 = vector.extract %step[2] : index from vector<4xindex>
    %low = vector.create_mask %k2 : vector<4xi1>
    vector.transfer_write %r, %half[%i, %j], %low : vector<4xf32>, memref<?x?xf32>
  }
  return
}
"""

# t[i, 4c..4c+3] = a[4c..4c+3, i] (a column: one guarded load per lane, padding past the last
# row); lane 3 of the vector starts as ub.poison and is always written before it is read;
# b[i, :] = a[0, i] (a broadcast map)
COLUMNS = """
func.func @columns(%a: memref<?x?xf32>, %t: memref<?x12xf32>, %b: memref<?x4xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %pad = arith.constant -1.0 : f32
  scf.forall (%c) in (3) {
    %c4 = arith.constant 4 : index
    %j = arith.muli %c, %c4 : index
    %v = vector.transfer_read %a[%j, %i], %pad
        {permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<?x?xf32>, vector<4xf32>
    %p = ub.poison : vector<4xf32>
    %x = vector.extract %v[3] : f32 from vector<4xf32>
    %w = vector.insert %x, %p [3] : f32 into vector<4xf32>
    %m = vector.shuffle %v, %w [0, 1, 2, 7] : vector<4xf32>, vector<4xf32>
    vector.transfer_write %m, %t[%i, %j] {in_bounds = [true]} : vector<4xf32>, memref<?x12xf32>
  }
  %s = vector.transfer_read %a[%c0, %i], %pad
      {permutation_map = affine_map<(d0, d1) -> (0)>, in_bounds = [true]}
      : memref<?x?xf32>, vector<4xf32>
  vector.transfer_write %s, %b[%i, %c0] {in_bounds = [true]} : vector<4xf32>, memref<?x4xf32>
  return
}
"""

M, N = 5, 10  # %a: 5 x 10; the chunks of 4 end past both


def _data() -> np.ndarray:
    return (np.arange(M * N, dtype=np.float32).reshape(M, N) - 20) / 4


def _rows_want(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    half = np.where(np.arange(N) % 4 < 2, 2 * a + 1, 0).astype(np.float32)
    return 2 * a + 1, half


def _columns_want(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = np.full((N, 12), -1.0, np.float32)
    t[:, :M] = a.T
    return t, np.repeat(a[0][:, None], 4, axis=1)


def _run(kernel, *, interpret: bool = False, src: str = "", name: str = "") -> None:
    a = _data()
    if name == "rows":
        out, idx = np.zeros((M, N), np.float32), np.zeros((M, N), np.float32)
        args, size = (a, out, idx), M
    else:
        out, idx = np.zeros((N, 12), np.float32), np.zeros((N, 4), np.float32)
        args, size = (a, out, idx), N
    if interpret:
        xmux.interpret(src, name, *args, global_size=size, local_size=1)
    else:
        kernel(*args, global_size=size, local_size=1)
    want = _rows_want(a) if name == "rows" else _columns_want(a)
    np.testing.assert_array_equal(out, want[0])
    np.testing.assert_array_equal(idx, want[1])


@pytest.mark.parametrize("src, name", [(ROWS, "rows"), (COLUMNS, "columns")])
def test_cpu_and_interpreter_match_numpy(src: str, name: str) -> None:
    _run(xmux.compile(src).kernel(name), name=name)
    _run(None, interpret=True, src=src, name=name)


def test_ptx_builds_masked_and_guarded_accesses() -> None:
    ptx = xmux.compile(ROWS + COLUMNS, target="nvptx", cache=False).ptx
    assert ".visible .entry rows(" in ptx and ".visible .entry columns(" in ptx
    assert "fma.rn.f32" in ptx  # the outer product with an accumulator is fused
    assert "ld.global" in ptx and "st.global" in ptx


@pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
@pytest.mark.parametrize("src, name", [(ROWS, "rows"), (COLUMNS, "columns")])
def test_gpu_matches_numpy(src: str, name: str) -> None:
    _run(xmux.compile(src, target="nvptx").kernel(name), name=name)
