"""complex<f32>/complex<f64> kernel arguments share numpy's complex64/complex128 layout, and
the complex ops lower to LLVM (lowering/to_llvm/complex.py)."""

from __future__ import annotations

import numpy as np
import pytest

import xmux

KERNEL = """
func.func @cmul(%x: memref<?xcomplex<{E}>>, %y: memref<?xcomplex<{E}>>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c = complex.constant [1.0 : {E}, -2.0 : {E}] : complex<{E}>
  %a = memref.load %x[%i] : memref<?xcomplex<{E}>>
  %p = complex.mul %a, %c : complex<{E}>
  %s = complex.add %p, %a : complex<{E}>
  %d = complex.sub %s, %c : complex<{E}>
  %re = complex.re %d : complex<{E}>
  %im = complex.im %d : complex<{E}>
  %sw = complex.create %im, %re : complex<{E}>
  memref.store %sw, %y[%i] : memref<?xcomplex<{E}>>
  func.return
}
"""


@pytest.mark.parametrize("elem,dtype", [("f32", np.complex64), ("f64", np.complex128)])
def test_complex_arrays_and_ops(elem, dtype):
    k = xmux.compile(KERNEL.replace("{E}", elem), cache=False).kernel("cmul")
    assert k.info.args[0].dtype == np.dtype(dtype).name
    rng = np.random.default_rng(0)
    x = (rng.integers(-9, 9, 37) + 1j * rng.integers(-9, 9, 37)).astype(dtype)
    y = np.zeros_like(x)
    k(x, y, global_size=37, local_size=1)
    c = dtype(1 - 2j)
    d = x * c + x - c
    np.testing.assert_array_equal(y, (d.imag + 1j * d.real).astype(dtype))
