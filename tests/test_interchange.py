"""work-item-loop-interchange keeps results exact: kernels with uniform loops vs numpy."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux import pipelines

TWO_ACCS = """
func.func @stats(%n: index, %a: memref<?x?xf32>, %sum: memref<?xf32>, %mx: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first = memref.load %a[%c0, %i] : memref<?x?xf32>
  %r:2 = scf.for %k = %c1 to %n step %c1 iter_args(%s = %first, %m = %first) -> (f32, f32) {
    %x = memref.load %a[%k, %i] : memref<?x?xf32>
    %s2 = arith.addf %s, %x : f32
    %m2 = arith.maximumf %m, %x : f32
    scf.yield %s2, %m2 : f32, f32
  }
  %avg_n = arith.index_cast %n : index to i32
  %fn = arith.sitofp %avg_n : i32 to f32
  %mean = arith.divf %r#0, %fn : f32
  %centred = arith.subf %r#1, %first : f32
  %out = arith.addf %mean, %centred : f32
  memref.store %out, %sum[%i] : memref<?xf32>
  memref.store %r#1, %mx[%i] : memref<?xf32>
  func.return
}
"""

NESTED = """
func.func @nested(%n: index, %m: index, %a: memref<?x?x?xf32>, %out: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %t = scf.for %j = %c0 to %m step %c1 iter_args(%u = %s) -> (f32) {
      %v = memref.load %a[%i, %j, %x] : memref<?x?x?xf32>
      %yi = arith.index_cast %y : index to i32
      %yf = arith.sitofp %yi : i32 to f32
      %w = arith.mulf %v, %yf : f32
      %u2 = arith.addf %u, %w : f32
      scf.yield %u2 : f32
    }
    scf.yield %t : f32
  }
  memref.store %r, %out[%y, %x] : memref<?x?xf32>
  func.return
}
"""


def _both(src: str):
    with_pass = xmux.compile(src, cache=False)
    without = pipelines.cpu()
    without = [p for p in without if p.name != "work-item-loop-interchange"]
    return with_pass, xmux.compile(src, pipeline=without, cache=False)


@pytest.mark.parametrize("n,g,local", [(1, 5, 5), (7, 13, 4), (33, 64, 16), (100, 37, 37)])
def test_two_accumulators_and_crossing_values(n, g, local):
    rng = np.random.default_rng(n)
    a = rng.random((n, g), np.float32)
    for prog in _both(TWO_ACCS):
        s = np.zeros(g, np.float32)
        m = np.zeros(g, np.float32)
        prog.kernel("stats")(n, a, s, m, global_size=g, local_size=local)
        want_sum = np.zeros(g, np.float32)
        for k in range(n):
            want_sum += a[k]
        np.testing.assert_allclose(s, want_sum / np.float32(n) + (a.max(0) - a[0]), rtol=1e-5)
        np.testing.assert_array_equal(m, a.max(0))


@pytest.mark.parametrize("order", [(2, 1, 0), (0, 1, 2)])
def test_nested_uniform_loops(order):
    src = NESTED.replace(
        'mux.kernel = "entry_point"',
        f'mux.kernel = "entry_point", mux.work_item_order = array<i64: {order[0]}, {order[1]}, '
        f"{order[2]}>",
    )
    n, m, gx, gy = 6, 19, 23, 5
    rng = np.random.default_rng(7)
    a = rng.random((n, m, gx), np.float32)
    want = a.sum(axis=(0, 1))[None, :] * np.arange(gy, dtype=np.float32)[:, None]
    for prog in _both(src):
        out = np.zeros((gy, gx), np.float32)
        prog.kernel("nested")(n, m, a, out, global_size=(gx, gy), local_size=(8, 2))
        np.testing.assert_allclose(out, want, rtol=1e-5)


def test_matmul_example_interchanged_matches_numpy():
    prog, plain = _both(open("examples/matmul.mlir").read())
    rng = np.random.default_rng(11)
    n = 45
    a, b = rng.random((n, n), np.float32), rng.random((n, n), np.float32)
    for p in (prog, plain):
        c = np.zeros((n, n), np.float32)
        p.kernel("matmul")(np.int32(n), a, b, c, global_size=(n, n), local_size=(16, 8))
        np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4)


ROW_BOUND = """
func.func @rows(%n: index, %a: memref<?x?xf32>, %out: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %ly = mux.get_local_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.addi %ly, %n : index
  %r = scf.for %k = %c0 to %m step %c1 iter_args(%s = %zero) -> (f32) {
    %v = memref.load %a[%k, %x] : memref<?x?xf32>
    %t = arith.addf %s, %v : f32
    scf.yield %t : f32
  }
  memref.store %r, %out[%y, %x] : memref<?x?xf32>
  func.return
}
"""


@pytest.mark.parametrize("local", [(8, 4), (7, 3), (1, 5), (16, 1)])
def test_bound_from_outer_dimension(local):
    """A trip count that depends on the local y id: uniform in each x loop, interchanged."""
    n, gx, gy = 11, 29, 10
    rng = np.random.default_rng(3)
    a = rng.random((n + local[1], gx), np.float32)
    csum = np.cumsum(a.astype(np.float64), axis=0)
    want = np.stack([csum[n + (y % local[1]) - 1] for y in range(gy)])
    for prog in _both(ROW_BOUND):
        out = np.zeros((gy, gx), np.float32)
        prog.kernel("rows")(n, a, out, global_size=(gx, gy), local_size=local)
        np.testing.assert_allclose(out, want, rtol=1e-5)
