"""xmux's environment variables, read one way: a value the variable cannot have is an error
naming it (``XMUX_CACHE=no`` used to leave the cache on, ``XMUX_NUM_THREADS=0`` fell back to
the default in silence)."""

from __future__ import annotations

import os
import re

from xmux.abi.errors import XmuxError

_TRUE = ("1", "on", "yes", "true")
_FALSE = ("0", "off", "no", "false")


def flag(name: str, default: bool) -> bool:
    """A boolean variable: 1/on/yes/true or 0/off/no/false (any case); unset or empty is
    ``default``."""
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise XmuxError(f"{name} must be one of 1/on/yes/true or 0/off/no/false, got {raw!r}")


def positive_int(name: str, maximum: int) -> int | None:
    """An integer variable from 1 to ``maximum``; None when unset or empty."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= maximum:
        raise XmuxError(f"{name} must be an integer from 1 to {maximum}, got {raw!r}")
    return value


def cpu_model(name: str) -> str | None:
    """An LLVM x86 CPU model name (``znver3``, ``haswell``, ``x86-64-v3``...); None when unset
    or empty."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    if not re.fullmatch(r"[a-z][a-z0-9_.-]*", raw):
        raise XmuxError(f"{name} must be an LLVM CPU model name such as znver3, got {raw!r}")
    return raw
