"""Issue 33.4 on the GPU: read-only (``ld.global.nc``) variants picked per launch, and the last
work-group reduce of a kernel with one barrier.

The launch tests need a CUDA device (skipped without one: run on the H100/H200 machine);
the first ones check the pieces that decide, without a GPU. The PTX shapes are FileCheck
tests (tests/filecheck/nvptx/read_only.mlir, add_kernel_wrapper_nvptx/read_only.mlir,
lower_work_group_collectives_nvptx/last_collective.mlir).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import xmux
from tests.kernel_texts import VECADD
from xmux.abi import nvptx_variants as nv
from xmux.runtime import cuda

gpu = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")


# every work-item stores the work-group's sum: all of them must hold the same bits
REDUCE_ALL = """
func.func @sums(%x: memref<?xf32>, %out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  memref.store %s, %out[%i] : memref<?xf32>
  func.return
}
"""


def test_names_and_disjointness() -> None:
    name = nv.variant_name("k", [0, 2])
    assert name == "k__xmux_ro_0_2"
    assert nv.parse_variant(name, "k") == (0, 2)
    assert nv.parse_variant(name, "k__xmux") is None
    assert nv.parse_variant("k__xmux_ro_0__xmux_ro_1", "k") is None
    assert nv.disjoint([(0, 8)], [(8, 16)])
    assert not nv.disjoint([(0, 9)], [(8, 16)])
    assert nv.disjoint([(0, 8), (4, 12)], [(12, 20)])  # marked ranges may overlap each other
    assert nv.disjoint([(5, 5)], [(0, 16)])  # no elements: nothing to overlap


def _array(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], item: int = 4):
    size = int(np.prod(shape))
    contiguous = strides == tuple(
        int(np.prod(shape[d + 1:])) * item for d in range(len(shape)))
    return SimpleNamespace(data=SimpleNamespace(ptr=ptr), size=size, shape=shape,
                           strides=strides, itemsize=item, nbytes=size * item,
                           flags=SimpleNamespace(c_contiguous=contiguous))


def test_the_variant_applies_to_disjoint_buffers_only() -> None:
    v = cuda.ReadOnlyVariant.__new__(cuda.ReadOnlyVariant)
    v.marked, v.others = [0, 1], [2]
    a, b = _array(0x1000, (256,), (4,)), _array(0x2000, (256,), (4,))
    assert v.applies([a, b, _array(0x3000, (256,), (4,))])
    assert not v.applies([a, b, a])  # c is a: in place
    assert not v.applies([a, b, _array(0x13FC, (4,), (4,))])  # c's first element is a's last
    assert v.applies([a, a, _array(0x3000, (256,), (4,))])  # a twice: both only read
    # a strided column: its range spans the rows between its elements
    column = _array(0x23F0, (4,), (16,))  # bytes 0x23F0 .. 0x2424: b's last 16 bytes too
    assert not v.applies([a, b, column])
    assert v.applies([a, _array(0x2430, (4,), (4,)), column])


def test_without_variants_keeps_the_generic_entry() -> None:
    ptx = xmux.compile(VECADD, target="nvptx", cache=False).ptx
    assert ".entry vecadd__xmux_ro_0_1(" in ptx and "ld.global.nc" in ptx
    generic = nv.without_variants(ptx)
    assert ".entry vecadd(" in generic and "__xmux_ro" not in generic
    assert "ld.global.nc" not in generic


@gpu
def test_disjoint_buffers_run_the_read_only_variant() -> None:
    import cupy as cp

    k = xmux.compile(VECADD, target="nvptx", cache=False)["vecadd"]
    n = 1 << 16
    a = cp.random.random(n, dtype=cp.float32)
    b = cp.random.random(n, dtype=cp.float32)
    c = cp.zeros(n, cp.float32)
    k(a, b, c, global_size=(n,), local_size=(256,))
    launcher = next(iter(k._launchers.values()))
    assert launcher.read_only is not None
    assert launcher.last_function is launcher.read_only.function
    assert cp.array_equal(c, a + b)
    k(a, a, c, global_size=(n,), local_size=(256,))  # the marked ones may overlap
    assert launcher.last_function is launcher.read_only.function
    assert cp.array_equal(c, a + a)


@gpu
def test_overlapping_buffers_run_the_generic_entry() -> None:
    import cupy as cp

    k = xmux.compile(VECADD, target="nvptx", cache=False)["vecadd"]
    n = 1 << 16
    a = cp.random.random(n, dtype=cp.float32)
    b = cp.random.random(n, dtype=cp.float32)
    want = a + b
    k(a, b, a, global_size=(n,), local_size=(256,))  # in place: c is a
    launcher = next(iter(k._launchers.values()))
    assert launcher.last_function is launcher.function
    assert cp.array_equal(a, want)
    # numpy arguments that overlap share one device buffer (runtime/cuda.py)
    host = np.arange(2 * n, dtype=np.float32)
    k(host[:n], host[:n], host[n // 2: n + n // 2], global_size=(n,), local_size=(256,))
    assert launcher.last_function is launcher.function


@gpu
@pytest.mark.parametrize("local", [256, 96, 40, 33, 1024, 1000])
def test_last_reduce_gives_every_work_item_the_same_sum(local: int) -> None:
    import cupy as cp

    k = xmux.compile(REDUCE_ALL, target="nvptx", cache=False)["sums"]
    groups = 3
    n = groups * local
    rng = np.random.default_rng(local)
    x = rng.standard_normal(n).astype(np.float32)
    out = cp.zeros(n, cp.float32)
    k(cp.asarray(x), out, global_size=(n,), local_size=(local,))
    got = cp.asnumpy(out).reshape(groups, local)
    bits = got.view(np.uint32)
    assert (bits == bits[:, :1]).all(), "work-items of one group got different bits"
    want = x.reshape(groups, local).astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-5, atol=1e-4)
