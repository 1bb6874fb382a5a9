"""Repeated launches with one local size run a work-group function compiled for that size."""

from __future__ import annotations

import numpy as np

import xmux

SRC = """
func.func @scale(%a: memref<?x?xf32>, %out: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %lx = mux.get_local_size 0 : index
  %v = memref.load %a[%y, %x] : memref<?x?xf32>
  %li = arith.index_cast %lx : index to i32
  %lf = arith.sitofp %li : i32 to f32
  %r = arith.mulf %v, %lf : f32
  memref.store %r, %out[%y, %x] : memref<?x?xf32>
  func.return
}
"""


def _run(k, a, local):
    out = np.zeros_like(a)
    k(a, out, global_size=(a.shape[1], a.shape[0]), local_size=local)
    return out


def test_second_uniform_launch_uses_a_specialised_variant():
    prog = xmux.compile(SRC, cache=False)
    k = prog.kernel("scale")
    a = np.random.default_rng(0).random((12, 40), np.float32)
    for _ in range(3):
        np.testing.assert_array_equal(_run(k, a, (8, 3)), a * 8)
    assert list(k._launcher.variants.built) == [(8, 3, 1)]
    # another local size gets its own variant; results follow the actual local size
    for _ in range(2):
        np.testing.assert_array_equal(_run(k, a, (20, 2)), a * 20)
    assert (20, 2, 1) in k._launcher.variants.built


def test_non_uniform_launches_stay_generic():
    prog = xmux.compile(SRC, cache=False)
    k = prog.kernel("scale")
    a = np.random.default_rng(1).random((5, 13), np.float32)
    want = a.copy()
    want[:, :8] *= 8
    want[:, 8:] *= 5  # the remainder group is 5 wide
    for _ in range(3):
        np.testing.assert_array_equal(_run(k, a, (8, 1)), want)
    assert not k._launcher.variants.built


def test_specialization_can_be_turned_off():
    prog = xmux.compile(SRC, cache=False, specialize=False)
    k = prog.kernel("scale")
    a = np.ones((4, 8), np.float32)
    for _ in range(3):
        np.testing.assert_array_equal(_run(k, a, (4, 2)), a * 4)
    assert not k._launcher.variants.built
