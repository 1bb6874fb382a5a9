"""Vector-width tuning of local-size variants (runtime/tuning.py): the chooser itself, and on a
host with 512-bit vectors the launches that pick a build, with results unchanged throughout."""

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

    t = tuning.VectorWidthTuner([make("wide"), make("narrow")])
    times = {"wide": 2.0, "narrow": 1.0}
    chosen = None
    seen = []
    while chosen is None:
        entry = t.next_entry()
        seen.append(entry)
        chosen = t.record(times[entry])  # type: ignore[index]
    assert chosen == "narrow"
    assert built == ["wide", "narrow"]  # each built once, on its first turn
    assert seen == ["wide", "narrow"] * (tuning.WARMUP + tuning.SAMPLES)
    assert t.best_times == [2.0, 1.0]


def test_reassociating_code_is_not_tuned() -> None:
    assert tuning.may_tune("%r = fadd float %a, %b\n%s = fmul nnan float %r, %r")
    assert not tuning.may_tune("%r = fadd reassoc float %a, %b")
    assert not tuning.may_tune("%s = fmul contract float %r, %r")
    assert not tuning.may_tune("%r = call fast float @llvm.sqrt.f32(float %a)")
    assert tuning.may_tune('%"fast" = fadd float %a, %b ; @reassoc names are not flags')


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


@wide
def test_launches_choose_a_build_and_results_stay_exact() -> None:
    prog = xmux.compile(SCALE, cache=False)
    k = prog["scale"]
    n = 1 << 15
    a = np.ones(n, np.float32)
    # launch 0 runs the plain kernel, launch 1 builds the variant; the launches from 1 on
    # alternate between its builds, and the last of them settles the choice
    launches = 1 + tuning.launches_to_settle()
    for i in range(launches):
        k(a, np.float32(2.0), global_size=(n,), local_size=(128,))
        np.testing.assert_array_equal(a, np.full(n, 2.0 ** (i + 1), np.float32))
        variant = prog._variants.get(("scale", (128, 1, 1)))
        tuning_now = 1 <= i < tuning.launches_to_settle()
        assert isinstance(variant, tuning.VectorWidthTuner) == tuning_now
    assert prog._variant_settled(k, k._ndrange((n,), (128,), None))
    chosen = prog._variants[("scale", (128, 1, 1))]
    assert k._repeat is None  # the last tuning launch ran a build that may not be the chosen one
    k(a, np.float32(0.5), global_size=(n,), local_size=(128,))
    assert k._repeat is not None and k._repeat.entry is chosen


@wide
def test_tune_off_and_reassociating_kernels_build_once() -> None:
    for prog in (xmux.compile(SCALE, cache=False, tune=False), xmux.compile(REDUCE, cache=False)):
        name = next(iter(prog.infos))
        a = np.ones(1 << 12, np.float32)
        args = (a, np.float32(1.0)) if name == "scale" else (a, np.zeros(32, np.float32))
        for _ in range(3):
            prog[name](*args, global_size=(a.size,), local_size=(128,))
        variants = list(prog._variants.values())
        assert len(variants) == 1 and not isinstance(variants[0], tuning.VectorWidthTuner)


@wide
def test_launches_without_the_variant_are_not_counted() -> None:
    """A launch with a remainder group runs the plain kernel: its time is no tuning sample."""
    prog = xmux.compile(SCALE, cache=False)
    k = prog["scale"]
    a = np.ones(1 << 12, np.float32)
    for _ in range(2):  # the second uniform launch builds the variant (first tuning launch)
        k(a, np.float32(1.0), global_size=(a.size,), local_size=(128,))
    tuner = prog._variants[("scale", (128, 1, 1))]
    assert isinstance(tuner, tuning.VectorWidthTuner)
    before = [len(t) for t in tuner._times], list(tuner._runs)
    k(a, np.float32(1.0), global_size=(a.size - 5,), local_size=(128,))
    assert ([len(t) for t in tuner._times], list(tuner._runs)) == before
