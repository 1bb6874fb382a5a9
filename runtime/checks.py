"""The checking mode's error channel: kernel code reports, the launch call raises.

Host code (xmux-run's @main and its callees) reports through ``xmux_host_check_failed``
instead (``runtime/host_symbols.py``): the error built by ``host_failure`` stops the host
function at the failing access.

``insert-bounds-checks`` makes kernel code call ``xmux_check_failed`` (registered here as a
JIT symbol) on an out-of-bounds access or a trapping division. The callback keeps the
first failure (later ones only counted: a kernel can fail once per work-item) and the
launching call raises it as a ``CheckError`` naming the kernel, op, indices and sizes,
work-item and group, once the launch has ended (``raise_pending``). Failures are kept per
process; one launch at a time reports them (a concurrent launch may see another's).
"""

from __future__ import annotations

import ctypes
import os
import threading
from dataclasses import dataclass

from xmux.abi.errors import LaunchError
from xmux.runtime import interrupt

CheckFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, *([ctypes.c_int64] * 13))


class CheckError(LaunchError):
    """A run-time check of the checking mode failed."""


@dataclass
class Failure:
    message: str
    values: tuple[int, ...]
    sizes: tuple[int, ...]
    local_id: tuple[int, int, int]
    group_id: tuple[int, int, int]
    more: int = 0
    #: a whole message (``record``): no work-item to name
    plain: bool = False

    def __str__(self) -> str:
        if self.plain:
            return self.message + (f" (and {self.more} more)" if self.more else "")
        if not self.values:  # an assertion (lower-kernel-asserts)
            return (
                f"{self.message}, at work-item {self.local_id} of work-group {self.group_id}"
                + (f" (and {self.more} more failed checks)" if self.more else "")
            )
        if "out of bounds" in self.message:
            what = f"indices {list(self.values)}, sizes {list(self.sizes)}"
        elif "per-work-item array" in self.message:
            what = f"slot {list(self.values)}"
        elif "divergent barrier" in self.message:  # transforms/wi_loops/divergence.py
            return (
                f"{self.message}: work-item (0, 0, 0) has {self.values[0]}, work-item "
                f"{self.local_id} has {self.values[1]}, in work-group {self.group_id}"
                + (f" (and {self.more} more failed checks)" if self.more else "")
            )
        else:
            what = f"operands {list(self.values)}"
        more = f" (and {self.more} more failed checks)" if self.more else ""
        return (
            f"{self.message}: {what}, at work-item {self.local_id} of work-group "
            f"{self.group_id}{more}"
        )


_lock = threading.Lock()
_first: Failure | None = None
_callback = None


def _failed(msg: int, rank: int, i0: int, i1: int, i2: int, s0: int, s1: int, s2: int,
            l0: int, l1: int, l2: int, g0: int, g1: int, g2: int) -> None:
    global _first
    with _lock:
        if _first is not None:
            _first.more += 1
            return
        # stop the launch between work-groups (one from the main thread: runtime/interrupt.py)
        interrupt.cancel_main_launch()
        text = ctypes.string_at(msg).decode(errors="replace")
        n = min(rank, 3)
        _first = Failure(text, (i0, i1, i2)[:n], (s0, s1, s2)[:n], (l0, l1, l2), (g0, g1, g2))


def record(message: str) -> None:
    """Keep ``message`` as a launch's failure (a failed ``memref.alloc`` in kernel code,
    ``runtime/host_symbols.py``), raised by ``raise_pending`` like a failed check."""
    global _first
    with _lock:
        if _first is not None:
            _first.more += 1
            return
        interrupt.cancel_main_launch()
        _first = Failure(message, (), (), (-1, -1, -1), (-1, -1, -1), plain=True)


def host_failure(message: str, values: tuple[int, ...], sizes: tuple[int, ...]) -> CheckError:
    """The error of a failed check in host code (``xmux_host_check_failed``): no work-item;
    it stops the host function (``runtime/host_symbols.py``)."""
    if "out of bounds" in message:
        what = f"indices {list(values)}, sizes {list(sizes)}"
    else:
        what = f"operands {list(values)}"
    return CheckError(f"{message}: {what}")


def _fresh_lock_after_fork() -> None:
    global _lock
    _lock = threading.Lock()  # a child forked during a report (runtime/forksafe.py)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_lock_after_fork)


def install() -> None:
    """Resolve ``xmux_check_failed`` for JIT code (once per process)."""
    global _callback
    if _callback is not None:
        return
    from xmux.runtime import jit

    _callback = CheckFn(_failed)
    jit.register_symbol("xmux_check_failed", ctypes.cast(_callback, ctypes.c_void_p).value)


def take() -> Failure | None:
    """The first failure since the last ``take`` (and forget it)."""
    global _first
    with _lock:
        out, _first = _first, None
    return out


def raise_pending() -> None:
    """Raise the failure kept since the last launch, if any (a plain read when none)."""
    if _first is None:
        return
    failure = take()
    if failure is not None:
        raise CheckError(str(failure))
