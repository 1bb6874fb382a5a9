"""Ctrl-C during a launch: the work-groups not yet started are skipped, then the launch raises.

A launch is one ctypes call (``runtime/pool.py``'s native run, or the entry hook on the calling
thread) that releases the GIL; Python's SIGINT handler only sets a flag there, and the
``KeyboardInterrupt`` comes when the call returns, i.e. when the whole kernel has run. Here:

- ``interrupt_word``: one ``int64`` in this process. A small native SIGINT handler (the IR in
  ``HANDLER_IR``, compiled with the pool's native module) stores 1 into it and then calls the
  handler it replaced, Python's own, so Python still raises ``KeyboardInterrupt`` in the main
  thread as soon as the ctypes call returns. It is installed (``arm``) only over Python's C
  handler, i.e. while a Python-level handler is set; ``signal.signal`` replaces it again and
  ``arm`` re-installs it when asked after such a change.
- The entry hook (``transforms/add_entry_hook.py``) reads the word named by the schedule
  info's ``SCHED_CANCEL`` field before each work-group and skips the group when it is set, so
  every participant of a pooled launch runs out of slices within one work-group's time; the
  launch's ``join`` returns when every slice is accounted for and the pool stays usable.
- ``cancel_word()`` says which word a launch polls: the interrupt word (cleared first) for a
  launch from the main thread; otherwise a word that is never set (a launch from another
  thread runs to its end). Ctrl-C sets the word only while Python's default handler
  (``signal.default_int_handler``) is set, the only case where an interrupted launch is
  followed by a ``KeyboardInterrupt``: under a user handler, or with SIGINT ignored (a
  process started in the background by a shell without job control), the launch runs to its
  end, since skipping groups there would return incomplete outputs silently. A failed check
  of the checking mode sets it in every case (``cancel_main_launch``): that launch raises
  ``CheckError`` anyway, and stops within a work-group of the failure.

Linux only (``sigaction``); elsewhere launches are not cancellable.
"""

from __future__ import annotations

import _signal
import atexit
import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator

__all__ = ["HANDLER_IR", "WORDS", "arm", "cancel_word", "disarm", "interrupt_word", "never_word"]

#: set (to 1) by the SIGINT handler; polled by launches from the main thread
_interrupt = ctypes.c_int64(0)
#: never set: polled by every other launch
_never = ctypes.c_int64(0)
#: the handler ours replaced and calls (Python's C signal handler)
_prev = ctypes.c_void_p(0)

interrupt_word: int = ctypes.addressof(_interrupt)
never_word: int = ctypes.addressof(_never)
#: the words ``cancel_word`` returns
WORDS = (interrupt_word, never_word)

#: the JIT symbols ``HANDLER_IR`` refers to (registered before the pool's module is compiled)
SYMBOLS = {"xmux_interrupt_word": interrupt_word, "xmux_sigint_prev": ctypes.addressof(_prev)}

HANDLER_IR = """
@xmux_interrupt_word = external global i64
@xmux_sigint_prev = external global ptr

; SIGINT: flag the launches, then run the handler this one replaced (Python's: it sets the
; flag from which the main thread raises KeyboardInterrupt). Async-signal-safe: two atomic
; accesses and a call.
define void @xmux_on_sigint(i32 %sig, ptr %info, ptr %context) {
entry:
  store atomic i64 1, ptr @xmux_interrupt_word seq_cst, align 8
  %prev = load atomic ptr, ptr @xmux_sigint_prev monotonic, align 8
  %none = icmp eq ptr %prev, null
  br i1 %none, label %out, label %chain
chain:
  call void %prev(i32 %sig, ptr %info, ptr %context)
  br label %out
out:
  ret void
}
"""

_MAIN = threading.main_thread().ident
_lock = threading.Lock()
#: the Python-level SIGINT handler ``arm`` last looked at (re-armed when it changes)
_seen: object = None
#: our handler is installed, over Python's default one
_armed = False
_saved: ctypes.Structure | None = None
#: the address of the native handler ``arm`` installed (``disarm`` puts back only over it)
_ours: int | None = None


class _Sigaction(ctypes.Structure):
    """glibc's ``struct sigaction`` (x86-64 and AArch64 Linux)."""

    _fields_ = [
        ("handler", ctypes.c_void_p),
        ("mask", ctypes.c_ulong * (128 // ctypes.sizeof(ctypes.c_ulong))),
        ("flags", ctypes.c_int),
        ("restorer", ctypes.c_void_p),
    ]


def _libc_sigaction():
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).sigaction
    except (AttributeError, OSError):
        return None
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    return fn


_sigaction = _libc_sigaction()


def _current() -> _Sigaction | None:
    old = _Sigaction()
    if _sigaction is None or _sigaction(signal.SIGINT, None, ctypes.byref(old)) != 0:
        return None
    return old


def arm(handler_address: Callable[[], int]) -> None:
    """Install the native SIGINT handler over Python's, where Python's default handler is the
    one set now; called from the main thread, again whenever the Python-level handler changed.
    ``handler_address`` compiles it where needed (``pool.sigint_handler_address``: the pool's
    native module holds it, and the pool builds on this module)."""
    global _seen, _armed, _saved, _ours
    # every full launch asks: no lock unless the handler changed (``signal.getsignal`` costs
    # 1.5 µs, its C half 20 ns)
    handler = _signal.getsignal(signal.SIGINT)
    if handler is _seen or _sigaction is None or threading.get_ident() != _MAIN:
        return
    with _lock:
        _seen = handler
        _armed = False
        if handler is not signal.default_int_handler:
            return  # a user handler (or SIG_IGN / SIG_DFL): launches run to their end
        ours = handler_address()
        old = _current()
        if old is None or old.handler in (None, 0, 1):  # SIG_DFL / SIG_IGN at the C level
            return
        if old.handler != ours:
            _prev.value = old.handler
            _saved = old
            new = _Sigaction.from_buffer_copy(old)
            new.handler = ours
            if _sigaction(signal.SIGINT, ctypes.byref(new), None) != 0:
                return
        _ours = ours
        _armed = True


def disarm() -> None:
    """Put back the handler ``arm`` replaced (at exit: the JIT code is freed after this)."""
    global _armed, _seen
    with _lock:
        if _saved is not None and _sigaction is not None:
            now = _current()
            if now is not None and _ours is not None and now.handler == _ours:
                _sigaction(signal.SIGINT, ctypes.byref(_saved), None)
        _armed = False
        _seen = None


def cancel_word() -> int:
    """The address of the word a launch starting now polls before each work-group: the
    interrupt word, cleared, for a launch from the main thread (Ctrl-C sets it where Python's
    default SIGINT handler is the one set, a failed check always: ``cancel_main_launch``);
    else a word that is never set."""
    if _get_ident() == _MAIN:
        _interrupt.value = 0
        return interrupt_word
    return never_word


_get_ident = threading.get_ident


def cancel_main_launch() -> None:
    """Stop the launch from the main thread that is running (its remaining work-groups are
    skipped): a failed check of the checking mode (``runtime/checks.py``), which that launch
    then raises."""
    _interrupt.value = 1


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """SIGINT held back on the main thread until the block ends (then handled as usual).

    For compiles a launch starts (a local-size variant): they import xDSL lazily, and a
    ``KeyboardInterrupt`` raised inside a class body's ``__set_name__`` comes out as a
    ``RuntimeError`` and leaves the module half-imported for the rest of the process. Blocking
    the signal on this thread is not enough (the kernel hands a process's SIGINT to any
    thread that does not block it, a pool worker's, and Python raises in the main thread all
    the same), so the block runs under a Python handler that only records the signal; after
    it the handlers are put back exactly (the native one of ``arm`` included) and a recorded
    signal goes to the handler that was set."""
    prev = signal.getsignal(signal.SIGINT)
    if prev is None or threading.get_ident() != _MAIN:
        yield
        return
    native = _current()
    got: list[object] = []
    signal.signal(signal.SIGINT, lambda _sig, frame: got.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, prev)
        if native is not None and _sigaction is not None:
            _sigaction(signal.SIGINT, ctypes.byref(native), None)  # arm's handler, if it was
        if got:
            if callable(prev):
                prev(signal.SIGINT, got[0])
            elif prev == signal.SIG_DFL:
                os.kill(os.getpid(), signal.SIGINT)


def _after_fork_in_child() -> None:
    global _MAIN, _lock
    # the forking thread is the child's only thread; a lock held by another at the fork
    # would stay held (runtime/forksafe.py)
    _MAIN = threading.get_ident()
    _lock = threading.Lock()


atexit.register(disarm)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
