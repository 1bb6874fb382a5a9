"""Lifted ops that yield, as is, the result of another lifted op (issue 12's known bug).

Each shape hands a per-work-item value from one op that holds a barrier straight to the
iteration value of another (no op in between, so no segment materialises it): the copy
at the region edge must move it from one per-work-item array to the other. Checked
against a numpy model of the work-group, at the default thread count and ``threads=1``,
and on the per-local-size variant that a second launch with the same local size builds.
"""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from tests.test_barriers import BARRIER, groups, kernel

SHAPES: dict[str, str] = {}
REFS = {}

# scf.for whose body yields the result of an scf.if holding a barrier
SHAPES["for_yields_if"] = kernel(
    "for_yields_if",
    """
  %flag = arith.cmpi ugt, %k, %c1 : index
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %v) -> (i32) {
    %y = scf.if %flag -> (i32) {
      memref.store %acc, %t[%lid] : memref<256xi32, 3>
      BARRIER
      %w = memref.load %t[%next] : memref<256xi32, 3>
      %s = arith.addi %acc, %w : i32
      BARRIER
      scf.yield %s : i32
    } else {
      %s2 = arith.addi %acc, %acc : i32
      scf.yield %s2 : i32
    }
    scf.yield %y : i32
  }
  memref.store %r, %out[%gid] : memref<?xi32>""",
    ", %k: index",
)


def _for_yields_if(x, k):
    for _ in range(k):
        x = x + np.roll(x, -1) if k > 1 else x + x
    return x


REFS["for_yields_if"] = _for_yields_if

# scf.while whose body yields such an scf.if result as its result 0
SHAPES["while_yields_if"] = kernel(
    "while_yields_if",
    """
  %flag = arith.cmpi ugt, %k, %c1 : index
  %r:2 = scf.while (%acc = %v, %j = %c0) : (i32, index) -> (i32, index) {
    %go = arith.cmpi ult, %j, %k : index
    scf.condition(%go) %acc, %j : i32, index
  } do {
  ^bb0(%acc1: i32, %j1: index):
    %y = scf.if %flag -> (i32) {
      memref.store %acc1, %t[%lid] : memref<256xi32, 3>
      BARRIER
      %w = memref.load %t[%next] : memref<256xi32, 3>
      %s = arith.addi %acc1, %w : i32
      BARRIER
      scf.yield %s : i32
    } else {
      %s2 = arith.addi %acc1, %acc1 : i32
      scf.yield %s2 : i32
    }
    %j2 = arith.addi %j1, %c1 : index
    scf.yield %y, %j2 : i32, index
  }
  memref.store %r#0, %out[%gid] : memref<?xi32>""",
    ", %k: index",
)
REFS["while_yields_if"] = _for_yields_if

# scf.if with a barrier whose branch yields the result of an inner scf.if with a barrier
SHAPES["if_yields_if"] = kernel(
    "if_yields_if",
    """
  %outer = arith.cmpi ugt, %k, %c0 : index
  %inner = arith.cmpi ugt, %k, %c1 : index
  %r = scf.if %outer -> (i32) {
    memref.store %v, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %w = memref.load %t[%rev] : memref<256xi32, 3>
    %y = scf.if %inner -> (i32) {
      BARRIER
      memref.store %w, %t[%lid] : memref<256xi32, 3>
      BARRIER
      %u = memref.load %t[%next] : memref<256xi32, 3>
      scf.yield %u : i32
    } else {
      %u2 = arith.subi %w, %v : i32
      scf.yield %u2 : i32
    }
    scf.yield %y : i32
  } else {
    scf.yield %v : i32
  }
  memref.store %r, %out[%gid] : memref<?xi32>""",
    ", %k: index",
)


def _if_yields_if(x, k):
    if k == 0:
        return x
    w = x[::-1]
    return np.roll(w, -1) if k > 1 else w - x


REFS["if_yields_if"] = _if_yields_if

# PoCL issue 553: nested uniform loops bounded by kernel arguments, two barriers each under
# an scf.if on kernel arguments, a loop-carried accumulator, a conditional barrier after
SHAPES["pocl_553"] = kernel(
    "pocl_553",
    """
  %flag_a = arith.cmpi ugt, %k, %c0 : index
  %flag_b = arith.cmpi ugt, %k, %c1 : index
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %v) -> (i32) {
    %r2 = scf.for %j = %c0 to %m step %c1 iter_args(%acc2 = %acc) -> (i32) {
      %x = scf.if %flag_a -> (i32) {
        memref.store %acc2, %t[%lid] : memref<256xi32, 3>
        BARRIER
        %w = memref.load %t[%next] : memref<256xi32, 3>
        %s = arith.addi %acc2, %w : i32
        BARRIER
        scf.yield %s : i32
      } else {
        scf.yield %acc2 : i32
      }
      %y = scf.if %flag_b -> (i32) {
        BARRIER
        memref.store %x, %t[%lid] : memref<256xi32, 3>
        BARRIER
        %w2 = memref.load %t[%rev] : memref<256xi32, 3>
        %s2 = arith.subi %x, %w2 : i32
        BARRIER
        scf.yield %s2 : i32
      } else {
        scf.yield %x : i32
      }
      scf.yield %y : i32
    }
    scf.yield %r2 : i32
  }
  %last = arith.cmpi ugt, %m, %c1 : index
  %o = scf.if %last -> (i32) {
    BARRIER
    memref.store %r, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %z = memref.load %t[%rev] : memref<256xi32, 3>
    scf.yield %z : i32
  } else {
    scf.yield %r : i32
  }
  memref.store %o, %out[%gid] : memref<?xi32>""",
    ", %k: index, %m: index",
)


def _pocl_553(x, k, m):
    for _ in range(k):
        for _ in range(m):
            if k > 0:
                x = x + np.roll(x, -1)
            if k > 1:
                x = x - x[::-1]
    return x[::-1] if m > 1 else x


LAUNCHES = [((9,), (3,)), ((10,), (4,)), ((64,), (16,)), ((14, 9), (7, 3)), ((5,), (1,))]
_programs: dict[str, xmux.Program] = {}


def _program(name: str) -> xmux.Program:
    if name not in _programs:
        _programs[name] = xmux.compile(SHAPES[name], cache=False)
    return _programs[name]


def _want(name, gsize, lsize, a, k, m):
    out = np.zeros_like(a)
    for ids in groups(gsize, lsize):
        if name == "pocl_553":
            out[ids] = _pocl_553(a[ids], k, m)
        else:
            out[ids] = REFS[name](a[ids], k)
    return out


@pytest.mark.parametrize("threads", [None, 1])
@pytest.mark.parametrize("gsize,lsize", LAUNCHES, ids=lambda v: "x".join(map(str, v)))
@pytest.mark.parametrize("name", list(SHAPES))
def test_lifted_op_yields_lifted_result(name, gsize, lsize, threads):
    n = int(np.prod(gsize))
    a = np.random.default_rng(n).integers(-50, 50, n, dtype=np.int32)
    k_fn = _program(name).kernel(name)
    for k, m in [(0, 2), (1, 1), (2, 3), (3, 2)]:
        want = _want(name, gsize, lsize, a, k, m)
        extra = (k, m) if name == "pocl_553" else (k,)
        # the second launch of a local size runs the per-local-size variant
        for _ in range(2):
            out = np.zeros_like(a)
            k_fn(a, out, *extra, global_size=gsize, local_size=lsize, threads=threads)
            np.testing.assert_array_equal(out, want, err_msg=f"{name} k={k} m={m}")


def test_barrier_constant_is_the_shared_one():
    assert BARRIER.startswith("mux.work_group_barrier")


VARYING_BOUNDS = kernel(
    "varying_bounds",
    """
  %ub = arith.addi %lid, %k : index
  %r = scf.for %i = %lid to %ub step %c1 iter_args(%acc = %v) -> (i32) {
    memref.store %acc, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %w = memref.load %t[%next] : memref<256xi32, 3>
    %ic = arith.index_cast %i : index to i32
    %s = arith.addi %w, %ic : i32
    BARRIER
    scf.yield %s : i32
  }
  memref.store %r, %out[%gid] : memref<?xi32>""",
    ", %k: index",
)


@pytest.mark.parametrize("threads", [None, 1])
@pytest.mark.parametrize("gsize,lsize", LAUNCHES, ids=lambda v: "x".join(map(str, v)))
def test_barrier_loop_with_per_work_item_bounds(gsize, lsize, threads):
    """lb = local id, ub = local id + k: the trip count is uniform, the induction variable
    is not (normalised loop: each work-item keeps its own)."""
    prog = _programs.setdefault("varying_bounds", xmux.compile(VARYING_BOUNDS, cache=False))
    n = int(np.prod(gsize))
    a = np.random.default_rng(n).integers(-50, 50, n, dtype=np.int32)
    for k in (0, 1, 3):
        want = np.zeros_like(a)
        for ids in groups(gsize, lsize):
            x = a[ids].copy()
            lid = np.arange(len(ids))
            for j in range(k):
                x = np.roll(x, -1) + (lid + j).astype(np.int32)
            want[ids] = x
        for _ in range(2):
            out = np.zeros_like(a)
            prog.kernel("varying_bounds")(
                a, out, k, global_size=gsize, local_size=lsize, threads=threads
            )
            np.testing.assert_array_equal(out, want, err_msg=f"k={k}")


@pytest.mark.parametrize("name", [*SHAPES, "varying_bounds"])
def test_reference_interpreter_agrees_with_the_models(name):
    """The models above against the reference interpreter (no xmux scheduling pass)."""
    src = VARYING_BOUNDS if name == "varying_bounds" else SHAPES[name]
    gsize, lsize = (10,), (4,)
    a = np.random.default_rng(3).integers(-50, 50, 10, dtype=np.int32)
    for k, m in [(0, 2), (2, 3)]:
        out = np.zeros_like(a)
        extra = (k, m) if name == "pocl_553" else (k,)
        xmux.interpret(src, name, a, out, *extra, global_size=gsize, local_size=lsize,
                       races=True)
        prog = _programs.setdefault(name, xmux.compile(src, cache=False))
        want = np.zeros_like(a)
        prog.kernel(name)(a, want, *extra, global_size=gsize, local_size=lsize)
        np.testing.assert_array_equal(out, want, err_msg=f"{name} k={k} m={m}")
