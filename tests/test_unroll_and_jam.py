"""work-item-unroll-and-jam keeps results exact: matmul-like kernels against numpy and
bit for bit against the same kernel compiled without it (jamming keeps each work-item's
order of operations), for local sizes that are and are not multiples of the factor, in the
generic code and in the local-size variants (the second launch with one local size)."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from tests.kernel_texts import MATMUL
from xmux import pipelines

# 3-D: a batch of matmuls, z the batch; two accumulators (sum and max of products)
BATCHED = """
func.func @batched(%n: index, %A: memref<?x?x?xf64>, %B: memref<?x?x?xf64>,
                   %C: memref<?x?x?xf64>, %M: memref<?x?x?xf64>)
    attributes {mux.kernel = "entry_point"} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %z = mux.get_global_id 2 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %low = arith.constant -1.0e300 : f64
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero, %m = %low) -> (f64, f64) {
    %a = memref.load %A[%z, %row, %k] : memref<?x?x?xf64>
    %b = memref.load %B[%z, %k, %col] : memref<?x?x?xf64>
    %p = arith.mulf %a, %b : f64
    %t = arith.addf %s, %p : f64
    %u = arith.maximumf %m, %p : f64
    scf.yield %t, %u : f64, f64
  }
  memref.store %r#0, %C[%z, %row, %col] : memref<?x?x?xf64>
  memref.store %r#1, %M[%z, %row, %col] : memref<?x?x?xf64>
  func.return
}
"""

# accumulates straight into C (a loop-carried dependence through global memory, race-free:
# each work-item owns its element), through a private ring of the last 3 products, and
# with a bounds check on the row (varying) and one on n (the same for every row)
CARRIED = """
func.func @carried(%n: index, %m: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>,
                   %C: memref<?x?xf32>, %D: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %ring = memref.alloca() : memref<3xf32>
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %inside = arith.cmpi ult, %row, %m : index
  scf.if %inside {
    memref.store %zero, %C[%row, %col] : memref<?x?xf32>
    memref.store %zero, %ring[%c0] : memref<3xf32>
    memref.store %zero, %ring[%c1] : memref<3xf32>
    memref.store %zero, %ring[%c2] : memref<3xf32>
    scf.for %k = %c0 to %n step %c1 {
      %a = memref.load %A[%row, %k] : memref<?x?xf32>
      %b = memref.load %B[%k, %col] : memref<?x?xf32>
      %p = arith.mulf %a, %b : f32
      %old = memref.load %C[%row, %col] : memref<?x?xf32>
      %new = arith.addf %old, %p : f32
      memref.store %new, %C[%row, %col] : memref<?x?xf32>
      %slot = arith.remui %k, %c3 : index
      memref.store %p, %ring[%slot] : memref<3xf32>
    }
    %big = arith.cmpi ugt, %n, %c2 : index
    %last = scf.if %big -> (f32) {
      %r0 = memref.load %ring[%c0] : memref<3xf32>
      %r1 = memref.load %ring[%c1] : memref<3xf32>
      %r2 = memref.load %ring[%c2] : memref<3xf32>
      %s01 = arith.addf %r0, %r1 : f32
      %s = arith.addf %s01, %r2 : f32
      scf.yield %s : f32
    } else {
      scf.yield %zero : f32
    }
    memref.store %last, %D[%row, %col] : memref<?x?xf32>
  }
  func.return
}
"""

# a tile of A and B in local memory, barriers between the phases (TILE = 4)
TILED = """
module {
  memref.global "private" @As : memref<4x4xf32, 3>
  memref.global "private" @Bs : memref<4x4xf32, 3>
  func.func @tiled(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
      attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 4, 1>} {
    %col = mux.get_global_id 0 : index
    %row = mux.get_global_id 1 : index
    %lx = mux.get_local_id 0 : index
    %ly = mux.get_local_id 1 : index
    %as = memref.get_global @As : memref<4x4xf32, 3>
    %bs = memref.get_global @Bs : memref<4x4xf32, 3>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %acc = scf.for %t = %c0 to %n step %c4 iter_args(%s = %zero) -> (f32) {
      %ka = arith.addi %t, %lx : index
      %kb = arith.addi %t, %ly : index
      %a = memref.load %A[%row, %ka] : memref<?x?xf32>
      %b = memref.load %B[%kb, %col] : memref<?x?xf32>
      memref.store %a, %as[%ly, %lx] : memref<4x4xf32, 3>
      memref.store %b, %bs[%ly, %lx] : memref<4x4xf32, 3>
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      %part = scf.for %k = %c0 to %c4 step %c1 iter_args(%p = %s) -> (f32) {
        %u = memref.load %as[%ly, %k] : memref<4x4xf32, 3>
        %v = memref.load %bs[%k, %lx] : memref<4x4xf32, 3>
        %w = arith.mulf %u, %v : f32
        %q = arith.addf %p, %w : f32
        scf.yield %q : f32
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      scf.yield %part : f32
    }
    memref.store %acc, %C[%row, %col] : memref<?x?xf32>
    func.return
  }
}
"""

# 1-D, one dot product per work-item: no outer dimension to jam
MATVEC = """
func.func @matvec(%n: index, %A: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%i, %k] : memref<?x?xf32>
    %b = memref.load %x[%k] : memref<?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %y[%i] : memref<?xf32>
  func.return
}
"""


def _jammed(src: str, factor: int, reqd: tuple[int, int, int] | None = None) -> int:
    """How many loops the pass jammed in ``src`` (with the required size ``reqd``): its
    block loops are the ones hinted not to be vectorized."""
    from xdsl.dialects import scf

    from xmux.api import parse, run_pipeline
    from xmux.dialects import attrs

    module = parse(src)
    if reqd is not None:
        for f in attrs.entry_points(module):
            attrs.set_reqd_work_group_size(f, reqd)
    passes = pipelines.cpu(unroll_jam=factor)
    run_pipeline(module, passes[: pipelines.index_of(passes, "work-item-unroll-and-jam") + 1])
    return sum(1 for op in module.walk()
               if isinstance(op, scf.ForOp) and attrs.get_loop_vectorize_width(op) == 1)


def test_the_pass_applies_to_these_kernels():
    assert _jammed(MATMUL, 4) == 1
    assert _jammed(MATMUL, 0, (16, 16, 1)) == 1
    assert _jammed(MATMUL, 0, (16, 1, 1)) == 0  # one row per group
    assert _jammed(BATCHED, 2) == 1  # the rows, not the batch
    assert _jammed(CARRIED, 4) == 1
    assert _jammed(TILED, 2) == 1  # the barrier region of the product, not the copies
    assert _jammed(MATVEC, 4) == 0
    assert _jammed(MATMUL, 1) == 0


def _compile(src: str, factor: int):
    return xmux.compile(src, pipeline=pipelines.cpu(unroll_jam=factor), cache=False)


def _launches(k, make_args, out_index, global_size, local_size, times=3):
    """Outputs of ``times`` launches: the generic code, then the local-size variant."""
    outs = []
    for _ in range(times):
        args = make_args()
        k(*args, global_size=global_size, local_size=local_size)
        outs.append([args[i].copy() for i in out_index])
    return outs


@pytest.mark.parametrize("factor", [0, 3, 4])
@pytest.mark.parametrize("local", [(16, 16), (5, 3), (4, 7), (8, 1), (2, 9), (37, 2)])
def test_matmul(factor, local):
    rng = np.random.default_rng(sum(local) + factor)
    rows, cols, n = local[1] * 3, local[0] * 2, 37
    a = rng.standard_normal((rows, n)).astype(np.float32)
    b = rng.standard_normal((n, cols)).astype(np.float32)

    def args():
        return [n, a, b, np.zeros((rows, cols), np.float32)]

    want = a.astype(np.float64) @ b.astype(np.float64)
    base = _launches(_compile(MATMUL, 1).kernel("matmul"), args, [3], (cols, rows), local, 1)
    k = _compile(MATMUL, factor).kernel("matmul")
    for (c,) in _launches(k, args, [3], (cols, rows), local):
        np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(c, base[0][0])


def test_matmul_non_uniform_groups():
    """The last group of each dimension is smaller (the generic code runs them)."""
    rng = np.random.default_rng(5)
    rows, cols, n = 23, 19, 11
    a = rng.standard_normal((rows, n)).astype(np.float32)
    b = rng.standard_normal((n, cols)).astype(np.float32)
    k = _compile(MATMUL, 4).kernel("matmul")
    for (c,) in _launches(k, lambda: [n, a, b, np.zeros((rows, cols), np.float32)], [3],
                          (cols, rows), (8, 6)):
        np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("factor", [0, 2, 3])
@pytest.mark.parametrize("local", [(4, 4, 2), (3, 5, 3), (8, 2, 1)])
def test_batched_3d(factor, local):
    rng = np.random.default_rng(local[2] * 10 + factor)
    batch, rows, cols, n = local[2] * 2, local[1] * 2, local[0] * 3, 13
    a = rng.standard_normal((batch, rows, n))
    b = rng.standard_normal((batch, n, cols))

    def args():
        return [n, a, b, np.zeros((batch, rows, cols)), np.zeros((batch, rows, cols))]

    prod = a[:, :, :, None] * b[:, None, :, :]
    k = _compile(BATCHED, factor).kernel("batched")
    for c, m in _launches(k, args, [3, 4], (cols, rows, batch), local):
        np.testing.assert_allclose(c, a @ b, rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(m, prod.max(axis=2))


@pytest.mark.parametrize("factor", [0, 4])
@pytest.mark.parametrize("local", [(8, 8), (3, 5)])
def test_carried_through_memory_private_ring_and_conditions(factor, local):
    rng = np.random.default_rng(factor + local[0])
    rows, cols = local[1] * 3, local[0] * 2
    m = rows - 2  # the last two rows are outside: left as they were
    for n in (7, 2):
        a = rng.standard_normal((rows, n)).astype(np.float32)
        b = rng.standard_normal((n, cols)).astype(np.float32)

        def args(n=n, a=a, b=b):
            return [n, m, a, b, np.full((rows, cols), 9, np.float32),
                    np.full((rows, cols), 9, np.float32)]

        base = _launches(_compile(CARRIED, 1).kernel("carried"), args, [4, 5], (cols, rows),
                         local, 1)[0]
        k = _compile(CARRIED, factor).kernel("carried")
        prods = a[:m, :, None] * b[None, :, :]
        for c, d in _launches(k, args, [4, 5], (cols, rows), local):
            np.testing.assert_allclose(c[:m], prods.sum(axis=1), rtol=1e-4, atol=1e-4)
            np.testing.assert_array_equal(c[m:], 9)
            want_d = prods[:, -3:].sum(axis=1) if n > 2 else np.zeros((m, cols))
            np.testing.assert_allclose(d[:m], want_d, rtol=1e-4, atol=1e-4)
            np.testing.assert_array_equal(c, base[0])
            np.testing.assert_array_equal(d, base[1])


@pytest.mark.parametrize("factor", [0, 2, 4])
def test_tiled_with_barriers(factor):
    rng = np.random.default_rng(factor)
    size = 12
    a = rng.standard_normal((size, size)).astype(np.float32)
    b = rng.standard_normal((size, size)).astype(np.float32)
    k = _compile(TILED, factor).kernel("tiled")
    for (c,) in _launches(k, lambda: [size, a, b, np.zeros((size, size), np.float32)], [3],
                          (size, size), (4, 4)):
        np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_one_dimensional_kernel():
    rng = np.random.default_rng(3)
    rows, n = 40, 17
    a = rng.standard_normal((rows, n)).astype(np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    k = _compile(MATVEC, 0).kernel("matvec")
    for (y,) in _launches(k, lambda: [n, a, x, np.zeros(rows, np.float32)], [3], (rows,),
                          (8,)):
        np.testing.assert_allclose(y, a.astype(np.float64) @ x, rtol=1e-4, atol=1e-4)


def test_bad_factor_is_rejected():
    with pytest.raises(ValueError, match="unroll_jam"):
        pipelines.cpu(unroll_jam=17)
    with pytest.raises(xmux.XmuxError, match="work-item-unroll-and-jam: factor"):
        xmux.compile(MATMUL, pipeline="work-item-unroll-and-jam{factor=99},convert-to-llvm")


@pytest.mark.parametrize("local", [(8, 8), (6, 5)])
def test_with_the_vector_width_schedule(local):
    """work-item-loops' W-wide blocks plus scalar tail inside the jammed rows."""
    rng = np.random.default_rng(local[1])
    rows, cols, n = local[1] * 2, local[0] * 3, 9
    a = rng.standard_normal((rows, n)).astype(np.float32)
    b = rng.standard_normal((n, cols)).astype(np.float32)
    prog = xmux.compile(MATMUL, pipeline=pipelines.cpu(unroll_jam=4, vector_width=4),
                        cache=False)
    base = _launches(_compile(MATMUL, 1).kernel("matmul"),
                     lambda: [n, a, b, np.zeros((rows, cols), np.float32)], [3], (cols, rows),
                     local, 1)[0][0]
    for (c,) in _launches(prog.kernel("matmul"),
                          lambda: [n, a, b, np.zeros((rows, cols), np.float32)], [3],
                          (cols, rows), local):
        np.testing.assert_array_equal(c, base)
