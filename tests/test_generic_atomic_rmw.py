"""memref.generic_atomic_rmw in kernels (lower-generic-atomic-rmw): results against numpy, with
work-items of many threads contending for the same elements."""

from __future__ import annotations

import numpy as np
import pytest

import xmux

TICKETS = """
func.func @tickets(%ctr: memref<1xi64>, %out: memref<?xi64>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %old = memref.generic_atomic_rmw %ctr[%c0] : memref<1xi64> {
  ^bb0(%cur: i64):
    %one = arith.constant 1 : i64
    %n = arith.addi %cur, %one : i64
    memref.atomic_yield %n : i64
  }
  memref.store %old, %out[%i] : memref<?xi64>
  return
}
"""

STATS = """
func.func @stats(%x: memref<?xf32>, %acc: memref<3x2xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %c3 = arith.constant 3 : index
  %row = arith.remui %i, %c3 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.generic_atomic_rmw %acc[%row, %c0] : memref<3x2xf32> {
  ^bb0(%cur: f32):
    %r = arith.maximumf %cur, %v : f32
    memref.atomic_yield %r : f32
  }
  %s = memref.generic_atomic_rmw %acc[%row, %c1] : memref<3x2xf32> {
  ^bb0(%cur: f32):
    %sq = arith.mulf %v, %v : f32
    %r = arith.addf %cur, %sq : f32
    memref.atomic_yield %r : f32
  }
  return
}
"""

LOCAL_HISTOGRAM = """
memref.global "private" @bins : memref<8xi32, 3> = uninitialized
func.func @hist(%x: memref<?xi32>, %out: memref<?x8xi32>)
    attributes {mux.kernel = "entry_point"} {
  %l = mux.get_local_id 0 : index
  %g = mux.get_group_id 0 : index
  %i = mux.get_global_id 0 : index
  %bins = memref.get_global @bins : memref<8xi32, 3>
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %first = arith.cmpi ult, %l, %c8 : index
  scf.if %first {
    memref.store %zero, %bins[%l] : memref<8xi32, 3>
  }
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %v = memref.load %x[%i] : memref<?xi32>
  %b = arith.index_cast %v : i32 to index
  %old = memref.generic_atomic_rmw %bins[%b] : memref<8xi32, 3> {
  ^bb0(%cur: i32):
    %one = arith.constant 1 : i32
    %n = arith.addi %cur, %one : i32
    memref.atomic_yield %n : i32
  }
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  scf.if %first {
    %c = memref.load %bins[%l] : memref<8xi32, 3>
    memref.store %c, %out[%g, %l] : memref<?x8xi32>
  }
  return
}
"""


@pytest.mark.parametrize("n, local", [(1, 1), (997, 1), (4096, 64)])
def test_fetch_and_increment_gives_every_ticket_once(n, local):
    k = xmux.compile(TICKETS, threads=4).kernel("tickets")
    ctr = np.zeros(1, np.int64)
    out = np.full(n, -1, np.int64)
    k(ctr, out, global_size=n, local_size=local)
    assert ctr[0] == n
    np.testing.assert_array_equal(np.sort(out), np.arange(n))


def test_float_max_and_sum_of_squares_per_row():
    k = xmux.compile(STATS, threads=4).kernel("stats")
    rng = np.random.default_rng(5)
    n = 3001
    x = rng.integers(-50, 50, n).astype(np.float32)  # exact sums
    acc = np.zeros((3, 2), np.float32)
    acc[:, 0] = -np.inf
    k(x, acc, global_size=n, local_size=7)
    for r in range(3):
        np.testing.assert_array_equal(acc[r], [x[r::3].max(), (x[r::3] ** 2).sum()])


def test_local_memory_histogram_per_work_group():
    k = xmux.compile(LOCAL_HISTOGRAM, threads=4).kernel("hist")
    rng = np.random.default_rng(6)
    groups, local = 12, 64
    x = rng.integers(0, 8, groups * local).astype(np.int32)
    out = np.zeros((groups, 8), np.int32)
    k(x, out, global_size=groups * local, local_size=local)
    want = np.stack([np.bincount(x[g * local:(g + 1) * local], minlength=8)
                     for g in range(groups)])
    np.testing.assert_array_equal(out, want)
