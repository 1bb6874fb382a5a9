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
