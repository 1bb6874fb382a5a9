"""Performance counters per launch (issue 32): ``k(..., counters=("task-clock", "cycles"))``.

Linux's ``perf_event_open`` through ctypes (no C extension): one counter per event and
per thread that runs the launch, each counting only its own thread (``pid`` = the thread's
TID, ``cpu = -1``), opened on the thread's first counted launch and kept open (an open is
~10 µs; a read ~1 µs). A launch reads every counter before and after its run; the deltas are
the launch's, per thread and summed (``LaunchCounters``).

Who is counted: the launch's participants, as ``runtime/pool.py`` numbers them: the
launching thread (participant 0, which runs slices in ``join``) and, for a launch that goes
to the pool, workers 1 .. T-1. Workers are counted over the whole launch, their spin while
waiting for a slice or for the others included (as the launching thread's wait in ``join``
is): their cores are the launch's. A launch run on the calling thread alone (too small for
the pool, see ``launch._on_pool``) counts that thread only.

Which events: ``KNOWN``. Software events (``task-clock``: ns on a CPU, ``page-faults``,
``context-switches``, ...) exist in every Linux kernel, VMs included. Hardware events
(``cycles``, ``instructions``, ``cache-misses``, ...) need a PMU the kernel exposes; most VMs
expose none and ``perf_event_open`` answers ENOENT: such a counter raises
``CounterUnavailableError`` naming it, before the launch runs. ``available()`` lists what
works here.

Permissions (``/proc/sys/kernel/perf_event_paranoid``): at 2 (the default) a process may
count its own threads in user space only; an open refused with ``exclude_kernel`` off is
retried with it on (``perf stat``'s ``:u``), except for the scheduler's events
(context switches, migrations), which happen in the kernel and would read 0. Where
``perf_event_open`` is refused altogether (paranoid 3 on some distributions, a container's
seccomp filter), ``task-clock``, ``cpu-clock`` and the fault and context-switch counts come
from ``/proc/self/task/<tid>/`` instead (``LaunchCounters.sources`` says which).

Multiplexing: more hardware counters than the PMU has slots are time-shared by the kernel;
each read carries the time the counter was enabled and running, and a delta is scaled by
their ratio (such counters are in ``LaunchCounters.scaled``).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
import threading
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xmux.abi.errors import LaunchError, NotSupportedError

__all__ = [
    "KNOWN", "CounterUnavailableError", "LaunchCounters", "Meter", "ThreadCounters", "available",
    "close",
]

_HARDWARE, _SOFTWARE = 0, 1  # PERF_TYPE_*
#: counter name (``perf stat``'s) -> (PERF_TYPE_*, PERF_COUNT_* config)
_EVENTS: dict[str, tuple[int, int]] = {
    "task-clock": (_SOFTWARE, 1),
    "cpu-clock": (_SOFTWARE, 0),
    "page-faults": (_SOFTWARE, 2),
    "minor-faults": (_SOFTWARE, 5),
    "major-faults": (_SOFTWARE, 6),
    "context-switches": (_SOFTWARE, 3),
    "cpu-migrations": (_SOFTWARE, 4),
    "cycles": (_HARDWARE, 0),
    "instructions": (_HARDWARE, 1),
    "cache-references": (_HARDWARE, 2),
    "cache-misses": (_HARDWARE, 3),
    "branches": (_HARDWARE, 4),
    "branch-misses": (_HARDWARE, 5),
    "bus-cycles": (_HARDWARE, 6),
    "stalled-cycles-frontend": (_HARDWARE, 7),
    "stalled-cycles-backend": (_HARDWARE, 8),
    "ref-cycles": (_HARDWARE, 9),
}
#: every counter name ``counters=`` accepts, software ones first
KNOWN: tuple[str, ...] = tuple(_EVENTS)
#: counted by the scheduler, in the kernel: with ``exclude_kernel`` they would read 0
_KERNEL_ONLY = frozenset({"context-switches", "cpu-migrations"})
_SYSCALL_NR = {"x86_64": 298, "amd64": 298, "aarch64": 241, "arm64": 241}
#: read_format: TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING (value, enabled ns, running ns)
_READ_FORMAT = 1 | 2
_READING = struct.Struct("=3Q")
_EXCLUDE_KERNEL, _EXCLUDE_HV = 1 << 5, 1 << 6  # perf_event_attr flag bits


class CounterUnavailableError(NotSupportedError):
    """A counter this machine or this process's permissions do not give (its name is in
    the message, with ``available()``'s list)."""


class _Attr(ctypes.Structure):
    """``struct perf_event_attr`` up to ``config1`` (PERF_ATTR_SIZE_VER0, 64 bytes: every
    kernel since 2.6.31 accepts it and nothing later is needed for counting)."""

    _fields_ = [
        ("type", ctypes.c_uint32), ("size", ctypes.c_uint32), ("config", ctypes.c_uint64),
        ("sample_period", ctypes.c_uint64), ("sample_type", ctypes.c_uint64),
        ("read_format", ctypes.c_uint64), ("flags", ctypes.c_uint64),
        ("wakeup_events", ctypes.c_uint32), ("bp_type", ctypes.c_uint32),
        ("config1", ctypes.c_uint64),
    ]


def _libc_syscall() -> Callable[..., int] | None:
    nr = _SYSCALL_NR.get(platform.machine().lower())
    if nr is None or not hasattr(os, "sched_getaffinity"):  # not Linux, or no known number
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).syscall
    except (AttributeError, OSError):
        return None
    fn.restype = ctypes.c_long

    def perf_event_open(attr: _Attr, tid: int) -> int:
        # every argument as a long: syscall(2) is variadic
        return fn(ctypes.c_long(nr), ctypes.byref(attr), ctypes.c_long(tid), ctypes.c_long(-1),
                  ctypes.c_long(-1), ctypes.c_long(0))

    return perf_event_open


_perf_event_open = _libc_syscall()


def _perf_open(name: str, tid: int, exclude_kernel: bool) -> int:
    """A counting (not sampling) fd for ``name`` on thread ``tid``; OSError on refusal."""
    if _perf_event_open is None:
        raise OSError(errno.ENOSYS, "perf_event_open is not available on this platform")
    kind, config = _EVENTS[name]
    flags = _EXCLUDE_HV | (_EXCLUDE_KERNEL if exclude_kernel else 0)
    attr = _Attr(type=kind, size=ctypes.sizeof(_Attr), config=config,
                 read_format=_READ_FORMAT, flags=flags)
    fd = _perf_event_open(attr, tid)
    if fd < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return fd


def _paranoid() -> str:
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            return f.read().strip()
    except OSError:
        return "unknown"


def _explain(name: str, e: OSError) -> str:
    """Why ``name`` cannot be counted, for the error message."""
    hardware = _EVENTS[name][0] == _HARDWARE
    if e.errno in (errno.ENOENT, errno.EOPNOTSUPP, errno.ENODEV, errno.EINVAL) and hardware:
        why = ("this machine exposes no such hardware event to perf_event_open "
               f"({os.strerror(e.errno)}: no PMU, as in most VMs, or an event this CPU lacks)")
    elif e.errno in (errno.EACCES, errno.EPERM):
        why = (f"perf_event_open refused it ({os.strerror(e.errno)}; "
               f"/proc/sys/kernel/perf_event_paranoid is {_paranoid()}: counting a process's "
               "own threads needs 2 or less, or CAP_PERFMON; a container may also filter the "
               "system call)")
    elif e.errno == errno.ENOSYS:
        why = f"perf_event_open is not available ({e.strerror})"
    else:
        why = f"perf_event_open failed ({e.strerror or e})"
    return f"counter '{name}' is not available here: {why}"


# ---- what one counter of one thread reads: (value, enabled ns, running ns)


class _PerfCounter:
    __slots__ = ("fd",)
    source = "perf"

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read(self) -> tuple[int, int, int]:
        return _READING.unpack(os.read(self.fd, _READING.size))  # type: ignore[return-value]

    def close(self) -> None:
        os.close(self.fd)


def _task_file(tid: int, name: str) -> str:
    with open(f"/proc/self/task/{tid}/{name}") as f:
        return f.read()


def _stat_fields(tid: int) -> list[str]:
    """``/proc/<tid>/stat`` from its third field (state) on; comm may hold spaces."""
    text = _task_file(tid, "stat")
    return text[text.rindex(")") + 2:].split()


def _proc_task_clock(tid: int) -> int:
    try:  # ns on a CPU (CONFIG_SCHED_INFO), as perf's task-clock
        return int(_task_file(tid, "schedstat").split()[0])
    except (OSError, IndexError, ValueError):
        rest = _stat_fields(tid)  # utime + stime, in clock ticks
        return (int(rest[11]) + int(rest[12])) * 10**9 // os.sysconf("SC_CLK_TCK")


def _proc_switches(tid: int) -> int:
    total = 0
    for line in _task_file(tid, "status").splitlines():
        if "ctxt_switches:" in line:  # voluntary and nonvoluntary
            total += int(line.split()[1])
    return total


#: where procfs has the same count, for a process perf_event_open refuses
_PROCFS: dict[str, Callable[[int], int]] = {
    "task-clock": _proc_task_clock,
    "cpu-clock": _proc_task_clock,
    "page-faults": lambda tid: sum(int(x) for x in _stat_fields(tid)[7:10:2]),
    "minor-faults": lambda tid: int(_stat_fields(tid)[7]),
    "major-faults": lambda tid: int(_stat_fields(tid)[9]),
    "context-switches": _proc_switches,
}


class _ProcCounter:
    __slots__ = ("tid", "fn")
    source = "procfs"

    def __init__(self, tid: int, fn: Callable[[int], int]) -> None:
        self.tid = tid
        self.fn = fn

    def read(self) -> tuple[int, int, int]:
        return self.fn(self.tid), 0, 0

    def close(self) -> None:
        pass


_Counter = _PerfCounter | _ProcCounter


def _open(name: str, tid: int, listing: bool = True) -> _Counter:
    """``name``'s counter on thread ``tid``, or CounterUnavailableError saying why not (and,
    with ``listing``, what is available instead)."""
    try:
        return _PerfCounter(_perf_open(name, tid, exclude_kernel=False))
    except OSError as e:
        error = e
    if error.errno in (errno.EACCES, errno.EPERM) and name not in _KERNEL_ONLY:
        try:  # perf_event_paranoid 2: user space only
            return _PerfCounter(_perf_open(name, tid, exclude_kernel=True))
        except OSError as e:
            error = e
    fallback = _PROCFS.get(name)
    if fallback is not None:
        try:
            fallback(tid)
            return _ProcCounter(tid, fallback)
        except (OSError, IndexError, ValueError):
            pass
    where = f"; available here: {', '.join(available()) or 'none'}" if listing else ""
    raise CounterUnavailableError(_explain(name, error) + where)


class _ThreadCounters:
    """The counters kept open for one thread (closed when the thread object goes)."""

    def __init__(self, thread: threading.Thread, tid: int) -> None:
        self.tid = tid
        self.counters: dict[str, _Counter] = {}
        self._finalizer = weakref.finalize(thread, _close_all, self.counters)

    def get(self, name: str) -> _Counter:
        c = self.counters.get(name)
        if c is None:
            with _open_lock:  # two launching threads may open a worker's counters at once
                c = self.counters.get(name)
                if c is None:
                    c = self.counters[name] = _open(name, self.tid)
        return c


def _close_all(counters: dict[str, _Counter]) -> None:
    for c in counters.values():
        try:
            c.close()
        except OSError:
            pass
    counters.clear()


_lock = threading.Lock()
_open_lock = threading.Lock()
_threads: weakref.WeakKeyDictionary[threading.Thread, _ThreadCounters] = (
    weakref.WeakKeyDictionary()
)


def _for_thread(thread: threading.Thread, tid: int | None) -> _ThreadCounters:
    if tid is None:
        raise LaunchError(f"thread {thread.name} has not started: no counters")
    with _lock:
        state = _threads.get(thread)
        if state is None or state.tid != tid:
            if state is not None:
                state._finalizer()
            state = _threads[thread] = _ThreadCounters(thread, tid)
        return state


_available: tuple[str, ...] | None = None


def available() -> tuple[str, ...]:
    """The counters ``counters=`` can read on this machine, in ``KNOWN``'s order (each
    tried once per process on the calling thread)."""
    global _available
    if _available is None:
        tid = threading.get_native_id()
        works = []
        for name in KNOWN:
            try:
                c = _open(name, tid, listing=False)
            except CounterUnavailableError:
                continue
            c.close()
            works.append(name)
        _available = tuple(works)
    return _available


# ---- a launch's counts


@dataclass(frozen=True)
class ThreadCounters:
    """One participant's counts over a launch: ``participant`` 0 is the launching thread,
    ``j`` the pool's worker ``j``; ``tid`` its Linux thread id."""

    participant: int
    tid: int
    counts: dict[str, int]

    def __getitem__(self, name: str) -> int:
        return self.counts[name]


@dataclass(frozen=True)
class LaunchCounters:
    """A launch's counters (``k(..., counters=(...))``): ``total[name]`` summed over its
    threads, ``per_thread`` one ``ThreadCounters`` per participant; ``start`` / ``end`` as
    ``LaunchProfile``'s. Units are perf's: ``task-clock`` and ``cpu-clock`` in ns, the others
    counts. ``sources[name]``: "perf" or "procfs"; ``scaled``: hardware counters the kernel
    multiplexed, estimated from the share of the launch they ran."""

    start: float
    end: float
    total: dict[str, int]
    per_thread: tuple[ThreadCounters, ...]
    sources: dict[str, str] = field(default_factory=dict)
    scaled: frozenset[str] = frozenset()

    @property
    def seconds(self) -> float:
        """Wall time of the launch, as ``LaunchProfile.seconds``."""
        return self.end - self.start

    def __getitem__(self, name: str) -> int:
        return self.total[name]


def _names(counters: object) -> tuple[str, ...]:
    if isinstance(counters, str):
        counters = (counters,)
    try:
        names = tuple(dict.fromkeys(counters))  # type: ignore[call-overload]
    except TypeError:
        raise LaunchError(
            f"counters= takes counter names, e.g. ('task-clock', 'cycles'), got {counters!r}"
        ) from None
    for n in names:
        if n not in _EVENTS:
            raise LaunchError(f"unknown counter {n!r}; known: {', '.join(KNOWN)}")
    if not names:
        raise LaunchError("counters= names no counter")
    return names


class Meter:
    """Counts one launch: ``begin(workers)`` opens (once per thread) and reads the counters
    of the calling thread and of ``workers`` (the pool threads that take part), ``end``
    reads them again, ``result`` gives the deltas."""

    def __init__(self, counters: Iterable[str] | str) -> None:
        self.names = _names(counters)
        self._rows: list[tuple[int, int, list[_Counter]]] = []
        self._before: list[list[tuple[int, int, int]]] = []
        self._after: list[list[tuple[int, int, int]]] = []

    def begin(self, workers: Iterable[threading.Thread] = ()) -> None:
        # the calling thread's TID asked of the kernel: after a fork Python 3.11 still gives
        # the parent's in ``main_thread().native_id``
        threads = [(threading.current_thread(), threading.get_native_id())]
        threads += [(t, t.native_id) for t in workers]
        rows = []
        for participant, (t, tid) in enumerate(threads):
            state = _for_thread(t, tid)
            rows.append((participant, state.tid, [state.get(n) for n in self.names]))
        self._rows = rows
        # the workers first and the launching thread last: its reads sit next to the run
        self._before = [[c.read() for c in r[2]] for r in reversed(rows)][::-1]

    def end(self) -> None:
        self._after = [[c.read() for c in r[2]] for r in self._rows]

    def result(self, start: float, end: float) -> LaunchCounters:
        total = dict.fromkeys(self.names, 0)
        scaled: set[str] = set()
        sources = {n: c.source for n, c in zip(self.names, self._rows[0][2], strict=True)}
        per_thread = []
        for (participant, tid, _), before, after in zip(
            self._rows, self._before, self._after, strict=True
        ):
            counts = {}
            for name, (v0, e0, r0), (v1, e1, r1) in zip(self.names, before, after, strict=True):
                value, enabled, running = v1 - v0, e1 - e0, r1 - r0
                if 0 < running < enabled:  # multiplexed: ran for part of the launch only
                    value = round(value * enabled / running)
                    scaled.add(name)
                counts[name] = value
                total[name] += value
            per_thread.append(ThreadCounters(participant, tid, counts))
        return LaunchCounters(start, end, total, tuple(per_thread), sources, frozenset(scaled))


def close() -> None:
    """Close every counter kept open (hardware ones hold PMU slots that another tool, such
    as ``perf stat``, may want); the next counted launch opens them again."""
    with _lock:
        states = list(_threads.values())
        _threads.clear()
    for state in states:
        state._finalizer()


def _forget_after_fork() -> None:
    # a forked child's fds still count the parent's threads; its threads are new
    global _lock, _open_lock
    _lock, _open_lock = threading.Lock(), threading.Lock()
    close()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
