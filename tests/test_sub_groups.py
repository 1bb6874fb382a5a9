"""Emulated sub-groups of size N (lower-sub-group-collectives) end to end against numpy.

Sub-groups are N consecutive work-items of a work-group in local linear order; the last one
is smaller when the group size is not a multiple of N. Every reduce / inclusive scan /
exclusive scan × op kind × dtype, any/all, broadcast and the four shuffles (in-range and
out-of-range deltas, the pass docstring's rules), the sub-group queries and
``mux.sub_group_barrier``, at N = 4 (``compile(sub_group_size=4)``) and N = 8 (the kernels'
``mux.reqd_sub_group_size``), with group sizes that are a multiple of N and ones that are not.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from test_collectives import KINDS, MLIR_TYPE, accumulate, groups, identity, inputs

import xmux
from xmux.errors import LaunchError, XmuxError

SIZES = [4, 8]
#: (global size, local size): multiples of 4 and 8, 13 (not), 8x3 in 2-D, a remainder group
#: of 14 after a full one of 16, a 3-D group of 12
LAUNCHES = [
    ((32,), (16,)),
    ((26,), (13,)),
    ((16, 6), (8, 3)),
    ((30,), (16,)),
    ((4, 3, 2), (2, 3, 2)),
]
LAUNCH_IDS = ["x".join(map(str, g)) + "/" + "x".join(map(str, ls)) for g, ls in LAUNCHES]
COLLECTIVES = ["reduce", "scan_inclusive", "scan_exclusive"]


def sub_groups(gsize, lsize, n: int) -> list[np.ndarray]:
    """Global linear ids of each sub-group, lane order."""
    return [ids[s : s + n] for ids in groups(gsize, lsize) for s in range(0, len(ids), n)]


# ---------------------------------------------------------------------------------------
# Kernels: one module per N
# ---------------------------------------------------------------------------------------


def _attrs(n: int | None) -> str:
    extra = "" if n is None else f", mux.reqd_sub_group_size = {n} : i64"
    return f'attributes {{mux.kernel = "entry_point"{extra}}}'


def _collectives_kernel(dtype: str, n: int | None) -> str:
    """Every collective × kind of ``dtype``: one batch of independent ops, then the stores
    (row = collective index · kinds + kind index)."""
    t = MLIR_TYPE[dtype]
    ops, stores = [], []
    for ci, c in enumerate(COLLECTIVES):
        for ki, k in enumerate(KINDS[dtype]):
            r = ci * len(KINDS[dtype]) + ki
            ops.append(f"  %r{r} = mux.sub_group_{c} {k} %x : {t}")
            stores.append(
                f"  %c{r} = arith.constant {r} : index\n"
                f"  memref.store %r{r}, %o[%c{r}, %g] : memref<?x?x{t}>"
            )
    body = "\n".join(ops + stores)
    return f"""
func.func @collectives_{dtype}(%a: memref<?x{t}>, %o: memref<?x?x{t}>) {_attrs(n)} {{
  %g = mux.get_global_linear_id : index
  %x = memref.load %a[%g] : memref<?x{t}>
{body}
  func.return
}}"""


def _shuffles_kernel(dtype: str, n: int | None) -> str:
    """Rows: shuffle(a, d), shuffle_xor(a, d), shuffle_up(b, a, d), shuffle_down(a, b, d),
    broadcast(a, lane); stores interleaved with the ops."""
    t = MLIR_TYPE[dtype]
    ops = [
        f"mux.sub_group_shuffle %x, %d : {t}",
        f"mux.sub_group_shuffle_xor %x, %d : {t}",
        f"mux.sub_group_shuffle_up %y, %x, %d : {t}",
        f"mux.sub_group_shuffle_down %x, %y, %d : {t}",
        f"mux.sub_group_broadcast %x, %lane : {t}",
    ]
    body = "\n".join(
        f"  %r{k} = {op}\n  %c{k} = arith.constant {k} : index\n"
        f"  memref.store %r{k}, %o[%c{k}, %g] : memref<?x?x{t}>"
        for k, op in enumerate(ops)
    )
    return f"""
func.func @shuffles_{dtype}(%a: memref<?x{t}>, %b: memref<?x{t}>, %dd: memref<?xi32>,
                            %lane: i32, %o: memref<?x?x{t}>) {_attrs(n)} {{
  %g = mux.get_global_linear_id : index
  %x = memref.load %a[%g] : memref<?x{t}>
  %y = memref.load %b[%g] : memref<?x{t}>
  %d = memref.load %dd[%g] : memref<?xi32>
{body}
  func.return
}}"""


def _misc_kernels(n: int | None) -> str:
    return f"""
func.func @any_all(%a: memref<?xi1>, %o: memref<?x?xi1>) {_attrs(n)} {{
  %g = mux.get_global_linear_id : index
  %x = memref.load %a[%g] : memref<?xi1>
  %r0 = mux.sub_group_any %x : i1
  %r1 = mux.sub_group_all %x : i1
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  memref.store %r0, %o[%c0, %g] : memref<?x?xi1>
  memref.store %r1, %o[%c1, %g] : memref<?x?xi1>
  func.return
}}
func.func @queries(%o: memref<?x?xi32>) {_attrs(n)} {{
  %g = mux.get_global_linear_id : index
  %q0 = mux.get_sub_group_id : i32
  %q1 = mux.get_sub_group_local_id : i32
  %q2 = mux.get_sub_group_size : i32
  %q3 = mux.get_max_sub_group_size : i32
  %q4 = mux.get_num_sub_groups : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  memref.store %q0, %o[%c0, %g] : memref<?x?xi32>
  memref.store %q1, %o[%c1, %g] : memref<?x?xi32>
  memref.store %q2, %o[%c2, %g] : memref<?x?xi32>
  memref.store %q3, %o[%c3, %g] : memref<?x?xi32>
  memref.store %q4, %o[%c4, %g] : memref<?x?xi32>
  func.return
}}
// each work-item writes its value, then (after the sub-group barrier) reads the next lane's
// (cyclically within its sub-group), in a uniform loop of %iters rounds
func.func @rotate(%buf: memref<?xf32>, %iters: index) {_attrs(n)} {{
  %g = mux.get_global_id 0 : index
  %lane32 = mux.get_sub_group_local_id : i32
  %size32 = mux.get_sub_group_size : i32
  %lane = arith.index_cast %lane32 : i32 to index
  %size = arith.index_cast %size32 : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %base = arith.subi %g, %lane : index
  %l1 = arith.addi %lane, %c1 : index
  %nl = arith.remui %l1, %size : index
  %src = arith.addi %base, %nl : index
  %x0 = memref.load %buf[%g] : memref<?xf32>
  %r = scf.for %i = %c0 to %iters step %c1 iter_args(%x = %x0) -> (f32) {{
    memref.store %x, %buf[%g] : memref<?xf32>
    mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
    %v = memref.load %buf[%src] : memref<?xf32>
    mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
    scf.yield %v : f32
  }}
  memref.store %r, %buf[%g] : memref<?xf32>
  func.return
}}"""


DTYPES = ["int32", "int64", "float32", "float64", "bool"]


def source(n: int | None) -> str:
    parts = [_collectives_kernel(d, n) for d in DTYPES]
    parts += [_shuffles_kernel(d, n) for d in DTYPES]
    parts.append(_misc_kernels(n))
    return "\n".join(parts)


@cache
def program(n: int) -> xmux.Program:
    """N = 4 through the compile option, N = 8 through the kernels' attribute."""
    if n == 4:
        return xmux.compile(source(None), cache=False, specialize=False, sub_group_size=4)
    return xmux.compile(source(n), cache=False, specialize=False)


# ---------------------------------------------------------------------------------------
# numpy model
# ---------------------------------------------------------------------------------------


def expected(collective: str, kind: str, a: np.ndarray, gsize, lsize, n: int) -> np.ndarray:
    out = np.empty_like(a)
    for ids in sub_groups(gsize, lsize, n):
        inc = accumulate(kind, a[ids])
        if collective == "reduce":
            out[ids] = inc[-1]
        elif collective == "scan_inclusive":
            out[ids] = inc
        else:
            first = np.array([identity(kind, a.dtype)]).astype(a.dtype)
            out[ids] = np.concatenate([first, inc[:-1]])
    return out


def shuffled(which: str, a, b, d, lane: int, gsize, lsize, n: int) -> np.ndarray:
    """The pass's rules: a source lane that is out of range (or missing from a smaller last
    sub-group) reads the own value (``prev`` for shuffle_up, ``next`` for shuffle_down)."""
    out = np.empty_like(a)
    du = d.astype(np.int64) & 0xFFFFFFFF  # the i32 operand read as unsigned
    for ids in sub_groups(gsize, lsize, n):
        s = len(ids)
        for lane_i, g in enumerate(ids):
            if which in ("shuffle", "shuffle_xor", "broadcast"):
                k = {"shuffle": du[g], "shuffle_xor": lane_i ^ du[g], "broadcast": lane}[which]
                out[g] = a[ids[k]] if k < s else a[g]
            elif which == "shuffle_up":  # prev = b, curr = a
                i = lane_i - int(d[g])
                if 0 <= i < s:
                    out[g] = a[ids[i]]
                elif -n <= i < 0 and i + n < s:
                    out[g] = b[ids[i + n]]
                else:
                    out[g] = b[g]
            else:  # shuffle_down: curr = a, next = b
                i = lane_i + int(du[g])
                if i < s:
                    out[g] = a[ids[i]]
                elif n <= i and i - n < s:
                    out[g] = b[ids[i - n]]
                else:
                    out[g] = b[g]
    return out


# ---------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_reduce_and_scans(n, dtype):
    k = program(n).kernel(f"collectives_{dtype}")
    kinds = KINDS[dtype]
    for gsize, lsize in LAUNCHES:
        total = int(np.prod(gsize))
        a = inputs(dtype, total, seed=total + n)
        o = np.zeros((len(COLLECTIVES) * len(kinds), total), a.dtype)
        k(a, o, global_size=gsize, local_size=lsize)
        for ci, c in enumerate(COLLECTIVES):
            for ki, kind in enumerate(kinds):
                want = expected(c, kind, a, gsize, lsize, n)
                np.testing.assert_array_equal(
                    o[ci * len(kinds) + ki], want,
                    err_msg=f"N={n} {c} {kind} {dtype} {gsize}/{lsize}",
                )


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("gsize,lsize", LAUNCHES, ids=LAUNCH_IDS)
def test_any_all(n, gsize, lsize):
    k = program(n).kernel("any_all")
    total = int(np.prod(gsize))
    for a in (inputs("bool", total, seed=total), np.ones(total, bool), np.zeros(total, bool)):
        o = np.zeros((2, total), bool)
        k(a, o, global_size=gsize, local_size=lsize)
        for row, np_op in enumerate((np.any, np.all)):
            want = np.empty_like(a)
            for ids in sub_groups(gsize, lsize, n):
                want[ids] = np_op(a[ids])
            np.testing.assert_array_equal(o[row], want)


def _deltas(n: int, total: int, seed: int) -> np.ndarray:
    """In-range and out-of-range deltas / lanes / masks, negative and huge ones included."""
    pool = [0, 1, 2, n - 1, n, n + 1, 2 * n - 1, 2 * n, 3 * n, -1, -2, -n, -n - 1,
            -(2**31), 2**31 - 1]
    return np.random.default_rng(seed).choice(pool, total).astype(np.int32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_shuffles_and_broadcast(n, dtype):
    k = program(n).kernel(f"shuffles_{dtype}")
    for gsize, lsize in LAUNCHES:
        total = int(np.prod(gsize))
        a = inputs(dtype, total, seed=total)
        b = inputs(dtype, total, seed=total + 1) if dtype == "bool" else -a - 100
        d = _deltas(n, total, total)
        for lane in (0, n - 1, n + 2):
            o = np.zeros((5, total), a.dtype)
            k(a, b, d, lane, o, global_size=gsize, local_size=lsize)
            for row, which in enumerate(
                ["shuffle", "shuffle_xor", "shuffle_up", "shuffle_down", "broadcast"]
            ):
                want = shuffled(which, a, b, d, lane, gsize, lsize, n)
                np.testing.assert_array_equal(
                    o[row], want, err_msg=f"N={n} {which} {dtype} {gsize}/{lsize} lane {lane}"
                )


@pytest.mark.parametrize("n", SIZES)
def test_queries(n):
    k = program(n).kernel("queries")
    for gsize, lsize in LAUNCHES:
        total = int(np.prod(gsize))
        o = np.zeros((5, total), np.int32)
        k(o, global_size=gsize, local_size=lsize)
        want = np.zeros_like(o)
        for ids in groups(gsize, lsize):
            for lin, g in enumerate(ids):
                sg = lin // n
                want[:, g] = [sg, lin % n, min(n, len(ids) - sg * n), n, -(-len(ids) // n)]
        np.testing.assert_array_equal(o, want, err_msg=f"N={n} {gsize}/{lsize}")


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("gsize,lsize", [((32,), (16,)), ((26,), (13,)), ((30,), (16,))])
def test_sub_group_barrier_orders_memory(n, gsize, lsize):
    """Rotating values within each sub-group through memory needs the barriers: without
    them a work-item would read its neighbour's slot before the neighbour wrote it."""
    k = program(n).kernel("rotate")
    total = gsize[0]
    a = np.arange(total, dtype=np.float32)
    buf = a.copy()
    k(buf, 3, global_size=gsize, local_size=lsize)
    want = np.empty_like(a)
    for ids in sub_groups(gsize, lsize, n):
        want[ids] = np.roll(a[ids], -3)
    np.testing.assert_array_equal(buf, want)


# ---------------------------------------------------------------------------------------
# Sizes: option, attribute, cache key, limits, errors
# ---------------------------------------------------------------------------------------

REDUCE = """
func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"ATTR} {
  %g = mux.get_global_id 0 : index
  %x = memref.load %a[%g] : memref<?xi32>
  %r = mux.sub_group_reduce add %x : i32
  memref.store %r, %a[%g] : memref<?xi32>
  func.return
}
"""


def _reduce(prog: xmux.Program, n_items: int = 16) -> np.ndarray:
    a = np.arange(n_items, dtype=np.int32)
    prog.kernel("k")(a, global_size=n_items, local_size=n_items)
    return a


def test_option_is_part_of_the_cache_key():
    src = REDUCE.replace("ATTR", "")
    sums = {}
    for n in (1, 4, 8, 4):
        got = _reduce(xmux.compile(src, sub_group_size=n))  # disk cache on (per-test dir)
        want = np.repeat(np.arange(16).reshape(-1, n).sum(axis=1), n)
        np.testing.assert_array_equal(got, want, err_msg=f"N={n}")
        sums[n] = got
    assert len({tuple(v) for v in sums.values()}) == 3


def test_attribute_wins_over_the_default_option_and_must_match_others():
    src = REDUCE.replace("ATTR", ", mux.reqd_sub_group_size = 2 : i64")
    got = _reduce(xmux.compile(src, cache=False))
    np.testing.assert_array_equal(got, np.repeat(np.arange(16).reshape(-1, 2).sum(axis=1), 2))
    got = _reduce(xmux.compile(src, cache=False, sub_group_size=2))
    np.testing.assert_array_equal(got, np.repeat(np.arange(16).reshape(-1, 2).sum(axis=1), 2))
    with pytest.raises(XmuxError, match="kernel @k requires sub-group size 2 but the pipeline "
                       "asks for sub-group-size=4"):
        xmux.compile(src, cache=False, sub_group_size=4)


def test_pipeline_option_and_bad_sizes():
    src = REDUCE.replace("ATTR", "")
    prog = xmux.compile(src, cache=False, pipeline=xmux.pipelines.cpu(sub_group_size=4))
    np.testing.assert_array_equal(
        _reduce(prog), np.repeat(np.arange(16).reshape(-1, 4).sum(axis=1), 4)
    )
    with pytest.raises(XmuxError, match="sub_group_size must be a positive integer"):
        xmux.compile(src, cache=False, sub_group_size=0)
    with pytest.raises(XmuxError, match=r"with pipeline= use xmux.pipelines.cpu\(sub_group_size"):
        xmux.compile(src, cache=False, sub_group_size=4, pipeline=xmux.pipelines.cpu())
    with pytest.raises(ValueError, match="sub_group_size must be a positive integer"):
        xmux.pipelines.cpu(sub_group_size=-2)


def test_scratch_limits_the_work_group_size_only_at_size_n():
    src = REDUCE.replace("ATTR", "")
    assert xmux.compile(src, cache=False).infos["k"].max_work_group_size is None
    prog = xmux.compile(src, cache=False, sub_group_size=4)
    assert prog.infos["k"].max_work_group_size == 1024
    with pytest.raises(LaunchError, match="at most 1024"):
        prog.kernel("k")(np.zeros(2048, np.int32), global_size=2048, local_size=2048)


def test_required_work_group_size_sizes_the_scratch():
    src = REDUCE.replace("ATTR", ", mux.reqd_work_group_size = array<i64: 12, 1, 1>")
    prog = xmux.compile(src, cache=False, sub_group_size=8)
    assert prog.infos["k"].max_work_group_size is None
    a = np.arange(24, dtype=np.int32)
    prog.kernel("k")(a, global_size=24, local_size=12)
    want = np.concatenate(
        [np.repeat([c.sum() for c in (r[:8], r[8:])], [8, 4]) for r in np.arange(24).reshape(2, 12)]
    )
    np.testing.assert_array_equal(a, want)


DIVERGENT = """
func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %l, %c0 : index
  scf.if %first {
    %x = memref.load %a[%g] : memref<?xi32>
    %r = mux.sub_group_reduce add %x : i32
    memref.store %r, %a[%g] : memref<?xi32>
  }
  func.return
}
"""


def test_divergent_sub_group_collective_is_an_error():
    with pytest.raises(XmuxError, match="divergent barrier"):
        xmux.compile(DIVERGENT, cache=False, sub_group_size=4)
    xmux.compile(DIVERGENT, cache=False)  # size 1: no barrier, fine


# ---------------------------------------------------------------------------------------
# Control flow uniform only within each sub-group (region dispatch)
# ---------------------------------------------------------------------------------------

#: Each sub-group scans its values as many times as t[its index] says: a loop whose trip
#: count is uniform within each sub-group but differs between sub-groups.
PER_SUB_GROUP_TRIPS = """
func.func @k(%a: memref<?xi32>, %t: memref<?xi32>, %o: memref<?xi32>) ATTRS {
  %g = mux.get_global_id 0 : index
  %grp = mux.get_group_id 0 : index
  %ns = mux.get_num_sub_groups : i32
  %sg = mux.get_sub_group_id : i32
  %nsi = arith.index_cast %ns : i32 to index
  %sgi = arith.index_cast %sg : i32 to index
  %row = arith.muli %grp, %nsi : index
  %ti = arith.addi %row, %sgi : index
  %n32 = memref.load %t[%ti] : memref<?xi32>
  %n = arith.index_cast %n32 : i32 to index
  %x = memref.load %a[%g] : memref<?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> (i32) {
    %s = mux.sub_group_scan_inclusive add %v : i32
    scf.yield %s : i32
  }
  memref.store %r, %o[%g] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("reqd", [None, 12])
def test_trip_counts_uniform_per_sub_group(reqd):
    """The loop's control is not uniform across the group, so it must not be run once per
    group (as the barrier rule allows for work-group barriers): region dispatch runs each
    sub-group through its own iterations."""
    attrs = 'attributes {mux.kernel = "entry_point"'
    if reqd:
        attrs += f", mux.reqd_work_group_size = array<i64: {reqd}, 1, 1>"
    prog = xmux.compile(PER_SUB_GROUP_TRIPS.replace("ATTRS", attrs + "}"), cache=False,
                        specialize=False, sub_group_size=4)
    n = 24
    a = np.arange(n, dtype=np.int32) % 5
    t = np.array([0, 1, 2, 3, 1, 2], np.int32)  # 2 groups x 3 sub-groups
    o = np.zeros(n, np.int32)
    prog.kernel("k")(a, t, o, global_size=n, local_size=12)
    want = a.copy()
    for s, ids in enumerate(sub_groups((n,), (12,), 4)):
        for _ in range(t[s]):
            want[ids] = np.cumsum(want[ids])
    np.testing.assert_array_equal(o, want)


#: Row y of a 8x3 group scans y + 1 times: the trip count depends on local_id(1), uniform
#: within each sub-group when N divides 8.
ROW_TRIPS = """
func.func @k(%a: memref<?xi32>, %o: memref<?xi32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 3, 1>} {
  %g = mux.get_global_linear_id : index
  %y = mux.get_local_id 1 : index
  %x = memref.load %a[%g] : memref<?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.addi %y, %c1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> (i32) {
    %s = mux.sub_group_scan_inclusive add %v : i32
    mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
    scf.yield %s : i32
  }
  memref.store %r, %o[%g] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("n", [4, 8])
def test_trip_count_from_local_id_y(n):
    prog = xmux.compile(ROW_TRIPS, cache=False, specialize=False, sub_group_size=n)
    gsize, lsize = (16, 3), (8, 3)
    a = np.arange(48, dtype=np.int32) % 5
    o = np.zeros(48, np.int32)
    prog.kernel("k")(a, o, global_size=gsize, local_size=lsize)
    want = a.copy()
    for ids in sub_groups(gsize, lsize, n):
        y = ids[0] // 16  # global linear id = y * 16 + x
        for _ in range(y + 1):
            want[ids] = np.cumsum(want[ids])
    np.testing.assert_array_equal(o, want)


def test_trip_count_from_local_id_y_across_sub_groups_is_divergent():
    with pytest.raises(XmuxError, match=r"scf.for whose trip count depends on the local id"):
        xmux.compile(ROW_TRIPS, cache=False, sub_group_size=24)  # one sub-group of 8x3
