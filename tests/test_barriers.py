"""Barrier regions end to end: each barrier shape of issue 3 against a numpy model of the
work-group, in 1-D/2-D/3-D with local sizes 1, 3, 7, 13x3, 256 (and a remainder group).

Kernels talk through a work-group local buffer indexed by the local linear id, so the
same kernel runs in any dimension; the model groups the global linear ids by work-group.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from xdsl.dialects import func, memref, scf

import xmux
from xmux import pipelines
from xmux.dialects import mux
from xmux.errors import XmuxError
from xmux.registry import make_context

# ---------------------------------------------------------------------------------------
# The work-group model
# ---------------------------------------------------------------------------------------

#: (global size, local size): 1-D, 2-D, 3-D; sizes 1, 3, 7, 13x3, 256; a remainder group
LAUNCHES = [
    ((5,), (1,)),
    ((9,), (3,)),
    ((21,), (7,)),
    ((512,), (256,)),
    ((10,), (3,)),  # 3 + 3 + 3 + 1
    ((26, 6), (13, 3)),
    ((14, 9), (7, 3)),
    ((6, 4, 4), (3, 2, 2)),
    ((2, 3, 14), (1, 1, 7)),
]


def groups(gsize: tuple[int, ...], lsize: tuple[int, ...]) -> list[np.ndarray]:
    """Global linear ids of each work-group, ordered by local linear id (remainder groups
    have their actual size, as OpenCL 2.0 non-uniform groups)."""
    g = list(gsize) + [1] * (3 - len(gsize))
    ls = list(lsize) + [1] * (3 - len(lsize))
    ng = [-(-g[d] // ls[d]) for d in range(3)]
    out = []
    for gz, gy, gx in itertools.product(range(ng[2]), range(ng[1]), range(ng[0])):
        lo = [gx * ls[0], gy * ls[1], gz * ls[2]]
        hi = [min(lo[d] + ls[d], g[d]) for d in range(3)]
        ids = [
            (z * g[1] + y) * g[0] + x
            for z in range(lo[2], hi[2])
            for y in range(lo[1], hi[1])
            for x in range(lo[0], hi[0])
        ]
        out.append(np.array(ids))
    return out


def model(gsize, lsize, a: np.ndarray, per_group) -> np.ndarray:
    out = np.zeros_like(a)
    for ids in groups(gsize, lsize):
        out[ids] = per_group(a[ids])
    return out


PRELUDE = """
  %gid = mux.get_global_linear_id : index
  %lid = mux.get_local_linear_id : index
  %ls0 = mux.get_local_size 0 : index
  %ls1 = mux.get_local_size 1 : index
  %ls2 = mux.get_local_size 2 : index
  %n01 = arith.muli %ls0, %ls1 : index
  %n = arith.muli %n01, %ls2 : index
  %t = memref.get_global @tile : memref<256xi32, 3>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%gid] : memref<?xi32>
  %lid1 = arith.addi %lid, %c1 : index
  %next = arith.remui %lid1, %n : index
  %nm1 = arith.subi %n, %c1 : index
  %rev = arith.subi %nm1, %lid : index
"""
TILE = (
    '"memref.global"() <{sym_name = "tile", type = memref<256xi32, 3>, '
    'sym_visibility = "private", initial_value}> : () -> ()\n'
)
BARRIER = "mux.work_group_barrier work_group, <acq_rel, work_group_memory>"


def kernel(name: str, body: str, extra_args: str = "") -> str:
    return (
        TILE
        + f"func.func @{name}(%a: memref<?xi32>, %out: memref<?xi32>{extra_args}) "
        + 'attributes {mux.kernel = "entry_point"} {'
        + PRELUDE
        + body.replace("BARRIER", BARRIER)
        + "\n  func.return\n}\n"
    )


# ---------------------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------------------

ONE = kernel(
    "one",
    """
  memref.store %v, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %w = memref.load %t[%rev] : memref<256xi32, 3>
  %w2 = arith.addi %w, %w : i32
  %o = arith.addi %w2, %v : i32
  memref.store %o, %out[%gid] : memref<?xi32>""",
)


def one_ref(x, k):
    return x[::-1] * 2 + x


IN_FOR = kernel(
    "in_for",
    """
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %v) -> (i32) {
    memref.store %acc, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %w = memref.load %t[%next] : memref<256xi32, 3>
    BARRIER
    %acc2 = arith.addi %acc, %w : i32
    scf.yield %acc2 : i32
  }
  memref.store %r, %out[%gid] : memref<?xi32>""",
    ", %k: index",
)


def in_for_ref(x, k):
    for _ in range(k):
        x = x + np.roll(x, -1)
    return x


IN_WHILE = kernel(
    "in_while",
    """
  memref.store %v, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %s_end = scf.while (%s = %c1) : (index) -> index {
    %go = arith.cmpi ult, %s, %n : index
    scf.condition(%go) %s : index
  } do {
  ^bb0(%s1: index):
    %s2 = arith.addi %s1, %s1 : index
    %m = arith.remui %lid, %s2 : index
    %head = arith.cmpi eq, %m, %c0 : index
    %p = arith.addi %lid, %s1 : index
    %inb = arith.cmpi ult, %p, %n : index
    %both = arith.andi %head, %inb : i1
    scf.if %both {
      %x = memref.load %t[%lid] : memref<256xi32, 3>
      %y = memref.load %t[%p] : memref<256xi32, 3>
      %z = arith.addi %x, %y : i32
      memref.store %z, %t[%lid] : memref<256xi32, 3>
    }
    BARRIER
    scf.yield %s2 : index
  }
  %sum = memref.load %t[%c0] : memref<256xi32, 3>
  memref.store %sum, %out[%gid] : memref<?xi32>""",
)


def in_while_ref(x, k):
    return np.full_like(x, x.sum())


IN_IF = kernel(
    "in_if",
    """
  %pos = arith.cmpi ugt, %k, %c0 : index
  %r = scf.if %pos -> (i32) {
    memref.store %v, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %w = memref.load %t[%rev] : memref<256xi32, 3>
    scf.yield %w : i32
  } else {
    %v2 = arith.muli %v, %v : i32
    memref.store %v2, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %w = memref.load %t[%next] : memref<256xi32, 3>
    scf.yield %w : i32
  }
  %o = arith.subi %r, %v : i32
  memref.store %o, %out[%gid] : memref<?xi32>""",
    ", %k: index",
)


def in_if_ref(x, k):
    return (x[::-1] if k > 0 else np.roll(x * x, -1)) - x


NESTED = kernel(
    "nested",
    """
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %v) -> (i32) {
    memref.store %acc, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %li = arith.addi %lid, %i : index
    %src = arith.remui %li, %n : index
    %x = memref.load %t[%src] : memref<256xi32, 3>
    BARRIER
    %inner = scf.for %j = %c0 to %k step %c1 iter_args(%b = %x) -> (i32) {
      memref.store %b, %t[%lid] : memref<256xi32, 3>
      BARRIER
      %y = memref.load %t[%next] : memref<256xi32, 3>
      BARRIER
      %b2 = arith.subi %y, %b : i32
      scf.yield %b2 : i32
    }
    %acc2 = arith.addi %acc, %inner : i32
    scf.yield %acc2 : i32
  }
  memref.store %r, %out[%gid] : memref<?xi32>""",
    ", %k: index",
)


def nested_ref(x, k):
    acc = x.copy()
    for i in range(k):
        b = np.roll(acc, -i)
        for _ in range(k):
            b = np.roll(b, -1) - b
        acc = acc + b
    return acc


# A loop with two exits (the count runs out, or a uniform flag read from local memory after
# the barrier says stop): scf.while with the exits merged into its condition, whose value is
# not provably uniform (a load) — the barrier in the loop makes it uniform.
MULTI_EXIT = kernel(
    "multi_exit",
    """
  %false = arith.constant false
  %lim = arith.index_cast %k : index to i32
  %r:3 = scf.while (%i = %c0, %acc = %v, %stop = %false) : (index, i32, i1) -> (index, i32, i1) {
    %lt = arith.cmpi ult, %i, %k : index
    %true = arith.constant true
    %more = arith.xori %stop, %true : i1
    %go = arith.andi %lt, %more : i1
    scf.condition(%go) %i, %acc, %stop : index, i32, i1
  } do {
  ^bb0(%i1: index, %acc1: i32, %stop1: i1):
    memref.store %acc1, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %first = memref.load %t[%c0] : memref<256xi32, 3>
    %w = memref.load %t[%next] : memref<256xi32, 3>
    BARRIER
    %acc2 = arith.addi %acc1, %w : i32
    %stop2 = arith.cmpi sgt, %first, %lim : i32
    %i2 = arith.addi %i1, %c1 : index
    scf.yield %i2, %acc2, %stop2 : index, i32, i1
  }
  memref.store %r#1, %out[%gid] : memref<?xi32>""",
    ", %k: index",
)


def multi_exit_ref(x, k):
    i, stop = 0, False
    while i < k and not stop:
        first = x[0]
        x = x + np.roll(x, -1)
        stop = first > k
        i += 1
    return x


FIRST_LAST = kernel(
    "first_last",
    """
  BARRIER
  memref.store %v, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %w = memref.load %t[%rev] : memref<256xi32, 3>
  memref.store %w, %out[%gid] : memref<?xi32>
  BARRIER""",
)


def first_last_ref(x, k):
    return x[::-1]


# %w (from a load) is defined before the first barrier and used after the second.
LIVE_TWO = kernel(
    "live_two",
    """
  %c3 = arith.constant 3 : i32
  %w = arith.muli %v, %c3 : i32
  memref.store %v, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %x = memref.load %t[%next] : memref<256xi32, 3>
  BARRIER
  %o = arith.addi %w, %x : i32
  memref.store %o, %out[%gid] : memref<?xi32>""",
)


def live_two_ref(x, k):
    return 3 * x + np.roll(x, -1)


# The value stored before the barrier comes from the previous iteration (a use through the
# loop back edge); the loop's last value is used after it (AdaptiveCpp #2137/#2137-like).
BACK_EDGE = kernel(
    "back_edge",
    """
  %zero = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%x = %v) -> (i32) {
    memref.store %x, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %y = memref.load %t[%rev] : memref<256xi32, 3>
    %ii = arith.index_cast %i : index to i32
    %y2 = arith.addi %y, %ii : i32
    BARRIER
    scf.yield %y2 : i32
  }
  memref.store %r, %out[%gid] : memref<?xi32>""",
    ", %k: index",
)


def back_edge_ref(x, k):
    for i in range(k):
        x = x[::-1] + i
    return x


# Ids, casts and affine functions of them cross barriers: re-computed, never stored.
TIDIED = kernel(
    "tidied",
    """
  %gi = arith.index_cast %gid : index to i32
  %li = arith.index_cast %lid : index to i32
  %two = arith.constant 2 : i32
  %g2 = arith.muli %gi, %two : i32
  memref.store %li, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %w = memref.load %t[%rev] : memref<256xi32, 3>
  %s = arith.addi %w, %g2 : i32
  %s2 = arith.addi %s, %v : i32
  memref.store %s2, %out[%gid] : memref<?xi32>""",
)

# Early return after a barrier, in CFG form: uniform per group (the group's first element).
EARLY_RETURN = (
    TILE
    + """func.func @early_return(%a: memref<?xi32>, %out: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {"""
    + PRELUDE
    + f"""
  memref.store %v, %t[%lid] : memref<256xi32, 3>
  {BARRIER}
  %f = memref.load %t[%c0] : memref<256xi32, 3>
  %two = arith.constant 2 : i32
  %fm = arith.remsi %f, %two : i32
  %z = arith.constant 0 : i32
  %even = arith.cmpi eq, %fm, %z : i32
  cf.cond_br %even, ^ret, ^more
^ret:
  %w = memref.load %t[%rev] : memref<256xi32, 3>
  memref.store %w, %out[%gid] : memref<?xi32>
  func.return
^more:
  {BARRIER}
  %v3 = arith.addi %v, %v : i32
  memref.store %v3, %t[%lid] : memref<256xi32, 3>
  {BARRIER}
  %x = memref.load %t[%next] : memref<256xi32, 3>
  memref.store %x, %out[%gid] : memref<?xi32>
  func.return
}}
"""
)


def early_return_ref(x, k):
    return x[::-1] if x[0] % 2 == 0 else np.roll(2 * x, -1)


# PoCL #1167: a guarded barrier in a loop whose trip count varies per work-item; the guard
# is false for everybody, so the loop runs its own count in each work-item.
VARYING_TRIP = kernel(
    "varying_trip",
    """
  memref.store %v, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %c2 = arith.constant 2 : index
  %ub = arith.addi %lid, %c2 : index
  scf.for %i = %c0 to %ub step %c1 {
    %x = memref.load %t[%lid] : memref<256xi32, 3>
    %ii = arith.index_cast %i : index to i32
    %x2 = arith.addi %x, %ii : i32
    memref.store %x2, %t[%lid] : memref<256xi32, 3>
    %over = arith.cmpi uge, %lid, %n : index
    scf.if %over {
      BARRIER
    }
  }
  %r = memref.load %t[%lid] : memref<256xi32, 3>
  memref.store %r, %out[%gid] : memref<?xi32>""",
)


def varying_trip_ref(x, k):
    lid = np.arange(len(x))
    return x + (lid + 2) * (lid + 1) // 2


# Private memory that lives across barriers: one slice per work-item.
PRIVATE = kernel(
    "private",
    """
  %p = memref.alloca() : memref<3xi32>
  %c2 = arith.constant 2 : index
  memref.store %v, %p[%c0] : memref<3xi32>
  %v2 = arith.addi %v, %v : i32
  memref.store %v2, %p[%c1] : memref<3xi32>
  memref.store %v, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %w = memref.load %t[%rev] : memref<256xi32, 3>
  memref.store %w, %p[%c2] : memref<3xi32>
  BARRIER
  %x0 = memref.load %p[%c0] : memref<3xi32>
  %x1 = memref.load %p[%c1] : memref<3xi32>
  %x2 = memref.load %p[%c2] : memref<3xi32>
  %s1 = arith.addi %x0, %x1 : i32
  %s2 = arith.addi %s1, %x2 : i32
  memref.store %s2, %out[%gid] : memref<?xi32>""",
)


def private_ref(x, k):
    return 3 * x + x[::-1]


# A trip count read from local memory after a barrier (uniform in practice, not provably):
# the barriers in the loop make it uniform, work-item 0's value drives the loop.
LOADED_BOUND = kernel(
    "loaded_bound",
    """
  memref.store %v, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %f = memref.load %t[%c0] : memref<256xi32, 3>
  %three = arith.constant 3 : i32
  %f3 = arith.andi %f, %three : i32
  %fi = arith.index_cast %f3 : i32 to index
  %trip = arith.addi %fi, %c1 : index
  BARRIER
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %v) -> (i32) {
    memref.store %acc, %t[%lid] : memref<256xi32, 3>
    BARRIER
    %w = memref.load %t[%next] : memref<256xi32, 3>
    BARRIER
    %acc2 = arith.addi %acc, %w : i32
    scf.yield %acc2 : i32
  }
  memref.store %r, %out[%gid] : memref<?xi32>""",
)


def loaded_bound_ref(x, k):
    for _ in range((int(x[0]) & 3) + 1):
        x = x + np.roll(x, -1)
    return x


# A combining step marked mux.single_work_item (as lower-work-group-collectives makes it),
# sharing its barrier region with ops before and after it: the body runs once per group as
# work-item 0, so %u and %v inside are work-item 0's and the id queries return 0.
SINGLE = kernel(
    "single",
    """
  memref.store %v, %t[%lid] : memref<256xi32, 3>
  BARRIER
  %u = memref.load %t[%rev] : memref<256xi32, 3>
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %v) -> (i32) {
      %e = memref.load %t[%j] : memref<256xi32, 3>
      %acc2 = arith.addi %acc, %e : i32
      scf.yield %acc2 : i32
    }
    %q0 = mux.get_local_id 0 : index
    %q1 = mux.get_local_id 1 : index
    %q2 = mux.get_local_id 2 : index
    %q3 = mux.get_local_linear_id : index
    %qa = arith.addi %q0, %q1 : index
    %qb = arith.addi %q2, %q3 : index
    %q = arith.addi %qa, %qb : index
    %qi = arith.index_cast %q : index to i32
    %s1 = arith.addi %s, %u : i32
    %s2 = arith.addi %s1, %qi : i32
    memref.store %s2, %t[%c0] : memref<256xi32, 3>
  } {mux.single_work_item}
  %u2 = arith.addi %u, %v : i32
  BARRIER
  %w = memref.load %t[%c0] : memref<256xi32, 3>
  %o = arith.addi %w, %u2 : i32
  memref.store %o, %out[%gid] : memref<?xi32>""",
)


def single_ref(x, k):
    return (x.sum() + x[0] + x[-1]) + x[::-1] + x


SHAPES = {
    "one": (ONE, one_ref, "structured"),
    "in_for": (IN_FOR, in_for_ref, "structured"),
    "in_while": (IN_WHILE, in_while_ref, "structured"),
    "in_if": (IN_IF, in_if_ref, "structured"),
    "nested": (NESTED, nested_ref, "structured"),
    "multi_exit": (MULTI_EXIT, multi_exit_ref, "structured"),
    "first_last": (FIRST_LAST, first_last_ref, "structured"),
    "live_two": (LIVE_TWO, live_two_ref, "structured"),
    "back_edge": (BACK_EDGE, back_edge_ref, "structured"),
    "tidied": (TIDIED, None, "structured"),
    "private": (PRIVATE, private_ref, "structured"),
    "loaded_bound": (LOADED_BOUND, loaded_bound_ref, "structured"),
    "single": (SINGLE, single_ref, "structured"),
    "early_return": (EARLY_RETURN, early_return_ref, "dispatch"),
    "varying_trip": (VARYING_TRIP, varying_trip_ref, "dispatch"),
}
NEEDS_K = {"in_for", "in_if", "nested", "multi_exit", "back_edge"}

#: the target the shape tests run on (tests/test_nvptx_barrier_shapes.py sets "nvptx")
TARGET = "cpu"
_programs: dict[tuple[str, str], xmux.Program] = {}


def program(name: str):
    key = (TARGET, name)
    if key not in _programs:
        _programs[key] = xmux.compile(SHAPES[name][0], cache=False, target=TARGET)
    return _programs[key]


def launch(name, gsize, lsize, a, k):
    out = np.zeros_like(a)
    args = (a, out, k) if name in NEEDS_K else (a, out)
    program(name).kernel(name)(*args, global_size=gsize, local_size=lsize)
    return out


@pytest.mark.parametrize("gsize,lsize", LAUNCHES, ids=lambda v: "x".join(map(str, v)))
@pytest.mark.parametrize("name", list(SHAPES))
def test_shape_matches_numpy(name, gsize, lsize):
    n = int(np.prod(gsize))
    a = np.random.default_rng(n).integers(-50, 50, n, dtype=np.int32)
    ks = [0, 1, 3] if name in NEEDS_K else [0]
    for k in ks:
        got = launch(name, gsize, lsize, a, k)
        if name == "tidied":
            want = np.zeros_like(a)
            for ids in groups(gsize, lsize):
                m = len(ids)
                want[ids] = (m - 1 - np.arange(m)) + 2 * ids + a[ids]
        else:
            want = model(gsize, lsize, a, lambda x, k=k: SHAPES[name][1](x, k))
        np.testing.assert_array_equal(got, want, err_msg=f"{name} k={k}")


# ---------------------------------------------------------------------------------------
# Which form each shape takes, and what is stored
# ---------------------------------------------------------------------------------------


def lowered(src: str):
    from xdsl.parser import Parser

    module = Parser(make_context(), src).parse_module()
    ctx = make_context()
    for name in ("prepare-barriers", "work-item-loops"):
        pipelines.make_pass(name).apply(ctx, module)
        module.verify()
    return module


@pytest.mark.parametrize("name", list(SHAPES))
def test_shape_takes_expected_form(name):
    module = lowered(SHAPES[name][0])
    names = {op.name for op in module.walk()}
    assert "mux.work_group_barrier" not in names
    regions = [
        f for f in module.ops
        if isinstance(f, func.FuncOp) and ".mux-region-" in f.sym_name.data
    ]
    assert ("dispatch" if regions else "structured") == SHAPES[name][2]


def stored_types(module) -> list[str]:
    return [
        str(op.memref.type.element_type)
        for op in module.walk()
        if isinstance(op, memref.AllocaOp) and "mux.per_work_item" in op.attributes
    ]


def test_single_work_item_step_runs_outside_work_item_loops():
    module = lowered(SINGLE)
    kernel = next(f for f in module.ops if isinstance(f, func.FuncOp))
    assert not [op for op in kernel.walk() if isinstance(op, scf.IfOp)]
    # the fold loop sits at the group level, after local ids set to 0 for every dimension
    fold = [op for op in kernel.body.block.ops if isinstance(op, scf.ForOp) and op.results]
    assert len(fold) == 1
    ids = [op for op in kernel.body.block.ops if isinstance(op, mux.SetLocalIdOp)]
    assert sorted(op.dim.value.data for op in ids[-3:]) == [0, 1, 2]


def test_tidied_values_are_recomputed_not_stored():
    # only the loaded %v crosses the barrier in storage; ids, casts and products are
    # re-computed
    assert stored_types(lowered(TIDIED)) == ["i32"]


def test_uniform_loop_values_stay_at_group_level():
    # in_while: the stride %s is a group-level iteration value of the lifted scf.while;
    # the only storage is for nothing at all (the loaded value is consumed before the loop)
    module = lowered(IN_WHILE)
    assert stored_types(module) == []
    whiles = [op for op in module.walk() if isinstance(op, scf.WhileOp)]
    assert len(whiles) == 1 and [str(t) for t in whiles[0].result_types] == ["index"]


def test_fences_keep_barrier_semantics():
    wider = "mux.work_group_barrier work_group, <acq_rel, cross_work_group_memory>"
    src = ONE.replace(BARRIER, wider)
    module = lowered(src)
    fences = [op for op in module.walk() if isinstance(op, mux.MemBarrierOp)]
    assert len(fences) == 1
    assert "cross_work_group_memory" in str(fences[0])


def test_divergent_barrier_is_an_error():
    src = kernel(
        "div",
        """
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
    BARRIER
  }""",
    )
    with pytest.raises(XmuxError, match=r"kernel @div: barrier 'mux.work_group_barrier' \(id 1\)"
                       r" is directly inside an scf.if whose condition compares the local id"):
        xmux.compile(src, cache=False)


# ---------------------------------------------------------------------------------------
# Required sizes, other work-item orders
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "attr,gsize,lsize",
    [
        ("mux.reqd_work_group_size = array<i64: 8, 1, 1>", (16,), (8,)),
        ("mux.reqd_work_group_size = array<i64: 3, 2, 2>", (6, 4, 4), (3, 2, 2)),
        ("mux.work_item_order = array<i64: 0, 1, 2>", (14, 9), (7, 3)),
        ("mux.work_item_order = array<i64: 1, 0, 2>", (6, 4, 4), (3, 2, 2)),
        ("mux.max_work_dim = 1", (21,), (7,)),
    ],
)
@pytest.mark.parametrize("name", ["in_for", "nested", "early_return", "private"])
def test_shapes_with_kernel_attributes(name, attr, gsize, lsize):
    marked = 'mux.kernel = "entry_point"'
    src = SHAPES[name][0].replace(marked, f"{marked}, {attr}")
    prog = xmux.compile(src, cache=False)
    n = int(np.prod(gsize))
    a = np.random.default_rng(3).integers(-50, 50, n, dtype=np.int32)
    out = np.zeros_like(a)
    k = 2
    args = (a, out, k) if name in NEEDS_K else (a, out)
    prog.kernel(name)(*args, global_size=gsize, local_size=lsize)
    want = model(gsize, lsize, a, lambda x: SHAPES[name][1](x, k))
    np.testing.assert_array_equal(out, want)


def test_several_kernels_with_barriers_in_one_module():
    src = ONE + IN_FOR.replace(TILE, "")
    prog = xmux.compile(src, cache=False)
    a = np.arange(12, dtype=np.int32)
    for name, k in (("one", None), ("in_for", 2)):
        out = np.zeros_like(a)
        args = (a, out) if k is None else (a, out, k)
        prog.kernel(name)(*args, global_size=(12,), local_size=(4,))
        want = model((12,), (4,), a, lambda x, name=name, k=k: SHAPES[name][1](x, k))
        np.testing.assert_array_equal(out, want)
