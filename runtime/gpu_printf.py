"""``gpu.printf`` on the CPU: the runtime side of convert-gpu-to-mux's printf lowering.

Each ``gpu.printf "fmt", %a, %b`` becomes a call ``xmux_gpu_printf(id, record, n, a0 ..
a7)``: ``record`` is the address of a constant the pass puts in the module, the bytes
``<kinds>\0<format>\0`` (kinds: ``i`` integer / ``f`` float per argument), so compiled code
loaded from the disk cache prints too; ``id`` names the same format in ``FORMATS`` (filled
when the pass runs) for the interpreter, whose addresses are not real. Every argument
travels as 64 bits (integers sign-extended, floats as the bits of an f64). The callback
formats as C's printf would (length modifiers such as ``ll`` are dropped: Python's ``%``
has none) and writes to stdout, so the output interleaves in program order with
``printMemref*``'s. Work-items of a work-group print in work-item order. The format
registry and ``format_c`` are in ``abi/printf_format.py`` (the passes use them too).
"""

from __future__ import annotations

import ctypes
import struct
import sys

from xmux.abi.printf_format import FORMATS, MAX_ARGS, format_c

PrintfFn = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                            *([ctypes.c_int64] * MAX_ARGS))


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
