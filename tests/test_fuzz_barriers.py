"""A fixed slice of the barrier-scheduler fuzzer (tests/fuzz/, ``make fuzz`` for campaigns):
generated legal barrier kernels compiled by xmux (structured fission, the region-dispatch
twin, vector width 4, sub-groups of 4) and run on a few launches each, compared exactly with
the fuzzer's numpy work-group model and, on one launch, the reference interpreter.

The seeds named with a class are the minimised mismatches of the first campaigns (the old
work-item-loops' early stores; tests/fuzz/README.md lists the classes): they stay in the
slice as regressions, with the other seeds of the fixed set.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.fuzz import gen, harness, model, shrink

#: one batch: one compile of the module of all kernels (+ dispatch twins), one at width 4
OPTIONS = (4, 4, True)  # sub-group size, vector width, vector build

CLASS1 = "class 1: scf.for body yields the result of a barrier scf.if"
CLASS2 = "class 2: scf.if branch yields the result of an inner barrier scf.if"
CLASS3 = "class 3: scf.while body yields the result of a barrier scf.for"
CLASS4 = "class 4: a second barrier loop carrying a per-work-item value after a barrier loop"
CLASS5 = "class 5: zero-trip barrier scf.for after a barrier returns garbage for its inits"

SEEDS = {
    16: CLASS1,
    206: CLASS3,
    208: CLASS2,
    1007: CLASS5,
    20158: CLASS2,  # 2b: at local size 1
    20096: "class 2c: scf.if branch yields the result of a barrier scf.for",
    20088: CLASS4,  # 4b: a zero-trip while, then a while with a collective
    30035: CLASS5,  # 5c: B while{|B}
    9: None,  # the nested-loop template
    300: None,
    301: None,
}

_results: dict[int, harness.Result] = {}


def results() -> dict[int, harness.Result]:
    if not _results:
        for r in harness.run_batch(list(SEEDS), None, 0.0, options=OPTIONS):
            _results[r.seed] = r
    return _results


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"seed{s}") for s in SEEDS])
def test_fuzz_slice(seed):
    r = results()[seed]
    assert r.status == "ok", f"seed {seed}: {r.status}: {r.detail}"
    assert r.runs >= 1


def test_generator_is_deterministic_and_kernels_verify():
    a, b = gen.generate(5), gen.generate(5)
    assert a.mlir() == b.mlir()
    assert gen.generate(6).mlir() != a.mlir()
    from xdsl.parser import Parser

    from xmux.registry import make_context

    for s in range(20, 26):
        Parser(make_context(), gen.generate(s).mlir()).parse_module().verify()


def test_model_rejects_illegal_kernels():
    k = gen.generate(16)
    # a barrier under a condition on the local id: divergent
    div = gen.Kernel("div", [
        gen.Op("%c_1", "i1", "cmp", ["%lidi", "%p0"], "eq"),
        gen.If("%c_1", [gen.Barrier()], [], [], [], [], []),
    ])
    run = harness.Run("base", (4,), (4,), None, None, (0, 0, 0, 0), 1)
    with pytest.raises(gen.Illegal, match="barrier"):
        harness.expected(div, run, 1)
    # a neighbour read of a row written in the same barrier interval: a race
    race = gen.Kernel("race", [gen.LStore(0, "%v"), gen.LLoad("%l_1", 0, "next", 1)])
    with pytest.raises(gen.Illegal, match="race"):
        harness.expected(race, run, 1)
    # reading a slot nobody wrote
    uninit = gen.Kernel("uninit", [gen.Barrier(), gen.LLoad("%l_1", 1, "fix", 0)])
    with pytest.raises(gen.Illegal, match="uninitialised"):
        harness.expected(uninit, run, 1)
    assert k.size() > 0


def test_model_checks_sub_group_barriers_per_sub_group():
    """A sub-group barrier under a condition on the local id: legal where each sub-group
    agrees (size 1, or lanes 0-1 vs 2-3 at size 2), illegal where one sub-group splits
    (campaign seed 11203: the model took sub-group barriers for fences at every size)."""
    def kernel(bound: int) -> gen.Kernel:
        return gen.Kernel("sgdiv", [
            gen.Op("%b_1", "i32", "const", [], bound),
            gen.Op("%c_1", "i1", "cmp", ["%lidi", "%b_1"], "slt"),
            gen.If("%c_1", [gen.Barrier("sg")], [], [], [], [], []),
        ])
    run = harness.Run("base", (4,), (4,), None, None, (0, 0, 0, 0), 1)
    harness.expected(kernel(1), run, 1)
    harness.expected(kernel(2), run, 2)
    with pytest.raises(gen.Illegal, match="sub_group_barrier"):
        harness.expected(kernel(1), run, 2)


def test_model_exchange_matches_numpy():
    # write own slot, barrier, read the neighbour's: out = roll(a, -1) per group
    k = gen.Kernel("ex", [gen.LStore(0, "%v"), gen.Barrier(),
                          gen.LLoad("%l_1", 0, "next", 1), gen.OStore(0, "%l_1")])
    a = np.arange(10, dtype=np.int32)
    out = np.zeros(10 * gen.SLOTS, dtype=np.int32)
    got = model.run_model(k, a, out, (0, 0, 0, 0), (10,), (4,))
    want = np.concatenate([np.roll(a[0:4], -1), np.roll(a[4:8], -1), np.roll(a[8:10], -1)])
    np.testing.assert_array_equal(got[0::gen.SLOTS], want)


def test_shrinker_keeps_a_failing_property():
    k = gen.generate(16)
    n_barriers = sum(isinstance(s, gen.Barrier) for s in gen.walk(k.body))
    assert n_barriers >= 1

    def has_barrier(c):
        return any(isinstance(s, gen.Barrier) for s in gen.walk(c.body))

    small = shrink.minimise(k, has_barrier, budget_s=20)
    assert has_barrier(small) and small.size() <= 3


# Class 4, hand-reduced from campaign seeds (the fuzzer finds it in many shapes).
TWO_LOOPS = """
func.func @two_loops(%out: memref<?xi32>, %k0: index, %k1: index)
    attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_linear_id : index
  %lid = mux.get_local_linear_id : index
  %lidi = arith.index_cast %lid : index to i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : i32
  scf.for %j = %c0 to %k0 step %c1 {
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  }
  %r = scf.for %i = %c0 to %k1 step %c1 iter_args(%a = %lidi) -> (i32) {
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %x = arith.xori %a, %m1 : i32
    scf.yield %x : i32
  }
  memref.store %r, %out[%gid] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("k0", [0, 1])  # CLASS4
def test_two_barrier_loops_carry_per_work_item_value(k0):
    import xmux

    prog = xmux.compile(TWO_LOOPS, cache=False)
    out = np.zeros(8, np.int32)
    prog.kernel("two_loops")(out, k0, 3, global_size=(8,), local_size=(4,), threads=1)
    np.testing.assert_array_equal(out, ~(np.arange(8) % 4))
