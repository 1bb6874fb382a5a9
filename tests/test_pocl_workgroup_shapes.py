"""The control-flow shapes of PoCL's tests/workgroup suite (and of barrier bugs reported
against PoCL and AdaptiveCpp), re-written as xmux kernels that record what each work-item
sees in output arrays instead of printing it, checked against numpy.

Each kernel has the control flow of the PoCL test it is named after (unconditional and
conditional barriers, barriers in loops with several latches or exits, early and divergent
returns, switch, loops without barriers between barriers, ...); the data flow is our own.
"""

from __future__ import annotations

import numpy as np
import pytest

import xmux

BARRIER = "mux.work_group_barrier work_group, <acq_rel, work_group_memory>"


def tile(name: str = "tile", n: int = 256, t: str = "i32") -> str:
    return (
        f'"memref.global"() <{{sym_name = "{name}", type = memref<{n}x{t}, 3>, '
        'sym_visibility = "private", initial_value}> : () -> ()\n'
    )


#: the target the shapes run on (tests/test_nvptx_barrier_shapes.py sets "nvptx")
TARGET = "cpu"
_cache: dict[tuple[str, str], xmux.Program] = {}


def run(src: str, name: str, args: list, gsize, lsize):
    src = src.replace("BARRIER", BARRIER)
    key = (TARGET, src)
    if key not in _cache:
        _cache[key] = xmux.compile(src, cache=False, target=TARGET)
    _cache[key].kernel(name)(*args, global_size=gsize, local_size=lsize)


def lin_ids(gsize, lsize):
    """(global linear id, local linear id, group linear id, local size product) per work-item,
    indexed by global linear id (full groups only)."""
    g = list(gsize) + [1] * (3 - len(gsize))
    ls = list(lsize) + [1] * (3 - len(lsize))
    z, y, x = np.meshgrid(range(g[2]), range(g[1]), range(g[0]), indexing="ij")
    x, y, z = x.ravel(), y.ravel(), z.ravel()
    lid = ((z % ls[2]) * ls[1] + (y % ls[1])) * ls[0] + (x % ls[0])
    ng = [g[d] // ls[d] for d in range(3)]
    grp = ((z // ls[2]) * ng[1] + (y // ls[1])) * ng[0] + (x // ls[0])
    return np.arange(len(x)), lid, grp, ls[0] * ls[1] * ls[2]


# ---------------------------------------------------------------------------------------
# basic_barriers: two unconditional barriers, 3-D
# ---------------------------------------------------------------------------------------

BASIC = tile() + """
func.func @basic(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_linear_id : index
  %lid = mux.get_local_linear_id : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  %ls2 = mux.get_local_size 2 : index
  %n01 = arith.muli %ls0, %ls1 : index
  %n = arith.muli %n01, %ls2 : index
  %c1 = arith.constant 1 : index
  %t = memref.get_global @tile : memref<256xi32, 3>
  %g = arith.index_cast %gid : index to i32
  memref.store %g, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %nm1 = arith.subi %n, %c1 : index
  %r = arith.subi %nm1, %lid : index
  %a = memref.load %t[%r] : memref<256xi32, 3>
  BARRIER
  memref.store %a, %t[%lid] : memref<256xi32, 3>
  %b = memref.load %t[%lid] : memref<256xi32, 3>
  %c100 = arith.constant 100 : i32
  %o = arith.muli %b, %c100 : i32
  %o2 = arith.addi %o, %g : i32
  memref.store %o2, %out[%gid] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("gsize,lsize", [((2, 2, 2), (2, 2, 2)), ((4, 6, 2), (2, 3, 2))])
def test_basic_barriers(gsize, lsize):
    gid, lid, grp, n = lin_ids(gsize, lsize)
    out = np.zeros(len(gid), np.int32)
    run(BASIC, "basic", [out], gsize, lsize)
    partner = np.zeros_like(gid)
    for g in np.unique(grp):
        members = gid[grp == g][np.argsort(lid[grp == g])]
        partner[members] = members[::-1]
    np.testing.assert_array_equal(out, partner * 100 + gid)


# ---------------------------------------------------------------------------------------
# conditional_barriers: a barrier under a uniform condition on a size query
# ---------------------------------------------------------------------------------------

COND = tile() + """
func.func @cond(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %lid = mux.get_local_id 0 : index
  %ls = mux.get_local_size 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %t = memref.get_global @tile : memref<256xi32, 3>
  %g = arith.index_cast %gid : index to i32
  memref.store %g, %t[%lid] : memref<256xi32, 3>
  %small = arith.cmpi ult, %ls, %c100 : index
  scf.if %small {
    BARRIER
    %l1 = arith.addi %lid, %c1 : index
    %nx = arith.remui %l1, %ls : index
    %x = memref.load %t[%nx] : memref<256xi32, 3>
    memref.store %x, %out[%gid] : memref<?xi32>
  } else {
    memref.store %g, %out[%gid] : memref<?xi32>
  }
  func.return
}
"""


@pytest.mark.parametrize("lsize", [2, 7, 128])
def test_conditional_barrier_on_uniform_query(lsize):
    n = lsize * 3
    out = np.zeros(n, np.int32)
    run(COND, "cond", [out], (n,), (lsize,))
    g = np.arange(n).reshape(-1, lsize)
    want = np.roll(g, -1, axis=1).ravel() if lsize < 100 else g.ravel()
    np.testing.assert_array_equal(out, want)


# ---------------------------------------------------------------------------------------
# conditional_barrier_dynamic: a barrier under lid < 17 with a return after it (legal while
# the local size is at most 17); CFG
# ---------------------------------------------------------------------------------------

COND_DYNAMIC = """
func.func @cond_dyn(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %lid = mux.get_local_id 0 : index
  %c17 = arith.constant 17 : index
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  memref.store %one, %out[%gid] : memref<?xi32>
  %in = arith.cmpi ult, %lid, %c17 : index
  cf.cond_br %in, ^inside, ^after
^inside:
  BARRIER
  %x = memref.load %out[%gid] : memref<?xi32>
  %y = arith.addi %x, %one : i32
  memref.store %y, %out[%gid] : memref<?xi32>
  cf.cond_br %in, ^ret, ^after
^ret:
  func.return
^after:
  memref.store %two, %out[%gid] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("lsize", [1, 5, 16])
def test_conditional_barrier_dynamic(lsize):
    out = np.zeros(lsize * 2, np.int32)
    run(COND_DYNAMIC, "cond_dyn", [out], (lsize * 2,), (lsize,))
    np.testing.assert_array_equal(out, 2)


# ---------------------------------------------------------------------------------------
# cond_barriers_in_for: conditional barriers (group-id conditions, nested) inside a loop
# ---------------------------------------------------------------------------------------

COND_IN_FOR = tile() + """
func.func @cond_in_for(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_linear_id : index
  %lid = mux.get_local_linear_id : index
  %grp = mux.get_group_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  %t = memref.get_global @tile : memref<256xi32, 3>
  %g = arith.index_cast %gid : index to i32
  memref.store %g, %t[%lid] : memref<256xi32, 3>
  scf.for %i = %c0 to %c2 step %c1 {
    %pos = arith.cmpi ugt, %grp, %c0 : index
    scf.if %pos {
      BARRIER
      %is1 = arith.cmpi eq, %grp, %c1 : index
      scf.if %is1 {
        %v = memref.load %t[%c0] : memref<256xi32, 3>
        BARRIER
        %x = memref.load %t[%lid] : memref<256xi32, 3>
        %y = arith.addi %x, %v : i32
        memref.store %y, %t[%lid] : memref<256xi32, 3>
      }
    } else {
      %x = memref.load %t[%lid] : memref<256xi32, 3>
      %y = arith.addi %x, %one : i32
      memref.store %y, %t[%lid] : memref<256xi32, 3>
      BARRIER
      %z = memref.load %t[%lid] : memref<256xi32, 3>
      %w = arith.addi %z, %one : i32
      memref.store %w, %t[%lid] : memref<256xi32, 3>
    }
  }
  %r = memref.load %t[%lid] : memref<256xi32, 3>
  memref.store %r, %out[%gid] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("lsize", [1, 4, 9])
def test_cond_barriers_in_for(lsize):
    n = lsize * 3
    out = np.zeros(n, np.int32)
    run(COND_IN_FOR, "cond_in_for", [out], (n,), (lsize,))
    t = np.arange(n).reshape(3, lsize)
    want = t.copy()
    for _ in range(2):
        want[0] += 2
        want[1] += want[1, 0]
    np.testing.assert_array_equal(out, want.ravel())


# ---------------------------------------------------------------------------------------
# cond_barrier_in_var_for (PoCL #1167): guarded barrier in a loop with a varying count
# ---------------------------------------------------------------------------------------

VAR_FOR = tile() + """
func.func @var_for(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %lid = mux.get_local_id 0 : index
  %ls = mux.get_local_size 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = memref.get_global @tile : memref<256xi32, 3>
  %g = arith.index_cast %gid : index to i32
  memref.store %g, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %ub = arith.addi %lid, %c2 : index
  scf.for %i = %c0 to %ub step %c1 {
    %x = memref.load %t[%lid] : memref<256xi32, 3>
    %ii = arith.index_cast %i : index to i32
    %y = arith.addi %x, %ii : i32
    memref.store %y, %t[%lid] : memref<256xi32, 3>
    %beyond = arith.cmpi uge, %lid, %ls : index
    scf.if %beyond {
      BARRIER
    }
  }
  %r = memref.load %t[%lid] : memref<256xi32, 3>
  memref.store %r, %out[%gid] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("lsize", [1, 4, 33])
def test_cond_barrier_in_var_for(lsize):
    n = lsize * 2
    out = np.zeros(n, np.int32)
    run(VAR_FOR, "var_for", [out], (n,), (lsize,))
    lid = np.arange(n) % lsize
    np.testing.assert_array_equal(out, np.arange(n) + (lid + 2) * (lid + 1) // 2)


# ---------------------------------------------------------------------------------------
# do_while_with_barrier: an early return guarded by (uniform and divergent) conditions, then
# a do-while loop with a barrier; CFG
# ---------------------------------------------------------------------------------------

DO_WHILE = """
func.func @do_while(%out: memref<?xi32>, %trips: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %tid = mux.get_local_id 0 : index
  %grp = mux.get_group_id 0 : index
  %ls = mux.get_local_size 0 : index
  %base = arith.muli %grp, %ls : index
  %gid = arith.addi %base, %tid : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  memref.store %zero, %out[%gid] : memref<?xi32>
  memref.store %zero, %trips[%gid] : memref<?xi32>
  %single = arith.cmpi eq, %ls, %c1 : index
  cf.cond_br %single, ^check_tid, ^loop(%ls : index)
^check_tid:
  %first = arith.cmpi eq, %tid, %c0 : index
  cf.cond_br %first, ^early, ^loop(%ls : index)
^early:
  memref.store %one, %out[%gid] : memref<?xi32>
  func.return
^loop(%l: index):
  BARRIER
  %k = memref.load %trips[%gid] : memref<?xi32>
  %k1 = arith.addi %k, %one : i32
  memref.store %k1, %trips[%gid] : memref<?xi32>
  %l2 = arith.divui %l, %c2 : index
  %more = arith.cmpi ne, %l2, %c0 : index
  cf.cond_br %more, ^loop(%l2 : index), ^done
^done:
  %first2 = arith.cmpi eq, %tid, %c0 : index
  cf.cond_br %first2, ^mark, ^end
^mark:
  memref.store %one, %out[%gid] : memref<?xi32>
  func.return
^end:
  func.return
}
"""


@pytest.mark.parametrize("lsize", [1, 2, 7, 8])
def test_do_while_with_barrier(lsize):
    n = lsize * 2
    out = np.zeros(n, np.int32)
    trips = np.zeros(n, np.int32)
    run(DO_WHILE, "do_while", [out, trips], (n,), (lsize,))
    np.testing.assert_array_equal(out, (np.arange(n) % lsize == 0).astype(np.int32))
    want_trips = 0 if lsize == 1 else int(np.floor(np.log2(lsize))) + 1
    np.testing.assert_array_equal(trips, want_trips)


# ---------------------------------------------------------------------------------------
# for_bug (loop with two paths to the latch), in CFG and in scf form, with a private array
# that lives across the barrier
# ---------------------------------------------------------------------------------------

FOR_BUG_CFG = """
func.func @for_bug(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %gi = arith.index_cast %gid : index to i32
  %foo = memref.alloca() : memref<16xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0 : i32
  %c160 = arith.constant 160 : i32
  scf.for %j = %c0 to %c16 step %c1 {
    memref.store %zero, %foo[%j] : memref<16xi32>
  }
  cf.br ^head(%c16, %zero : index, i32)
^head(%i: index, %k: i32):
  BARRIER
  %k2 = arith.addi %k, %gi : i32
  %small = arith.cmpi ult, %i, %c15 : index
  cf.cond_br %small, ^write, ^latch
^write:
  %p = arith.muli %k2, %c160 : i32
  %q = arith.muli %p, %gi : i32
  memref.store %q, %foo[%i] : memref<16xi32>
  cf.br ^latch
^latch:
  %done = arith.cmpi eq, %i, %c0 : index
  %i2 = arith.subi %i, %c1 : index
  cf.cond_br %done, ^exit, ^head(%i2, %k2 : index, i32)
^exit:
  %s = scf.for %j = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (i32) {
    %x = memref.load %foo[%j] : memref<16xi32>
    %a2 = arith.addi %acc, %x : i32
    scf.yield %a2 : i32
  }
  memref.store %s, %out[%gid] : memref<?xi32>
  func.return
}
"""

FOR_BUG_SCF = """
func.func @for_bug(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %gi = arith.index_cast %gid : index to i32
  %foo = memref.alloca() : memref<16xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %c17 = arith.constant 17 : index
  %zero = arith.constant 0 : i32
  %c160 = arith.constant 160 : i32
  scf.for %j = %c0 to %c16 step %c1 {
    memref.store %zero, %foo[%j] : memref<16xi32>
  }
  %kend = scf.for %n = %c0 to %c17 step %c1 iter_args(%k = %zero) -> (i32) {
    BARRIER
    %i = arith.subi %c16, %n : index
    %k2 = arith.addi %k, %gi : i32
    %small = arith.cmpi ult, %i, %c15 : index
    scf.if %small {
      %p = arith.muli %k2, %c160 : i32
      %q = arith.muli %p, %gi : i32
      memref.store %q, %foo[%i] : memref<16xi32>
    }
    scf.yield %k2 : i32
  }
  %s = scf.for %j = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (i32) {
    %x = memref.load %foo[%j] : memref<16xi32>
    %a2 = arith.addi %acc, %x : i32
    scf.yield %a2 : i32
  }
  memref.store %s, %out[%gid] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("src", [FOR_BUG_CFG, FOR_BUG_SCF], ids=["cfg", "scf"])
@pytest.mark.parametrize("lsize", [2, 5])
def test_for_bug_two_paths_to_the_latch(src, lsize):
    n = lsize * 2
    out = np.zeros(n, np.int32)
    run(src, "for_bug", [out], (n,), (lsize,))
    want = []
    for g in range(n):
        foo = np.zeros(16, np.int64)
        k = 0
        for i in range(16, -1, -1):
            k += g
            if i < 15:
                foo[i] = k * 160 * g
        want.append(foo.sum())
    np.testing.assert_array_equal(out, np.array(want, np.int64).astype(np.int32))


# ---------------------------------------------------------------------------------------
# for_with_divergent_return, forloops, switch_case: no barrier (one loop nest, CFG bodies)
# ---------------------------------------------------------------------------------------

DIVERGENT_RETURN = """
func.func @div_ret(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %m1 = arith.constant -1 : i32
  %m2 = arith.constant -2 : i32
  cf.br ^head(%c0 : index)
^head(%i: index):
  %lim = arith.cmpi ult, %i, %c5 : index
  cf.cond_br %lim, ^body, ^after
^body:
  %i1 = arith.cmpi eq, %i, %c1 : index
  %g0 = arith.cmpi eq, %gid, %c0 : index
  %b0 = arith.andi %i1, %g0 : i1
  cf.cond_br %b0, ^ret0, ^cont
^ret0:
  %v0 = arith.constant 1000 : i32
  memref.store %v0, %out[%gid] : memref<?xi32>
  func.return
^cont:
  memref.store %m1, %out[%gid] : memref<?xi32>
  %g1 = arith.cmpi eq, %gid, %c1 : index
  %b1 = arith.andi %i1, %g1 : i1
  cf.cond_br %b1, ^ret1, ^cont2
^ret1:
  %v1 = arith.constant 2000 : i32
  memref.store %v1, %out[%gid] : memref<?xi32>
  func.return
^cont2:
  memref.store %m2, %out[%gid] : memref<?xi32>
  %i2 = arith.addi %i, %c1 : index
  cf.br ^head(%i2 : index)
^after:
  %big = arith.cmpi ugt, %gid, %c3 : index
  cf.cond_br %big, ^w100, ^elif
^w100:
  %h = arith.constant 100 : i32
  memref.store %h, %out[%gid] : memref<?xi32>
  func.return
^elif:
  %is2 = arith.cmpi eq, %gid, %c2 : index
  cf.cond_br %is2, ^w200, ^end
^w200:
  %hh = arith.constant 200 : i32
  memref.store %hh, %out[%gid] : memref<?xi32>
  func.return
^end:
  func.return
}
"""


def test_for_with_divergent_return():
    out = np.zeros(6, np.int32)
    run(DIVERGENT_RETURN, "div_ret", [out], (6,), (6,))
    np.testing.assert_array_equal(out, [1000, 2000, 200, -2, 100, 100])


FORLOOPS = """
func.func @forloops(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_linear_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  memref.store %zero, %out[%gid] : memref<?xi32>
  scf.for %i = %c0 to %gid step %c1 {
    %x = memref.load %out[%gid] : memref<?xi32>
    %y = arith.addi %x, %one : i32
    memref.store %y, %out[%gid] : memref<?xi32>
  }
  func.return
}
"""


def test_unbarriered_for_loops():
    out = np.zeros(12, np.int32)
    run(FORLOOPS, "forloops", [out], (3, 4), (3, 2))
    np.testing.assert_array_equal(out, np.arange(12))


SWITCH = """
func.func @switch(%out: memref<?xi32>, %after: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_linear_id : index
  %lid = mux.get_local_id 0 : index
  %flat = arith.index_cast %gid : index to i32
  %one = arith.constant 1 : i32
  memref.store %flat, %after[%gid] : memref<?xi32>
  BARRIER
  cf.switch %flat : i32, [
    default: ^other,
    1: ^one,
    3: ^three
  ]
^one:
  %v1 = arith.constant 101 : i32
  memref.store %v1, %out[%gid] : memref<?xi32>
  func.return
^three:
  %v3 = arith.constant 303 : i32
  memref.store %v3, %out[%gid] : memref<?xi32>
  cf.br ^join
^other:
  %v9 = arith.constant 99 : i32
  memref.store %v9, %out[%gid] : memref<?xi32>
  cf.br ^join
^join:
  %x = memref.load %after[%gid] : memref<?xi32>
  %y = arith.addi %x, %one : i32
  memref.store %y, %after[%gid] : memref<?xi32>
  func.return
}
"""


def test_switch_case_with_return_after_a_barrier():
    out = np.zeros(8, np.int32)
    after = np.zeros(8, np.int32)
    run(SWITCH, "switch", [out, after], (8,), (4,))
    np.testing.assert_array_equal(out, [99, 101, 99, 303, 99, 99, 99, 99])
    np.testing.assert_array_equal(after, [1, 1, 3, 4, 5, 6, 7, 8])


# ---------------------------------------------------------------------------------------
# implicit_barriers: a barrier, then a uniform if holding a loop without barriers
# ---------------------------------------------------------------------------------------

IMPLICIT = tile() + """
func.func @implicit(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %lid = mux.get_local_id 0 : index
  %grp = mux.get_group_id 0 : index
  %ls = mux.get_local_size 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = memref.get_global @tile : memref<256xi32, 3>
  %d = arith.subi %ls, %lid : index
  %di = arith.index_cast %d : index to i32
  memref.store %di, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %zero = arith.constant 0 : i32
  memref.store %zero, %out[%gid] : memref<?xi32>
  %g0 = arith.cmpi eq, %grp, %c0 : index
  scf.if %g0 {
    %r:2 = scf.while (%a = %c0, %s = %zero) : (index, i32) -> (index, i32) {
      %x = memref.load %t[%a] : memref<256xi32, 3>
      %s2 = arith.addi %s, %x : i32
      %a2 = arith.addi %a, %c1 : index
      %go = arith.cmpi ult, %a2, %c2 : index
      scf.condition(%go) %a2, %s2 : index, i32
    } do {
    ^bb0(%a3: index, %s3: i32):
      scf.yield %a3, %s3 : index, i32
    }
    memref.store %r#1, %out[%gid] : memref<?xi32>
  }
  func.return
}
"""


def test_implicit_barriers():
    out = np.zeros(8, np.int32)
    run(IMPLICIT, "implicit", [out], (8,), (4,))
    np.testing.assert_array_equal(out, [7, 7, 7, 7, 0, 0, 0, 0])


# ---------------------------------------------------------------------------------------
# issue_1747: if (global id < 2) { barrier; ... } — uniform per group of size 2
# ---------------------------------------------------------------------------------------

ISSUE_1747 = """
func.func @i1747(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %idx = mux.get_global_id 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  memref.store %zero, %out[%idx] : memref<?xi32>
  %low = arith.cmpi ult, %idx, %c2 : index
  scf.if %low {
    BARRIER
    memref.store %one, %out[%idx] : memref<?xi32>
  }
  func.return
}
"""


def test_issue_1747_barrier_taken_by_one_group_only():
    out = np.full(8, 7, np.int32)
    run(ISSUE_1747, "i1747", [out], (8,), (2,))
    np.testing.assert_array_equal(out, [1, 1, 0, 0, 0, 0, 0, 0])


# ---------------------------------------------------------------------------------------
# issue_548: a barrier inside a called function between two id == 0 guarded updates of a
# local variable (prepare-barriers inlines the call)
# ---------------------------------------------------------------------------------------

ISSUE_548 = tile("x", 1) + """
func.func private @aux(%out: memref<?xi32>, %gid: index) {
  %seen = arith.constant 5 : i32
  memref.store %seen, %out[%gid] : memref<?xi32>
  BARRIER
  func.return
}
func.func @i548(%out: memref<?xi32>, %res: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %id = mux.get_local_id 0 : index
  %grp = mux.get_group_id 0 : index
  %c0 = arith.constant 0 : index
  %x = memref.get_global @x : memref<1xi32, 3>
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %t1 = arith.cmpi eq, %id, %c0 : index
  scf.if %t1 {
    memref.store %zero, %x[%c0] : memref<1xi32, 3>
    %v = memref.load %x[%c0] : memref<1xi32, 3>
    %v1 = arith.addi %v, %one : i32
    memref.store %v1, %x[%c0] : memref<1xi32, 3>
  }
  func.call @aux(%out, %gid) : (memref<?xi32>, index) -> ()
  %seen = memref.load %x[%c0] : memref<1xi32, 3>
  %ii = arith.index_cast %id : index to i32
  %s = arith.addi %seen, %ii : i32
  memref.store %s, %out[%gid] : memref<?xi32>
  BARRIER
  %t2 = arith.cmpi eq, %id, %c0 : index
  scf.if %t2 {
    %ten = arith.constant 10 : i32
    memref.store %ten, %x[%c0] : memref<1xi32, 3>
    memref.store %ten, %res[%grp] : memref<?xi32>
  }
  func.return
}
"""


def test_issue_548_barrier_in_a_called_function():
    out = np.zeros(6, np.int32)
    res = np.zeros(3, np.int32)
    run(ISSUE_548, "i548", [out, res], (6,), (2,))
    np.testing.assert_array_equal(out, [1, 2, 1, 2, 1, 2])
    np.testing.assert_array_equal(res, 10)


# ---------------------------------------------------------------------------------------
# loopbarriers: two barriers per iteration of a loop, neighbours' values
# ---------------------------------------------------------------------------------------

LOOPBARRIERS = """
func.func @loopb(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %flat = mux.get_global_linear_id : index
  %gs0 = mux.get_global_size 0 : index
  %gs1 = mux.get_global_size 1 : index
  %gs2 = mux.get_global_size 2 : index
  %g01 = arith.muli %gs0, %gs1 : index
  %grid = arith.muli %g01, %gs2 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c1000 = arith.constant 1000 : i32
  %fi = arith.index_cast %flat : index to i32
  %base = arith.muli %fi, %c1000 : i32
  scf.for %i = %c0 to %c3 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %v = arith.addi %base, %ii : i32
    memref.store %v, %out[%flat] : memref<?xi32>
    BARRIER
    %f1 = arith.addi %flat, %c1 : index
    %wrap = arith.cmpi eq, %f1, %grid : index
    %nb = arith.select %wrap, %c0, %f1 : index
    %temp = memref.load %out[%nb] : memref<?xi32>
    BARRIER
    memref.store %temp, %out[%flat] : memref<?xi32>
  }
  func.return
}
"""


@pytest.mark.parametrize("gsize", [(4,), (2, 3), (2, 2, 3)])
def test_loopbarriers(gsize):
    n = int(np.prod(gsize))
    out = np.zeros(n, np.int32)
    run(LOOPBARRIERS, "loopb", [out], gsize, gsize)
    np.testing.assert_array_equal(out, np.roll(np.arange(n) * 1000 + 2, -1))


# ---------------------------------------------------------------------------------------
# multilatch_bloop: a loop with a barrier and two `continue`s (two latches); the trip
# count is read from memory (volatile in the original); scf and CFG forms
# ---------------------------------------------------------------------------------------

MULTILATCH_SCF = """
func.func @mlatch(%count: memref<1xindex>, %hits: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1 : i32
  %n = memref.load %count[%c0] : memref<1xindex>
  %base = arith.muli %gid, %c3 : index
  %h1 = arith.addi %base, %c1 : index
  %h2 = arith.addi %h1, %c1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %hits[%base] : memref<?xi32>
    %x1 = arith.addi %x, %one : i32
    memref.store %x1, %hits[%base] : memref<?xi32>
    BARRIER
    %not0 = arith.cmpi ne, %gid, %c0 : index
    scf.if %not0 {
      %y = memref.load %hits[%h1] : memref<?xi32>
      %y1 = arith.addi %y, %one : i32
      memref.store %y1, %hits[%h1] : memref<?xi32>
      %not1 = arith.cmpi ne, %gid, %c1 : index
      scf.if %not1 {
        %z = memref.load %hits[%h2] : memref<?xi32>
        %z1 = arith.addi %z, %one : i32
        memref.store %z1, %hits[%h2] : memref<?xi32>
      }
    }
  }
  func.return
}
"""

MULTILATCH_CFG = """
func.func @mlatch(%count: memref<1xindex>, %hits: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1 : i32
  %base = arith.muli %gid, %c3 : index
  %h1 = arith.addi %base, %c1 : index
  %h2 = arith.addi %h1, %c1 : index
  cf.br ^head(%c0 : index)
^head(%i: index):
  %n = memref.load %count[%c0] : memref<1xindex>
  %go = arith.cmpi ult, %i, %n : index
  cf.cond_br %go, ^body, ^exit
^body:
  %x = memref.load %hits[%base] : memref<?xi32>
  %x1 = arith.addi %x, %one : i32
  memref.store %x1, %hits[%base] : memref<?xi32>
  BARRIER
  %i2 = arith.addi %i, %c1 : index
  %is0 = arith.cmpi eq, %gid, %c0 : index
  cf.cond_br %is0, ^head(%i2 : index), ^l1
^l1:
  %y = memref.load %hits[%h1] : memref<?xi32>
  %y1 = arith.addi %y, %one : i32
  memref.store %y1, %hits[%h1] : memref<?xi32>
  %is1 = arith.cmpi eq, %gid, %c1 : index
  cf.cond_br %is1, ^head(%i2 : index), ^l2
^l2:
  %z = memref.load %hits[%h2] : memref<?xi32>
  %z1 = arith.addi %z, %one : i32
  memref.store %z1, %hits[%h2] : memref<?xi32>
  cf.br ^head(%i2 : index)
^exit:
  func.return
}
"""


@pytest.mark.parametrize("src", [MULTILATCH_SCF, MULTILATCH_CFG], ids=["scf", "cfg"])
def test_multilatch_bloop(src):
    hits = np.zeros(9, np.int32)
    run(src, "mlatch", [np.array([2], np.int64), hits], (3,), (3,))
    np.testing.assert_array_equal(hits.reshape(3, 3), [[2, 0, 0], [2, 2, 0], [2, 2, 2]])


# ---------------------------------------------------------------------------------------
# outerlooppar: loops without barriers between barriers (varying, uniform, guarded)
# ---------------------------------------------------------------------------------------

OUTERLOOPPAR = """
func.func @outer(%out: memref<?x3xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %ls = mux.get_local_size 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %a = scf.for %i = %c0 to %gid step %c1 iter_args(%s = %zero) -> (i32) {
    %s1 = arith.addi %s, %one : i32
    scf.yield %s1 : i32
  }
  memref.store %a, %out[%gid, %c0] : memref<?x3xi32>
  BARRIER
  %b = scf.for %i = %c0 to %ls step %c1 iter_args(%s = %zero) -> (i32) {
    %ii = arith.index_cast %i : index to i32
    %s1 = arith.addi %s, %ii : i32
    scf.yield %s1 : i32
  }
  memref.store %b, %out[%gid, %c1] : memref<?x3xi32>
  BARRIER
  %pos = arith.cmpi ugt, %gid, %c0 : index
  scf.if %pos {
    %c = scf.for %i = %c0 to %ls step %c1 iter_args(%s = %zero) -> (i32) {
      %s1 = arith.addi %s, %one : i32
      scf.yield %s1 : i32
    }
    memref.store %c, %out[%gid, %c2] : memref<?x3xi32>
  }
  BARRIER
  func.return
}
"""


def test_outer_loop_parallelization_shapes():
    n, ls = 6, 3
    out = np.full((n, 3), -1, np.int32)
    run(OUTERLOOPPAR, "outer", [out], (n,), (ls,))
    g = np.arange(n)
    np.testing.assert_array_equal(out[:, 0], g)
    np.testing.assert_array_equal(out[:, 1], ls * (ls - 1) // 2)
    np.testing.assert_array_equal(out[:, 2], np.where(g > 0, ls, -1))


# ---------------------------------------------------------------------------------------
# print_all_ids / range_md: every id query before and after barriers, 3-D
# ---------------------------------------------------------------------------------------

ALL_IDS = """
func.func @ids(%out: memref<?x12xi64>)
    attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_linear_id : index
  %c0 = arith.constant 0 : index
  BARRIER
  %q0 = mux.get_global_id 0 : i64
  %q1 = mux.get_global_id 1 : i64
  %q2 = mux.get_global_id 2 : i64
  %l0 = mux.get_local_id 0 : i64
  %l1 = mux.get_local_id 1 : i64
  %l2 = mux.get_local_id 2 : i64
  BARRIER
  %r0 = mux.get_group_id 0 : i64
  %r1 = mux.get_group_id 1 : i64
  %r2 = mux.get_group_id 2 : i64
  %ll = mux.get_local_linear_id : i64
  %ls = mux.get_local_size 0 : i64
  %nw = mux.get_num_groups 2 : i64
  %c = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %i4 = arith.constant 4 : index
  %i5 = arith.constant 5 : index
  %i6 = arith.constant 6 : index
  %i7 = arith.constant 7 : index
  %i8 = arith.constant 8 : index
  %i9 = arith.constant 9 : index
  %i10 = arith.constant 10 : index
  %i11 = arith.constant 11 : index
  memref.store %q0, %out[%g, %c] : memref<?x12xi64>
  memref.store %q1, %out[%g, %i1] : memref<?x12xi64>
  memref.store %q2, %out[%g, %i2] : memref<?x12xi64>
  memref.store %l0, %out[%g, %i3] : memref<?x12xi64>
  memref.store %l1, %out[%g, %i4] : memref<?x12xi64>
  memref.store %l2, %out[%g, %i5] : memref<?x12xi64>
  BARRIER
  memref.store %r0, %out[%g, %i6] : memref<?x12xi64>
  memref.store %r1, %out[%g, %i7] : memref<?x12xi64>
  memref.store %r2, %out[%g, %i8] : memref<?x12xi64>
  memref.store %ll, %out[%g, %i9] : memref<?x12xi64>
  memref.store %ls, %out[%g, %i10] : memref<?x12xi64>
  memref.store %nw, %out[%g, %i11] : memref<?x12xi64>
  func.return
}
"""


@pytest.mark.parametrize(
    "gsize,lsize", [((2, 2, 8), (1, 1, 4)), ((6, 4, 2), (3, 2, 1)), ((4, 3, 2), (2, 3, 2))]
)
def test_all_ids_across_barriers(gsize, lsize):
    n = int(np.prod(gsize))
    out = np.zeros((n, 12), np.int64)
    run(ALL_IDS, "ids", [out], gsize, lsize)
    z, y, x = np.meshgrid(*(range(s) for s in gsize[::-1]), indexing="ij")
    x, y, z = x.ravel(), y.ravel(), z.ravel()
    ls = lsize
    want = np.stack(
        [
            x, y, z, x % ls[0], y % ls[1], z % ls[2], x // ls[0], y // ls[1], z // ls[2],
            ((z % ls[2]) * ls[1] + y % ls[1]) * ls[0] + x % ls[0],
            np.full(n, ls[0]), np.full(n, gsize[2] // ls[2]),
        ],
        axis=1,
    )
    np.testing.assert_array_equal(out, want)


# ---------------------------------------------------------------------------------------
# tricky_for: every work-item leaves the loop in iteration 1 through one of two divergent
# exits before the barrier; all of them reach the barrier of iteration 0 (CFG)
# ---------------------------------------------------------------------------------------

TRICKY_FOR = """
func.func @tricky(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %big = arith.constant 1000000 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  memref.store %zero, %out[%gid] : memref<?xi32>
  cf.br ^head(%c0 : index)
^head(%i: index):
  %go = arith.cmpi ult, %i, %big : index
  cf.cond_br %go, ^body, ^exit
^body:
  %it1 = arith.cmpi eq, %i, %c1 : index
  %parity = arith.remui %gid, %c2 : index
  %even = arith.cmpi eq, %parity, %c0 : index
  %b0 = arith.andi %it1, %even : i1
  cf.cond_br %b0, ^exit, ^second
^second:
  %odd = arith.cmpi ne, %parity, %c0 : index
  %b1 = arith.andi %it1, %odd : i1
  cf.cond_br %b1, ^exit, ^barrier
^barrier:
  BARRIER
  %x = memref.load %out[%gid] : memref<?xi32>
  %x1 = arith.addi %x, %one : i32
  memref.store %x1, %out[%gid] : memref<?xi32>
  %i2 = arith.addi %i, %c1 : index
  cf.br ^head(%i2 : index)
^exit:
  func.return
}
"""


@pytest.mark.parametrize("lsize", [1, 2, 5])
def test_tricky_for_no_work_item_reaches_the_barrier_again(lsize):
    out = np.full(lsize * 2, 9, np.int32)
    run(TRICKY_FOR, "tricky", [out], (lsize * 2,), (lsize,))
    np.testing.assert_array_equal(out, 1)


# ---------------------------------------------------------------------------------------
# PoCL #553: nested loops with barriers under conditions on kernel arguments, and one more
# conditional barrier after the loops
# ---------------------------------------------------------------------------------------

ISSUE_553 = """
func.func @i553(%arg1: i32, %arg2: i32, %out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = scf.for %o = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (i32) {
    %r2 = scf.for %p = %c0 to %c2 step %c1 iter_args(%acc2 = %acc) -> (i32) {
      %a = arith.addi %acc2, %one : i32
      %gt = arith.cmpi sgt, %arg2, %arg1 : i32
      scf.if %gt {
        BARRIER
      }
      %pos = arith.cmpi sgt, %arg1, %zero : i32
      scf.if %pos {
        BARRIER
      }
      %b = arith.addi %a, %one : i32
      scf.yield %b : i32
    }
    scf.yield %r2 : i32
  }
  %pos2 = arith.cmpi sgt, %arg1, %zero : i32
  scf.if %pos2 {
    BARRIER
  }
  memref.store %r, %out[%gid] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("arg1,arg2", [(1, 2), (1, 0), (0, 1), (0, 0)])
def test_issue_553_nested_loops_with_conditional_barriers(arg1, arg2):
    out = np.zeros(6, np.int32)
    run(ISSUE_553, "i553", [np.int32(arg1), np.int32(arg2), out], (6,), (3,))
    np.testing.assert_array_equal(out, 8)


# ---------------------------------------------------------------------------------------
# PoCL #1794: while d < items { barrier; guarded combine; d *= 2 } (an and-reduction)
# ---------------------------------------------------------------------------------------

ISSUE_1794 = tile() + """
func.func @i1794(%a: memref<?xi32>, %out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %item = mux.get_local_id 0 : index
  %items = mux.get_local_size 0 : index
  %grp = mux.get_group_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = memref.get_global @tile : memref<256xi32, 3>
  %v = memref.load %a[%gid] : memref<?xi32>
  memref.store %v, %t[%item] : memref<256xi32, 3>
  %d_end = scf.while (%d = %c1) : (index) -> index {
    %go = arith.cmpi ult, %d, %items : index
    scf.condition(%go) %d : index
  } do {
  ^bb0(%d1: index):
    BARRIER
    %twod = arith.muli %d1, %c2 : index
    %index = arith.muli %twod, %item : index
    %inb = arith.cmpi ult, %index, %items : index
    scf.if %inb {
      %j = arith.addi %index, %d1 : index
      %jin = arith.cmpi ult, %j, %items : index
      %other = scf.if %jin -> (i32) {
        %o = memref.load %t[%j] : memref<256xi32, 3>
        scf.yield %o : i32
      } else {
        %ones = arith.constant -1 : i32
        scf.yield %ones : i32
      }
      %x = memref.load %t[%index] : memref<256xi32, 3>
      %y = arith.andi %x, %other : i32
      memref.store %y, %t[%index] : memref<256xi32, 3>
    }
    scf.yield %twod : index
  }
  BARRIER
  %first = arith.cmpi eq, %item, %c0 : index
  scf.if %first {
    %r = memref.load %t[%c0] : memref<256xi32, 3>
    memref.store %r, %out[%grp] : memref<?xi32>
  }
  func.return
}
"""


@pytest.mark.parametrize("lsize", [1, 4, 6, 13, 256])
def test_issue_1794_while_reduction(lsize):
    rng = np.random.default_rng(lsize)
    a = rng.integers(0, 2**31 - 1, lsize * 3, dtype=np.int32) | 0x0F0F
    out = np.zeros(3, np.int32)
    run(ISSUE_1794, "i1794", [a, out], (lsize * 3,), (lsize,))
    np.testing.assert_array_equal(out, np.bitwise_and.reduce(a.reshape(3, lsize), axis=1))


# ---------------------------------------------------------------------------------------
# AdaptiveCpp #2177: barriers in nested loops (a tiled product through local tiles) with a
# guarded store after the loops; AdaptiveCpp #2137: a value read from local memory in a loop
# with a barrier, used after the loop
# ---------------------------------------------------------------------------------------

TILED = tile("ta", 64, "f32") + tile("tb", 64, "f32") + """
func.func @tiled(%n: index, %a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %ts = mux.get_local_size 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ta = memref.get_global @ta : memref<64xf32, 3>
  %tb = memref.get_global @tb : memref<64xf32, 3>
  %ntiles = arith.divui %n, %ts : index
  %sum = scf.for %k = %c0 to %ntiles step %c1 iter_args(%acc = %zero) -> (f32) {
    %kt = arith.muli %k, %ts : index
    %acol = arith.addi %kt, %lx : index
    %brow = arith.addi %kt, %ly : index
    %av = memref.load %a[%row, %acol] : memref<?x?xf32>
    %bv = memref.load %b[%brow, %col] : memref<?x?xf32>
    %lyts = arith.muli %ly, %ts : index
    %slot = arith.addi %lyts, %lx : index
    memref.store %av, %ta[%slot] : memref<64xf32, 3>
    memref.store %bv, %tb[%slot] : memref<64xf32, 3>
    BARRIER
    %part = scf.for %j = %c0 to %ts step %c1 iter_args(%p = %acc) -> (f32) {
      %ai = arith.addi %lyts, %j : index
      %jts = arith.muli %j, %ts : index
      %bi = arith.addi %jts, %lx : index
      %x = memref.load %ta[%ai] : memref<64xf32, 3>
      %y = memref.load %tb[%bi] : memref<64xf32, 3>
      %m = arith.mulf %x, %y : f32
      %p2 = arith.addf %p, %m : f32
      scf.yield %p2 : f32
    }
    BARRIER
    scf.yield %part : f32
  }
  %inside = arith.cmpi ult, %col, %n : index
  scf.if %inside {
    memref.store %sum, %c[%row, %col] : memref<?x?xf32>
  }
  func.return
}
"""


@pytest.mark.parametrize("n,ts", [(8, 4), (24, 8), (6, 3), (7, 1)])
def test_adaptivecpp_2177_barriers_in_nested_loops(n, ts):
    rng = np.random.default_rng(n)
    a, b = rng.random((n, n), np.float32), rng.random((n, n), np.float32)
    c = np.zeros((n, n), np.float32)
    run(TILED, "tiled", [n, a, b, c], (n, n), (ts, ts))
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5)


ACPP_2137 = tile() + """
func.func @acpp2137(%out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %tid = mux.get_local_id 0 : index
  %gid = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ten = arith.constant 10 : i32
  %zero = arith.constant 0 : i32
  %t = memref.get_global @tile : memref<256xi32, 3>
  %ti = arith.index_cast %tid : index to i32
  %v = arith.muli %ti, %ten : i32
  memref.store %v, %t[%tid] : memref<256xi32, 3>
  BARRIER
  %var = scf.for %it = %c0 to %c2 step %c1 iter_args(%x = %zero) -> (i32) {
    %y = memref.load %t[%tid] : memref<256xi32, 3>
    BARRIER
    scf.yield %y : i32
  }
  memref.store %var, %out[%gid] : memref<?xi32>
  func.return
}
"""


def test_adaptivecpp_2137_local_value_in_a_barrier_loop():
    out = np.zeros(10, np.int32)
    run(ACPP_2137, "acpp2137", [out], (10,), (5,))
    np.testing.assert_array_equal(out, (np.arange(10) % 5) * 10)


# ---------------------------------------------------------------------------------------
# barriers in a function called three times, the local buffer passed to it, work-item-
# dependent branches between the calls (issue 36, item 9: hung on nvptx)
# ---------------------------------------------------------------------------------------

CALLED_THREE_TIMES = tile("tile", 64) + """
func.func @step(%t: memref<64xi32, 3>, %lid: index, %n: index, %v: i32) -> i32 {
  memref.store %v, %t[%lid] : memref<64xi32, 3>
  BARRIER
  %c1 = arith.constant 1 : index
  %l1 = arith.addi %lid, %c1 : index
  %w = arith.remui %l1, %n : index
  %r = memref.load %t[%w] : memref<64xi32, 3>
  BARRIER
  func.return %r : i32
}
func.func @called3(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %t = memref.get_global @tile : memref<64xi32, 3>
  %gid = mux.get_global_linear_id : index
  %lid = mux.get_local_linear_id : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  %n = arith.muli %ls0, %ls1 : index
  %g = arith.index_cast %gid : index to i32
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %odd = arith.remui %lid, %c2 : index
  %isodd = arith.cmpi ne, %odd, %c0 : index
  %v0 = scf.if %isodd -> (i32) {
    %a = arith.addi %g, %c7 : i32
    scf.yield %a : i32
  } else {
    scf.yield %g : i32
  }
  %v1 = func.call @step(%t, %lid, %n, %v0) : (memref<64xi32, 3>, index, index, i32) -> i32
  %v2 = scf.if %isodd -> (i32) {
    %a = arith.muli %v1, %c7 : i32
    scf.yield %a : i32
  } else {
    scf.yield %v1 : i32
  }
  %v3 = func.call @step(%t, %lid, %n, %v2) : (memref<64xi32, 3>, index, index, i32) -> i32
  %v4 = func.call @step(%t, %lid, %n, %v3) : (memref<64xi32, 3>, index, index, i32) -> i32
  memref.store %v4, %out[%gid] : memref<?xi32>
  func.return
}
"""


#: the same with the local buffer a kernel argument (xmux.LocalMemory)
CALLED_THREE_TIMES_ARG = (
    CALLED_THREE_TIMES.replace(tile("tile", 64), "")
    .replace("memref<64xi32, 3>", "memref<?xi32, 3>")
    .replace("@called3(%out: memref<?xi32>)", "@called3(%out: memref<?xi32>, %t: memref<?xi32, 3>)")
    .replace("  %t = memref.get_global @tile : memref<?xi32, 3>\n", "")
)


@pytest.mark.parametrize("local", ["global", "argument"])
@pytest.mark.parametrize("gsize,lsize", [((8,), (2,)), ((26,), (13,)), ((10, 4), (5, 2))])
def test_barriers_in_a_function_called_three_times(gsize, lsize, local):
    out = np.zeros(int(np.prod(gsize)), np.int32)
    if local == "global":
        run(CALLED_THREE_TIMES, "called3", [out], gsize, lsize)
    else:
        tile_arg = xmux.LocalMemory(4 * int(np.prod(lsize)))
        run(CALLED_THREE_TIMES_ARG, "called3", [out, tile_arg], gsize, lsize)
    gid, lid, grp, n = lin_ids(gsize, lsize)
    # order each group's values by local linear id, as the kernel's tile holds them
    order = np.lexsort((lid, grp))
    lid_s, gid_s = lid[order], gid[order]
    neighbour = order.reshape(-1, n)[:, (np.arange(n) + 1) % n].ravel()
    odd = lid_s % 2 == 1
    v = np.zeros(len(gid), np.int64)
    v[order] = np.where(odd, gid_s + 7, gid_s)
    v[order] = v[neighbour]
    v[order] = np.where(odd, v[order] * 7, v[order])
    v[order] = v[neighbour]
    v[order] = v[neighbour]
    np.testing.assert_array_equal(out, v.astype(np.int32))
