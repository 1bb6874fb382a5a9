"""LLVM work in a forked child: an LLVM abort cannot take the user's process down.

llvmlite's LLVM is built with assertions, and its loop vectorizer aborts on some IR for
some CPUs ("VPlan cost model and legacy cost model disagreed" on AVX2 hosts such as Zen 3
or Haswell, for a loop that AVX-512 hosts compile): an assertion is ``abort()``, which no
``try`` catches. ``run_forked(fn)`` runs ``fn`` (optimisation and code generation, which
return bytes or text) in a child made by ``fork`` — the child inherits the parsed state, so
nothing is set up again — and hands its result or exception back through a pipe; a child
killed by a signal raises ``LLVMAborted`` with the last lines LLVM printed. The caller
(``jit.compile_ir``) then retries with a safer setting. A child that uses more CPU time than
its budget (``ChildTooSlow``: LLVM's O3 is far from linear on some IR) is killed likewise, and
one that stops using CPU before it answers (``ChildStuck``) is built in the process.

A fork costs a few milliseconds against LLVM's O3 (~100 ms per kernel module); the child closes its
end of the pipe once its answer is written, and the parent returns then and reaps it on a later
call, not after its exit (its teardown: ~10 ms in a process of a few hundred MB).
``XMUX_LLVM_IN_PROCESS=1`` runs LLVM in the process instead (for debuggers and profilers).
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import os
import pickle
import signal
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import TypeVar

from xmux.abi.errors import XmuxError
from xmux.runtime import env

T = TypeVar("T")


class LLVMAborted(XmuxError):
    """LLVM killed the child that compiled (an assertion or a crash)."""

    def __init__(self, sig: int, stderr: str) -> None:
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        super().__init__(f"LLVM aborted ({name}): {_reason(stderr)}")
        self.signal = sig
        self.stderr = stderr


def _reason(stderr: str) -> str:
    """The assertion of LLVM's last line (``LoopVectorize.cpp:7264: VPlan cost model and
    legacy cost model disagreed``), else that line."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    if not lines:
        return "no message"
    last = lines[-1]
    if "Assertion" not in last:
        return last
    where = ""
    for part in last.split(": "):
        if ".cpp:" in part or ".h:" in part:
            where = os.path.basename(part.strip()) + ": "
            break
    said = last.rsplit('&& "', 1)
    what = said[1].split('"', 1)[0].strip() if len(said) == 2 else "assertion failed"
    return where + what


class ChildTooSlow(Exception):
    """The child used more CPU time than its budget without answering: LLVM's O3 grows far
    faster than linearly on some IR (full unrolling of nested constant-trip loops with
    constant data ran for minutes on a 320-iteration host-target OpenACC nest)."""

    def __init__(self, budget_s: float) -> None:
        super().__init__(f"LLVM used more than {budget_s:.0f} s of CPU time")
        self.budget_s = budget_s


class ChildStuck(Exception):
    """The child stopped using CPU before it answered: a lock another thread of this
    process held when it forked (inside LLVM, say) is held for ever in the child."""


#: seconds without CPU progress after which a child counts as stuck
STUCK_AFTER_S = 5.0


def _cpu_ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime
    except (OSError, ValueError, IndexError):
        return None


class CpuWatch:
    """A helper process's CPU time while this process waits for its answer (a forked child,
    the compile server): ``quiet()`` after each ``POLL_S`` without output raises
    ``ChildTooSlow`` past ``budget_s`` seconds of CPU time and ``ChildStuck`` when it has used
    none for ``STUCK_AFTER_S``. The first quiet poll only reads where it starts from (a /proc
    read costs ~1 ms here; most builds answer before), so the budget counts from there."""

    POLL_S = 0.5

    def __init__(self, pid: int, budget_s: float | None) -> None:
        self.pid, self.budget_s = pid, budget_s
        self.start: int | None = None
        self.last: int | None = None
        self.polled = False
        self.idle = 0.0
        self.ticks_per_s = os.sysconf("SC_CLK_TCK")

    def output(self) -> None:
        self.idle = 0.0

    def quiet(self) -> None:
        now = _cpu_ticks(self.pid)
        if not self.polled:
            self.polled = True
            self.start = self.last = now
            return
        if (self.budget_s is not None and now is not None and self.start is not None
                and now - self.start > self.budget_s * self.ticks_per_s):
            raise ChildTooSlow(self.budget_s)
        if now is None or now != self.last:
            self.last, self.idle = now, 0.0
        else:
            self.idle += self.POLL_S
            if self.idle >= STUCK_AFTER_S:
                raise ChildStuck(self.pid)


def quiet_remarks(stderr: str) -> str:
    """``stderr`` without LLVM's "loop not vectorized" remarks: xmux asks for the vector width
    of every work-item loop (``llvm.loop.vectorize.width``), and where LLVM cannot vectorize
    one (control flow it cannot if-convert, say) the loop stays scalar, correctly, and LLVM
    says so on stderr for each, which is noise to a user (``XMUX_LLVM_REMARKS=1`` keeps it)."""
    if not stderr or env.flag("XMUX_LLVM_REMARKS", False):
        return stderr
    return "".join(line for line in stderr.splitlines(keepends=True)
                   if not (line.startswith("remark: ") and ": loop not vectorized" in line))


def in_process() -> bool:
    return env.flag("XMUX_LLVM_IN_PROCESS", False) or not hasattr(os, "fork")


#: set in a forked child: LLVM options set there die with it (``in_forked_child``)
_IN_CHILD = False


def in_forked_child() -> bool:
    """Whether this is a child of ``run_forked`` (a global LLVM option may be set here)."""
    return _IN_CHILD


def run_forked(fn: Callable[[], T], budget_s: float | None = None) -> T:
    """``fn()`` in a forked child (see the module docstring); its stderr is replayed here.
    ``budget_s``: the child's CPU time limit (``ChildTooSlow``; in-process: none)."""
    if in_process():
        return fn()
    return run_forked_all([fn], [budget_s])[0]


def run_forked_all(fns: Sequence[Callable[[], T]],
                   budgets_s: Sequence[float | None]) -> list[T]:
    """Each ``fns[i]()`` in a forked child of its own, all at once (a module's parts built
    on as many cores: ``jit._build_split``), with ``run_forked``'s guarantees for each:
    the first child to abort, to run over its budget or to get stuck makes the call raise
    as ``run_forked`` would (the other children are killed), else their answers in order.
    In the process (``XMUX_LLVM_IN_PROCESS``): one after the other."""
    if in_process():
        return [fn() for fn in fns]
    children: list[_Child] = []
    try:
        for fn, budget in zip(fns, budgets_s, strict=True):
            children.append(_Child(fn, budget))
        _reap_exiting()
        _read_all(children)
        return [child.result() for child in children]
    finally:
        for child in children:
            child.close()


class _Child:
    """A forked child running ``fn``: its pipe, its stderr file, its watch."""

    def __init__(self, fn: Callable[[], object], budget_s: float | None) -> None:
        import tempfile  # here: a warm start builds nothing (~4 ms of imports)

        self.err = tempfile.TemporaryFile()
        self.chunks: list[bytes] = []
        self.done = False
        self.status: int | None = None
        read_end, write_end = os.pipe()
        sys.stderr.flush()
        with warnings.catch_warnings():
            # Python 3.12+ warns of fork() in a multi-threaded process (the pool's workers),
            # once per build under pytest or -W always: this child only runs LLVM on what it
            # was handed, and ChildStuck covers a lock held at the fork
            warnings.filterwarnings("ignore", r".*multi-threaded.*fork\(\)", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child: no Python-level cleanup, no return
            _child_main(fn, read_end, write_end, self.err.fileno())
        os.close(write_end)
        self.pid, self.fd = pid, read_end
        self.watch = CpuWatch(pid, budget_s)

    def kill(self) -> None:
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.status = -1

    def close(self) -> None:
        if not self.done:
            self.done = True
            os.close(self.fd)
        if self.status is None:  # an error elsewhere: this one's answer is not wanted
            self.kill()
        self.err.close()

    def result(self) -> object:
        answer = _whole_answer(b"".join(self.chunks))
        done, status = os.waitpid(self.pid, os.WNOHANG)
        if done == 0:
            if answer is None:  # no whole answer: how it ended tells why
                _, status = os.waitpid(self.pid, 0)
            else:  # a whole answer: the child is only exiting
                _exiting.append(self.pid)
                status = 0
        self.status = status
        self.err.seek(0)
        stderr = self.err.read().decode(errors="replace")
        if os.WIFSIGNALED(status):
            raise LLVMAborted(os.WTERMSIG(status), stderr)
        stderr = quiet_remarks(stderr)
        if stderr:
            sys.stderr.write(stderr)
        if answer is None:
            raise XmuxError(f"the LLVM child exited with status {os.WEXITSTATUS(status)}")
        ok, value = answer
        if not ok:
            raise value
        return value


def _child_main(fn: Callable[[], object], read_end: int, write_end: int, err: int) -> None:
    global _IN_CHILD
    _IN_CHILD = True
    # no garbage collection here: a collection walks (and writes to) every object inherited
    # from the parent, whose pages the child then copies; it lives one build and _exits
    gc.disable()
    status = 0
    try:
        os.close(read_end)
        os.dup2(err, 2)
        faulthandler.disable()  # an abort is reported by the parent, once
        try:
            payload = pickle.dumps((True, fn()))
        except BaseException as e:  # noqa: BLE001 - handed to the parent
            try:
                payload = pickle.dumps((False, e))
            except Exception:  # noqa: BLE001 - unpicklable: keep the message
                payload = pickle.dumps((False, XmuxError(f"{type(e).__name__}: {e}")))
        view = memoryview(payload)
        while view:
            view = view[os.write(write_end, view):]
        # the parent has its answer now, not after this process's teardown (its
        # page tables, the larger the parent the longer: ~10 ms at 600 MB)
        os.close(write_end)
    except BaseException:  # noqa: BLE001
        status = 1
    finally:
        os._exit(status)


def _read_all(children: list[_Child]) -> None:
    """Everything each child writes until it closes its pipe, each watched by its
    ``CpuWatch`` (``ChildStuck`` / ``ChildTooSlow`` kill every child and are raised)."""
    import select

    try:
        while True:
            live = {c.fd: c for c in children if not c.done}
            if not live:
                return
            ready, _, _ = select.select(list(live), [], [], CpuWatch.POLL_S)
            if not ready:
                for child in live.values():
                    child.watch.quiet()
                continue
            for fd in ready:
                child = live[fd]
                chunk = os.read(fd, 1 << 20)
                if chunk:
                    child.chunks.append(chunk)
                    child.watch.output()
                else:
                    child.done = True
                    os.close(fd)
    except (ChildStuck, ChildTooSlow):
        for child in children:
            child.kill()
        raise


def _whole_answer(data: bytes) -> tuple[bool, object] | None:
    """The child's (ok, value), or None where it wrote nothing whole."""
    if not data:
        return None
    try:
        answer = pickle.loads(data)
    except Exception:  # noqa: BLE001 - cut short: the child died while writing
        return None
    return answer if isinstance(answer, tuple) and len(answer) == 2 else None


#: children that answered and were still exiting: reaped by a later ``run_forked``
_exiting: list[int] = []


def _reap_exiting() -> None:
    for pid in list(_exiting):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped by somebody else (a wait() for any child)
            done = pid
        if done:
            # another thread's build may have reaped and removed it meanwhile
            with contextlib.suppress(ValueError):
                _exiting.remove(pid)


def _forget_exiting() -> None:
    _exiting.clear()  # the parent's children: not this process's to reap


os.register_at_fork(after_in_child=_forget_exiting)
