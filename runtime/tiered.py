"""Tiered compilation: the builds a launch does not wait for (issue 33, item 1).

A program's first build is the correct generic one. What makes it faster later — a kernel's
local-size variant and its tuned vector widths (``runtime/launcher.py``), a native
specialization-constant value set's specialization (``runtime/spec_state.py``) — is built
here, on one background thread, while launches keep running what exists; the launcher looks
at a ``Job`` on each launch that would use it and swaps the result in once it is ``done``
(the launching thread alone reads and replaces its entries, so the swap is one assignment
there: no launch ever sees a half-made entry).

Why one thread: the LLVM work of a build runs in another process (the compile server,
``runtime/compile_server.py``, started at once for a background build and run at a low CPU
priority there, or a forked child until it is ready); the thread itself mostly waits on a pipe,
without the GIL. The xDSL lowering of a local-size variant runs in that server too
(``targets/cpu.py:lower_variant``, for a program compiled from text with xmux's own pipeline);
otherwise (a user's pipeline, a ModuleOp source, no server) it runs in this process, and while
the thread has work, the interpreter's switch interval is ``SWITCH_INTERVAL_S`` (Python's
default is 5 ms: a launch returning from its native code waited that long for the GIL). The
thread keeps the process's CPU priority: lowered (Linux nice per thread), it can be descheduled
while holding the GIL on a busy host, and the launching thread waits for it (a priority
inversion: one of its garbage collections held the GIL 52 ms on the loaded 2-core VM).

A failed build is not lost: the job keeps the exception, the launcher reports it on the
launching thread (a ``RuntimeWarning`` naming the build, and ``failures``) and keeps the
generic code for good.

Synchronous builds: ``xmux.compile(..., wait=True)`` (a program's launches build what they
need before they run, as before tiering), ``XMUX_SYNC_BUILDS=1`` (every program: the
"before" of bench/launch_stalls.py), and ``prog.warm(...)``, which builds ahead and waits.

Fork and exit: a forked child gets a fresh lock and no thread; jobs queued or under way in
the parent are queued again there and run once a launch of the child looks at one
(``kick``). At exit the queue is dropped and the thread joined (a build under way finishes
first), so no thread runs into the interpreter's finalization.
"""

from __future__ import annotations

import atexit
import collections
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable

from xmux.runtime import env

__all__ = [
    "Job",
    "drain",
    "failures",
    "in_background",
    "kick",
    "run_now",
    "submit",
    "synchronous",
    "worker_alive",
]


#: the interpreter's switch interval while the background thread has work
SWITCH_INTERVAL_S = 0.0002


class Job:
    """One background build: ``work()`` run on the builder thread; ``done`` once it has run,
    then ``result`` or ``error``. ``wait()`` blocks until it is done (and runs it on the
    calling thread where no builder can: a synchronous build)."""

    __slots__ = ("label", "work", "done", "result", "error", "reported", "_event",
                 "queued_at", "started_at", "finished_at")

    def __init__(self, label: str, work: Callable[[], object]) -> None:
        self.label = label
        self.work = work
        self.done = False
        self.result: object = None
        self.error: BaseException | None = None
        #: the launcher has reported ``error`` (once)
        self.reported = False
        self._event = threading.Event()
        #: ``time.perf_counter()`` when queued, started and finished (benchmarks: when a
        #: launch could first have used the build)
        self.queued_at = time.perf_counter()
        self.started_at: float | None = None
        self.finished_at: float | None = None

    def run(self) -> None:
        self.started_at = time.perf_counter()
        try:
            self.result = self.work()
        except Exception as e:  # noqa: BLE001 - kept for the launching thread to report
            self.error = e
            failures.append((self.label, e))
            import logging  # here: ~3 ms of imports a warm start need not pay

            logging.getLogger(__name__).warning("background build of %s failed: %s",
                                                self.label, e)
        finally:
            self.work = None  # type: ignore[assignment] - drop what the closure holds
            self.finished_at = time.perf_counter()
            log.append(self)
            self.done = True
            self._event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until done (True) or ``timeout`` passes (False)."""
        if self.done:
            return True
        kick()
        return self._event.wait(timeout)


#: (label, exception) of every background build that failed in this process
failures: list[tuple[str, BaseException]] = []
#: background builds run to the end (tests and benchmarks)
stats = {"submitted": 0, "built": 0}
#: the last jobs run, oldest first (benchmarks: their times)
log: collections.deque[Job] = collections.deque(maxlen=64)

_lock = threading.Lock()
_wake = threading.Condition(_lock)
_queue: collections.deque[Job] = collections.deque()
_current: Job | None = None
_thread: threading.Thread | None = None
_closing = False
_saved_interval: float | None = None


def synchronous() -> bool:
    """Whether every program builds synchronously (``XMUX_SYNC_BUILDS=1``)."""
    return env.flag("XMUX_SYNC_BUILDS", False)


def submit(label: str, work: Callable[[], object]) -> Job:
    """Queue ``work`` for the builder thread (started on first use) and return its job."""
    job = Job(label, work)
    with _lock:
        stats["submitted"] += 1
        if _closing:  # at exit: nothing will run it; the launch keeps the generic code
            job.error = RuntimeError("the process is exiting")
            job.done = True
            job.reported = True
            job._event.set()
            return job
        _queue.append(job)
        _ensure_thread_locked()
        _wake.notify()
    return job


def run_now(job: Job) -> None:
    """Have ``job`` done before returning: run here if it is still queued (a launch that
    cannot go on without it need not wait for the builds queued before it), else wait."""
    with _lock:
        queued = job in _queue
        if queued:
            _queue.remove(job)
    if queued:
        job.run()
    else:
        job.wait()


def kick() -> None:
    """Start the builder thread if jobs wait and none runs them (a forked child)."""
    if _queue and (_thread is None or not _thread.is_alive()):
        with _lock:
            if _queue and not _closing:
                _ensure_thread_locked()
                _wake.notify()


def drain(timeout: float | None = None) -> bool:
    """Wait until every queued background build has run (True), or ``timeout`` (False)."""
    while True:
        with _lock:
            pending = list(_queue) + ([_current] if _current is not None else [])
        if not pending:
            return True
        for job in pending:
            if not job.wait(timeout):
                return False


def in_background() -> bool:
    """Whether this is the builder thread (its LLVM builds go to the background server)."""
    return _thread is not None and threading.current_thread() is _thread


def worker_alive() -> bool:
    """Whether the builder thread is running (tests: none after exit or in a forked child)."""
    return _thread is not None and _thread.is_alive()


def _ensure_thread_locked() -> None:
    global _thread
    if _thread is None or not _thread.is_alive():
        _thread = threading.Thread(target=_loop, name="xmux-background-builds", daemon=True)
        _thread.start()


def _loop() -> None:
    global _current, _saved_interval
    while True:
        with _lock:
            while not _queue and not _closing:
                _restore_interval_locked()
                _wake.wait()
            if _closing:
                _restore_interval_locked()
                return
            job = _current = _queue.popleft()
            if _saved_interval is None:
                _saved_interval = sys.getswitchinterval()
                sys.setswitchinterval(min(_saved_interval, SWITCH_INTERVAL_S))
        job.run()
        with _lock:
            _current = None
            stats["built"] += 1


def _restore_interval_locked() -> None:
    global _saved_interval
    if _saved_interval is not None:
        sys.setswitchinterval(_saved_interval)
        _saved_interval = None


def shutdown() -> None:
    """Drop the queue and join the thread (a build under way finishes): at exit."""
    global _closing, _thread
    with _lock:
        _closing = True
        dropped = list(_queue)
        _queue.clear()
        _wake.notify_all()
        thread = _thread
    for job in dropped:
        job.error = RuntimeError("the process exited before it was built")
        job.reported = True
        job.done = True
        job._event.set()
    if thread is not None and thread is not threading.current_thread():
        thread.join()
    _thread = None


def _after_fork_in_child() -> None:
    # the parent's thread is not here: its job under way is queued again, a fresh lock
    global _lock, _wake, _thread, _current, _saved_interval
    _lock = threading.Lock()
    _wake = threading.Condition(_lock)
    if _current is not None and not _current.done and _current.work is not None:
        _queue.appendleft(_current)
    _current = None
    _thread = None
    if _saved_interval is not None:
        sys.setswitchinterval(_saved_interval)
        _saved_interval = None
    for job in _queue:  # the events' own locks may be held by the parent's waiters
        job._event = threading.Event()


atexit.register(shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def finished(job: Job, keeps: str = "the generic code", stacklevel: int = 4) -> object:
    """A done job's result; a failed one's error reported once on this (the launching)
    thread, and None: the generic code (``keeps``: what its launches run instead) stays."""
    if job.error is None:
        return job.result
    if not job.reported:
        job.reported = True
        warnings.warn(
            f"xmux: the background build of {job.label} failed ({type(job.error).__name__}: "
            f"{job.error}); its launches keep running {keeps}",
            RuntimeWarning, stacklevel=stacklevel,
        )
    return None
