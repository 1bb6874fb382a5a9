"""Kernels on the GPU (target nvptx): arguments, NDRanges and profiling against numpy.

Skipped without a CUDA device (CI has none); run on the H100/H200 machine.
"""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.runtime import cuda

pytestmark = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")

IDS = """
func.func @ids(%out: memref<?x?xi64>) attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %ox = mux.get_global_offset 0 : index
  %oy = mux.get_global_offset 1 : index
  %i = arith.subi %x, %ox : index
  %j = arith.subi %y, %oy : index
  %gx = mux.get_group_id 0 : index
  %lx = mux.get_local_size 0 : index
  %ly = mux.get_local_size 1 : index
  %nx = mux.get_num_groups 0 : index
  %ex = mux.get_enqueued_local_size 0 : index
  %c1000 = arith.constant 1000 : index
  %c100 = arith.constant 100 : index
  %c10 = arith.constant 10 : index
  %a = arith.muli %gx, %c1000 : index
  %b = arith.muli %lx, %c100 : index
  %c = arith.muli %ly, %c10 : index
  %s0 = arith.addi %a, %b : index
  %s1 = arith.addi %s0, %c : index
  %s2 = arith.addi %s1, %nx : index
  %s3 = arith.muli %s2, %c1000 : index
  %s4 = arith.addi %s3, %ex : index
  %v = arith.index_cast %s4 : index to i64
  memref.store %v, %out[%j, %i] : memref<?x?xi64>
  func.return
}
"""

SAXPY = """
func.func @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>, %flag: i1, %h: f16)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %xv = memref.load %x[%i] : memref<?xf32>
  %yv = memref.load %y[%i] : memref<?xf32>
  %ax = arith.mulf %a, %xv : f32
  %r = arith.addf %ax, %yv : f32
  %hf = arith.extf %h : f16 to f32
  %r2 = arith.addf %r, %hf : f32
  %z = arith.select %flag, %r2, %r : f32
  memref.store %z, %y[%i] : memref<?xf32>
  func.return
}
"""

STRIDED = """
func.func @twice(%x: memref<?xf32, strided<[?], offset: ?>>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32, strided<[?], offset: ?>>
  %w = arith.addf %v, %v : f32
  memref.store %w, %x[%i] : memref<?xf32, strided<[?], offset: ?>>
  func.return
}
"""

LOCAL_ARG = """
func.func @reverse(%x: memref<?xf32>, %tile: memref<?xf32, 3>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %n = mux.get_local_size 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  memref.store %v, %tile[%l] : memref<?xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %c1 = arith.constant 1 : index
  %last = arith.subi %n, %c1 : index
  %r = arith.subi %last, %l : index
  %w = memref.load %tile[%r] : memref<?xf32, 3>
  memref.store %w, %x[%i] : memref<?xf32>
  func.return
}
"""


def _ids_expected(g, loc, off):
    out = np.zeros((g[1], g[0]), np.int64)
    ng = [-(-g[d] // loc[d]) for d in range(2)]
    for j in range(g[1]):
        for i in range(g[0]):
            gx, gy = i // loc[0], j // loc[1]
            lx = min(loc[0], g[0] - gx * loc[0])
            ly = min(loc[1], g[1] - gy * loc[1])
            out[j, i] = (gx * 1000 + lx * 100 + ly * 10 + ng[0]) * 1000 + loc[0]
    return out


@pytest.mark.parametrize(
    "g,loc,off", [((64, 8), (32, 4), (0, 0)), ((100, 7), (32, 4), (3, 5)),
                  ((33, 1), (16, 1), (0, 0))]
)
def test_work_item_queries_in_non_uniform_ranges(g, loc, off) -> None:
    prog = xmux.compile(IDS, target="nvptx")
    out = np.full((g[1], g[0]), -1, np.int64)
    prog["ids"](out, global_size=g, local_size=loc, global_offset=off)
    np.testing.assert_array_equal(out, _ids_expected(g, loc, off))


def test_cupy_arrays_are_used_in_place_and_scalars_of_every_kind() -> None:
    import cupy as cp

    prog = xmux.compile(SAXPY, target="nvptx")
    n = 1000
    x = cp.arange(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    prog["saxpy"](np.float32(2.0), x, y, True, np.float16(0.5), global_size=(n,))
    np.testing.assert_array_equal(y.get(), 2 * np.arange(n, dtype=np.float32) + 1.5)
    prog["saxpy"](1.0, x, y, False, 0.5, global_size=(n,))
    np.testing.assert_array_equal(y.get(), 3 * np.arange(n, dtype=np.float32) + 1.5)


def test_torch_tensors_zero_copy() -> None:
    torch = pytest.importorskip("torch")
    prog = xmux.compile(SAXPY, target="nvptx")
    x = torch.arange(256, dtype=torch.float32, device="cuda")
    y = torch.zeros(256, dtype=torch.float32, device="cuda")
    prog["saxpy"](3.0, x, y, False, 0.0, global_size=(256,))
    torch.cuda.synchronize()
    assert torch.equal(y.cpu(), 3 * torch.arange(256, dtype=torch.float32))


def test_numpy_arrays_are_copied_in_and_back() -> None:
    prog = xmux.compile(SAXPY, target="nvptx")
    x = np.arange(300, dtype=np.float32)
    y = np.full(300, 2.0, np.float32)
    prog["saxpy"](0.5, x, y, False, 0.0, global_size=(300,), local_size=(64,))
    np.testing.assert_array_equal(y, 0.5 * np.arange(300, dtype=np.float32) + 2.0)


def test_one_array_for_two_arguments_is_one_buffer() -> None:
    prog = xmux.compile(SAXPY, target="nvptx")
    y = np.arange(64, dtype=np.float32)
    prog["saxpy"](1.0, y, y, False, 0.0, global_size=(64,))
    np.testing.assert_array_equal(y, 2 * np.arange(64, dtype=np.float32))


def test_strided_views() -> None:
    import cupy as cp

    prog = xmux.compile(STRIDED, target="nvptx")
    base = np.arange(40, dtype=np.float32)
    view = base[::2]
    prog["twice"](view, global_size=(20,))
    expect = np.arange(40, dtype=np.float32)
    expect[::2] *= 2
    np.testing.assert_array_equal(base, expect)
    dev = cp.arange(40, dtype=cp.float32)
    prog["twice"](dev[1::2], global_size=(20,))
    expect = np.arange(40, dtype=np.float32)
    expect[1::2] *= 2
    np.testing.assert_array_equal(dev.get(), expect)


@pytest.mark.parametrize("nbytes_per_item", [4])
@pytest.mark.parametrize("local", [64, 100, 1024])
def test_local_memory_arguments_are_dynamic_shared_memory(local, nbytes_per_item) -> None:
    prog = xmux.compile(LOCAL_ARG, target="nvptx")
    n = local * 5
    x = np.arange(n, dtype=np.float32)
    prog["reverse"](x, xmux.LocalMemory(local * nbytes_per_item), global_size=(n,),
                    local_size=(local,))
    expect = np.arange(n, dtype=np.float32).reshape(5, local)[:, ::-1].ravel()
    np.testing.assert_array_equal(x, expect)


def test_more_than_48k_of_local_memory() -> None:
    prog = xmux.compile(LOCAL_ARG, target="nvptx")
    x = np.arange(2048, dtype=np.float32)
    # 64 KiB per group: past the default 48 KiB limit (opt-in per function)
    prog["reverse"](x, xmux.LocalMemory(64 * 1024), global_size=(2048,), local_size=(1024,))
    expect = np.arange(2048, dtype=np.float32).reshape(2, 1024)[:, ::-1].ravel()
    np.testing.assert_array_equal(x, expect)


def test_profile_uses_device_events() -> None:
    import cupy as cp

    prog = xmux.compile(SAXPY, target="nvptx")
    n = 1 << 22
    x = cp.ones(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    p = prog["saxpy"](1.0, x, y, False, 0.0, global_size=(n,), profile=True)
    assert isinstance(p, xmux.LaunchProfile)
    assert 0 < p.seconds < 1.0


def test_bad_arguments_name_the_kernel_and_argument() -> None:
    import cupy as cp

    prog = xmux.compile(SAXPY, target="nvptx")
    k = prog["saxpy"]
    with pytest.raises(xmux.LaunchError,
                       match=r"kernel 'saxpy' argument 1 \('x'\): expected dtype float32"):
        k(1.0, cp.zeros(4, cp.float64), cp.zeros(4, cp.float32), False, 0.0,
          global_size=(4,))
    with pytest.raises(xmux.LaunchError, match="kernel 'saxpy' takes 5 arguments"):
        k(1.0, global_size=(4,))
    with pytest.raises(xmux.LaunchError, match="exceeds a CUDA block"):
        k(1.0, cp.zeros(4096, cp.float32), cp.zeros(4096, cp.float32), False, 0.0,
          global_size=(4096,), local_size=(2048,))
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(xmux.LaunchError, match="read-only"):
        k(1.0, np.zeros(4, np.float32), ro, False, 0.0, global_size=(4,))
