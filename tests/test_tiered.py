"""Tiered compilation (runtime/tiered.py, issue 33 item 1): local-size variants and native
value sets' specializations are built in the background while launches run the generic code
(or the emulated form), and swapped in when ready; ``wait=True`` / ``prog.warm`` build first.

No timing here: which code ran is read from the launcher (its replay's entry, the variants it
holds, its count of emulated launches), results are compared bit for bit with numpy's."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import xmux
from xmux.runtime import tiered

MATVEC = """
func.func @rows(%a: memref<?x?xf32>, %x: memref<?xf32>, %y: memref<?xf32>, %n: index)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %v = memref.load %a[%i, %k] : memref<?x?xf32>
    %w = memref.load %x[%k] : memref<?xf32>
    %p = arith.mulf %v, %w : f32
    %t = arith.addf %acc, %p : f32
    scf.yield %t : f32
  }
  memref.store %s, %y[%i] : memref<?xf32>
  func.return
}
"""

SCALE = """
spec.specialization_id @scale_default = 2.0 : f32
func.func @scale(%x: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %s = spec.get_scalar "scale", @scale_default : f32
  %v = memref.load %x[%i] : memref<?xf32>
  %r = arith.mulf %v, %s : f32
  memref.store %r, %x[%i] : memref<?xf32>
  func.return
}
"""

SHIFTED = """
func.func @shift(%a: memref<?xi32>, %off: index) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %j = arith.addi %i, %off : index
  %v = arith.index_cast %i : index to i32
  memref.store %v, %a[%j] : memref<?xi32>
  func.return
}
"""

N = 256


@pytest.fixture
def tiered_on(monkeypatch):
    """Background builds on (the suite's conftest sets XMUX_SYNC_BUILDS=1), their server at
    nice 10 rather than in the idle class: the suite's workers and lit fill the CPUs, where an
    idle-class server could wait minutes for one."""
    monkeypatch.setenv("XMUX_SYNC_BUILDS", "0")
    monkeypatch.setenv("XMUX_BACKGROUND_IDLE", "0")
    yield
    assert tiered.drain(timeout=120)


def _matvec(seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((N, 37)).astype(np.float32)
    x = rng.standard_normal(37).astype(np.float32)
    return a, x, np.zeros(N, np.float32)


def test_the_variant_is_built_in_the_background_and_swapped_in(tiered_on):
    k = xmux.compile(MATVEC)["rows"]
    launcher = k._launcher
    a, x, y = _matvec()
    k(a, x, y, 37, global_size=N, local_size=32)
    first = y.copy()
    k(a, x, y, 37, global_size=N, local_size=32)  # queues the variant, runs the generic code
    job = launcher.variants.pending[(32, 1, 1)]
    assert not launcher.variants.built and launcher.replay is None
    np.testing.assert_array_equal(y, first)
    assert job.wait(timeout=120) and job.error is None
    k(a, x, y, 37, global_size=N, local_size=32)  # the swap
    assert (32, 1, 1) in launcher.variants.built and not launcher.variants.pending
    assert tiered.drain(timeout=120)  # its other tuning candidates (the next test)
    for _ in range(tiered_launches(launcher)):  # until its tuner (if any) has chosen
        k(a, x, y, 37, global_size=N, local_size=32)
        np.testing.assert_array_equal(y, first)  # every build computes the same bits
    assert launcher.replay is not None
    ref = (a.astype(np.float64) @ x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(first, ref, rtol=1e-5, atol=1e-5)


def _held_candidates(monkeypatch, fail: bool = False):
    """``BuildTuner.build_all`` (the background job of a variant's other tuning candidates)
    held until the returned event is set; it then raises where ``fail``."""
    import threading

    from xmux.runtime import tuning

    go = threading.Event()

    def build_all(self, _f=tuning.BuildTuner.build_all):
        assert go.wait(timeout=120)
        if fail:
            raise RuntimeError("no candidates today")
        return _f(self)

    monkeypatch.setattr(tuning.BuildTuner, "build_all", build_all)
    return go


def test_the_variant_runs_its_first_candidate_while_the_others_are_built(tiered_on,
                                                                        monkeypatch):
    """A background variant reaches its launches once its first tuning candidate is built;
    the other candidates are a second background job, and the tuner samples them once it is
    done. Every launch computes the same bits."""
    go = _held_candidates(monkeypatch)
    k = xmux.compile(MATVEC, cache=False)["rows"]
    launcher = k._launcher
    a, x, y = _matvec(4)
    k(a, x, y, 37, global_size=N, local_size=32)
    first = y.copy()
    k(a, x, y, 37, global_size=N, local_size=32)
    assert launcher.variants.pending[(32, 1, 1)].wait(timeout=120)
    k(a, x, y, 37, global_size=N, local_size=32)  # the swap: its first candidate runs
    tuner = launcher.variants.built[(32, 1, 1)]
    if not hasattr(tuner, "hold"):
        pytest.skip("this host's variant is not tuned (one build)")
    assert launcher.last_entry is tuner._entries[0] is not launcher.entry
    assert tuner._entries[1:] == [None] * (len(tuner._entries) - 1)
    for _ in range(3):  # held: the first candidate, no samples, no replay
        k(a, x, y, 37, global_size=N, local_size=32)
        assert launcher.last_entry is tuner._entries[0] and tuner.sampling
        assert not any(tuner._runs) and launcher.replay is None
        np.testing.assert_array_equal(y, first)
    go.set()
    assert tiered.drain(timeout=120)
    assert all(e is not None for e in tuner._entries)
    for _ in range(tiered_launches(launcher)):
        k(a, x, y, 37, global_size=N, local_size=32)
        np.testing.assert_array_equal(y, first)
    assert not tuner.sampling and launcher.replay is not None


def test_a_failed_candidates_build_keeps_the_first_candidate(tiered_on, monkeypatch):
    go = _held_candidates(monkeypatch, fail=True)
    k = xmux.compile(MATVEC, cache=False)["rows"]
    launcher = k._launcher
    a, x, y = _matvec(5)
    for _ in range(2):
        k(a, x, y, 37, global_size=N, local_size=16)
    first = y.copy()
    assert launcher.variants.pending[(16, 1, 1)].wait(timeout=120)
    k(a, x, y, 37, global_size=N, local_size=16)  # the swap: the first candidate, held
    tuner = launcher.variants.built[(16, 1, 1)]
    if not hasattr(tuner, "hold"):
        pytest.skip("this host's variant is not tuned (one build)")
    go.set()
    assert tiered.drain(timeout=120)
    with pytest.warns(RuntimeWarning, match=r"background build of kernel 'rows' local size "
                      r"\(16, 1, 1\), its tuning candidates failed \(RuntimeError: no "
                      r"candidates today\); its launches keep running the candidates built"):
        k(a, x, y, 37, global_size=N, local_size=16)
    assert len(tuner.names) == 1 and not tuner.sampling  # the first, for good
    k(a, x, y, 37, global_size=N, local_size=16)
    assert launcher.replay is not None and launcher.replay.entry is tuner._entries[0]
    np.testing.assert_array_equal(y, first)


def test_a_first_launch_starts_the_background_server_warmed_up(tiered_on, monkeypatch,
                                                               tmp_path):
    """A program compiled here (not a cache hit) starts the background compile server at a
    local size's first launch, its warm-up run before it says it is ready; the variant of the
    second launch is lowered there. A program the caches held starts none."""
    from xmux.runtime import compile_server

    monkeypatch.setenv("XMUX_COMPILE_SERVER", "1")
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path))
    compile_server.shutdown()
    asked = []
    monkeypatch.setattr(compile_server, "prestart",
                        lambda w, _f=compile_server.prestart: asked.append(w) or _f(w))
    text = f"// {tmp_path}\n{MATVEC}"  # a text no cache holds yet
    k = xmux.compile(text)["rows"]
    a, x, y = _matvec(6)
    k(a, x, y, 37, global_size=N, local_size=8)
    assert tiered.drain(timeout=120)
    assert asked == ["xmux.targets.cpu:warm_up_server"]
    server = compile_server._bg_server
    assert server is not None and server.wait_ready(120)
    k(a, x, y, 37, global_size=N, local_size=8)
    assert tiered.drain(timeout=120) and compile_server._bg_server is server
    k(a, x, y, 37, global_size=N, local_size=8)
    assert k._launcher.variants.built[(8, 1, 1)] is not None
    ref = (a.astype(np.float64) @ x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)

    again = xmux.compile(text)["rows"]  # the caches' program
    again(a, x, y, 37, global_size=N, local_size=4)
    assert tiered.drain(timeout=120) and len(asked) == 1


def test_a_server_still_warming_up_is_killed_at_exit(monkeypatch):
    """Closing a background server that has not said it is ready kills it: an exit does not
    wait for its warm-up."""
    from xmux.runtime import compile_server

    monkeypatch.setenv("XMUX_COMPILE_SERVER", "1")
    compile_server.shutdown()
    compile_server.prestart("time:sleep")  # never ready: sleep() without an argument fails
    server = compile_server._bg_server
    assert server is not None
    t = time.monotonic()
    compile_server.shutdown()
    assert server.proc.returncode is not None and time.monotonic() - t < 5


@pytest.mark.parametrize("server", ["1", "0"])
def test_a_background_variant_is_lowered_in_the_background_server(tiered_on, monkeypatch,
                                                                   server):
    """xDSL's lowering of a background variant runs in the background compile server (its CPU
    time and garbage collections are not the launching process's); without a server it runs
    here, as before."""
    import xmux.targets.cpu as cpu

    monkeypatch.setenv("XMUX_COMPILE_SERVER", server)
    here = []
    monkeypatch.setattr(cpu, "_lower_variant",
                        lambda *a, _f=cpu._lower_variant: here.append(a[2]) or _f(*a))
    k = xmux.compile(MATVEC, cache=False)["rows"]
    a, x, y = _matvec(3)
    for _ in range(2):
        k(a, x, y, 37, global_size=N, local_size=16)
    job = k._launcher.variants.pending[(16, 1, 1)]
    assert job.wait(timeout=120) and job.error is None
    assert here == ([] if server == "1" else ["rows"])
    k(a, x, y, 37, global_size=N, local_size=16)
    assert (16, 1, 1) in k._launcher.variants.built
    ref = (a.astype(np.float64) @ x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's idle scheduling class")
@pytest.mark.parametrize("idle", ["1", "0"])
def test_the_background_server_runs_in_the_idle_class(monkeypatch, idle):
    """By default the background builds' server is in SCHED_IDLE (a waking pool worker
    preempts it at once); XMUX_BACKGROUND_IDLE=0 gives it nice 10 instead."""
    from xmux.runtime import compile_server as cs

    monkeypatch.setenv("XMUX_BACKGROUND_IDLE", idle)
    monkeypatch.delenv("XMUX_COMPILE_SERVER", raising=False)
    monkeypatch.delenv("XMUX_LLVM_IN_PROCESS", raising=False)
    cs.shutdown()
    try:
        assert cs.call("os:getpid", (), None, background=True)[0]
        pid = cs._bg_server.proc.pid  # noqa: SLF001
        policy = os.sched_getscheduler(pid)
        if idle == "1":
            assert policy == os.SCHED_IDLE
        else:
            assert policy == os.SCHED_OTHER and os.getpriority(os.PRIO_PROCESS, pid) >= 10
    finally:
        cs.shutdown()


def test_a_cached_variant_is_not_lowered_again(monkeypatch, tmp_path):
    """A warm start (the program and its variant in the disk cache) builds the local-size
    variant from its cached object: no xDSL lowering, the same results."""
    import xmux.targets.cpu as cpu
    from xmux.runtime import jit

    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path))
    lowered = []
    monkeypatch.setattr(cpu, "_lower_variant",
                        lambda *a, _f=cpu._lower_variant: lowered.append(a[2]) or _f(*a))
    a, x, y = _matvec(5)
    runs = []
    for _ in range(2):  # the second as a fresh process finds it: nothing in memory
        jit.clear_memory_cache()
        k = xmux.compile(MATVEC, cache=True)["rows"]
        for _ in range(tiered_launches(k._launcher) + 1):
            k(a, x, y, 37, global_size=N, local_size=16)
        assert (16, 1, 1) in k._launcher.variants.built
        runs.append(y.copy())
    assert lowered == ["rows"]  # the first program's variant only
    np.testing.assert_array_equal(runs[0], runs[1])
    ref = (a.astype(np.float64) @ x.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(runs[1], ref, rtol=1e-5, atol=1e-5)


def tiered_launches(launcher) -> int:
    from xmux.runtime import tuning

    return tuning.launches_to_settle(len(launcher.variants.builds())) + 2


def test_wait_and_warm_build_before_returning(tiered_on):
    before = dict(tiered.stats)
    prog = xmux.compile(MATVEC, wait=True)
    k = prog["rows"]
    a, x, y = _matvec(1)
    k(a, x, y, 37, global_size=N, local_size=32)
    k(a, x, y, 37, global_size=N, local_size=32)  # builds the variant itself, as before
    built = k._launcher.variants.built[(32, 1, 1)]
    assert built is not None and tiered.stats["submitted"] == before["submitted"]
    with pytest.raises(xmux.XmuxError, match="wait must be True or False"):
        xmux.compile(MATVEC, wait="yes")

    prog = xmux.compile(MATVEC)
    prog.warm(sizes=[64, (16,)])
    variants = prog["rows"]._launcher.variants
    assert set(variants.built) == {(64, 1, 1), (16, 1, 1)} and not variants.pending
    for v in variants.built.values():  # every tuning candidate compiled already
        assert all(e is not None for e in getattr(v, "_entries", [v]))
    prog["rows"](a, x, y, 37, global_size=N, local_size=64)  # the first launch runs it
    assert prog["rows"]._launcher.last_entry is not prog["rows"]._launcher.entry
    assert tiered.stats["submitted"] == before["submitted"]


def test_a_new_value_set_runs_the_generic_form_until_its_specialization(tiered_on):
    prog = xmux.compile(SCALE, specialize=False)  # no local-size variants: counts exact
    k = prog["scale"]
    launcher = k._launcher
    x = np.ones(64, np.float32)
    k(x, global_size=64)  # the defaults: the program's own code
    np.testing.assert_array_equal(x, 2.0)
    generic = prog._spec.generic_job  # queued by xmux.compile
    assert generic is not None and generic.wait(timeout=120) and generic.error is None
    prog.set_spec_constant("scale", 3.0)
    x[:] = 1
    k(x, global_size=64)  # runs the generic form with 3.0 in its variables
    assert launcher.emulated_launches == 1  # the specialization is queued, not waited for
    assert launcher.last_entry is not launcher.entry
    assert launcher.replay.entry is launcher.entry  # kept from the defaults' launch only
    from_memory = x.copy()
    np.testing.assert_array_equal(from_memory, 3.0)
    z = np.ones(64, np.float32)
    k(z, global_size=64, spec_constants={"scale": 2.0})  # the defaults: the program's own
    np.testing.assert_array_equal(z, 2.0)
    (job,) = launcher.spec_jobs.values()
    assert job.wait(timeout=120) and job.error is None
    x[:] = 1
    k(x, global_size=64)
    assert launcher.emulated_launches == 1 and prog._spec.specializations == 1
    np.testing.assert_array_equal(x, from_memory)  # the specialization: the same bits
    assert launcher.replay.entry is prog._spec._entries[("scale", launcher.replay.key.spec_values)]
    y = np.ones(64, np.float32)
    prog.warm(spec_values=[{"scale": -0.5}])  # built now: its first launch waits for nothing
    k(y, global_size=64, spec_constants={"scale": -0.5})
    assert launcher.emulated_launches == 1
    np.testing.assert_array_equal(y, -0.5)


def test_a_compiled_native_program_has_its_generic_form_ready(tiered_on):
    """xmux.compile builds the generic form beside the program's own build (not queued):
    a new value set right after the compile finds it, and none is built by its launch."""
    before = tiered.stats["submitted"]
    prog = xmux.compile(SCALE, specialize=False, cache=False)
    generic = prog._spec.generic_job
    assert generic is not None and generic.done and generic.error is None
    assert tiered.stats["submitted"] == before
    k = prog["scale"]
    x = np.ones(64, np.float32)
    k(x, global_size=64, spec_constants={"scale": 4.0})
    np.testing.assert_array_equal(x, 4.0)
    assert k._launcher.emulated_launches == 1 and prog._spec.specializations == 0
    (job,) = k._launcher.spec_jobs.values()
    assert job.wait(timeout=120) and job.error is None


def test_a_new_value_set_before_the_generic_form_finishes_that_form(tiered_on):
    """A new value set whose launch comes before the generic form is built does not get a
    specialization built by that launch: the launch finishes the generic form (here: runs
    its queued job), runs on it, and the specialization goes to the background."""
    import threading

    xmux.compile(SCALE, specialize=False)  # on disk: the next compile is a cache hit
    gate = threading.Event()
    blocker = tiered.submit("a build that holds the builder", lambda: gate.wait(120))
    try:
        prog = xmux.compile(SCALE, specialize=False)
        generic = prog._spec.generic_job
        assert generic is not None and not generic.done  # queued behind the blocker
        k = prog["scale"]
        x = np.ones(64, np.float32)
        k(x, global_size=64, spec_constants={"scale": 5.0})
        np.testing.assert_array_equal(x, 5.0)
        assert generic.done and generic.error is None
        assert k._launcher.emulated_launches == 1 and prog._spec.specializations == 0
        (job,) = k._launcher.spec_jobs.values()
        assert not job.done
    finally:
        gate.set()
    assert blocker.wait(timeout=120) and job.wait(timeout=120) and job.error is None
    x[:] = 1
    k(x, global_size=64, spec_constants={"scale": 5.0})
    np.testing.assert_array_equal(x, 5.0)
    assert k._launcher.emulated_launches == 1 and prog._spec.specializations == 1


def test_a_failed_background_build_is_reported_and_the_generic_code_kept(tiered_on,
                                                                         monkeypatch):
    prog = xmux.compile(MATVEC, cache=False)  # no cached variant: the lowering must run

    def broken(info, local):
        raise RuntimeError("no variant today")

    monkeypatch.setattr(prog, "_variant_ir", broken)
    k = prog["rows"]
    a, x, y = _matvec(2)
    k(a, x, y, 37, global_size=N, local_size=32)
    first = y.copy()
    k(a, x, y, 37, global_size=N, local_size=32)
    assert k._launcher.variants.pending[(32, 1, 1)].wait(timeout=120)
    with pytest.warns(RuntimeWarning, match=r"background build of kernel 'rows' local size "
                      r"\(32, 1, 1\) failed \(RuntimeError: no variant today\); its launches "
                      "keep running the generic code"):
        k(a, x, y, 37, global_size=N, local_size=32)
    assert ("kernel 'rows' local size (32, 1, 1)", "no variant today") in [
        (label, str(e)) for label, e in tiered.failures]
    assert k._launcher.variants.built == {(32, 1, 1): None}
    k(a, x, y, 37, global_size=N, local_size=32)
    assert k._launcher.replay.entry is k._launcher.entry  # the generic code, for good
    np.testing.assert_array_equal(y, first)


def test_the_checking_mode_holds_before_and_after_the_swap(tiered_on):
    k = xmux.compile(SHIFTED, checks=True)["shift"]
    a = np.zeros(64, np.int32)
    for _ in range(2):
        k(a, 0, global_size=64, local_size=16)
    np.testing.assert_array_equal(a, np.arange(64))

    def failing() -> tuple[str, np.ndarray]:
        b = np.full(64, -1, np.int32)
        with pytest.raises(xmux.CheckError, match="out of bounds") as e:
            k(b, 1, global_size=64, local_size=16)
        return str(e.value), b

    before = failing()  # the generic code, the variant under way
    assert k._launcher.variants.pending[(16, 1, 1)].wait(timeout=120)
    k(a, 0, global_size=64, local_size=16)
    assert k._launcher.variants.built[(16, 1, 1)] is not None
    after = failing()  # the variant checks as the generic code does
    assert after[0] == before[0]
    np.testing.assert_array_equal(after[1], before[1])


CHILD = """
import os, sys, threading, time
from xmux.runtime import tiered
job = tiered.submit("slow", lambda: time.sleep(0.3) or 42)
time.sleep(0.05)  # the builder thread is inside the job
pid = os.fork()
if pid == 0:  # the job is queued again in the child and run by a thread of its own
    ok = not tiered.worker_alive() and tiered.drain(timeout=30) and job.result == 42
    os._exit(0 if ok else 1)
assert os.waitpid(pid, 0)[1] == 0, "child"
assert job.wait(30) and job.result == 42
tiered.submit("slower", lambda: time.sleep(0.2))
tiered.shutdown()  # what atexit runs: the queue dropped, the thread joined
assert not tiered.worker_alive()
assert [t.name for t in threading.enumerate()] == ["MainThread"], threading.enumerate()
print("clean")
"""


def test_no_builder_thread_survives_fork_or_exit():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "XMUX_SYNC_BUILDS": "0"})
    assert out.returncode == 0 and out.stdout.strip() == "clean", out.stderr


def test_run_now_takes_a_queued_job_off_the_queue():
    gate = time.monotonic()
    first = tiered.submit("first", lambda: time.sleep(0.2))
    second = tiered.submit("second", lambda: time.monotonic())
    tiered.run_now(second)  # run here, not after "first"
    assert second.done and second.result is not None
    assert second.result - gate < 0.2 or first.done
    assert tiered.drain(timeout=30)
