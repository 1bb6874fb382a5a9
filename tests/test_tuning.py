"""Tuning of local-size variants (runtime/tuning.py): the chooser itself, and the launches that
pick a build (the variant at each vector width, or the kernel's generic entry), with results
unchanged throughout."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.runtime import jit, tuning


def test_tuner_alternates_builds_lazily_and_keeps_the_faster() -> None:
    built: list[str] = []

    def make(name: str):
        def build():
            built.append(name)
            return name

        return build

    t = tuning.BuildTuner([make("wide"), make("narrow")])
    times = {"wide": 2.0, "narrow": 1.0}
    chosen = None
    seen = []
    while chosen is None:
        entry = t.next_entry()
        seen.append(entry)
        chosen = t.record(times[entry])  # type: ignore[index]
    assert chosen == "narrow"
    assert built == ["wide", "narrow"]  # each built once, on its first turn
    # A B B A A B B A ...: a drift during the round favours neither build
    assert seen == (["wide", "narrow", "narrow", "wide"] * tuning.SAMPLES)[
        : 2 * (tuning.WARMUP + tuning.SAMPLES)
    ]
    assert t.best_times == [2.0, 1.0]
    assert not t.sampling and t.chosen_entry == "narrow"


def test_a_held_tuner_runs_its_first_build_until_ready_and_may_keep_only_the_built() -> None:
    ready = [False]
    t = tuning.BuildTuner([lambda: "wide", lambda: "narrow"])
    t.build_first().hold(lambda: ready[0])
    for _ in range(3):  # held: the first build, no samples
        assert t.next_launch() == ("wide", False) and t.sampling
    assert t._entries == ["wide", None]
    ready[0] = True
    assert t.next_launch() == ("wide", True)  # the round begins
    t.record(1.0)
    assert t.next_launch() == ("narrow", True)

    t = tuning.BuildTuner([lambda: "wide", lambda: "narrow"], names=("512-bit", "256-bit"))
    t.build_first().keep_built()  # the others' build failed
    assert t.names == ["512-bit"] and not t.sampling and t.chosen_entry == "wide"
    assert t.next_launch() == ("wide", False) and t.replay_until(None) == float("inf")


def test_three_builds_go_forwards_then_backwards() -> None:
    t = tuning.BuildTuner([lambda: "a", lambda: "b", lambda: "c"], names=("a", "b", "c"))
    times = {"a": 3.0, "b": 2.0, "c": 1.0}
    seen, chosen = [], None
    while chosen is None:
        entry = t.next_entry()
        seen.append(entry)
        chosen = t.record(times[entry])  # type: ignore[index]
    assert chosen == "c" and len(seen) == tuning.launches_to_settle(3)
    assert seen[:9] == ["a", "b", "c", "c", "b", "a", "a", "b", "c"]
    assert all(seen.count(x) == tuning.WARMUP + tuning.SAMPLES for x in "abc")


def test_a_choice_is_sampled_again_when_due_and_may_change(monkeypatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(tuning, "_now", lambda: clock[0])
    t = tuning.BuildTuner([lambda: "wide", lambda: "narrow"])

    def round_with(times: dict[str, float]) -> object:
        chosen = None
        launches = 0
        while chosen is None:
            chosen = t.record(times[t.next_entry()])  # type: ignore[index]
            launches += 1
        assert launches == tuning.launches_to_settle()
        return chosen

    times = {"wide": 2.0, "narrow": 1.0}
    assert round_with(times) == "narrow"
    spent = (tuning.WARMUP + tuning.SAMPLES) * 3.0
    assert t.due == 100.0 + max(tuning.RECHECK_S, tuning.RECHECK_FACTOR * spent)
    clock[0] = t.due - 1e-3  # not yet due: the choice stands, launches are not samples
    assert t.next_entry() == "narrow" and not t.sampling
    assert t.record(5.0) is None
    clock[0] = t.due
    times = {"wide": 1.0, "narrow": 2.0}  # the machine changed: the other build is faster now
    assert round_with(times) == "wide"
    assert t.chosen_entry == "wide" and t.best_times == [1.0, 2.0]


def test_samples_of_a_round_share_one_global_size(monkeypatch) -> None:
    """Launches of another size neither count as samples nor start a re-check; they run the
    last choice (before any, the first build)."""
    clock = [0.0]
    monkeypatch.setattr(tuning, "_now", lambda: clock[0])
    t = tuning.BuildTuner([lambda: "wide", lambda: "narrow"])
    times = {"wide": 2.0, "narrow": 1.0}
    big, small = (1 << 20,), (64,)
    assert t.next_launch(small) == ("wide", True)  # the first round takes the first size
    t.record(9.0)
    chosen, launches = None, 1
    while chosen is None:
        assert t.next_launch(big) == ("wide", False)  # another size: no sample
        entry, sample = t.next_launch(small)
        assert sample
        chosen = t.record(times[entry])  # type: ignore[index]
        launches += 1
    assert chosen == "narrow" and launches == tuning.launches_to_settle()
    clock[0] = t.due  # due, but only a launch of the chosen size starts the re-check
    assert t.next_launch(big) == ("narrow", False) and not t.sampling
    assert t.next_launch(small)[1] and t.sampling


@pytest.mark.parametrize(
    "op,dependent",
    [
        ("%r = arith.addf %a, %b : f32", False),
        ("%r = arith.mulf %a, %b fastmath<nnan,ninf> : f32", False),
        ("%r = arith.addf %a, %b fastmath<reassoc> : f32", True),
        ("%r = arith.mulf %a, %b fastmath<contract> : f32", True),
        ("%r = math.sqrt %a fastmath<fast> : f32", True),
        ("%r = llvm.fadd %a, %b {fastmathFlags = #llvm.fastmath<afn>} : f32", True),
        ('%r = arith.addf %a, %b {note = "reassoc fast"} : f32', False),  # not a flag
    ],
)
def test_reassociating_code_is_not_tuned(op: str, dependent: bool) -> None:
    """Read from the ops' fast-math flags (of the lowered module), not from printed IR."""
    from xdsl.parser import Parser

    from xmux.registry import make_context

    text = f"func.func @f(%a: f32, %b: f32) {{\n  {op}\n  func.return\n}}"
    module = Parser(make_context(), text).parse_module()
    assert tuning.width_dependent(module) is dependent


SCALE = """
func.func @scale(%a: memref<?xf32>, %s: f32) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %w = arith.mulf %v, %s : f32
  memref.store %w, %a[%i] : memref<?xf32>
  func.return
}
"""

REDUCE = """
func.func @sums(%a: memref<?xf32>, %out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %g = mux.get_group_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %r = mux.work_group_reduce fadd %v : f32
  memref.store %r, %out[%g] : memref<?xf32>
  func.return
}
"""

wide = pytest.mark.skipif(
    not jit.host_has_wide_vectors(), reason="the host has no 512-bit vectors: nothing to tune"
)
#: the builds a variant's tuner samples here: the variant at 512 and 256 bits and the generic
#: entry with 512-bit vectors, else the variant and the generic entry
BUILDS = tuning.variant_builds()
#: launches of a variant until its tuner has chosen
SETTLE = tuning.launches_to_settle(len(BUILDS))


def test_launches_choose_a_build_and_results_stay_exact() -> None:
    prog = xmux.compile(SCALE, cache=False)
    k = prog["scale"]
    n = 1 << 15
    a = np.ones(n, np.float32)
    # launch 0 runs the plain kernel, launch 1 builds the variant; the launches from 1 on
    # take turns between its builds and the generic entry, the last of them settles the choice
    launches = 1 + SETTLE
    for i in range(launches):
        k(a, np.float32(2.0), global_size=(n,), local_size=(128,))
        np.testing.assert_array_equal(a, np.full(n, 2.0 ** (i + 1), np.float32))
        tuner = k._launcher.variants.built.get((128, 1, 1))
        sampling = 1 <= i < SETTLE
        assert i == 0 or isinstance(tuner, tuning.BuildTuner)
        assert tuner is None or tuner.sampling == sampling
    assert tuner.names == list(BUILDS) and k._launcher.variants.builds() == BUILDS
    assert k._launcher.variants.settled(k._launcher.ndrange((n,), (128,), None))
    # the last tuning launch ran a build that may not be the chosen one
    assert k._launcher.replay is None
    k(a, np.float32(0.5), global_size=(n,), local_size=(128,))
    assert k._launcher.replay is not None and k._launcher.replay.entry is tuner.chosen_entry
    assert k._launcher.replay.until == tuner.due


def test_a_due_recheck_leaves_the_fast_path_and_samples_with_exact_results(monkeypatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(tuning, "_now", lambda: clock[0])
    prog = xmux.compile(SCALE, cache=False)
    k = prog["scale"]
    n = 1 << 12
    a = np.ones(n, np.float32)
    launches = 1 + SETTLE
    for _ in range(launches + 1):  # the last one sets up the fast path
        k(a, np.float32(1.0), global_size=(n,), local_size=(128,))
    tuner = k._launcher.variants.built[(128, 1, 1)]
    assert k._launcher.replay is not None and not tuner.sampling
    clock[0] = tuner.due  # due: the next launch is a sample again, not a replay
    for i in range(SETTLE):
        k(a, np.float32(2.0), global_size=(n,), local_size=(128,))
        np.testing.assert_array_equal(a, np.full(n, 2.0 ** (i + 1), np.float32))
        assert tuner.sampling == (i < SETTLE - 1)
    assert tuner._rounds == 2 and tuner.due is not None and tuner.due > clock[0]


def _favour(monkeypatch, fast: str) -> None:
    """Record every sample of the build named ``fast`` as 1 ms, the others' as 2 ms: the
    tuner's choice no longer depends on this machine's timing (nor falls due for a re-check:
    the clock stands still)."""
    monkeypatch.setattr(tuning, "_now", lambda: 0.0)
    record = tuning.BuildTuner.record

    def fake(self: tuning.BuildTuner, seconds: float) -> object:
        return record(self, 1e-3 if self.names[self._current] == fast else 2e-3)

    monkeypatch.setattr(tuning.BuildTuner, "record", fake)


@pytest.mark.parametrize("fast", BUILDS)
def test_the_generic_entry_is_kept_when_it_is_faster(monkeypatch, fast: str) -> None:
    """A variant that loses to the kernel's own code is dropped: the launches after the choice
    (replays included) run the generic entry; whichever build runs, the results are the same."""
    _favour(monkeypatch, fast)
    prog = xmux.compile(SCALE, cache=False)
    k = prog["scale"]
    n = 1 << 12
    a = np.ones(n, np.float32)
    for i in range(2 + SETTLE):  # the last one is kept for replay
        k(a, np.float32(2.0), global_size=(n,), local_size=(128,))
        np.testing.assert_array_equal(a, np.full(n, 2.0 ** (i + 1), np.float32))
    tuner = k._launcher.variants.built[(128, 1, 1)]
    assert not tuner.sampling and tuner.names[tuner._last] == fast
    generic = k._launcher.entry
    assert (tuner.chosen_entry is generic) == (fast == "generic")
    replay = k._launcher.replay
    assert replay is not None and replay.entry is tuner.chosen_entry
    a[:] = 3.0
    k(a, np.float32(2.0), global_size=(n,), local_size=(128,))  # replayed
    assert k._launcher.replay is replay
    np.testing.assert_array_equal(a, np.full(n, 6.0, np.float32))


SPEC_SCALE = """
spec.specialization_id @s = 2.0 : f32
func.func @scale(%x: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %s = spec.get_scalar "s", @s : f32
  %v = memref.load %x[%i] : memref<?xf32>
  %r = arith.mulf %v, %s : f32
  memref.store %r, %x[%i] : memref<?xf32>
  func.return
}
"""


@pytest.mark.parametrize("value", [2.0, 3.0])  # 2.0: the defaults, the program's own code
def test_a_specialized_variant_loses_to_its_value_sets_plain_specialization(
    monkeypatch, value: float
) -> None:
    """Native specialization constants: the generic candidate of a value set's variant is the
    program specialized for that value set (its defaults: the program's own code)."""
    _favour(monkeypatch, "generic")
    prog = xmux.compile(SPEC_SCALE, cache=False)
    k = prog["scale"]
    x = np.ones(256, np.float32)
    for i in range(2 + SETTLE):
        x[:] = 1
        k(x, global_size=256, local_size=64, spec_constants={"s": value})
        np.testing.assert_array_equal(x, value, err_msg=f"launch {i}")
    (tuner,) = prog._spec._variant_entries.values()
    buf = prog._spec.resolve("scale", {"s": value}).buffer
    plain = prog._spec.entry("scale", k.info.symbol, buf) or k._launcher.entry
    assert not tuner.sampling and tuner.chosen_entry is plain
    assert k._launcher.replay is not None and k._launcher.replay.entry is plain


def test_tune_off_and_reassociating_kernels_build_once() -> None:
    for prog in (xmux.compile(SCALE, cache=False, tune=False), xmux.compile(REDUCE, cache=False)):
        name = next(iter(prog.infos))
        a = np.ones(1 << 12, np.float32)
        args = (a, np.float32(1.0)) if name == "scale" else (a, np.zeros(32, np.float32))
        for _ in range(3):
            prog[name](*args, global_size=(a.size,), local_size=(128,))
        variants = list(prog[name]._launcher.variants.built.values())
        assert len(variants) == 1 and not isinstance(variants[0], tuning.BuildTuner)


def test_launches_without_the_variant_are_not_counted() -> None:
    """A launch with a remainder group runs the plain kernel: its time is no tuning sample."""
    prog = xmux.compile(SCALE, cache=False)
    k = prog["scale"]
    a = np.ones(1 << 12, np.float32)
    for _ in range(2):  # the second uniform launch builds the variant (first tuning launch)
        k(a, np.float32(1.0), global_size=(a.size,), local_size=(128,))
    tuner = k._launcher.variants.built[(128, 1, 1)]
    assert isinstance(tuner, tuning.BuildTuner)
    before = [len(t) for t in tuner._times], list(tuner._runs)
    k(a, np.float32(1.0), global_size=(a.size - 5,), local_size=(128,))
    assert ([len(t) for t in tuner._times], list(tuner._runs)) == before


def test_launches_of_another_size_keep_their_fast_path_when_a_recheck_is_due(monkeypatch) -> None:
    """Only launches of the size a choice was made on start its re-check; launches of another
    size must not fall off the fast path for good once that re-check is due."""
    clock = [0.0]
    monkeypatch.setattr(tuning, "_now", lambda: clock[0])
    prog = xmux.compile(SCALE, cache=False)
    k = prog["scale"]
    big, small = np.ones(1 << 12, np.float32), np.ones(256, np.float32)
    for _ in range(1 + SETTLE):
        k(big, np.float32(1.0), global_size=(big.size,), local_size=(128,))
    tuner = k._launcher.variants.built[(128, 1, 1)]
    clock[0] = tuner.due + 1.0  # due; the small launches cannot start the re-check
    for _ in range(2):
        k(small, np.float32(1.0), global_size=(small.size,), local_size=(128,))
    replay = k._launcher.replay
    assert replay is not None and replay.until is not None and replay.until > clock[0]
    k(small, np.float32(1.0), global_size=(small.size,), local_size=(128,))
    assert k._launcher.replay is replay and not tuner.sampling
    clock[0] = replay.until  # the replay looks at the choice again, then replays anew
    k(small, np.float32(1.0), global_size=(small.size,), local_size=(128,))
    assert k._launcher.replay is not replay and k._launcher.replay is not None


@wide
def test_a_kernel_with_a_required_size_is_tuned_too() -> None:
    """reqd_work_group_size fixes the local size, not the vector width: its uniform launches
    get a tuner over the two widths (no generic candidate: the kernel's own code has the
    constant size already), with exact results throughout."""
    text = SCALE.replace(
        'attributes {mux.kernel = "entry_point"}',
        'attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 128, 1, 1>}',
    )
    prog = xmux.compile(text, cache=False)
    k = prog["scale"]
    a = np.ones(1 << 12, np.float32)
    builds = tuning.variant_builds(required=True)
    assert builds == ("512-bit", "256-bit")
    for i in range(1 + tuning.launches_to_settle(len(builds))):
        k(a, np.float32(2.0), global_size=(a.size,), local_size=(128,))
        np.testing.assert_array_equal(a, np.full(a.size, 2.0 ** (i + 1), np.float32))
    tuner = k._launcher.variants.built[(128, 1, 1)]
    assert isinstance(tuner, tuning.BuildTuner) and not tuner.sampling
    assert tuner.names == list(builds)
    untuned = xmux.compile(text, cache=False, tune=False)
    for _ in range(3):
        untuned["scale"](a, np.float32(1.0), global_size=(a.size,), local_size=(128,))
    assert untuned["scale"]._launcher.variants.built == {}


@pytest.mark.skipif(jit.host_has_wide_vectors(), reason="512-bit vectors: tuned between widths")
def test_a_kernel_with_a_required_size_gets_no_variant_without_wide_vectors() -> None:
    """Its own code has the constant size already: a variant would be the same code, and
    there is no second width to try."""
    text = SCALE.replace(
        'attributes {mux.kernel = "entry_point"}',
        'attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 128, 1, 1>}',
    )
    k = xmux.compile(text, cache=False)["scale"]
    a = np.ones(1 << 12, np.float32)
    for i in range(3):
        k(a, np.float32(2.0), global_size=(a.size,), local_size=(128,))
        np.testing.assert_array_equal(a, np.full(a.size, 2.0 ** (i + 1), np.float32))
    assert k._launcher.variants.built == {} and tuning.variant_builds(required=True) == ()
