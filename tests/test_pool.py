"""The spinning slice pool (runtime/pool.py): every slice runs exactly once per launch, from any
number of launching threads, with sleeping or spinning workers, and the process exits cleanly."""

from __future__ import annotations

import ctypes
import itertools
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.dialects import attrs
from xmux.runtime import abi, pool

ROOT = Path(__file__).resolve().parents[1]

#: a stand-in for an entry hook: records (slice, thread) for every call
_calls: list[tuple[int, int]] = []


@abi.EntryHookFn
def _record(packed: int, sched: int) -> None:
    row = (ctypes.c_int64 * attrs.SCHED_NUM_FIELDS).from_address(sched)
    _calls.append((row[attrs.SCHED_SLICE] + 1000 * (packed or 0), threading.get_ident()))


_RECORD = ctypes.cast(_record, ctypes.c_void_p).value


def _rows(n: int) -> np.ndarray:
    rows = np.zeros((n, attrs.SCHED_NUM_FIELDS), np.int64)
    rows[:, attrs.SCHED_SLICE] = np.arange(n)
    return rows


@pytest.mark.parametrize("spin_us", ["0", "200"])
@pytest.mark.parametrize("threads", [2, 3])
def test_every_slice_runs_once_per_launch(monkeypatch, spin_us: str, threads: int) -> None:
    monkeypatch.setenv("XMUX_SPIN_US", spin_us)
    p = pool.Pool(threads)
    try:
        for launch_no, n in enumerate([1, 2, 3, 5, 8, 17, 64] * 20):
            _calls.clear()
            assert p.run(_RECORD, launch_no, _rows(n))
            assert sorted(s for s, _ in _calls) == [1000 * launch_no + i for i in range(n)]
    finally:
        p.close()
    assert not any(t.is_alive() for t in p._threads)


def test_concurrent_launches_from_several_threads() -> None:
    """A launch that finds the pool busy runs on its own thread; none is lost or doubled."""
    prog = xmux.compile(
        """
        func.func @inc(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
          %i = mux.get_global_id 0 : index
          %v = memref.load %a[%i] : memref<?xi32>
          %c1 = arith.constant 1 : i32
          %w = arith.addi %v, %c1 : i32
          memref.store %w, %a[%i] : memref<?xi32>
          func.return
        }
        """
    )
    k = prog["inc"]
    n, launches = 1 << 16, 40
    arrays = [np.zeros(n, np.int32) for _ in range(4)]

    def launcher(a: np.ndarray) -> None:
        for _ in range(launches):
            k(a, global_size=(n,), local_size=(256,), threads=2)

    ts = [threading.Thread(target=launcher, args=(a,)) for a in arrays]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for a in arrays:
        np.testing.assert_array_equal(a, np.full(n, launches, np.int32))


def test_more_threads_than_cores_do_not_spin() -> None:
    assert pool.spin_ns(10_000) == 0
    prog = xmux.compile(
        """
        func.func @iota(%a: memref<?xi64>) attributes {mux.kernel = "entry_point"} {
          %i = mux.get_global_id 0 : index
          %v = arith.index_cast %i : index to i64
          memref.store %v, %a[%i] : memref<?xi64>
          func.return
        }
        """
    )
    a = np.full(100_000, -1, np.int64)
    prog["iota"](a, global_size=(a.size,), local_size=(100,), threads=7)
    np.testing.assert_array_equal(a, np.arange(a.size))


@abi.EntryHookFn
def _record_slowly(packed: int, sched: int) -> None:
    _record(packed, sched)
    time.sleep(0.0005)  # releases the GIL: a worker woken late still finds slices left


def test_workers_take_slices() -> None:
    """Slices of a launch run on more than one thread."""
    p = pool.Pool(2)
    try:
        seen: Counter[int] = Counter()
        for _ in range(20):
            _calls.clear()
            p.run(ctypes.cast(_record_slowly, ctypes.c_void_p).value, 0, _rows(16))
            seen.update(t for _, t in _calls)
        assert len(seen) == 2, seen
    finally:
        p.close()


def test_process_exits_cleanly_after_launches() -> None:
    """Spinning workers stop before the JIT code they run is freed at exit."""
    code = """
import numpy as np, xmux
k = xmux.compile('''
func.func @z(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c = arith.constant 0.0 : f32
  memref.store %c, %a[%i] : memref<?xf32>
  func.return
}''')["z"]
a = np.ones(1 << 16, np.float32)
for _ in range(50):
    k(a, global_size=(a.size,), local_size=(64,), threads=2)
assert not a.any()
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_home_ranges_and_stealing(monkeypatch) -> None:
    """Participant t's claim word covers slices [t*n/T, (t+1)*n/T) of the new generation; the
    launching thread alone (its workers asleep) steals every other range too."""
    monkeypatch.setenv("XMUX_SPIN_US", "0")
    p = pool.Pool(3)
    try:
        deadline = time.monotonic() + 10
        while p.sleeping < 2 and time.monotonic() < deadline:
            time.sleep(0.001)
        assert p.sleeping == 2
        n = 10
        gen = p._generation() + 1
        p.native.publish(p.job, _RECORD, 7, _rows(n).ctypes.data, n, 3)
        words = [p._slots[pool._CLAIMS + 8 * t] for t in range(3)]
        assert [(w >> 32, (w >> 16) & 0xFFFF, w & 0xFFFF) for w in words] == [
            (gen, 0, 3), (gen, 3, 6), (gen, 6, 10)
        ]
        _calls.clear()
        rows = _rows(n)  # kept alive while the slices run
        p.native.publish(p.job, _RECORD, 7, rows.ctypes.data, n, 3)
        p.native.join(p.job, n)  # no notify: the workers sleep on
        assert sorted(s for s, _ in _calls) == [7000 + i for i in range(n)]
        assert {t for _, t in _calls} == {threading.get_ident()}
        assert [s - 7000 for s, _ in _calls][:3] == [0, 1, 2]  # its own range first
    finally:
        p.close()


def test_forked_child_gets_its_own_pool() -> None:
    """A child forked after launches has none of the parent's workers: it builds a new pool."""
    import os

    prog = xmux.compile(
        """
        func.func @one(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
          %i = mux.get_global_id 0 : index
          %c1 = arith.constant 1 : i32
          memref.store %c1, %a[%i] : memref<?xi32>
          func.return
        }
        """
    )
    a = np.zeros(1 << 14, np.int32)
    prog["one"](a, global_size=(a.size,), local_size=(64,), threads=2)
    parent_pool = pool.get_pool(2)
    pid = os.fork()
    if pid == 0:  # the child: exit code 0 only if the launch worked on a fresh pool
        ok = False
        try:
            b = np.zeros(1 << 14, np.int32)
            prog["one"](b, global_size=(b.size,), local_size=(64,), threads=2)
            ok = bool(b.all()) and pool.get_pool(2) is not parent_pool
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


@pytest.mark.parametrize("groups", [2, 3, 7, 64, 100, 4096, 100_003])
@pytest.mark.parametrize("threads", [2, 3, 8])
def test_guided_slices_partition_the_groups(groups: int, threads: int) -> None:
    """The rows a launch hands the pool, read as the entry hook reads them (slice s of T equal
    ones: groups [s*G/T, (s+1)*G/T)), tile [0, G) in row order with no gap or overlap; each
    thread's home range (rows [t*n/T, (t+1)*n/T) of the pool) is its 1/T of the groups, cut
    into slices that do not grow, the last ones at most 1/GUIDED_UNITS of it."""
    from xmux.runtime import launch

    slices = launch.guided_slices(groups, threads)
    ranges = [(s * groups // t, (s + 1) * groups // t) for s, t in slices]
    assert ranges[0][0] == 0 and ranges[-1][1] == groups
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    n = len(slices)
    assert n % threads == 0
    for t in range(threads):
        home = slices[t * n // threads : (t + 1) * n // threads]
        lo = ranges[t * n // threads][0]
        hi = ranges[(t + 1) * n // threads - 1][1]
        assert (lo, hi) == (t * groups // threads, (t + 1) * groups // threads)
        fractions = [1 / total for _, total in home]
        assert fractions == sorted(fractions, reverse=True)
        if groups // threads >= launch.GUIDED_UNITS:
            assert fractions[-1] * threads == 1 / launch.GUIDED_UNITS


def _iota_kernel():
    return xmux.compile(
        """
        func.func @iota(%a: memref<?xi64>) attributes {mux.kernel = "entry_point"} {
          %i = mux.get_global_id 0 : index
          %v = arith.index_cast %i : index to i64
          memref.store %v, %a[%i] : memref<?xi64>
          func.return
        }
        """,
        cache=False,
        specialize=False,  # one entry: no local-size variant from the second launch on
    )["iota"]


def test_a_tiny_launch_is_timed_on_the_calling_thread_too(monkeypatch) -> None:
    """A pool launch shorter than SMALL_LAUNCH_S gets a tuner over pool / calling thread; every
    launch, sampled either way or settled, computes the whole range."""
    from xmux.runtime import launch, tuning

    monkeypatch.setattr(launch, "SMALL_LAUNCH_S", 1.0)  # every launch counts as tiny
    launch._ways.clear()
    k = _iota_kernel()
    a = np.full(4096, -1, np.int64)
    for _ in range(2 + tuning.launches_to_settle()):
        a[:] = -1
        k(a, global_size=(a.size,), local_size=(64,), threads=2)
        np.testing.assert_array_equal(a, np.arange(a.size))
    (way,) = launch._ways.values()
    assert not way.sampling and way.chosen_entry in (True, False)
    assert all(len(t) == tuning.SAMPLES for t in way._times)  # both ways were timed


def test_a_launch_longer_than_the_threshold_stays_on_the_pool(monkeypatch) -> None:
    from xmux.runtime import launch

    monkeypatch.setattr(launch, "SMALL_LAUNCH_S", 0.0)
    launch._ways.clear()
    k = _iota_kernel()
    a = np.full(4096, -1, np.int64)
    for _ in range(3):
        k(a, global_size=(a.size,), local_size=(64,), threads=2)
    np.testing.assert_array_equal(a, np.arange(a.size))
    assert launch._ways == {}


def test_compile_prepares_the_pool_code_before_the_first_launch() -> None:
    """xmux.compile starts the LLVM build of the pool's functions on a background thread, so
    the first launch finds them compiled (cold text→result: the build overlaps the front
    end); a launch right away still works, and the process exits cleanly with the thread."""
    code = """
import time, numpy as np, xmux
from xmux.runtime import pool
assert pool._native is None
prog = xmux.compile(open("examples/vecadd.mlir").read(), cache=False)
deadline = time.monotonic() + 60
while pool._native is None and time.monotonic() < deadline:
    time.sleep(0.01)
print("prepared", pool._native is not None)
prog2 = xmux.compile(open("examples/vecadd.mlir").read().replace("vecadd", "vecadd2"),
                     cache=False)
a = np.arange(1000, dtype=np.float32); c = np.empty_like(a)
prog2.kernel("vecadd2")(a, a, c, global_size=(1000,), local_size=(100,))
print("ran", bool((c == 2 * a).all()))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=180, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["prepared", "True", "ran", "True"], r.stdout
    assert r.stderr == "", r.stderr[-2000:]


@pytest.mark.parametrize("spin_us", ["0", "200"])
def test_a_launch_takes_only_the_threads_it_asks_for(monkeypatch, spin_us: str) -> None:
    """A pool larger than a launch's thread count: only participants 0 .. threads - 1 run its
    slices (the others sit it out), and every slice still runs once."""
    monkeypatch.setenv("XMUX_SPIN_US", spin_us)
    p = pool.Pool(4)
    slow = ctypes.cast(_record_slowly, ctypes.c_void_p).value
    try:
        for threads in (1, 2, 3, 4, 2, 1):
            seen: set[int] = set()
            for _ in range(5):
                _calls.clear()
                assert p.run(slow, 0, _rows(16), threads=threads)
                assert sorted(s for s, _ in _calls) == list(range(16))
                seen.update(t for _, t in _calls)
            assert len(seen) <= threads, (threads, len(seen))
            if threads == 1:
                assert seen == {threading.get_ident()}
        with pytest.raises(ValueError, match="takes 1 to 4"):
            p.run(slow, 0, _rows(4), threads=5)
    finally:
        p.close()


def test_one_pool_for_every_thread_count() -> None:
    """threads= from 1 to 24 on one kernel: one pool grown to the largest count, not a pool
    (and its threads) per count; each launch is right."""
    code = """
import threading, numpy as np, xmux
k = xmux.compile('''
func.func @one(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c1 = arith.constant 1 : i32
  %v = memref.load %a[%i] : memref<?xi32>
  %w = arith.addi %v, %c1 : i32
  memref.store %w, %a[%i] : memref<?xi32>
  func.return
}''', cache=False)["one"]
base = threading.active_count()
a = np.zeros(4096, np.int32)
for th in list(range(1, 25)) + list(range(24, 0, -3)):
    k(a, global_size=(a.size,), local_size=(16,), threads=th)
n = len(list(range(1, 25)) + list(range(24, 0, -3)))
assert (a == n).all(), a
workers = [t for t in threading.enumerate() if t.name.startswith("xmux-")]
print(len(workers))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**__import__("os").environ, "XMUX_SPIN_US": "0"})
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split()[-1]) <= 23
