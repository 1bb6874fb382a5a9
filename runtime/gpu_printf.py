"""``gpu.printf`` on the CPU: the runtime side of convert-gpu-to-mux's printf lowering.

Each ``gpu.printf "fmt", %a, %b`` becomes a call ``xmux_gpu_printf(id, record, n, a0 ..
a7)``: ``record`` is the address of a constant the pass puts in the module, the bytes
``<kinds>\0<format>\0`` (kinds: ``i`` integer / ``f`` float per argument), so compiled code
loaded from the disk cache prints too; ``id`` names the same format in ``FORMATS`` (filled
when the pass runs) for the interpreter, whose addresses are not real. Every argument
travels as 64 bits (integers sign-extended, floats as the bits of an f64). The callback
formats as C's printf would (length modifiers such as ``ll`` are dropped: Python's ``%``
has none) and writes to stdout, so the output interleaves in program order with
``printMemref*``'s. Work-items of a work-group print in work-item order.
"""

from __future__ import annotations

import ctypes
import re
import struct
import sys
import zlib

MAX_ARGS = 8
#: format id -> (format string, per argument: "i" integer / "f" float)
FORMATS: dict[int, tuple[str, str]] = {}

_SPEC = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(hh|h|ll|l|j|z|t|L)?([diouxXeEfFgGcs%])")

PrintfFn = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                            *([ctypes.c_int64] * MAX_ARGS))


def register_format(fmt: str, kinds: str) -> int:
    """A stable id for (fmt, argument kinds)."""
    key = zlib.crc32(f"{kinds}\0{fmt}".encode()) & 0x7FFFFFFF
    FORMATS[key] = (fmt, kinds)
    return key


def format_c(fmt: str, values: list[int | float]) -> str:
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

    return _SPEC.sub(one, fmt)


def _jit_call(fid: int, record: int, n: int, *raw: int) -> None:
    """The JIT's callback: the format from the record in the module's memory."""
    kinds, fmt = ctypes.string_at(record).decode(), ctypes.string_at(
        record + len(ctypes.string_at(record)) + 1).decode()
    _print(fmt, kinds, n, raw)


def print_call(fid: int, record: int, n: int, *raw: int) -> None:
    """The interpreter's call: the format registered under ``fid``."""
    entry = FORMATS.get(fid)
    if entry is None:
        print(f"<gpu.printf: unknown format {fid}>", flush=True)
        return
    fmt, kinds = entry
    _print(fmt, kinds, n, raw)


def _print(fmt: str, kinds: str, n: int, raw: tuple[int, ...]) -> None:
    raw = tuple((r + (1 << 63)) % (1 << 64) - (1 << 63) for r in raw)  # as signed 64-bit
    values: list[int | float] = []
    for k, r in zip(kinds, raw[:n], strict=False):
        values.append(struct.unpack("<d", struct.pack("<q", r))[0] if k == "f" else r)
    sys.stdout.write(format_c(fmt, values))
    sys.stdout.flush()


_installed: list[object] = []


def install() -> None:
    """Resolve ``xmux_gpu_printf`` for JIT code (once per process)."""
    from xmux.runtime import jit

    if _installed:
        return
    cb = PrintfFn(_jit_call)
    _installed.append(cb)
    jit.register_symbol("xmux_gpu_printf", ctypes.cast(cb, ctypes.c_void_p).value)
