"""Work-group and sub-group collectives end to end against numpy.

Every reduce / inclusive scan / exclusive scan × op kind × dtype (i32, i64 with the unsigned
kinds umin/umax, f32, f64, logical kinds on i1 and i32), any/all, broadcast from every
dimension, in 1-D/2-D/3-D with odd local sizes and a remainder group; the sub-group
(size 1) forms and shuffles; verifier errors for mismatched types.

Kernels read the value at the global linear id and write each result there; the model groups
the global linear ids by work-group in local-linear-id order.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

import xmux
from xmux.errors import LaunchError, XmuxError

# ---------------------------------------------------------------------------------------
# The work-group model
# ---------------------------------------------------------------------------------------

#: (global size, local size): 1, 7, 256, 1024 and a remainder group in 1-D; 13x3 in 2-D;
#: 3x5x2 and 1x1x7 in 3-D
LAUNCHES = [
    ((5,), (1,)),
    ((21,), (7,)),
    ((512,), (256,)),
    ((1024,), (1024,)),
    ((100,), (64,)),  # 64 + 36
    ((26, 6), (13, 3)),
    ((6, 10, 4), (3, 5, 2)),
    ((2, 3, 14), (1, 1, 7)),
]
LAUNCH_IDS = ["x".join(map(str, g)) + "/" + "x".join(map(str, ls)) for g, ls in LAUNCHES]


def groups(gsize: tuple[int, ...], lsize: tuple[int, ...]) -> list[np.ndarray]:
    """Global linear ids of each work-group in local-linear-id order (remainder groups with
    their actual size)."""
    g = list(gsize) + [1] * (3 - len(gsize))
    ls = list(lsize) + [1] * (3 - len(lsize))
    ng = [-(-g[d] // ls[d]) for d in range(3)]
    out = []
    for gz, gy, gx in itertools.product(range(ng[2]), range(ng[1]), range(ng[0])):
        lo = [gx * ls[0], gy * ls[1], gz * ls[2]]
        hi = [min(lo[d] + ls[d], g[d]) for d in range(3)]
        out.append(
            np.array(
                [
                    (z * g[1] + y) * g[0] + x
                    for z in range(lo[2], hi[2])
                    for y in range(lo[1], hi[1])
                    for x in range(lo[0], hi[0])
                ]
            )
        )
    return out


MLIR_TYPE = {"int32": "i32", "int64": "i64", "float32": "f32", "float64": "f64", "bool": "i1"}

INT_KINDS = ["add", "mul", "smin", "umin", "smax", "umax", "and", "or", "xor",
             "logical_and", "logical_or", "logical_xor"]
FLOAT_KINDS = ["fadd", "fmul", "fmin", "fmax"]
BOOL_KINDS = ["logical_and", "logical_or", "logical_xor", "and", "or", "xor"]
KINDS = {"int32": INT_KINDS, "int64": INT_KINDS, "float32": FLOAT_KINDS,
         "float64": FLOAT_KINDS, "bool": BOOL_KINDS}
COLLECTIVES = ["reduce", "scan_inclusive", "scan_exclusive"]


def _unsigned(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"uint{dtype.itemsize * 8}")


def identity(kind: str, dtype: np.dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return {"fadd": 0.0, "fmul": 1.0, "fmin": np.inf, "fmax": -np.inf}[kind]
    if dtype.kind == "b":
        return {"logical_and": True, "and": True}.get(kind, False)
    info = np.iinfo(dtype)
    return {"add": 0, "mul": 1, "smin": info.max, "umin": -1, "smax": info.min, "umax": 0,
            "and": -1, "or": 0, "xor": 0, "logical_and": 1, "logical_or": 0,
            "logical_xor": 0}[kind]


def accumulate(kind: str, x: np.ndarray) -> np.ndarray:
    """Inclusive scan of ``x`` (one group, in order), with the dtype's wrap-around."""
    dt = x.dtype
    if kind.startswith("logical_"):
        op = {"logical_and": np.logical_and, "logical_or": np.logical_or,
              "logical_xor": np.logical_xor}[kind]
        return op.accumulate(x != 0).astype(dt)
    if kind in ("umin", "umax"):
        op = np.minimum if kind == "umin" else np.maximum
        return op.accumulate(x.view(_unsigned(dt))).view(dt)
    op = {"add": np.add, "fadd": np.add, "mul": np.multiply, "fmul": np.multiply,
          "smin": np.minimum, "smax": np.maximum, "fmin": np.fmin, "fmax": np.fmax,
          "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind]
    if dt == np.bool_:
        op = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[kind]
    with np.errstate(over="ignore"):
        return op.accumulate(x, dtype=dt)


def expected(collective: str, kind: str, a: np.ndarray, gsize, lsize) -> np.ndarray:
    out = np.empty_like(a)
    for ids in groups(gsize, lsize):
        inc = accumulate(kind, a[ids])
        if collective == "reduce":
            out[ids] = inc[-1]
        elif collective == "scan_inclusive":
            out[ids] = inc
        else:
            first = np.array([identity(kind, a.dtype)]).astype(a.dtype)
            out[ids] = np.concatenate([first, inc[:-1]])
    return out


def inputs(dtype: str, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(n) < 0.7
    if dtype.startswith("int"):
        # small magnitudes with both signs: products wrap, unsigned and signed orders differ
        return rng.integers(-40, 40, n).astype(dtype)
    # products of many values in [0.9, 1.1] stay finite; signs make min/max interesting
    return (rng.uniform(0.9, 1.1, n) * rng.choice([-1.0, 1.0], n)).astype(dtype)


# ---------------------------------------------------------------------------------------
# Kernels: one per (collective, dtype), every kind of the dtype in one kernel
# ---------------------------------------------------------------------------------------


def _kernel(name: str, t: str, ops: list[str]) -> str:
    body = "\n".join(
        f"  %r{k} = {op} %x : {t}\n  %c{k} = arith.constant {k} : index\n"
        f"  memref.store %r{k}, %o[%c{k}, %g] : memref<?x?x{t}>"
        for k, op in enumerate(ops)
    )
    return f"""
func.func @{name}(%a: memref<?x{t}>, %o: memref<?x?x{t}>)
    attributes {{mux.kernel = "entry_point"}} {{
  %g = mux.get_global_linear_id : index
  %x = memref.load %a[%g] : memref<?x{t}>
{body}
  func.return
}}"""


@cache
def program(scope: str) -> xmux.Program:
    parts = []
    for dtype, kinds in KINDS.items():
        t = MLIR_TYPE[dtype]
        for c in COLLECTIVES:
            parts.append(_kernel(f"{c}_{dtype}", t, [f"mux.{scope}_{c} {k}" for k in kinds]))
    parts.append(
        _kernel("any_all", "i1", [f"mux.{scope}_any", f"mux.{scope}_all"])
    )
    return xmux.compile("\n".join(parts), cache=False)


def run(scope: str, name: str, a: np.ndarray, rows: int, gsize, lsize) -> np.ndarray:
    out = np.zeros((rows, a.size), a.dtype)
    program(scope).kernel(name)(a, out, global_size=gsize, local_size=lsize)
    return out


@pytest.mark.parametrize("dtype", list(KINDS))
@pytest.mark.parametrize("collective", COLLECTIVES)
@pytest.mark.parametrize("gsize,lsize", LAUNCHES, ids=LAUNCH_IDS)
def test_work_group_reduce_and_scans(collective, dtype, gsize, lsize):
    n = int(np.prod(gsize))
    a = inputs(dtype, n, seed=n)
    kinds = KINDS[dtype]
    got = run("work_group", f"{collective}_{dtype}", a, len(kinds), gsize, lsize)
    for row, kind in enumerate(kinds):
        want = expected(collective, kind, a, gsize, lsize)
        msg = f"{collective} {kind} {dtype}"
        if collective == "reduce" and kind in ("fadd", "fmul"):
            # reassociated (vectorized) fold: close to the sequential one, the same for the
            # whole group
            rtol = 1e-5 if dtype == "float32" else 1e-13
            np.testing.assert_allclose(got[row], want, rtol=rtol, err_msg=msg)
            for ids in groups(gsize, lsize):
                assert len(set(got[row][ids].tolist())) == 1, msg
        else:
            np.testing.assert_array_equal(got[row], want, err_msg=msg)


@pytest.mark.parametrize("gsize,lsize", LAUNCHES, ids=LAUNCH_IDS)
def test_work_group_any_all(gsize, lsize):
    n = int(np.prod(gsize))
    for a in (inputs("bool", n, seed=n), np.ones(n, bool), np.zeros(n, bool)):
        got = run("work_group", "any_all", a, 2, gsize, lsize)
        for row, np_op in enumerate((np.any, np.all)):
            want = np.empty_like(a)
            for ids in groups(gsize, lsize):
                want[ids] = np_op(a[ids])
            np.testing.assert_array_equal(got[row], want)


def test_fmin_fmax_ignore_nan():
    """IEEE minNum/maxNum (OpenCL fmin/fmax): a NaN loses against a number."""
    a = np.array([np.nan, 2.0, -1.0, np.nan, np.nan, np.nan, 5.0, np.nan], np.float32)
    got = run("work_group", "reduce_float32", a, 4, (8,), (4,))
    np.testing.assert_array_equal(got[2], [-1.0] * 4 + [5.0] * 4)
    np.testing.assert_array_equal(got[3], [2.0] * 4 + [5.0] * 4)


# ---------------------------------------------------------------------------------------
# Broadcast from every dimension
# ---------------------------------------------------------------------------------------

BROADCAST = """
func.func @bcast(%a: memref<?xf64>, %o: memref<?xf64>, %x: index, %y: index, %z: index)
    attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_linear_id : index
  %v = memref.load %a[%g] : memref<?xf64>
  %r = mux.work_group_broadcast %v, %x, %y, %z : f64
  memref.store %r, %o[%g] : memref<?xf64>
  func.return
}
func.func @bcast_i32(%a: memref<?xi32>, %o: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_linear_id : index
  %v = memref.load %a[%g] : memref<?xi32>
  %l = mux.get_local_size 0 : index
  %c1 = arith.constant 1 : index
  %last = arith.subi %l, %c1 : index
  %c0 = arith.constant 0 : index
  %r = mux.work_group_broadcast %v, %last, %c0, %c0 : i32
  %s = mux.work_group_broadcast %r, %c0, %c0, %c0 : i32
  memref.store %s, %o[%g] : memref<?xi32>
  func.return
}
"""


@cache
def bcast_program() -> xmux.Program:
    return xmux.compile(BROADCAST, cache=False)


@pytest.mark.parametrize(
    "gsize,lsize",
    [((12,), (4,)), ((26, 6), (13, 3)), ((6, 10, 4), (3, 5, 2)), ((2, 3, 14), (1, 1, 7))],
)
def test_work_group_broadcast_from_every_position(gsize, lsize):
    k = bcast_program().kernel("bcast")
    n = int(np.prod(gsize))
    a = np.arange(n, dtype=np.float64) * 1.5
    ls3 = list(lsize) + [1] * (3 - len(lsize))
    for x, y, z in itertools.product(range(ls3[0]), range(ls3[1]), range(ls3[2])):
        o = np.zeros_like(a)
        k(a, o, x, y, z, global_size=gsize, local_size=lsize)
        lin = (z * ls3[1] + y) * ls3[0] + x
        want = np.empty_like(a)
        for ids in groups(gsize, lsize):
            want[ids] = a[ids[lin]]
        np.testing.assert_array_equal(o, want, err_msg=f"from ({x}, {y}, {z})")


def test_dependent_broadcasts_in_a_remainder_group():
    """Two broadcasts in a row (the second of the first's result), the chosen item being the
    last of each group, also of a smaller remainder group."""
    k = bcast_program().kernel("bcast_i32")
    a = np.arange(100, dtype=np.int32) * 3
    o = np.zeros_like(a)
    k(a, o, global_size=100, local_size=16)
    want = np.empty_like(a)
    for ids in groups((100,), (16,)):
        want[ids] = a[ids[-1]]
    np.testing.assert_array_equal(o, want)


# ---------------------------------------------------------------------------------------
# Collectives in loops, helpers, with required sizes; limits
# ---------------------------------------------------------------------------------------

SHAPES = """
func.func @helper(%v: i64) -> i64 {
  %r = mux.work_group_scan_exclusive add %v : i64
  func.return %r : i64
}
// prefix sums of prefix sums, n times: each iteration's collective uses the previous result
func.func @iterated(%a: memref<?xi64>, %o: memref<?xi64>, %n: index)
    attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_linear_id : index
  %x = memref.load %a[%g] : memref<?xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %x) -> (i64) {
    %s = mux.work_group_scan_inclusive add %v : i64
    %t = func.call @helper(%s) : (i64) -> i64
    %m = mux.work_group_reduce smax %t : i64
    %u = arith.subi %s, %m : i64
    scf.yield %u : i64
  }
  memref.store %r, %o[%g] : memref<?xi64>
  func.return
}
func.func @fixed(%a: memref<?xf32>, %o: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %g = mux.get_global_linear_id : index
  %x = memref.load %a[%g] : memref<?xf32>
  %s = mux.work_group_reduce fadd %x : f32
  %y = arith.mulf %x, %s : f32
  %p = mux.work_group_scan_inclusive fmax %y : f32
  memref.store %p, %o[%g] : memref<?xf32>
  func.return
}
"""


@cache
def shapes_program() -> xmux.Program:
    return xmux.compile(SHAPES, cache=False)


@pytest.mark.parametrize("gsize,lsize", [((60,), (7,)), ((26, 6), (13, 3)), ((512,), (256,))])
def test_collectives_in_a_loop_and_a_helper(gsize, lsize):
    k = shapes_program().kernel("iterated")
    n = int(np.prod(gsize))
    a = np.random.default_rng(3).integers(-9, 9, n).astype(np.int64)
    o = np.zeros_like(a)
    k(a, o, 3, global_size=gsize, local_size=lsize)
    want = a.copy()
    for ids in groups(gsize, lsize):
        v = a[ids]
        for _ in range(3):
            s = np.cumsum(v)
            t = np.concatenate([[0], np.cumsum(s)[:-1]])  # exclusive scan of s
            v = s - t.max()
        want[ids] = v
    np.testing.assert_array_equal(o, want)


def test_required_size_16x16():
    k = shapes_program().kernel("fixed")
    a = np.random.default_rng(4).uniform(-1, 1, 64 * 32).astype(np.float32)
    o = np.zeros_like(a)
    k(a, o, global_size=(64, 32), local_size=(16, 16))
    want = np.empty_like(a)
    for ids in groups((64, 32), (16, 16)):
        x = a[ids]
        s = np.add.accumulate(x)[-1]
        want[ids] = np.maximum.accumulate(x * s)
    np.testing.assert_allclose(o, want, rtol=1e-5)


def test_work_groups_above_the_collective_limit_are_refused():
    k = program("work_group").kernel("reduce_int32")
    a = np.zeros(2048, np.int32)
    with pytest.raises(LaunchError, match="at most 1024 without a reqd_work_group_size"):
        k(a, np.zeros((12, 2048), np.int32), global_size=2048, local_size=2048)


# ---------------------------------------------------------------------------------------
# Sub-groups of one work-item
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", list(KINDS))
@pytest.mark.parametrize("collective", COLLECTIVES)
def test_sub_group_reduce_and_scans(collective, dtype):
    a = inputs(dtype, 37, seed=5)
    kinds = KINDS[dtype]
    got = run("sub_group", f"{collective}_{dtype}", a, len(kinds), (37,), (37,))
    for row, kind in enumerate(kinds):
        want = expected(collective, kind, a, (37,), (1,))  # groups of one
        np.testing.assert_array_equal(got[row], want, err_msg=f"{collective} {kind} {dtype}")


def test_sub_group_any_all():
    a = inputs("bool", 50, seed=6)
    got = run("sub_group", "any_all", a, 2, (50,), (10,))
    np.testing.assert_array_equal(got[0], a)
    np.testing.assert_array_equal(got[1], a)


SHUFFLES = """
func.func @shuffles(%a: memref<?xf32>, %b: memref<?xf32>, %d: memref<?xi32>,
                    %o: memref<?x?xf32>) attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_id 0 : index
  %x = memref.load %a[%g] : memref<?xf32>
  %y = memref.load %b[%g] : memref<?xf32>
  %delta = memref.load %d[%g] : memref<?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i32
  %s = mux.sub_group_shuffle %x, %zero : f32
  %sx = mux.sub_group_shuffle_xor %x, %zero : f32
  %up = mux.sub_group_shuffle_up %y, %x, %delta : f32
  %down = mux.sub_group_shuffle_down %x, %y, %delta : f32
  %bc = mux.sub_group_broadcast %x, %zero : f32
  memref.store %s, %o[%c0, %g] : memref<?x?xf32>
  memref.store %sx, %o[%c1, %g] : memref<?x?xf32>
  memref.store %up, %o[%c2, %g] : memref<?x?xf32>
  memref.store %down, %o[%c3, %g] : memref<?x?xf32>
  memref.store %bc, %o[%c4, %g] : memref<?x?xf32>
  mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
  func.return
}
"""


def test_sub_group_shuffles():
    """Max sub-group size 1: shuffle/xor/broadcast by 0 give the own value; shuffle_up by
    0 gives curr and by 1 prev (invocation 0 of the previous sub-group's values);
    shuffle_down by 0 gives curr and by 1 next."""
    k = xmux.compile(SHUFFLES, cache=False).kernel("shuffles")
    n = 40
    a = np.arange(n, dtype=np.float32)
    b = -a - 100
    d = (np.arange(n) % 2).astype(np.int32)
    o = np.zeros((5, n), np.float32)
    k(a, b, d, o, global_size=n, local_size=8)
    for row in (0, 1, 4):
        np.testing.assert_array_equal(o[row], a)
    np.testing.assert_array_equal(o[2], np.where(d == 0, a, b))
    np.testing.assert_array_equal(o[3], np.where(d == 0, a, b))


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op,match",
    [
        ('"mux.work_group_reduce"(%i) <{kind = #mux<kind add>}> : (i32) -> i64',
         "result type i64 must equal the type i32 of operand 'value'"),
        ("mux.work_group_reduce fadd %i : i32", "kind fadd needs a float value, got i32"),
        ("mux.work_group_scan_inclusive add %f : f32",
         r"kind add needs an integer value, got f32 \(use fadd for floats\)"),
        ("mux.work_group_scan_exclusive umin %f : f32", r"\(use fmin for floats\)"),
        ("mux.work_group_any %i : i32", "'mux.work_group_any' value must be i1, got i32"),
        ('"mux.work_group_broadcast"(%f, %c, %c, %c) : (f32, index, index, index) -> f64',
         "result type f64 must equal the type f32 of operand 'value'"),
        ("mux.sub_group_reduce smax %f : f32", r"\(use fmax for floats\)"),
        ('"mux.sub_group_shuffle_up"(%f, %g, %i) : (f32, f64, i32) -> f32',
         "result type f32 must equal the type f64 of operand 'curr'"),
    ],
)
def test_mismatched_collective_types(op, match):
    src = f"""
    func.func @k(%i: i32, %f: f32, %g: f64, %c: index) attributes {{mux.kernel = "entry_point"}} {{
      %r = {op}
      func.return
    }}
    """
    with pytest.raises(XmuxError, match=match):
        xmux.compile(src, cache=False)


@pytest.mark.parametrize(
    "t,dtype,kinds",
    [
        ("i8", "int8", ["add", "mul", "umin", "smax", "xor", "logical_or"]),
        ("i16", "int16", ["add", "umax", "smin", "and"]),
        ("index", "int64", ["add", "umax", "smin"]),
        ("f16", "float16", ["fadd", "fmin", "fmax"]),
    ],
)
@pytest.mark.parametrize("collective", COLLECTIVES)
def test_narrow_and_index_types(t, dtype, kinds, collective):
    ops = [f"mux.work_group_{collective} {k}" for k in kinds]
    k = xmux.compile(_kernel("k", t, ops), cache=False).kernel("k")
    gsize, lsize = (26, 6), (13, 3)
    rng = np.random.default_rng(7)
    if dtype == "float16":
        a = rng.integers(-8, 8, 156).astype(np.float16)  # exact sums in f16
    else:
        a = rng.integers(-100, 100, 156).astype(dtype)
    out = np.zeros((len(kinds), 156), dtype)
    k(a, out, global_size=gsize, local_size=lsize)
    for row, kind in enumerate(kinds):
        want = expected(collective, kind, a, gsize, lsize)
        np.testing.assert_array_equal(out[row], want, err_msg=f"{collective} {kind} {t}")


REDUCE_FADD = """
func.func @r(%a: memref<?xf32>, %o: memref<?xf32>) attributes {mux.kernel = "entry_point"REQD} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %x : f32
  memref.store %s, %o[%i] : memref<?xf32>
  func.return
}
"""


@pytest.mark.parametrize("lsize", [1, 8])
@pytest.mark.parametrize("reqd", [False, True])
def test_reduce_fadd_from_negative_zero_is_exact(lsize, reqd):
    """The fold starts from fadd's identity -0.0: a group of -0.0s sums to -0.0, a NaN
    stays NaN, and a one-element group gives its element bit for bit."""
    attr = f", mux.reqd_work_group_size = array<i64: {lsize}, 1, 1>" if reqd else ""
    k = xmux.compile(REDUCE_FADD.replace("REQD", attr), cache=False)["r"]
    a = np.concatenate([
        np.full(lsize, -0.0, np.float32),
        np.linspace(1, 2, lsize, dtype=np.float32),
        np.full(lsize, np.nan, np.float32),
    ])
    o = np.zeros_like(a)
    k(a, o, global_size=(a.size,), local_size=(lsize,))
    assert np.all(np.signbit(o[:lsize])) and np.all(o[:lsize] == 0)
    np.testing.assert_allclose(o[lsize:2 * lsize], a[lsize:2 * lsize].sum(), rtol=1e-6)
    assert np.all(np.isnan(o[2 * lsize:]))
