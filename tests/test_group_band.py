"""add-entry-hook's band order of work-groups (``group_band``, on in ``pipelines.cpu()``):
every work-item runs once with its own group's ids, and the naive matmul gives the same bits
as with the plain x-fastest order."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux import pipelines
from xmux.transforms.add_entry_hook import GROUP_BAND, AddEntryHook

ROOT = Path(__file__).resolve().parents[1]

IDS = """
func.func @ids(%count: memref<?x?x?xi32>, %gid: memref<?x?x?xi32>, %ones: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %z = mux.get_global_id 2 : index
  %g0 = mux.get_group_id 0 : index
  %g1 = mux.get_group_id 1 : index
  %g2 = mux.get_group_id 2 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %ones, %c0 : memref<?xi32>
  %old = memref.load %count[%z, %y, %x] : memref<?x?x?xi32>
  // a sweep (a loop of unknown length loading at its induction variable): banded
  %new = scf.for %k = %c0 to %m step %c1 iter_args(%s = %old) -> (i32) {
    %one = memref.load %ones[%k] : memref<?xi32>
    %t = arith.addi %s, %one : i32
    scf.yield %t : i32
  }
  memref.store %new, %count[%z, %y, %x] : memref<?x?x?xi32>
  %c100 = arith.constant 100 : index
  %c10000 = arith.constant 10000 : index
  %t1 = arith.muli %g1, %c100 : index
  %t2 = arith.muli %g2, %c10000 : index
  %s = arith.addi %g0, %t1 : index
  %s2 = arith.addi %s, %t2 : index
  %v = arith.index_cast %s2 : index to i32
  memref.store %v, %gid[%z, %y, %x] : memref<?x?x?xi32>
  func.return
}
"""


def _band(width: int) -> list:
    """The CPU pipeline with add-entry-hook's band width set to ``width``."""
    return [dataclasses.replace(p, group_band=width) if isinstance(p, AddEntryHook) else p
            for p in pipelines.cpu()]


def test_default_pipeline_bands() -> None:
    hooks = [p for p in pipelines.cpu() if isinstance(p, AddEntryHook)]
    assert [h.group_band for h in hooks] == [GROUP_BAND] and GROUP_BAND > 1


@pytest.mark.parametrize("threads", [1, 2])
def test_every_work_item_once_with_its_group_ids(threads: int) -> None:
    # 10 x 5 x 2 groups: a band of 8 columns and a last one of 2, remainder groups on x and y
    g, lsz = (37, 23, 3), (4, 5, 2)
    k = xmux.compile(IDS, pipeline=_band(8)).kernel("ids")
    count = np.zeros(g[::-1], np.int32)
    gid = np.full(g[::-1], -1, np.int32)
    k(count, gid, np.ones(1, np.int32), global_size=g, local_size=lsz, threads=threads)
    assert (count == 1).all()
    z, y, x = np.indices(g[::-1])
    want = x // lsz[0] + 100 * (y // lsz[1]) + 10000 * (z // lsz[2])
    np.testing.assert_array_equal(gid, want)


def test_matmul_bitwise_across_group_orders() -> None:
    n = 200  # 13 x 13 groups of 16 x 16: a band of 8 columns, one of 5, remainder groups
    src = (ROOT / "bench" / "kernels" / "matmul_naive.mlir").read_text()
    rng = np.random.default_rng(3)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    out = {}
    for width in (0, GROUP_BAND):
        c = np.zeros((n, n), np.float32)
        xmux.compile(src, pipeline=_band(width)).kernel("matmul_naive")(
            np.int32(n), a, b, c, global_size=(n, n), local_size=(16, 16), threads=2)
        out[width] = c
    np.testing.assert_allclose(out[GROUP_BAND], a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)
    assert out[GROUP_BAND].tobytes() == out[0].tobytes()
