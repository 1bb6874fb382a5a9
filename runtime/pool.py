"""A spinning thread pool for work-group slices, with its hot path in JIT-compiled code.

Handing a launch to a ``concurrent.futures`` worker costs tens of microseconds (a condition
variable wake-up and the GIL hand-off), as much as a whole memory-bound kernel of a few MB.
PoCL and OpenMP keep their workers spinning for a while after a parallel region; this pool does
the same without a C extension: the worker loop, the slice claiming and the completion wait are
a small LLVM IR module compiled once with the JIT (``_ir``), and Python threads merely carry it.

Protocol (one *job* record per pool, 64-byte aligned ``int64`` slots):

- Every participant (the launching thread is 0, worker ``j`` is ``j + 1``) has a *home* range of
  slices, ``[t*n/T, (t+1)*n/T)`` of the ``n`` slices of a launch, and a claim word for it:
  generation << 32 | next << 16 | end. It takes its own slices first, then steals from the
  other ranges: a memory-bound kernel's thread meets the same part of the arrays launch after
  launch (in its own caches: on this VM 25% faster for saxpy than slices handed out in order),
  and a late or slow thread still leaves no slice behind.
- A claim is a compare-and-swap of a whole claim word, so it can only succeed for the
  generation it read and for an index below the end of that same word: no stale worker can
  claim a slice of a launch that is over or not yet published.
- ``publish`` stores the job's fields, resets ``done``, writes the claim words, and then
  announces ``generation << 32`` in the first slot with release ordering.
- Whoever runs a slice calls ``entry(packed, &scheds[i])`` and increments ``done``; ``join``
  (the launching thread) runs slices itself, then spins until ``done`` equals ``n``. The next
  ``publish`` therefore never overlaps a slice of the previous generation.
- A worker spins (``pause``, the clock read every 256 rounds) for ``spin`` nanoseconds after
  its last slice, then sleeps: on Linux (x86-64, AArch64) in native code, on a futex (an
  event count, ``_sleep_ir``), and a launch that finds workers asleep wakes them with one
  system call (``xmux_pool_run``); elsewhere it returns to its Python carrier, which
  sleeps on a condition variable until the next generation is announced (each woken worker
  then takes the GIL in turn, a chain a launch after a pause waits for). A launch only
  touches the condition when a worker
  sleeps. It does not ``sched_yield`` while spinning, as OpenMP's spinning threads do not: in
  this VM a yield every 256 rounds (a few µs) overlapped most hand-offs of launches a few µs
  apart (vecadd 2^16 on 2 threads: 8.9 µs per kernel with the yields, 4.9 without, 6.2 on one
  thread); the spin is bounded by ``spin`` anyway, and a pool with more threads than CPUs does
  not spin. The launching thread's wait in ``join`` yields only in a pool that does not spin
  (a worker may share its CPU there); elsewhere a yield (a system call) every few µs of the
  wait delayed the return after the last slice.

``XMUX_SPIN_US`` sets the spin time (default 1000 µs; 0 = sleep at once). Pools with more
threads than the process may use never spin. Only one launch uses a pool at a time (a busy word
in the job record, taken by compare-and-swap); a launch that finds its pool busy (another
Python thread is launching) runs its slices on its own thread.

While no worker sleeps, a launch is one native call (``xmux_pool_run``: take the pool, publish,
join, release): after a kernel that streamed through the caches each Python-side step costs
microseconds (taking a lock 1 µs, ``ndarray.ctypes`` 5 µs, a ctypes call 2 µs: vecadd 2^22
spent ~9 µs between the launch and its first slice). A worker that falls asleep just before
such a launch leaves its slices to be stolen and is woken by the next launch that sees it
asleep.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import platform
import signal
import sys
import threading
import time

import numpy as np

from xmux.abi import kernel_layout as layout
from xmux.abi.errors import XmuxError
from xmux.runtime import env, interrupt

__all__ = ["Pool", "get_pool", "shutdown"]

# job record slots (int64 indices); the announcement, ``done`` and every claim word sit on
# cache lines of their own
_ANNOUNCE, _DONE, _STOP, _CLAIMS = 0, 8, 24, 32
_NUM, _ENTRY, _PACKED, _SCHEDS, _THREADS, _BUSY, _YIELD = 16, 17, 18, 19, 20, 21, 22
#: native sleep (``_FUTEX``): the wake word (a futex: bumped by each wake) and the count of
#: workers asleep on it
_WAKE, _SLEEPERS = 23, 25
#: slices per launch at most (claim words hold 16-bit indices)
MAX_SLICES = 0xFFFF


def _job_slots(threads: int) -> int:
    return _CLAIMS + 8 * threads


#: the pause instruction of a spin loop, per architecture (nothing elsewhere)
_PAUSE = {
    "x86_64": ("declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()"),
    "amd64": ("declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()"),
    "aarch64": ("declare void @llvm.aarch64.hint(i32)", "call void @llvm.aarch64.hint(i32 1)"),
    "arm64": ("declare void @llvm.aarch64.hint(i32)", "call void @llvm.aarch64.hint(i32 1)"),
}


#: Linux's futex system call number, per architecture (little-endian ones: the wake word is
#: the low half of its slot); elsewhere idle workers sleep on a Python condition
_SYS_FUTEX = {"x86_64": 202, "amd64": 202, "aarch64": 98, "arm64": 98}
_FUTEX_WAIT_PRIVATE, _FUTEX_WAKE_PRIVATE = 128, 129


def _futex() -> int | None:
    """The futex system call's number here, or None (no native sleep; also with
    ``XMUX_POOL_FUTEX=0``: the A/B of bench/launch_overhead.py)"""
    if not sys.platform.startswith("linux") or not env.flag("XMUX_POOL_FUTEX", True):
        return None
    return _SYS_FUTEX.get(platform.machine().lower())


def _sleep_ir(futex: int | None) -> str:
    """Native sleep and wake-up of idle workers (an event count on the wake word): a worker
    counts itself asleep, reads the wake word, and sleeps on it unless a generation came or
    the pool stops meanwhile; a launch that finds workers asleep bumps the word and wakes
    them (seq_cst on both sides: either the worker sees the new generation or the launch
    sees the sleeper, and a bump between the worker's read and its wait fails the wait)."""
    if futex is None:  # nobody sleeps natively: nothing to wake
        return """
define i64 @xmux_pool_wake(ptr %job) {
  ret i64 0
}
"""
    return f"""
declare i64 @syscall(i64, ...)

define internal void @sleep_on(ptr %job, i64 %seen) {{
entry:
  %sleepersp = getelementptr inbounds i64, ptr %job, i64 {_SLEEPERS}
  %wakep = getelementptr inbounds i64, ptr %job, i64 {_WAKE}
  %stopp = getelementptr inbounds i64, ptr %job, i64 {_STOP}
  %in = atomicrmw add ptr %sleepersp, i64 1 seq_cst
  %e = load atomic i32, ptr %wakep seq_cst, align 8
  %c = load atomic i64, ptr %job seq_cst, align 8
  %g = lshr i64 %c, 32
  %same = icmp eq i64 %g, %seen
  %stop = load atomic i64, ptr %stopp seq_cst, align 8
  %going = icmp eq i64 %stop, 0
  %idle = and i1 %same, %going
  br i1 %idle, label %wait, label %done
wait:
  %r = call i64 (i64, ...) @syscall(i64 {futex}, ptr %wakep, i32 {_FUTEX_WAIT_PRIVATE},
                                    i32 %e, ptr null)
  br label %done
done:
  %out = atomicrmw sub ptr %sleepersp, i64 1 seq_cst
  ret void
}}

; wake every sleeping worker (after a publish; at close): 1 if there were any
define i64 @xmux_pool_wake(ptr %job) {{
entry:
  %sleepersp = getelementptr inbounds i64, ptr %job, i64 {_SLEEPERS}
  %wakep = getelementptr inbounds i64, ptr %job, i64 {_WAKE}
  %n = load atomic i64, ptr %sleepersp seq_cst, align 8
  %any = icmp ne i64 %n, 0
  br i1 %any, label %wake, label %none
wake:
  %old = atomicrmw add ptr %wakep, i64 1 seq_cst
  %r = call i64 (i64, ...) @syscall(i64 {futex}, ptr %wakep, i32 {_FUTEX_WAKE_PRIVATE},
                                    i32 2147483647)
  ret i64 1
none:
  ret i64 0
}}

; stop the pool: the stop slot set (seq_cst: a worker about to sleep sees it, or is woken)
define void @xmux_pool_stop(ptr %job) {{
  %stopp = getelementptr inbounds i64, ptr %job, i64 {_STOP}
  %wakep = getelementptr inbounds i64, ptr %job, i64 {_WAKE}
  store atomic i64 1, ptr %stopp seq_cst, align 8
  %old = atomicrmw add ptr %wakep, i64 1 seq_cst
  %r = call i64 (i64, ...) @syscall(i64 {futex}, ptr %wakep, i32 {_FUTEX_WAKE_PRIVATE},
                                    i32 2147483647)
  ret void
}}

; a pool thread's whole life: run generations, spin %spin ns, sleep natively; returns when
; the pool stops
define void @xmux_pool_serve(ptr %job, i64 %seen0, i64 %spin, i64 %id) {{
entry:
  %stopp = getelementptr inbounds i64, ptr %job, i64 {_STOP}
  br label %loop
loop:
  %seen = phi i64 [ %seen0, %entry ], [ %s, %rest ]
  %s = call i64 @xmux_pool_worker(ptr %job, i64 %seen, i64 %spin, i64 %id)
  %stop = load atomic i64, ptr %stopp seq_cst, align 8
  %stopping = icmp ne i64 %stop, 0
  br i1 %stopping, label %out, label %rest
rest:
  call void @sleep_on(ptr %job, i64 %s)
  br label %loop
out:
  ret void
}}
"""


def _ir() -> str:
    decl, pause = _PAUSE.get(platform.machine().lower(), ("", ""))
    fields = layout.SCHED_NUM_FIELDS
    return interrupt.HANDLER_IR + _sleep_ir(_futex()) + f"""
{decl}
declare i32 @clock_gettime(i32, ptr)
declare i32 @sched_yield()

define internal i64 @now_ns() {{
  %ts = alloca [2 x i64], align 8
  %r = call i32 @clock_gettime(i32 {time.CLOCK_MONOTONIC}, ptr %ts)
  %s = load i64, ptr %ts, align 8
  %p = getelementptr inbounds i64, ptr %ts, i64 1
  %ns = load i64, ptr %p, align 8
  %m = mul i64 %s, 1000000000
  %t = add i64 %m, %ns
  ret i64 %t
}}

; run slices of generation %gen as participant %id: its home range first, then the others';
; a participant beyond the launch's thread count (the pool is larger) takes no part
define internal void @work(ptr %job, i64 %gen, i64 %id) {{
entry:
  %donep = getelementptr inbounds i64, ptr %job, i64 {_DONE}
  %entryp = getelementptr inbounds i64, ptr %job, i64 {_ENTRY}
  %packedp = getelementptr inbounds i64, ptr %job, i64 {_PACKED}
  %schedsp = getelementptr inbounds i64, ptr %job, i64 {_SCHEDS}
  %nthp = getelementptr inbounds i64, ptr %job, i64 {_THREADS}
  %nth = load atomic i64, ptr %nthp monotonic, align 8
  %member = icmp ult i64 %id, %nth
  br i1 %member, label %range, label %exit
range:
  %j = phi i64 [ 0, %entry ], [ %j1, %next ]
  %more = icmp ult i64 %j, %nth
  br i1 %more, label %home, label %exit
home:
  %tj = add i64 %id, %j
  %t = urem i64 %tj, %nth
  %slot = shl i64 %t, 3
  %slot1 = add i64 %slot, {_CLAIMS}
  %cp = getelementptr inbounds i64, ptr %job, i64 %slot1
  br label %claim
claim:
  %c = load atomic i64, ptr %cp acquire, align 8
  %g = lshr i64 %c, 32
  %same = icmp eq i64 %g, %gen
  br i1 %same, label %check, label %next
check:
  %hi = lshr i64 %c, 16
  %idx = and i64 %hi, 65535
  %end = and i64 %c, 65535
  %left = icmp ult i64 %idx, %end
  br i1 %left, label %cas, label %next
cas:
  %c1 = add i64 %c, 65536
  %r = cmpxchg ptr %cp, i64 %c, i64 %c1 acq_rel acquire
  %ok = extractvalue {{ i64, i1 }} %r, 1
  br i1 %ok, label %run, label %claim
run:
  %fn = load atomic ptr, ptr %entryp monotonic, align 8
  %packed = load atomic ptr, ptr %packedp monotonic, align 8
  %scheds = load atomic ptr, ptr %schedsp monotonic, align 8
  %sp = getelementptr inbounds [{fields} x i64], ptr %scheds, i64 %idx
  call void %fn(ptr %packed, ptr %sp)
  %old = atomicrmw add ptr %donep, i64 1 release
  br label %claim
next:
  %j1 = add i64 %j, 1
  br label %range
exit:
  ret void
}}

; a pool thread (participant %id): run every new generation, return the last one seen after
; %spin ns idle (or at once when the stop slot is set)
define i64 @xmux_pool_worker(ptr %job, i64 %seen0, i64 %spin, i64 %id) {{
entry:
  %stopp = getelementptr inbounds i64, ptr %job, i64 {_STOP}
  %t0 = call i64 @now_ns()
  %dl0 = add i64 %t0, %spin
  br label %loop
loop:
  %seen = phi i64 [ %seen0, %entry ], [ %seen, %idle ], [ %seen, %clock ], [ %g, %ran ]
  %dl = phi i64 [ %dl0, %entry ], [ %dl, %idle ], [ %dl, %clock ], [ %dl2, %ran ]
  %i = phi i64 [ 0, %entry ], [ %i1, %idle ], [ %i1, %clock ], [ 0, %ran ]
  %c = load atomic i64, ptr %job acquire, align 8
  %g = lshr i64 %c, 32
  %new = icmp ne i64 %g, %seen
  br i1 %new, label %ran, label %spinning
ran:
  call void @work(ptr %job, i64 %g, i64 %id)
  %t = call i64 @now_ns()
  %dl2 = add i64 %t, %spin
  br label %loop
spinning:
  %stop = load atomic i64, ptr %stopp monotonic, align 8
  %stopping = icmp ne i64 %stop, 0
  br i1 %stopping, label %out, label %idle
idle:
  {pause}
  %i1 = add i64 %i, 1
  %low = and i64 %i1, 255
  %tick = icmp eq i64 %low, 0
  br i1 %tick, label %clock, label %loop
clock:
  %now = call i64 @now_ns()
  %late = icmp sgt i64 %now, %dl
  br i1 %late, label %out, label %loop
out:
  ret i64 %seen
}}

; announce a new generation of %num slices for participants 0 .. %nth - 1 (the previous
; generation must be complete)
define void @xmux_pool_publish(ptr %job, ptr %fn, ptr %packed, ptr %scheds, i64 %num,
                               i64 %nth) {{
entry:
  %donep = getelementptr inbounds i64, ptr %job, i64 {_DONE}
  %nump = getelementptr inbounds i64, ptr %job, i64 {_NUM}
  %entryp = getelementptr inbounds i64, ptr %job, i64 {_ENTRY}
  %packedp = getelementptr inbounds i64, ptr %job, i64 {_PACKED}
  %schedsp = getelementptr inbounds i64, ptr %job, i64 {_SCHEDS}
  %nthp = getelementptr inbounds i64, ptr %job, i64 {_THREADS}
  store atomic i64 %nth, ptr %nthp monotonic, align 8
  %c = load atomic i64, ptr %job monotonic, align 8
  %g = lshr i64 %c, 32
  %g1 = add i64 %g, 1
  %g2 = and i64 %g1, 4294967295
  %gw = shl i64 %g2, 32
  store atomic ptr %fn, ptr %entryp monotonic, align 8
  store atomic ptr %packed, ptr %packedp monotonic, align 8
  store atomic ptr %scheds, ptr %schedsp monotonic, align 8
  store atomic i64 %num, ptr %nump monotonic, align 8
  store atomic i64 0, ptr %donep monotonic, align 8
  br label %words
words:
  %t = phi i64 [ 0, %entry ], [ %t1, %words ]
  %t1 = add i64 %t, 1
  %lo = mul i64 %t, %num
  %start = udiv i64 %lo, %nth
  %hi = mul i64 %t1, %num
  %end = udiv i64 %hi, %nth
  %s16 = shl i64 %start, 16
  %w0 = or i64 %gw, %s16
  %w = or i64 %w0, %end
  %slot = shl i64 %t, 3
  %slot1 = add i64 %slot, {_CLAIMS}
  %cp = getelementptr inbounds i64, ptr %job, i64 %slot1
  store atomic i64 %w, ptr %cp monotonic, align 8
  %more = icmp ult i64 %t1, %nth
  br i1 %more, label %words, label %announce
announce:
  store atomic i64 %gw, ptr %job seq_cst, align 8
  ret void
}}

; take the pool for one launch (1), or find it taken by another launching thread (0)
define i64 @xmux_pool_acquire(ptr %job) {{
  %busyp = getelementptr inbounds i64, ptr %job, i64 {_BUSY}
  %r = cmpxchg ptr %busyp, i64 0, i64 1 acquire monotonic
  %ok = extractvalue {{ i64, i1 }} %r, 1
  %v = zext i1 %ok to i64
  ret i64 %v
}}

define void @xmux_pool_release(ptr %job) {{
  %busyp = getelementptr inbounds i64, ptr %job, i64 {_BUSY}
  store atomic i64 0, ptr %busyp release, align 8
  ret void
}}

; a whole launch: acquire, publish, wake the workers asleep on the futex (``_sleep_ir``),
; join, release in one call (each Python-side step costs microseconds after a kernel has
; streamed the caches); 0 = pool taken, 1 = run, 2 = run and workers were woken
define i64 @xmux_pool_run(ptr %job, ptr %fn, ptr %packed, ptr %scheds, i64 %num, i64 %nth) {{
entry:
  %got = call i64 @xmux_pool_acquire(ptr %job)
  %ok = icmp ne i64 %got, 0
  br i1 %ok, label %go, label %out
go:
  call void @xmux_pool_publish(ptr %job, ptr %fn, ptr %packed, ptr %scheds, i64 %num,
                               i64 %nth)
  %woke = call i64 @xmux_pool_wake(ptr %job)
  call void @xmux_pool_join(ptr %job, i64 %num)
  call void @xmux_pool_release(ptr %job)
  %ran = add i64 %got, %woke
  br label %out
out:
  %r = phi i64 [ 0, %entry ], [ %ran, %go ]
  ret i64 %r
}}

; the launching thread (participant 0): run slices of the current generation, then wait for
; all %num of them
define void @xmux_pool_join(ptr %job, i64 %num) {{
entry:
  %donep = getelementptr inbounds i64, ptr %job, i64 {_DONE}
  %yieldp = getelementptr inbounds i64, ptr %job, i64 {_YIELD}
  %c = load atomic i64, ptr %job monotonic, align 8
  %g = lshr i64 %c, 32
  call void @work(ptr %job, i64 %g, i64 0)
  %yields = load atomic i64, ptr %yieldp monotonic, align 8
  br label %wait
wait:
  %i = phi i64 [ 0, %entry ], [ %i1, %idle ], [ %i1, %yield ]
  %d = load atomic i64, ptr %donep acquire, align 8
  %all = icmp eq i64 %d, %num
  br i1 %all, label %out, label %idle
idle:
  {pause}
  %i1 = add i64 %i, 1
  %low = and i64 %i1, 63
  %tick0 = icmp eq i64 %low, 0
  %may = icmp ne i64 %yields, 0
  %tick = and i1 %tick0, %may
  br i1 %tick, label %yield, label %wait
yield:
  %y = call i32 @sched_yield()
  br label %wait
out:
  ret void
}}
"""


class _Native:
    """The compiled pool functions (one JIT module per process)."""

    def __init__(self) -> None:
        from xmux.runtime import jit

        for name, address in interrupt.SYMBOLS.items():
            jit.register_symbol(name, address)
        self.module = jit.compile_ir(_ir(), cache_key=None)
        self.sigint = self.module.address("xmux_on_sigint")
        i64, ptr = ctypes.c_int64, ctypes.c_void_p
        self.worker = ctypes.CFUNCTYPE(i64, ptr, i64, i64, i64)(
            self.module.address("xmux_pool_worker")
        )
        self.publish = ctypes.CFUNCTYPE(None, ptr, ptr, ptr, ptr, i64, i64)(
            self.module.address("xmux_pool_publish")
        )
        self.join = ctypes.CFUNCTYPE(None, ptr, i64)(self.module.address("xmux_pool_join"))
        self.acquire = ctypes.CFUNCTYPE(i64, ptr)(self.module.address("xmux_pool_acquire"))
        self.release = ctypes.CFUNCTYPE(None, ptr)(self.module.address("xmux_pool_release"))
        self.run = ctypes.CFUNCTYPE(i64, ptr, ptr, ptr, ptr, i64, i64)(
            self.module.address("xmux_pool_run")
        )
        #: native sleep (``_sleep_ir``), else None: workers sleep on a Python condition
        self.serve = self.stop = None
        if _futex() is not None:
            self.serve = ctypes.CFUNCTYPE(None, ptr, i64, i64, i64)(
                self.module.address("xmux_pool_serve"))
            self.stop = ctypes.CFUNCTYPE(None, ptr)(self.module.address("xmux_pool_stop"))


def _libc_sched_getcpu():
    """glibc's ``sched_getcpu`` (the CPU this thread runs on), or None elsewhere."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        fn = ctypes.CDLL(None).sched_getcpu
    except (AttributeError, OSError):
        return None
    fn.restype = ctypes.c_int
    fn.argtypes = []
    return fn


_sched_getcpu = _libc_sched_getcpu()
_native_lock = threading.Lock()
_native: _Native | None = None


def _get_native() -> _Native:
    global _native
    with _native_lock:
        if _native is None:
            _native = _Native()
        return _native


_prepare_started = False


def prepare_native() -> None:
    """Start compiling the pool's native functions on a background thread, once per process:
    ``xmux.compile`` calls it before its front end, whose few hundred ms of Python the LLVM
    child (~50 ms) overlaps on another core, and the first launch finds them ready
    (vecadd from text to its first result: 60 ms less on the 2-core VM). Not where LLVM
    runs in this process (``XMUX_LLVM_IN_PROCESS``: two threads in LLVM at once)."""
    global _prepare_started
    from xmux.runtime import contained

    if _native is not None or _prepare_started or contained.in_process():
        return
    _prepare_started = True
    threading.Thread(target=_prepare, name="xmux-pool-compile", daemon=True).start()


def _prepare() -> None:
    try:
        _get_native()
    except BaseException:  # noqa: BLE001 - the first launch compiles them again and reports
        pass  # why (a Ctrl-C meanwhile reaches the compile child too and is answered here)


def sigint_handler_address(create: bool = True) -> int | None:
    """The native SIGINT handler of ``runtime/interrupt.py`` (compiled with the pool's
    functions); None when they are not compiled and ``create`` is off."""
    if _native is None and not create:
        return None
    return _get_native().sigint


def spin_ns(threads: int) -> int:
    """How long an idle worker spins: ``XMUX_SPIN_US`` µs (default 1000), none when the pool
    has more threads than the process may run at once (a spinner would steal a worker's core)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        cores = os.cpu_count() or 1
    if threads > cores:
        return 0
    raw = os.environ.get("XMUX_SPIN_US", "").strip() or "1000"
    try:
        spin_us = float(raw)
    except ValueError:
        spin_us = -1.0
    if not 0 <= spin_us < 1e9:
        raise XmuxError(f"XMUX_SPIN_US must be a number of microseconds >= 0, got {raw!r}")
    return int(spin_us * 1000)


_SIGINT = {signal.SIGINT}


def _block_sigint() -> bool:
    """Block SIGINT on the calling thread if it is Python's main thread (where the
    KeyboardInterrupt is raised) and it was not blocked; whether it did."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not (
        threading.main_thread()
    ):
        return False
    return signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)


class Pool:
    """``threads - 1`` spinning workers; the launching thread is participant 0. A launch may
    take fewer participants (``run``'s ``threads``): the others sit it out."""

    def __init__(self, threads: int) -> None:
        self.native = _get_native()
        self.threads = threads
        self.spin = spin_ns(threads)
        # 64-byte aligned job record inside a slightly larger buffer
        slots = _job_slots(threads)
        self._buf = (ctypes.c_int64 * (slots + 8))()
        base = ctypes.addressof(self._buf)
        self.job = (base + 63) // 64 * 64
        self._slots = (ctypes.c_int64 * slots).from_address(self.job)
        # the launcher's wait in join yields only where a worker may share its CPU
        self._slots[_YIELD] = int(self.spin == 0)
        self._cond = threading.Condition()
        self._sleeping = 0
        self._closing = False
        self._placed_for = -1
        self._threads = [
            threading.Thread(target=self._carry, args=(i + 1,), name=f"xmux-{i}", daemon=True)
            for i in range(threads - 1)
        ]
        for t in self._threads:
            t.start()

    @property
    def workers(self) -> tuple[threading.Thread, ...]:
        """The worker threads: participant ``j + 1`` at index ``j`` (``runtime/counters.py``
        counts a launch on the threads that take part in it)."""
        return tuple(self._threads)

    def _generation(self) -> int:
        return (self._slots[_ANNOUNCE] >> 32) & 0xFFFFFFFF

    @property
    def sleeping(self) -> int:
        """Workers asleep now."""
        if self.native.serve is not None:
            return int(self._slots[_SLEEPERS])
        return self._sleeping

    def _carry(self, participant: int) -> None:
        seen = self._generation()
        if self.native.serve is not None:  # its whole life in native code, GIL released
            self.native.serve(self.job, seen, self.spin, participant)
            return
        while not self._closing:
            seen = self.native.worker(self.job, seen, self.spin, participant)
            with self._cond:
                self._sleeping += 1
                while self._generation() == seen and not self._closing:
                    self._cond.wait()
                self._sleeping -= 1

    def _place(self) -> None:
        """Pin each worker to a CPU other than the launching thread's.

        A worker woken by a futex tends to be queued on the waker's CPU (wake-affine), where
        it shares one core with the launching thread, which spins in ``join``, until the
        load balancer moves it many milliseconds later; a whole burst of launches then runs
        at single-thread speed."""
        if _sched_getcpu is None:
            return
        here = _sched_getcpu()
        if here == self._placed_for:
            return
        self._placed_for = here
        try:
            cpus = sorted(os.sched_getaffinity(0))
            others = [c for c in cpus if c != here] or cpus
            for j, t in enumerate(self._threads):
                if t.native_id is not None:
                    os.sched_setaffinity(t.native_id, {others[j % len(others)]})
        except OSError:
            pass  # restricted environments: the scheduler places the threads

    def run(self, entry: int, packed: int, scheds: np.ndarray, address: int | None = None,
            threads: int | None = None) -> bool:
        """Run ``entry(packed, &scheds[i])`` for every row of ``scheds`` (at ``address``, its
        data pointer, where the caller has it) on ``threads`` of the pool's threads (default
        all); False (nothing run) when another launch holds the pool."""
        n = len(scheds)
        if n > MAX_SLICES:
            raise ValueError(f"a launch has at most {MAX_SLICES} slices, got {n}")
        nth = self.threads if threads is None else threads
        if not 1 <= nth <= self.threads:
            raise ValueError(f"a launch on a pool of {self.threads} threads takes 1 to "
                             f"{self.threads} of them, got {nth}")
        rows = scheds.ctypes.data if address is None else address
        native = self.native
        if native.serve is not None or not self._sleeping:
            # one native call (workers asleep on the futex are woken in it; one falling asleep
            # on the Python condition meanwhile: see docs)
            ran = native.run(self.job, entry, packed, rows, n, nth)
            if ran == 2:  # woken workers may wake on the waker's CPU: pinned for the next
                self._place()
            return bool(ran)
        if not native.acquire(self.job):
            return False
        # a KeyboardInterrupt between publish and join would return while the workers still
        # run this launch's slices (and let the next publish overlap them): SIGINT waits on
        # this thread until the join (a worker thread takes it meanwhile, which cancels the
        # launch through runtime/interrupt.py as in the native path)
        masked = _block_sigint()
        try:
            native.publish(self.job, entry, packed, rows, n, nth)
            self._place()
            with self._cond:
                self._cond.notify_all()
            native.join(self.job, n)
        finally:
            native.release(self.job)
            if masked:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGINT)
        return True

    def close(self) -> None:
        """Stop the workers (they leave their spin loop and exit)."""
        self._closing = True
        if self.native.stop is not None:
            self.native.stop(self.job)
        else:
            self._slots[_STOP] = 1
        with self._cond:
            self._cond.notify_all()
        for t in self._threads:
            t.join(timeout=1.0)


_pools_lock = threading.Lock()
#: the process's one pool (under key 0), grown to the most threads a launch asked for: a pool
#: per thread count left every count's threads alive (th = 1..64: 2018 threads)
_pools: dict[int, Pool] = {}


def get_pool(threads: int) -> Pool:
    """The process-wide pool, with at least ``threads`` threads (the caller counts as one);
    run a launch on ``threads`` of them with ``Pool.run(..., threads=threads)``."""
    pool = _pools.get(0)  # every launch asks: no lock once the pool is large enough
    if pool is not None and pool.threads >= threads:
        return pool
    with _pools_lock:
        pool = _pools.get(0)
        if pool is None or pool.threads < threads:
            old, pool = pool, Pool(threads)
            _pools[0] = pool
            if old is not None:
                old.close()  # its workers leave; a launch still on it joins on its own thread
        return pool


def shutdown() -> None:
    """Stop every pool's workers (at exit: no thread may run JIT code while it is freed)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for p in pools:
        p.close()


def _forget_after_fork() -> None:
    # a forked child has the pools' memory but none of their threads (and a lock another
    # thread held at the fork stays held)
    global _pools_lock, _native_lock, _prepare_started
    _pools_lock = threading.Lock()
    _native_lock = threading.Lock()
    _prepare_started = False  # a compile thread of the parent's is not here
    _pools.clear()


atexit.register(shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
