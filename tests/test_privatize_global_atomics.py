"""privatize-global-atomics + add-entry-hook: kernels whose global arrays only take
result-less atomics of one kind run each thread slice on a private copy flushed with one
atomic per changed element. Numerics against numpy for every kind, uniform and contended
inputs, 1/2/4 threads, partial work-groups, strided views, arrays over the size limit, and
arguments that alias (which must take the shared path)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.transforms.privatize_global_atomics import MAX_PRIVATE_BYTES

ROOT = Path(__file__).resolve().parents[1]
GLOBAL = (ROOT / "bench" / "kernels" / "histogram.mlir").read_text()

HIST_DYN = """
func.func @hist(%data: memref<?xi32>, %bins: memref<?xi32>, %nbins: index)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %data[%i] : memref<?xi32>
  %x = arith.index_cast %v : i32 to index
  %b = arith.remui %x, %nbins : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %bins[%b] : (i32, memref<?xi32>) -> i32
  return
}
"""


@pytest.fixture(scope="module")
def hist() -> xmux.Kernel:
    prog = xmux.compile(GLOBAL, cache=False)
    assert "histogram.mux-privatized" in prog.llvm_ir
    return prog["histogram"]


@pytest.fixture(scope="module")
def hist_dyn() -> xmux.Kernel:
    return xmux.compile(HIST_DYN, cache=False)["hist"]


@pytest.mark.parametrize("hi", [256, 4, 1])
@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("n, local", [(1 << 16, 256), (1000, 64), (256 * 40 + 3, 256), (5, 4)])
def test_histogram_matches_bincount(hist, hi, threads, n, local):
    """Uniform bytes, bytes in 0..3 and one bin; partial last groups and a launch smaller
    than the bins (the shared path); counts add to what the bins held."""
    data = np.random.default_rng(n + hi + threads).integers(0, hi, n, dtype=np.uint8)
    start = np.arange(256, dtype=np.int32) * 7
    for _ in range(2):  # the second launch runs the local-size variant
        bins = start.copy()
        hist(data.view(np.int8), bins, global_size=n, local_size=local, threads=threads)
        np.testing.assert_array_equal(bins, start + np.bincount(data, minlength=256))


@pytest.mark.parametrize("nbins", [1, 3, 1000, MAX_PRIVATE_BYTES // 4, MAX_PRIVATE_BYTES // 4 + 1,
                                   50000])
@pytest.mark.parametrize("threads", [1, 3])
def test_bin_counts_around_the_size_limit(hist_dyn, nbins, threads):
    """Arrays up to 64 KiB are privatized, larger ones take the shared atomics: both exact."""
    n = 1 << 17
    data = np.random.default_rng(nbins).integers(0, 1 << 30, n, dtype=np.int32)
    bins = np.ones(nbins, np.int32)
    hist_dyn(data, bins, nbins, global_size=n, local_size=128, threads=threads)
    np.testing.assert_array_equal(bins, 1 + np.bincount(data % nbins, minlength=nbins))


@pytest.mark.parametrize("view", [slice(None, None, 3), slice(7, None, 2), slice(None, None, -2)])
def test_strided_views_touch_only_their_elements(view):
    """Strided views (strides 3 and 2, an offset, a negative stride: the shared path): the
    copy covers the span, the flush writes only the view's elements."""
    src = HIST_DYN.replace("%bins: memref<?xi32>", "%bins: memref<?xi32, strided<[?], offset: ?>>")
    k = xmux.compile(src.replace("(i32, memref<?xi32>)",
                                 "(i32, memref<?xi32, strided<[?], offset: ?>>)"),
                     cache=False)["hist"]
    n = 1 << 15
    data = np.random.default_rng(1).integers(0, 1000, n, dtype=np.int32)
    big = np.full(301, 5, np.int32)
    bins = big[view]
    nbins = len(bins)
    k(data, bins, nbins, global_size=n, local_size=64, threads=2)
    want = np.full(301, 5, np.int32)
    want[view] += np.bincount(data % nbins, minlength=nbins).astype(np.int32)
    np.testing.assert_array_equal(big, want)


SHIFT = """
func.func @shift(%src: memref<?xi32>, %acc: memref<?xi32>, %m: index, %n: index)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %im = arith.addi %i, %m : index
  %j = arith.remui %im, %n : index
  %v = memref.load %src[%j] : memref<?xi32>
  %k = arith.remui %i, %m : index
  %0 = memref.atomic_rmw addi %v, %acc[%k] : (i32, memref<?xi32>) -> i32
  return
}
"""


def test_aliasing_arguments_take_the_shared_path():
    """acc[i % m] += src[(i + m) % n] with acc and src the same memory: on one thread,
    work-item order, the reads of the second half see the first half's updates (a private
    copy would hide them): acc[j] = 2·(orig[j] + orig[j+m]); with the overlap check off
    this test fails. Separate buffers, and disjoint views of one array, are privatized."""
    k = xmux.compile(SHIFT, cache=False)["shift"]
    n, m = 2048, 1024
    orig = np.random.default_rng(3).integers(-1000, 1000, n, dtype=np.int32)
    buf = orig.copy()
    k(buf, buf, m, n, global_size=n, local_size=64, threads=1)
    np.testing.assert_array_equal(buf[:m], 2 * (orig[:m] + orig[m:]))
    buf = orig.copy()
    k(buf, buf[:m], m, n, global_size=n, local_size=64, threads=1)  # overlapping views
    np.testing.assert_array_equal(buf[:m], 2 * (orig[:m] + orig[m:]))
    # disjoint: src is the whole other array
    src, acc = orig.copy(), np.zeros(m, np.int32)
    k(src, acc, m, n, global_size=n, local_size=64, threads=2)
    np.testing.assert_array_equal(acc, orig[m:] + orig[:m])
    # disjoint views of one array: acc = big[:m], src = big[m:] (n = m, so src[(i+m) % m])
    big = np.concatenate([np.zeros(m, np.int32), orig[:m]])
    k(big[m:], big[:m], m, m, global_size=n, local_size=64, threads=2)
    np.testing.assert_array_equal(big[:m], 2 * orig[:m])


KINDS = """
func.func @kinds(%x: memref<?xi32>, %add: memref<?xi64>, %or: memref<?xi32>,
                 %and: memref<?xi16>, %smax: memref<?xi32>, %umax: memref<?xi8>,
                 %smin: memref<?xi64>, %umin: memref<?xi32>, %nb: index)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %b = arith.remui %i, %nb : index
  %v64 = arith.extsi %v : i32 to i64
  %v16 = arith.trunci %v : i32 to i16
  %v8 = arith.trunci %v : i32 to i8
  %0 = memref.atomic_rmw addi %v64, %add[%b] : (i64, memref<?xi64>) -> i64
  %1 = memref.atomic_rmw ori %v, %or[%b] : (i32, memref<?xi32>) -> i32
  %2 = memref.atomic_rmw andi %v16, %and[%b] : (i16, memref<?xi16>) -> i16
  %3 = memref.atomic_rmw maxs %v, %smax[%b] : (i32, memref<?xi32>) -> i32
  %4 = memref.atomic_rmw maxu %v8, %umax[%b] : (i8, memref<?xi8>) -> i8
  %5 = memref.atomic_rmw mins %v64, %smin[%b] : (i64, memref<?xi64>) -> i64
  %6 = memref.atomic_rmw minu %v, %umin[%b] : (i32, memref<?xi32>) -> i32
  return
}
"""


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("n, local, nb", [(1 << 14, 128, 37), (3001, 50, 7), (1 << 12, 256, 1)])
def test_every_kind(threads, n, local, nb):
    """Each privatizable kind, on 8- to 64-bit elements, against numpy's ufunc.at from
    starting values that are not the identity."""
    prog = xmux.compile(KINDS, cache=False)
    assert prog.llvm_ir.count("atomicrmw") >= 14  # shared path and flush of each kind
    rng = np.random.default_rng(n + threads)
    x = rng.integers(-(1 << 31), 1 << 31, n, dtype=np.int64).astype(np.int32)
    b = np.arange(n) % nb
    start = {
        "add": (np.int64, 10), "or": (np.int32, 1 << 30), "and": (np.int16, -2),
        "smax": (np.int32, -7), "umax": (np.uint8, 3), "smin": (np.int64, 9),
        "umin": (np.uint32, 1 << 31),
    }
    arrs = {k: np.full(nb, v, t) for k, (t, v) in start.items()}
    prog["kinds"](x, arrs["add"], arrs["or"].view(np.int32), arrs["and"], arrs["smax"],
                  arrs["umax"].view(np.int8), arrs["smin"], arrs["umin"].view(np.int32), nb,
                  global_size=n, local_size=local, threads=threads)
    want = {k: np.full(nb, v, t) for k, (t, v) in start.items()}
    np.add.at(want["add"], b, x.astype(np.int64))
    np.bitwise_or.at(want["or"], b, x)
    np.bitwise_and.at(want["and"], b, x.astype(np.int16))
    np.maximum.at(want["smax"], b, x)
    np.maximum.at(want["umax"], b, x.astype(np.uint8))
    np.minimum.at(want["smin"], b, x.astype(np.int64))
    np.minimum.at(want["umin"], b, x.view(np.uint32))
    for k in start:
        np.testing.assert_array_equal(arrs[k], want[k], err_msg=k)


SHAPES = """
func.func @shapes(%x: memref<?xi32>, %count: memref<i64>, %grid: memref<?x4xi32>,
                  %rows: index) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %vi = arith.index_cast %v : i32 to index
  %c4 = arith.constant 4 : index
  %r0 = arith.divui %vi, %c4 : index
  %r = arith.remui %r0, %rows : index
  %c = arith.remui %vi, %c4 : index
  %one = arith.constant 1 : i64
  %0 = memref.atomic_rmw addi %one, %count[] : (i64, memref<i64>) -> i64
  %1 = memref.atomic_rmw maxu %v, %grid[%r, %c] : (i32, memref<?x4xi32>) -> i32
  return
}
"""


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_rank_0_counter_and_2d_array(threads):
    """A rank-0 counter (span 1) and a 2-D array (span rows·4) privatized together."""
    prog = xmux.compile(SHAPES, cache=False)
    assert "shapes.mux-privatized" in prog.llvm_ir
    k = prog["shapes"]
    n, rows = 5000, 9
    x = np.random.default_rng(threads).integers(0, 1 << 20, n, dtype=np.int32)
    count = np.array(3, np.int64)
    grid = np.zeros((rows, 4), np.int32)
    k(x, count, grid, rows, global_size=n, local_size=100, threads=threads)
    assert count == 3 + n
    want = np.zeros((rows, 4), np.uint32)
    np.maximum.at(want, ((x // 4) % rows, x % 4), x.view(np.uint32))
    np.testing.assert_array_equal(grid.view(np.uint32), want)


TWO = """
func.func @two(%data: memref<?xi32>, %p: memref<?xi32>, %q: memref<?xi32>, %nbins: index)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %data[%i] : memref<?xi32>
  %x = arith.index_cast %v : i32 to index
  %b = arith.remui %x, %nbins : index
  %one = arith.constant 1 : i32
  %0 = memref.atomic_rmw addi %one, %p[%b] : (i32, memref<?xi32>) -> i32
  %1 = memref.atomic_rmw maxu %v, %q[%b] : (i32, memref<?xi32>) -> i32
  return
}
"""


@pytest.mark.parametrize("nbins", [100, MAX_PRIVATE_BYTES // 8, MAX_PRIVATE_BYTES // 8 + 1])
def test_two_arrays_share_the_limit(nbins):
    """Two privatized arrays: together up to 64 KiB (the last size takes the shared path)."""
    k = xmux.compile(TWO, cache=False)["two"]
    n = 1 << 17
    data = np.random.default_rng(nbins).integers(0, 1 << 30, n, dtype=np.int32)
    p, q = np.zeros(nbins, np.int32), np.zeros(nbins, np.int32)
    k(data, p, q, nbins, global_size=n, local_size=128, threads=2)
    np.testing.assert_array_equal(p, np.bincount(data % nbins, minlength=nbins))
    want = np.zeros(nbins, np.int32)
    np.maximum.at(want, data % nbins, data)
    np.testing.assert_array_equal(q, want)


def test_one_array_as_two_privatized_arguments():
    """The same array as %p (addi) and %q (maxu): their extents overlap, so the slice runs
    the shared kernel; on one thread the updates interleave in work-item order."""
    k = xmux.compile(TWO, cache=False)["two"]
    n, nbins = 4096, 16
    data = np.random.default_rng(5).integers(0, 1 << 12, n, dtype=np.int32)
    arr = np.zeros(nbins, np.int32)
    k(data, arr, arr, nbins, global_size=n, local_size=64, threads=1)
    want = [0] * nbins
    for v in data.tolist():
        want[v % nbins] += 1
        want[v % nbins] = max(want[v % nbins], v)
    np.testing.assert_array_equal(arr, want)
