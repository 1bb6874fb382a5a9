"""xmux.empty / zeros / aligned: numpy arrays whose data start on a cache line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xmux

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.complex64])
@pytest.mark.parametrize("shape", [7, (3, 5), (2, 3, 4), 0])
def test_empty_and_zeros_are_aligned_arrays(shape, dtype) -> None:
    for make in (xmux.empty, xmux.zeros):
        a = make(shape, dtype)
        assert isinstance(a, np.ndarray) and a.dtype == np.dtype(dtype)
        assert a.shape == ((shape,) if isinstance(shape, int) else shape)
        assert a.flags.c_contiguous and a.flags.writeable
        assert a.size == 0 or a.ctypes.data % 64 == 0  # an empty array has no data to align
    assert not xmux.zeros(shape, dtype).any()
    assert xmux.empty(10, np.float32, align=4096).ctypes.data % 4096 == 0


def test_aligned_copies_only_when_needed() -> None:
    a = xmux.empty((4, 6), np.float32)
    a[...] = np.arange(24).reshape(4, 6)
    assert xmux.aligned(a) is a
    shifted = np.empty(25, np.float32)[1:]  # 4 bytes past numpy's own alignment
    shifted[:] = np.arange(24)
    b = xmux.aligned(shifted)
    assert b is not shifted and b.ctypes.data % 64 == 0
    np.testing.assert_array_equal(b, shifted)
    view = a[:, ::2]  # not contiguous: copied
    c = xmux.aligned(view)
    assert c.flags.c_contiguous and c.ctypes.data % 64 == 0
    np.testing.assert_array_equal(c, view)


def test_bad_alignment_is_refused() -> None:
    for bad in (0, 3, 48, -64, 2.0):
        with pytest.raises(ValueError, match="power of two"):
            xmux.empty(4, np.float32, align=bad)  # type: ignore[arg-type]


def test_kernels_run_on_aligned_arrays() -> None:
    k = xmux.compile(str(ROOT / "examples" / "vecadd.mlir"))["vecadd"]
    n = 10_000
    a, b, c = (xmux.empty(n) for _ in range(3))
    a[:] = np.arange(n)
    b[:] = 1
    k(a, b, c, global_size=(n,), local_size=(100,))
    np.testing.assert_array_equal(c, np.arange(n, dtype=np.float32) + 1)
