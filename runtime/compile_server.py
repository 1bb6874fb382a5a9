"""A persistent process for the JIT's LLVM work: no fork of a large process per compile.

``runtime/contained.py`` forks the process for each LLVM build, so that an LLVM abort cannot
take it down. In a process of a few hundred MB the fork costs 15-20 ms a compile: the fork
itself and, above all, the child's copy-on-write faults on the inherited heap LLVM allocates
from (~2000 faults on this VM for a conv kernel's specialization; 58 ms forked against 41 ms in
the process, first launch with new values). A compile server is one more Python process,
started from scratch (``python -c``, the parent's ``sys.path``): it imports llvmlite and
``runtime/jit.py`` once and then serves builds with a warm heap, one at a time, over pipes.

What it keeps: every guarantee of the forked child. An LLVM abort kills the server, not the
user's process: the caller gets ``LLVMAborted`` (and retries in a forked child, as before);
a build over its CPU budget gets the server killed and ``ChildTooSlow``; a server that stops
answering, exits or cannot start is replaced, and meanwhile builds fork as before. Its stderr
(LLVM's remarks) is replayed after each build, as a child's is. It runs in a session of its
own (a Ctrl-C at the terminal is the user's process's), and exits when the user's process
closes its end (at exit, or killed).

When: from a process's third build on, once ``START_AFTER_S`` have passed since its first (a
short command, such as ``xmux-run`` on a file, builds the pool's code and a kernel or two,
perhaps tuned, in well under a second and exits: a server would only cost it the start-up);
builds use it once it has said it is ready (until then they fork). It is started by a build,
never ahead of one on a timer: its start-up (an interpreter importing llvmlite, ~0.3 s of a
CPU) would run beside the first launches of a process that compiled its program and builds
nothing more. Not with
``XMUX_LLVM_IN_PROCESS=1``, nor with ``XMUX_COMPILE_SERVER=0``.

Background builds (``runtime/tiered.py``: the variants and specializations no launch waits for)
have a server of their own (``call(..., background=True)``), started at their first build and
waited for rather than forked around: a fork of the user's process holds its GIL for the page
tables' copy and makes its pages copy-on-write, which the launches running meanwhile would pay
for. It runs in Linux's idle scheduling class (``SCHED_IDLE``; elsewhere, or where the class is
refused, at nice ``BACKGROUND_NICE``): it gets a CPU only when nothing else of the user's wants
it, and a launch's worker waking on that CPU preempts it at once (at a nice value, the worker
may wait for the end of the server's time slice). The price: on a host whose CPUs are all busy,
the server gets almost none, and a background build, or a launch or ``prog.warm`` that waits
for one, takes that long; ``XMUX_BACKGROUND_IDLE=0`` runs it at nice ``BACKGROUND_NICE``
instead (the test suite does: its workers and lit fill the CPUs). It also lowers the variants
(xDSL, ``targets/cpu.py:lower_variant``), so that neither the CPU time nor the GIL of that work
is the user's process's. Its LLVM work takes what CPU the launches leave (on a 2-core host a
launch on both cores is not slowed by it), while a foreground build keeps a server at the
user's priority.

Protocol: frames of an 8-byte little-endian length and a pickle. The server says ``_HELLO``
once it is ready; a request is ``(function, args)``, ``function`` the
``module:name`` of an importable function (``jit.build_object``); the answer
``(ok, value_or_exception, retiring)``, ``retiring`` when the build set a global LLVM option
(``codegen_limits.limit_huge_codegen``) and the server exits after answering.
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from xmux.runtime import env
from xmux.runtime.contained import (
    ChildStuck,
    ChildTooSlow,
    CpuWatch,
    LLVMAborted,
    in_process,
    quiet_remarks,
)

#: builds a process makes by forking before it starts a server, and the seconds since its
#: first build it waits at least
START_AFTER = 2
START_AFTER_S = 1.0

_HEADER = struct.Struct("<Q")
#: what a server writes first, when it is ready (short: one write, one read)
_HELLO = b"xmux compile server 1\n"
#: the nice value of the background builds' server where the idle class is not available,
#: and how long a background build waits
#: for that server to say it is ready (it forks after that)
BACKGROUND_NICE = 10
READY_WAIT_S = 30.0


# -- the server --------------------------------------------------------------------------

_retiring = False


def in_server() -> bool:
    """Whether this process is a compile server (a global LLVM option set here persists)."""
    return _serving


def retire_after_reply() -> None:
    """The build set a global LLVM option: this server exits once it has answered."""
    global _retiring
    _retiring = True


_serving = False


def _write_frame(fd: int, obj: object) -> None:
    payload = pickle.dumps(obj)
    view = memoryview(_HEADER.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, n: int) -> bytes | None:
    chunks, left = [], n
    while left:
        chunk = os.read(fd, left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _resolve(path: str) -> Any:  # noqa: ANN401 - an importable function
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def serve(warm_up: str | None = None) -> None:
    """The server's loop (``python -c``): requests from fd 0, answers on the original fd 1;
    fd 1 then points at stderr, so that nothing printed corrupts the frames. ``warm_up``
    (``module:name``, the caller's: ``jit._target``) runs before it says it is ready, so that a
    build starts at once (LLVM set up)."""
    global _serving
    _serving = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.dup(1)
    os.dup2(2, 1)
    if warm_up:
        _resolve(warm_up)()
    os.write(out, _HELLO)
    while True:
        head = _read_exact(0, _HEADER.size)
        if head is None:
            return  # the user's process closed its end
        body = _read_exact(0, _HEADER.unpack(head)[0])
        if body is None:
            return
        try:
            path, args = pickle.loads(body)
            answer: tuple[bool, object] = (True, _resolve(path)(*args))
        except BaseException as e:  # noqa: BLE001 - handed to the user's process
            answer = (False, e)
        try:
            _write_frame(out, (*answer, _retiring))
        except (pickle.PicklingError, TypeError, AttributeError):
            _write_frame(out, (False, RuntimeError(f"{answer[1]!r}"), _retiring))
        if _retiring:
            return


# -- the user's side ---------------------------------------------------------------------


class _Gone(Exception):
    """The server is gone or unusable: this build forks instead."""


class _Server:
    """A running server: its process, pipes and stderr file."""

    def __init__(self, idle: bool = False, warm_up: str | None = None) -> None:
        # imported here: a warm start from the disk cache never starts a server (~2.5 ms)
        import fcntl
        import subprocess
        import tempfile

        self.err = tempfile.TemporaryFile()
        flags = fcntl.fcntl(self.err.fileno(), fcntl.F_GETFL)
        fcntl.fcntl(self.err.fileno(), fcntl.F_SETFL, flags | os.O_APPEND)
        lower = ""
        if idle and env.flag("XMUX_BACKGROUND_IDLE", True):
            lower = ("import os\ntry: os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
                     f"except (AttributeError, OSError): os.nice({BACKGROUND_NICE})\n")
        elif idle:
            lower = f"import os; os.nice({BACKGROUND_NICE}); "
        # -S, then site.main() once the priority is lowered: the site start-up (the .pth
        # files of an environment: ~10-20 ms, more on a loaded host) runs in the idle class
        # too, not beside the launches that go on meanwhile
        code = (f"{lower}import site; site.main(); import sys; "
                f"sys.path[:0] = {[p for p in sys.path if p]!r}; "
                f"from xmux.runtime.compile_server import serve; serve({warm_up or _warm_up!r})")
        self.proc = subprocess.Popen(
            [sys.executable, "-S", "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.err, start_new_session=True, close_fds=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.wfd, self.rfd = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self.ready = False
        #: closed (``close``): its slot is free for a new one
        self.closed = False

    def wait_ready(self, timeout_s: float) -> bool:
        """``poll_ready``, waiting up to ``timeout_s`` for the hello."""
        deadline = time.monotonic() + timeout_s
        while not self.poll_ready():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            select.select([self.rfd], [], [], min(left, 0.05))
        return True

    def poll_ready(self) -> bool:
        """Whether it has said it is ready (without waiting); ``_Gone`` when it never will."""
        if self.ready:
            return True
        readable, _, _ = select.select([self.rfd], [], [], 0)
        if not readable:
            if self.proc.poll() is not None:
                raise _Gone
            return False
        # the first bytes on the pipe are ours only if nothing at the interpreter's start-up
        # (a sitecustomize, say) printed before serve() moved fd 1 away
        hello = os.read(self.rfd, len(_HELLO))
        if hello != _HELLO:
            raise _Gone
        self.ready = True
        return True

    def _frame(self, budget_s: float | None) -> object:
        """The next frame, the server watched as a forked child is (``CpuWatch``:
        ``ChildTooSlow``, ``ChildStuck``), ``None`` when it closes its end."""
        data = b""
        need = _HEADER.size
        watch = CpuWatch(self.proc.pid, budget_s)
        while True:
            if len(data) >= need:
                if need == _HEADER.size:
                    need += _HEADER.unpack(data[: _HEADER.size])[0]
                    continue
                return pickle.loads(data[_HEADER.size:need])
            readable, _, _ = select.select([self.rfd], [], [], watch.POLL_S)
            if not readable:
                watch.quiet()
                continue
            chunk = os.read(self.rfd, max(need - len(data), 1 << 16))
            if not chunk:
                return None
            data += chunk
            watch.output()

    def call(self, path: str, args: tuple, budget_s: float | None) -> tuple[bool, object]:
        """(ok, the value or the exception ``path(*args)`` raised)."""
        os.ftruncate(self.err.fileno(), 0)
        try:
            _write_frame(self.wfd, (path, args))
        except OSError as e:  # it died between builds (EPIPE)
            raise _Gone from e
        answer = self._frame(budget_s)
        stderr = self._stderr()
        if answer is None:  # it died building
            status = self.proc.wait()
            if status < 0:
                raise LLVMAborted(-status, stderr)
            raise _Gone
        ok, value, retiring = answer  # type: ignore[misc]
        if stderr:
            sys.stderr.write(stderr)
        if retiring:
            raise _Retired(ok, value)
        return ok, value

    def _stderr(self) -> str:
        fd = self.err.fileno()
        size = os.fstat(fd).st_size
        text = os.pread(fd, size, 0).decode(errors="replace") if size else ""
        return quiet_remarks(text)

    def close(self, kill: bool = False) -> None:
        """Close its pipes and wait for its exit; ``kill``, or a server still starting (its
        warm-up would run to the end before it sees the pipe closed), is killed first."""
        if not kill:
            try:
                kill = not self.poll_ready()
            except (_Gone, OSError, ValueError):
                pass  # exited already, or its pipe closed
        self.closed = True
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()  # type: ignore[union-attr]
            except OSError:
                pass
        if kill:
            try:
                self.proc.kill()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=5)
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired
            self.proc.kill()
            self.proc.wait()
        self.err.close()


class _Retired(Exception):
    """The server answered and exits (a global LLVM option was set for that build)."""

    def __init__(self, ok: bool, value: object) -> None:
        super().__init__()
        self.ok, self.value = ok, value


_lock = threading.Lock()
_server: _Server | None = None
_builds = 0
_first_build: float | None = None  # time.monotonic() of this process's first build
#: servers that were gone before a build of theirs answered, in a row; at ``MAX_FAILURES``
#: this process forks its builds for good (a Python that cannot import xmux, say)
_failures = 0
MAX_FAILURES = 3
#: what a new server runs before it says it is ready (``call``'s ``warm_up``)
_warm_up: str | None = None


def enabled() -> bool:
    return env.flag("XMUX_COMPILE_SERVER", True) and not in_process() and bool(sys.executable)


def call(path: str, args: tuple, budget_s: float | None,
         warm_up: str | None = None, background: bool = False) -> tuple[bool, object]:
    """``(True, path(*args))`` built in the server; ``(False, None)`` where no server is ready
    (the caller forks, as before: the first builds of a process, a server starting, dead or
    not wanted). Raises what the function raised, ``LLVMAborted`` when the server died
    building and ``ChildTooSlow`` when it ran over ``budget_s`` of CPU time (it is killed:
    the next build starts another). ``warm_up``: ``module:name`` of a function a server
    started from now on runs before it is ready (``serve``). ``background``: on the
    background builds' server (module docstring), started now and waited for."""
    global _server, _builds, _failures, _first_build, _warm_up
    if not enabled():
        return False, None
    if background:
        return _call_background(path, args, budget_s, warm_up)
    with _lock:
        if warm_up is not None:
            _warm_up = warm_up
        _builds += 1
        now = time.monotonic()
        if _first_build is None:
            _first_build = now
        if _server is None:
            if _builds <= START_AFTER or _failures >= MAX_FAILURES:
                return False, None
            if now - _first_build < START_AFTER_S:
                return False, None
            if not _start_locked():
                return False, None
        server = _server
        assert server is not None

        def settle(outcome: str) -> None:
            global _server, _failures
            _failures = 0 if outcome == "ok" else _failures + (outcome == "failed")
            if outcome != "ok":
                _server = None

        return _ask(server, server.poll_ready, path, args, budget_s, settle)


_bg_lock = threading.Lock()
_bg_server: _Server | None = None
_bg_failures = 0


def _call_background(path: str, args: tuple, budget_s: float | None,
                     warm_up: str | None) -> tuple[bool, object]:
    """``call`` on the background server (started here if none runs, then waited for)."""
    global _bg_server, _bg_failures, _warm_up
    with _bg_lock:
        if warm_up is not None:
            _warm_up = warm_up
        if _bg_server is None:
            if _bg_failures >= MAX_FAILURES:
                return False, None
            try:
                _bg_server = _Server(idle=True)
            except OSError:
                _bg_failures += 1
                return False, None
        server = _bg_server

        def settle(outcome: str) -> None:
            global _bg_server, _bg_failures
            _bg_failures = 0 if outcome == "ok" else _bg_failures + (outcome == "failed")
            if outcome != "ok":
                _bg_server = None

        def ready() -> bool:
            if not server.wait_ready(READY_WAIT_S):
                raise _Gone
            return True

        return _ask(server, ready, path, args, budget_s, settle)


def prestart(warm_up: str) -> None:
    """Start the background builds' server now if none runs, ``warm_up`` run before it says
    it is ready: a program that will soon want a variant has the server's start-up and xDSL's
    first-use costs (imports, caches: the naive matmul's first variant lowering took 1.5 s in a
    fresh process on the 2-core VM, later ones 0.3 s) paid by then, at idle priority."""
    global _bg_server, _bg_failures
    if not enabled():
        return
    with _bg_lock:
        if _bg_server is not None or _bg_failures >= MAX_FAILURES:
            return
        try:
            _bg_server = _Server(idle=True, warm_up=warm_up)
        except OSError:
            _bg_failures += 1


def _ask(server: _Server, ready: Callable[[], bool], path: str, args: tuple,
         budget_s: float | None, settle: Callable[[str], None]) -> tuple[bool, object]:
    """``server.call`` (once ``ready()``) with the rules both servers follow; the caller holds
    its lock. ``settle`` updates the caller's slot: "ok" (it answered), "dropped" (it is
    closed: retired after the build, died building, interrupted) or "failed" (it was gone:
    counts toward ``MAX_FAILURES``). ``(False, None)``: the caller forks this build; a
    build's own exception is raised."""
    try:
        if not ready():
            return False, None
        ok, value = server.call(path, args, budget_s)
        settle("ok")
    except _Retired as r:
        settle("dropped")
        server.close()
        if not r.ok:
            raise r.value from None  # type: ignore[misc]
        return True, r.value
    except (LLVMAborted, ChildTooSlow):
        settle("dropped")
        server.close(kill=True)
        raise
    except (_Gone, ChildStuck, OSError, EOFError, pickle.UnpicklingError, ValueError,
            struct.error):
        # gone, stuck, or answering what is not a frame of ours: this build forks
        settle("failed")
        server.close(kill=True)
        return False, None
    except BaseException:
        # a Ctrl-C while it builds (its answer would come to the next request): this
        # server is done
        settle("dropped")
        server.close(kill=True)
        raise
    if not ok:
        raise value  # type: ignore[misc]
    return True, value


def _start_locked() -> bool:
    """Start a server (``_lock`` held); False when it cannot be."""
    global _server, _failures
    if _server is None and _failures < MAX_FAILURES:
        try:
            _server = _Server()
        except OSError:
            _failures += 1
    return _server is not None


def shutdown() -> None:
    """Close the server (at exit: it would exit on its own once this process's end closes)."""
    global _server, _bg_server
    with _lock:
        server, _server = _server, None
    with _bg_lock:
        bg, _bg_server = _bg_server, None
    for s in (server, bg):
        if s is not None:
            s.close()


def _forget_after_fork() -> None:
    # the child's copies of the pipes: closed, so the parent's server still sees the parent's
    # exit; the child starts its own if it builds enough
    global _server, _lock, _builds, _first_build, _bg_server, _bg_lock
    server, _server = _server, None
    bg, _bg_server = _bg_server, None
    _lock = threading.Lock()
    _bg_lock = threading.Lock()
    _builds, _first_build = 0, None
    for s in (server, bg):
        if s is None:
            continue
        s.proc.returncode = 0  # not this process's child: nothing to wait for or warn of
        for f in (s.proc.stdin, s.proc.stdout):
            try:
                f.close()  # type: ignore[union-attr]
            except OSError:
                pass


atexit.register(shutdown)
os.register_at_fork(after_in_child=_forget_after_fork)
