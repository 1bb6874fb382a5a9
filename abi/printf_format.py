"""The ``gpu.printf`` record format, shared by the passes that lower ``gpu.printf`` and the
runtime that prints (``runtime/gpu_printf.py``, which documents the calling convention).

A format is registered under a stable id (``register_format``) when ``convert-gpu-to-mux``
runs, so that the interpreter, whose addresses are not real, can find it by id; every
argument travels as 64 bits; ``format_c`` formats as C's printf would.
"""

from __future__ import annotations

import re
import zlib

#: arguments a call carries (unused ones are zero)
MAX_ARGS = 8
#: format id -> (format string, per argument: "i" integer / "f" float)
FORMATS: dict[int, tuple[str, str]] = {}

#: one conversion specification of C's printf: flags/width/precision, length, conversion
SPEC = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(hh|h|ll|l|j|z|t|L)?([diouxXeEfFgGcs%])")


def register_format(fmt: str, kinds: str) -> int:
    """A stable id for (fmt, argument kinds)."""
    key = zlib.crc32(f"{kinds}\0{fmt}".encode()) & 0x7FFFFFFF
    FORMATS[key] = (fmt, kinds)
    return key


def format_c(fmt: str, values: list[int | float]) -> str:
    """``fmt % values`` as C's printf (length modifiers such as ``ll`` are dropped: Python's
    ``%`` has none)."""
    it = iter(values)

    def one(m: re.Match[str]) -> str:
        flags, _, conv = m.groups()
        if conv == "%":
            return "%"
        v = next(it, 0)
        if conv == "c":
            return chr(int(v) & 0xFF)
        if conv in "diouxX" and isinstance(v, float):
            v = int(v)
        if conv in "ouxX" and isinstance(v, int) and v < 0:
            v &= (1 << 64) - 1
        if conv == "u":
            conv = "d"
        return f"%{flags}{conv}" % v

    return SPEC.sub(one, fmt)
