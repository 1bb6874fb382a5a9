"""hoist-uniform-loads end to end: kernels whose uniform loads leave the work-item loops compute
what numpy does, and a load that follows a store of its own work-item still sees the store."""

from __future__ import annotations

import numpy as np

import xmux

AFFINE = """
func.func @affine(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %w: memref<2xf32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.load %w[%c0] : memref<2xf32>
  %b = memref.load %w[%c1] : memref<2xf32>
  %v = memref.load %in[%y, %x] : memref<?x?xf32>
  %m = arith.mulf %v, %a : f32
  %r = arith.addf %m, %b : f32
  memref.store %r, %out[%y, %x] : memref<?x?xf32>
  func.return
}
"""


def test_coefficients_from_a_buffer() -> None:
    k = xmux.compile(AFFINE, cache=False)["affine"]
    rng = np.random.default_rng(7)
    img = rng.random((13, 40), dtype=np.float32)
    out = np.zeros_like(img)
    for w in ([2.0, 0.5], [-1.0, 3.0], [0.25, 0.0]):
        w32 = np.array(w, np.float32)
        for _ in range(3):  # the plain kernel, then its local-size variant
            out[:] = np.nan
            k(img, out, w32, global_size=(40, 13), local_size=(8, 1))
            np.testing.assert_array_equal(out, img * w32[0] + w32[1])


STORE_THEN_LOAD = """
func.func @store_then_load(%p: memref<?xf32>, %out: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %seven = arith.constant 7.0 : f32
  memref.store %seven, %p[%c0] : memref<?xf32>
  %v = memref.load %p[%c0] : memref<?xf32>
  memref.store %v, %out[%i] : memref<?xf32>
  func.return
}
"""


def test_a_load_after_its_own_store_sees_it() -> None:
    """Every work-item stores 7 to p[0] and then reads p[0] (the same value: no race); the
    load comes after a store, so it stays in the loop and reads 7, not p's old contents."""
    k = xmux.compile(STORE_THEN_LOAD, cache=False)["store_then_load"]
    p = np.zeros(1, np.float32)
    out = np.zeros(64, np.float32)
    k(p, out, global_size=64, local_size=16)
    np.testing.assert_array_equal(out, 7.0)


BROADCAST = """
func.func @broadcast(%a: memref<?xf32>, %t: memref<8xf32, 3>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %t[%l] : memref<8xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %first = memref.load %t[%c0] : memref<8xf32, 3>
  %r = arith.addf %v, %first : f32
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}
"""


def test_local_memory_read_after_a_barrier() -> None:
    k = xmux.compile(BROADCAST, cache=False)["broadcast"]
    a = np.arange(64, dtype=np.float32)
    expect = a + np.repeat(a[::8], 8)
    k(a, xmux.LocalMemory(8 * 4), global_size=64, local_size=8)
    np.testing.assert_array_equal(a, expect)
