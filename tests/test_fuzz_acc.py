"""A fixed slice of the OpenACC program fuzzer (tests/fuzz/acc_gen.py, acc_harness.py;
``python -m tests.fuzz.acc_harness campaign`` for campaigns): random acc.parallel /
acc.serial programs (gang / worker / vector loop nests at random sizes, every reduction
operator on i32 / i64 / f32 / f64, private variables, reductions on the construct) run on the
cpu and host targets, every result compared bit for bit with the sequential model.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.fuzz import acc_gen, acc_harness
from tests.libgomp_ports import verify_ends_only

#: seeds covering every default shape (flat at several level sets, rows with a copy
#: variable reduced by the inner loop only, nest3, par, elem, serial)
SEEDS = [3, 4, 5, 20]


@pytest.fixture(autouse=True)
def _verify(monkeypatch) -> None:
    verify_ends_only(monkeypatch)


@pytest.mark.parametrize("seed", SEEDS)
def test_acc_fuzz_slice(seed: int) -> None:
    p = acc_gen.generate(seed)
    bad = acc_harness.compare(p)
    assert not bad, acc_gen.describe(p) + "\n" + "\n".join(bad)


#: seeds with issue 21's shapes (--modes --levelless): single-mode updates, a loop with no
#: level clause (GCC's automatic gang vector) and a seq loop
MODE_SEEDS = [3, 17]


@pytest.mark.parametrize("seed", MODE_SEEDS)
def test_acc_fuzz_slice_modes_and_levelless_loops(seed: int) -> None:
    p = acc_gen.generate(seed, modes=True, levelless=True)
    bad = acc_harness.compare(p)
    assert not bad, acc_gen.describe(p) + "\n" + "\n".join(bad)


def test_mode_slice_covers_the_shapes() -> None:
    seen = {(c.shape, c.levels) for s in MODE_SEEDS
            for c in acc_gen.generate(s, modes=True, levelless=True).constructs}
    assert {("single", ""), ("flat", ""), ("flat", "seq")} <= seen, seen


def test_slice_covers_the_shapes() -> None:
    shapes = {c.shape for s in SEEDS for c in acc_gen.generate(s).constructs}
    assert shapes == {"flat", "rows", "nest3", "par", "elem"}, shapes
    serial = any(c.serial for s in SEEDS for c in acc_gen.generate(s).constructs)
    assert serial


def test_model_counts_gang_redundant_loops() -> None:
    """A worker loop in 3 gangs adds its data 3 times on cpu, once on the host target; a
    gang loop once; the construct's own update once per gang."""
    data = np.arange(10, dtype=np.int32)
    red = acc_gen.Red("add", "i32", 5, data)
    flat = acc_gen.Construct("flat", ng=3, nw=2, vl=4, levels="worker", n=10, reds=[red])
    gang = acc_gen.Construct("flat", ng=3, levels="gang", n=10, reds=[red])
    par = acc_gen.Construct("par", ng=3, n=10, reds=[red], c=np.int32(7))
    p = acc_gen.Program(0, [flat, gang, par])
    assert [int(v) for v in acc_gen.expected(p, "cpu")] == [5 + 3 * 45, 5 + 45, 5 + 21 + 45]
    assert [int(v) for v in acc_gen.expected(p, "host")] == [5 + 45, 5 + 45, 5 + 7 + 45]


def test_model_counts_level_less_loops_as_gcc_assigns_them() -> None:
    """A lone loop with no level clause is gang vector (GCC's automatic levels): once; a seq
    loop runs in every gang."""
    data = np.arange(10, dtype=np.int32)
    red = acc_gen.Red("add", "i32", 5, data)
    auto = acc_gen.Construct("flat", ng=3, nw=2, vl=4, levels="", n=10, reds=[red])
    seq = acc_gen.Construct("flat", ng=3, nw=2, vl=4, levels="seq", n=10, reds=[red])
    p = acc_gen.Program(0, [auto, seq])
    assert [int(v) for v in acc_gen.expected(p, "cpu")] == [5 + 45, 5 + 3 * 45]


def _size(p: acc_gen.Program) -> int:
    return sum(c.n * c.m * c.k + c.ng + c.nw + c.vl + len(c.reds) + (c.copy is not None)
               for c in p.constructs)


def test_shrink_candidates_are_smaller() -> None:
    p = acc_gen.generate(4)
    for cand in acc_gen.shrink_candidates(p):
        assert _size(cand) < _size(p)
        acc_gen.expected(cand, "cpu")  # every candidate is a valid program


#: seeds with private / first-private variables (--privates, issue 36 item 12): a gang-private
#: array of the construct written by worker loops and updated by others, one first-private
#: to the construct filled once per gang, one first-private to a gang loop updated
#: idempotently by a worker vector loop, worker-loop and vector-loop arrays, scalars of the
#: construct and of the gang loop (acc_privates.py)
PRIV_SEEDS = [16, 21, 23, 27, 31]


@pytest.mark.parametrize("seed", PRIV_SEEDS)
def test_acc_fuzz_slice_privates(seed: int) -> None:
    p = acc_gen.generate(seed, privates=True)
    bad = acc_harness.compare(p)
    assert not bad, acc_gen.describe(p) + "\n" + "\n".join(bad)


def test_private_slice_covers_the_kinds() -> None:
    ps = [c.priv for s in PRIV_SEEDS for c in acc_gen.generate(s, privates=True).constructs
          if c.priv is not None]
    seen = {(p.kind, p.decl, p.first) for p in ps}
    assert {("gang", "parallel", False), ("gang", "parallel", True), ("gang", "gang", True),
            ("worker", "worker", True), ("worker", "region", False)} <= seen, seen
    assert {p.kind for p in ps} == {"gang", "worker", "vector"}
    assert any(p.idem for p in ps) and any(p.farr for p in ps)
    assert {"gangfirst", "gangpriv"} <= {p.sc for p in ps}


def test_model_of_private_arrays() -> None:
    """A first-private array of the construct filled once per gang (h + z), only read in the
    gang loop; a gang-loop private written per row by a worker loop, updated by another; the
    host copy of a first-private variable is never written back."""
    from tests.fuzz.acc_privates import Priv

    i = np.int32
    h, z = np.array([1, 2, 3], i), np.array([10, 20, 30], i)
    x, y = np.arange(6, dtype=i).reshape(2, 3), np.full((2, 3), 100, i)
    first = Priv("gang", "i32", 3, "parallel", first=True, pre="worker", rd="vector", shift=1,
                 sinit=i(5), x=x, y=y, h=h, z=z)
    row = Priv("gang", "i32", 3, "gang", init="worker", upd="vector", rd="seq", shift=0,
               sinit=i(0), sc="private", c=i(7), x=x, y=y)
    cs = [acc_gen.Construct("priv", ng=3, nw=2, vl=4, n=2, priv=p) for p in (first, row)]
    got = acc_gen.expected(acc_gen.Program(0, cs), "cpu")
    want = [[5 + 66] * 2, [22, 33, 11] * 2, h,  # P = h + z, read at k + 1
            [300 + 3, 300 + 12], np.arange(6) + 100 + 7]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
