"""Counters per launch (issue 32 item 3): ``k(..., counters=(...))`` through perf_event_open
(``runtime/counters.py``): task-clock against the threads' CPU time and the launch's wall
time, page faults of a first touch, the clear error of a counter this host lacks (hardware
ones in a VM), the fallbacks where perf_event_paranoid or a filter refuses, NVPTX."""

from __future__ import annotations

import errno
import os
import sys
import threading
import time

import numpy as np
import pytest

import xmux
from xmux.runtime import counters, cuda, pool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

#: a work-item's dependent multiply-add chain of ``iters`` steps: CPU-bound, no memory traffic
SPIN = """
func.func @spin(%x: memref<?xf32>, %out: memref<?xf32>, %iters: index)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %xi = memref.load %x[%i] : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = arith.constant 0.999 : f32
  %r = scf.for %j = %c0 to %iters step %c1 iter_args(%acc = %xi) -> (f32) {
    %m = arith.mulf %acc, %k : f32
    %a = arith.addf %m, %xi : f32
    scf.yield %a : f32
  }
  memref.store %r, %out[%i] : memref<?xf32>
  func.return
}
"""
N = 4096
HARDWARE = ("cycles", "instructions", "cache-misses", "branch-misses")
SOFTWARE = ("task-clock", "page-faults", "context-switches")
#: the launch's threads: two where the process may run two at once
THREADS = min(2, len(os.sched_getaffinity(0)))


@pytest.fixture(scope="module")
def spin() -> xmux.Kernel:
    return xmux.compile(SPIN).kernel("spin")


@pytest.fixture
def fresh():
    """No counter kept open before or after the test (it may patch how they open)."""
    counters.close()
    yield
    counters.close()


def _cpu_bound(spin: xmux.Kernel, iters: int, **kw: object) -> counters.LaunchCounters:
    x = np.ones(N, np.float32)
    out = np.empty_like(x)
    return spin(x, out, iters, global_size=(N,), local_size=(64,), threads=THREADS, **kw)


def _schedstat_ns(tid: int) -> int:
    with open(f"/proc/self/task/{tid}/schedstat") as f:
        return int(f.read().split()[0])


def _iters_for(spin: xmux.Kernel, seconds: float) -> int:
    """Steps per work-item for a launch of about ``seconds`` (after the kernel settled)."""
    iters = 2000
    for _ in range(20):
        c = _cpu_bound(spin, iters, counters="task-clock")
        if c.seconds >= seconds:
            break
        iters = int(iters * min(10.0, max(1.5, seconds / max(c.seconds, 1e-6))))
    return iters


def test_available_lists_the_software_counters() -> None:
    names = counters.available()
    assert set(SOFTWARE) <= set(names)
    assert set(names) <= set(counters.KNOWN)
    assert xmux.counters.available() == names  # the top-level name


def _participants() -> list[int]:
    workers = pool.get_pool(THREADS).workers[: THREADS - 1]
    return [threading.get_native_id(), *(t.native_id for t in workers)]


def _with_cpu_time(spin: xmux.Kernel, iters: int) -> tuple[counters.LaunchCounters, list[int]]:
    """A counted launch and each participant's CPU time (procfs) read around the call."""
    tids = _participants()
    before = [_schedstat_ns(t) for t in tids]
    c = _cpu_bound(spin, iters, counters=("task-clock", "page-faults"))
    after = [_schedstat_ns(t) for t in tids]
    assert [t.tid for t in c.per_thread] == tids
    assert [t.participant for t in c.per_thread] == list(range(THREADS))
    return c, [a - b for a, b in zip(after, before, strict=True)]


def test_task_clock_is_each_threads_cpu_time(spin: xmux.Kernel) -> None:
    """Per thread, perf's task-clock of the launch is that thread's CPU time (procfs, read
    around the call) less what it ran outside the launch. procfs's ``schedstat`` of a thread
    running on another CPU lags by up to a scheduler tick: 10 ms of slack either way."""
    iters = _iters_for(spin, 0.1)
    c, cpu = _with_cpu_time(spin, iters)
    assert c["task-clock"] == sum(t["task-clock"] for t in c.per_thread)
    assert c["task-clock"] > 0
    for t, ns in zip(c.per_thread, cpu, strict=True):
        assert abs(t["task-clock"] - ns) < 10_000_000, (t, ns)


def test_task_clock_within_20_percent_of_wall_times_threads(spin: xmux.Kernel) -> None:
    """The issue's acceptance ratio. Other processes on a shared host can only take CPU time
    away from the launch's threads: the upper bound holds every time, the lower one in the
    best of a few tries, unless the threads did not get their CPUs (procfs says so too:
    then the ratio says nothing about the counter, which the test above checks). procfs
    lags by up to a scheduler tick per thread (the test above): a share under 0.9 of a
    ~0.1 s launch may be one of 0.8 or less (a fresh-clone CI run with pytest and lit on two
    CPUs: shares 0.65-0.82, ratios 0.64-0.77)."""
    iters = _iters_for(spin, 0.1)
    ratios, shares = [], []
    for _ in range(5):
        c, cpu = _with_cpu_time(spin, iters)
        wall = c.seconds * THREADS
        ratio = c["task-clock"] / 1e9 / wall
        assert ratio < 1.2, ratio
        ratios.append(round(ratio, 3))
        shares.append(round(sum(cpu) / 1e9 / wall, 3))
        if ratio > 0.8:
            return
    if max(shares) < 0.9:
        pytest.skip(f"host busy: the launch's threads ran {shares} of wall x threads")
    raise AssertionError(f"task-clock / (wall x threads) {ratios}, CPU time share {shares}")


def test_page_faults_on_first_touch(spin: xmux.Kernel) -> None:
    n = 1 << 21  # 8 MB each: fresh pages from the kernel, not from malloc's free lists
    x, out = np.empty(n, np.float32), np.empty(n, np.float32)
    c = spin(x, out, 1, global_size=(n,), local_size=(256,), threads=THREADS,
             counters=("page-faults", "minor-faults"))
    assert c["page-faults"] > 0
    assert c["minor-faults"] <= c["page-faults"]
    assert c.sources["page-faults"] == "perf"


def test_small_launch_counts_the_calling_thread_only(spin: xmux.Kernel) -> None:
    x = np.ones(4, np.float32)
    out = np.empty_like(x)
    c = spin(x, out, 10, global_size=(4,), local_size=(1,), threads=THREADS,
             counters=("task-clock", "context-switches"))
    assert [t.tid for t in c.per_thread] == [threading.get_native_id()]
    assert c["task-clock"] > 0 and c["context-switches"] >= 0


@pytest.mark.parametrize("name", HARDWARE)
def test_hardware_counter_counts_or_is_a_clear_error(spin: xmux.Kernel, name: str) -> None:
    if name in counters.available():
        c = _cpu_bound(spin, 1000, counters=(name, "task-clock"))
        assert c[name] > 0
        return
    x = np.ones(N, np.float32)
    out = np.full_like(x, -1.0)
    with pytest.raises(counters.CounterUnavailableError, match=f"counter '{name}'") as e:
        spin(x, out, 1, global_size=(N,), local_size=(64,), counters=("task-clock", name))
    assert isinstance(e.value, xmux.NotSupportedError)
    assert "available here: task-clock" in str(e.value)
    assert (out == -1.0).all()  # raised before the launch ran


def test_no_pmu_is_a_clear_error_on_any_host(
    spin: xmux.Kernel, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host without a PMU, simulated: perf_event_open answers ENOENT for hardware events."""
    real = counters._perf_open

    def no_pmu(name: str, tid: int, exclude_kernel: bool) -> int:
        if counters._EVENTS[name][0] == counters._HARDWARE:
            raise OSError(errno.ENOENT, os.strerror(errno.ENOENT))
        return real(name, tid, exclude_kernel)

    monkeypatch.setattr(counters, "_perf_open", no_pmu)
    with pytest.raises(counters.CounterUnavailableError, match="'cycles'.*no PMU"):
        _cpu_bound(spin, 1, counters=("task-clock", "cycles"))


def test_paranoid_2_counts_user_space(
    spin: xmux.Kernel, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """perf_event_paranoid 2, simulated: an open that counts the kernel too is refused; the
    counter is opened again for user space, and context switches (kernel only) come from
    procfs."""
    real = counters._perf_open
    opened = []

    def paranoid(name: str, tid: int, exclude_kernel: bool) -> int:
        if not exclude_kernel:
            raise OSError(errno.EACCES, os.strerror(errno.EACCES))
        opened.append(name)
        return real(name, tid, exclude_kernel)

    monkeypatch.setattr(counters, "_perf_open", paranoid)
    c = _cpu_bound(spin, 1000, counters=SOFTWARE)
    assert c.sources == {"task-clock": "perf", "page-faults": "perf",
                         "context-switches": "procfs"}
    assert "context-switches" not in opened
    assert c["task-clock"] > 0


def test_perf_refused_falls_back_to_procfs(
    spin: xmux.Kernel, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No perf_event_open at all (paranoid 3, a seccomp filter): the software counters come
    from /proc/self/task; a hardware one is an error that names the setting."""

    def refused(name: str, tid: int, exclude_kernel: bool) -> int:
        raise OSError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr(counters, "_perf_open", refused)
    iters = _iters_for(spin, 0.03)
    c = _cpu_bound(spin, iters, counters=(*SOFTWARE, "minor-faults"))
    assert set(c.sources.values()) == {"procfs"}
    assert 0 < c["task-clock"] / 1e9 < 1.2 * c.seconds * THREADS
    with pytest.raises(counters.CounterUnavailableError,
                       match="'instructions'.*perf_event_paranoid"):
        _cpu_bound(spin, 1, counters="instructions")


def test_multiplexed_counts_are_scaled() -> None:
    """A counter that ran for half of the launch counts twice what it saw."""
    m = counters.Meter(("cycles",))
    m._rows = [(0, 1, [counters._ProcCounter(1, int)])]
    m._before = [[(100, 1000, 1000)]]
    m._after = [[(600, 3000, 2000)]]
    c = m.result(0.0, 1.0)
    assert c["cycles"] == 1000 and c.scaled == {"cycles"}


def test_bad_counter_names(spin: xmux.Kernel) -> None:
    with pytest.raises(xmux.LaunchError, match="unknown counter 'cylces'; known: task-clock"):
        _cpu_bound(spin, 1, counters=("cylces",))
    with pytest.raises(xmux.LaunchError, match="names no counter"):
        _cpu_bound(spin, 1, counters=())
    with pytest.raises(xmux.LaunchError, match="counter names"):
        _cpu_bound(spin, 1, counters=5)
    c = _cpu_bound(spin, 1, counters="task-clock")  # one name as a string
    assert list(c.total) == ["task-clock"]


def test_profile_and_counters_agree_on_the_span(spin: xmux.Kernel) -> None:
    t0 = time.perf_counter()
    c = _cpu_bound(spin, 100, counters="task-clock", profile=True)
    assert t0 <= c.start <= c.end <= time.perf_counter()
    assert c.seconds == c.end - c.start


def test_forked_child_counts_its_own_threads(spin: xmux.Kernel) -> None:
    _cpu_bound(spin, 100, counters="task-clock")  # the parent's counters are open
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            c = _cpu_bound(spin, 100, counters="task-clock")
            code = 0 if c.per_thread[0].tid == threading.get_native_id() and c[
                "task-clock"] > 0 else 2
        finally:
            os._exit(code)
    os.close(r)
    os.close(w)
    assert os.waitpid(pid, 0)[1] == 0


VECADD_PTX = """
func.func @vecadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = memref.load %b[%i] : memref<?xf32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %c[%i] : memref<?xf32>
  func.return
}
"""


def test_nvptx_host_counters_are_not_on_this_target() -> None:
    k = xmux.compile(VECADD_PTX, target="nvptx", cache=False)["vecadd"]
    a = np.ones(8, np.float32)
    with pytest.raises(xmux.NotSupportedError, match="'task-clock'.*not on target 'nvptx'"):
        k(a, a, a, global_size=(8,), local_size=(8,), counters=("gpu-time", "task-clock"))


@pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
def test_nvptx_gpu_time() -> None:
    k = xmux.compile(VECADD_PTX, target="nvptx", cache=False)["vecadd"]
    a = np.ones(1 << 20, np.float32)
    out = np.zeros_like(a)
    c = k(a, a, out, global_size=(a.size,), local_size=(256,), counters=("gpu-time",))
    assert c["gpu-time"] > 0 and c.per_thread == ()
    assert c.sources == {"gpu-time": "cuda-events"}
    np.testing.assert_array_equal(out, 2 * a)
