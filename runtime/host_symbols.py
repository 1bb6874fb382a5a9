"""The JIT symbols compiled host code calls: ``xmux_launch`` (a ``mux.launch``, lowered by
``convert-mux-launch``), ``printMemref*`` (``runner_utils``) and ``xmux_gpu_printf``.

Each resolves to one Python callback per process. ``xmux_launch`` routes to the host program
running now (``running``): ``xmux-run``'s ``HostProgram`` (``xmux/runner.py``), which sits
above the runtime and hands itself in rather than being imported here.
They are registered when the first code that calls one of them loads (``jit.provide``, named
by ``provide_runtime_symbols`` in ``CpuTarget.prepare``), so a kernel without host code never
loads the trampolines' module below.

Stopping host code cleanly: a failed ``memref.alloc`` (``lowering/to_llvm/memref.py``) calls
``xmux_alloc_failed`` and a failed check of the checking mode in host code
(``insert-bounds-checks``) calls ``xmux_host_check_failed``; neither may go on (the next
store would write through NULL, a wild index could loop for 2^32 iterations). A Python
exception cannot unwind JIT frames, so ``call_host`` runs the host function inside a small
native trampoline (``HOST_IR``: ``_setjmp``, then the call) and both symbols are native
functions of that module: they ask Python for the error's fate (``_stop``: recorded on the
running program, and the jump buffer returned) and ``_longjmp`` back to the trampoline, so
@main ends at the failure with only JIT frames skipped; ``call_host`` then returns False and
the caller raises the recorded error. Outside ``call_host``'s own frames (kernel code on the
pool, or on this thread inside a launch, where a Python frame sits between) no jump happens:
the error goes to ``runtime/checks.py``, the launch raises it, and the lowered code's return
path (or, for a check, the skipped access) runs instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import threading
from collections.abc import Iterator
from typing import Protocol

from xmux.abi.errors import XmuxError
from xmux.runtime import runner_utils

LaunchFn = ctypes.CFUNCTYPE(
    None,
    ctypes.c_int64,
    ctypes.c_void_p,
    ctypes.c_int64,
    ctypes.POINTER(ctypes.c_int64),
    ctypes.POINTER(ctypes.c_int64),
    ctypes.POINTER(ctypes.c_int64),
)


#: (message, bytes asked, overflowed, rank, size0, size1, size2) -> jump buffer or NULL
AllocFailedFn = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, *([ctypes.c_int64] * 6))
#: (message, rank, index0..2, size0..2) -> jump buffer or NULL
HostCheckFn = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, *([ctypes.c_int64] * 7))

#: The trampoline and the two stopping hooks (module docstring). ``_setjmp``/``_longjmp``:
#: no signal mask saved or restored (nothing here changes it).
HOST_IR = """
declare i32 @_setjmp(ptr) returns_twice
declare void @_longjmp(ptr, i32) noreturn
declare ptr @xmux_alloc_failed_py(ptr, i64, i64, i64, i64, i64, i64)
declare ptr @xmux_host_check_failed_py(ptr, i64, i64, i64, i64, i64, i64, i64)

define i32 @xmux_host_call(ptr %fn, ptr %buf) noinline {
entry:
  %r = call i32 @_setjmp(ptr %buf) returns_twice
  %first = icmp eq i32 %r, 0
  br i1 %first, label %run, label %stopped
run:
  call void %fn()
  ret i32 0
stopped:
  ret i32 1
}

define void @xmux_alloc_failed(ptr %m, i64 %n, i64 %o, i64 %r, i64 %s0, i64 %s1, i64 %s2) {
entry:
  %buf = call ptr @xmux_alloc_failed_py(ptr %m, i64 %n, i64 %o, i64 %r, i64 %s0, i64 %s1,
                                        i64 %s2)
  %jump = icmp ne ptr %buf, null
  br i1 %jump, label %stop, label %back
stop:
  call void @_longjmp(ptr %buf, i32 1)
  unreachable
back:
  ret void
}

define void @xmux_host_check_failed(ptr %m, i64 %r, i64 %i0, i64 %i1, i64 %i2, i64 %s0,
                                    i64 %s1, i64 %s2) {
entry:
  %buf = call ptr @xmux_host_check_failed_py(ptr %m, i64 %r, i64 %i0, i64 %i1, i64 %i2,
                                             i64 %s0, i64 %s1, i64 %s2)
  %jump = icmp ne ptr %buf, null
  br i1 %jump, label %stop, label %back
stop:
  call void @_longjmp(ptr %buf, i32 1)
  unreachable
back:
  ret void
}
"""

#: jmp_buf is 200 bytes on x86-64 glibc, 392 on AArch64: room for both, 16-byte aligned
_JMP_BUF_WORDS = 64


class AllocationError(XmuxError, MemoryError):
    """A ``memref.alloc`` of host or kernel code could not allocate its memory."""


class HostLaunches(Protocol):
    """What ``xmux_launch`` needs of the running host program."""

    #: failed launches so far (later launches and prints are skipped after one)
    errors: list[BaseException]

    def _launch(self, index: int, packed: int, dim: int, g, loc, off) -> None: ...


_current: HostLaunches | None = None
_installed: dict[str, object] = {}
#: the jump buffer of the innermost ``call_host`` and the thread it runs on
_jump: tuple[int, int] | None = None
#: launches in progress on the host thread: kernel code there has Python frames below it
_launch_depth = 0


@contextlib.contextmanager
def running(program: HostLaunches) -> Iterator[None]:
    """``xmux_launch`` runs ``program``'s launches while the block runs (its @main)."""
    global _current
    _current, previous = program, _current
    try:
        yield
    finally:
        _current = previous


def _dispatch_launch(index: int, packed: int, dim: int, g, loc, off) -> None:
    """``xmux_launch`` for every JIT module: routes to the host program now running."""
    global _launch_depth
    if _current is None:
        print("error: mux.launch outside xmux-run's host program", file=sys.stderr)
        return
    _launch_depth += 1
    try:
        _current._launch(index, packed, dim, g, loc, off)
    finally:
        _launch_depth -= 1


def call_host(program: HostLaunches, address: int) -> bool:
    """Run the void JIT function at ``address`` as ``program``'s host code; False when a
    failed alloc or host check stopped it (the error is the last of ``program.errors``)."""
    global _jump
    from xmux.runtime import jit

    reason = jit.cannot_run_here()
    if reason is not None:
        raise XmuxError(f"host code: {reason}")
    install_runtime_symbols()
    trampoline = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)(
        _installed["xmux_host_call"]  # type: ignore[arg-type]
    )
    buf = (ctypes.c_int64 * _JMP_BUF_WORDS)()
    previous = _jump
    _jump = (ctypes.addressof(buf), threading.get_ident())
    try:
        with running(program):
            return trampoline(address, ctypes.addressof(buf)) == 0
    finally:
        _jump = previous


def _stop(error: XmuxError) -> int | None:
    """Where the failing code goes: the jump buffer of ``call_host`` when it runs on that
    call's own frames (the error recorded on the program), else None (the error goes to
    ``runtime/checks.py``: the launch running this kernel code raises it)."""
    if (
        _jump is not None
        and _current is not None
        and _launch_depth == 0
        and threading.get_ident() == _jump[1]
    ):
        _current.errors.append(error)
        return _jump[0]
    from xmux.runtime import checks

    checks.record(str(error))
    return None


def _sizes(rank: int, s0: int, s1: int, s2: int) -> str:
    shown = [str(s) for s in (s0, s1, s2)[: min(rank, 3)]] + (["..."] if rank > 3 else [])
    return f"[{', '.join(shown)}]"


def _alloc_failed(msg: int, nbytes: int, overflowed: int, rank: int, s0: int, s1: int,
                  s2: int) -> int | None:
    text = ctypes.string_at(msg).decode(errors="replace")
    sizes = _sizes(rank, s0, s1, s2)
    if any(s < 0 for s in (s0, s1, s2)[: min(rank, 3)]):
        why = f"a negative size in {sizes}"
    elif overflowed:
        why = f"sizes {sizes}: the byte count exceeds 2^63-1"
    else:
        why = f"sizes {sizes}: malloc of {nbytes} bytes returned NULL (out of memory)"
    return _stop(AllocationError(f"{text}: cannot allocate memory, {why}"))


def _host_check_failed(msg: int, rank: int, i0: int, i1: int, i2: int, s0: int, s1: int,
                       s2: int) -> int | None:
    from xmux.runtime import checks

    text = ctypes.string_at(msg).decode(errors="replace")
    n = min(rank, 3)
    return _stop(checks.host_failure(text, (i0, i1, i2)[:n], (s0, s1, s2)[:n]))


def _failed() -> bool:
    """A launch of the running host program failed: later launches and prints are skipped
    (their inputs are not what the program computed), the error is raised when @main
    returns."""
    return _current is not None and bool(_current.errors)


_provided = False


def provide_runtime_symbols() -> None:
    """Have ``install_runtime_symbols`` (and ``gpu_printf``'s and the checking mode's
    callbacks) run when code that calls one of their symbols is about to be loaded
    (``jit.provide``): a warm start of a kernel without host code, prints or checks loads
    none of them (the host module's load, ~2 ms, and their imports)."""
    global _provided
    if _provided:
        return
    from xmux.runtime import jit

    _provided = True
    jit.provide(("xmux_launch", *runner_utils.printers(), "xmux_alloc_failed_py",
                 "xmux_host_check_failed_py", "xmux_alloc_failed", "xmux_host_check_failed"),
                install_runtime_symbols)
    jit.provide(("xmux_gpu_printf",), _install_gpu_printf)
    jit.provide(("xmux_check_failed",), _install_checks)


def _install_gpu_printf() -> None:
    from xmux.runtime import gpu_printf

    gpu_printf.install()


def _install_checks() -> None:
    from xmux.runtime import checks

    checks.install()


def install_runtime_symbols() -> None:
    """Resolve ``xmux_launch`` and ``printMemref*`` for JIT code (once per process).

    Run by a load that needs them (``jit.provide``: under the JIT's lock) or directly
    (``xmux-run``, ``call_host``): the callbacks are registered under that lock, the host
    module is built or loaded without holding it when the caller does not (a forked build
    of it then does not hold up another thread's loads)."""
    from xmux.runtime import jit

    with jit.compile_lock():
        if "xmux_host_call" in _installed:
            return
        if "xmux_launch" not in _installed:
            callbacks = {
                "xmux_launch": LaunchFn(_dispatch_launch),
                **runner_utils.printers(_failed),
                "xmux_alloc_failed_py": AllocFailedFn(_alloc_failed),
                "xmux_host_check_failed_py": HostCheckFn(_host_check_failed),
            }
            for sym, cb in callbacks.items():
                jit.register_symbol(sym, ctypes.cast(cb, ctypes.c_void_p).value)
            _installed.update(callbacks)
    # after the *_py callbacks exist; disk-cached: a warm start loads it instead of a
    # 50-100 ms build in a forked child (two threads here get the same module)
    native = jit.compile_ir(HOST_IR)
    with jit.compile_lock():
        if "xmux_host_call" in _installed:
            return
        for sym in ("xmux_alloc_failed", "xmux_host_check_failed"):
            jit.register_symbol(sym, native.address(sym))
        _installed["host module"] = native  # kept alive with its code
        _installed["xmux_host_call"] = native.address("xmux_host_call")
    from xmux.runtime import gpu_printf

    gpu_printf.install()  # gpu.printf in upstream gpu kernels (convert-gpu-to-mux)
