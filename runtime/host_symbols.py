"""The JIT symbols compiled host code calls: ``xmux_launch`` (a ``mux.launch``, lowered by
``convert-mux-launch``), ``printMemref*`` (``runner_utils``) and ``xmux_gpu_printf``.

Each resolves to one Python callback per process. ``xmux_launch`` routes to the host program
running now (``running``): ``xmux-run``'s ``HostProgram`` (``xmux/runner.py``), which sits
above the runtime and hands itself in rather than being imported here.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from collections.abc import Iterator
from typing import Protocol

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


class HostLaunches(Protocol):
    """What ``xmux_launch`` needs of the running host program."""

    #: failed launches so far (later launches and prints are skipped after one)
    errors: list[BaseException]

    def _launch(self, index: int, packed: int, dim: int, g, loc, off) -> None: ...


_current: HostLaunches | None = None
_installed: dict[str, object] = {}


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
    if _current is None:
        print("error: mux.launch outside xmux-run's host program", file=sys.stderr)
        return
    _current._launch(index, packed, dim, g, loc, off)


def _failed() -> bool:
    """A launch of the running host program failed: later launches and prints are skipped
    (their inputs are not what the program computed), the error is raised when @main
    returns."""
    return _current is not None and bool(_current.errors)


def install_runtime_symbols() -> None:
    """Resolve ``xmux_launch`` and ``printMemref*`` for JIT code (once per process)."""
    from xmux.runtime import jit

    if _installed:
        return
    _installed.update(
        {"xmux_launch": LaunchFn(_dispatch_launch), **runner_utils.printers(_failed)}
    )
    for sym, cb in _installed.items():
        jit.register_symbol(sym, ctypes.cast(cb, ctypes.c_void_p).value)
    from xmux.runtime import gpu_printf

    gpu_printf.install()  # gpu.printf in upstream gpu kernels (convert-gpu-to-mux)
