"""perf's map of JIT-compiled code: ``/tmp/perf-PID.map``, one ``START SIZE name`` line (hex)
per function, which ``perf report`` reads to name samples in anonymous executable memory.

``XMUX_PERF_MAP=1`` turns it on (off by default: a file per process in /tmp is not something
to leave behind unasked). Each module loaded by ``runtime/jit.py`` adds its functions: the
kernels, their ``.mux-kernel-wrapper`` and ``.mux-entry-hook`` functions, host functions,
internal helpers included. Names and sizes come from the object's ELF symbol table; a
section's load address from an exported symbol in it (MCJIT gives addresses of exported
symbols only), so functions in a section without one are left out (none in xmux's objects:
the entry hook is exported and shares the kernel's section).
"""

from __future__ import annotations

import os
import struct
import threading
from collections.abc import Callable

from xmux.runtime import env

__all__ = ["enabled", "function_symbols", "path", "record"]

_lock = threading.Lock()

_SHT_SYMTAB = 2
_STT_FUNC = 2


def enabled() -> bool:
    return env.flag("XMUX_PERF_MAP", False)


def path() -> str:
    return f"/tmp/perf-{os.getpid()}.map"


def function_symbols(obj: bytes) -> list[tuple[str, int, int, int]]:
    """(name, section index, offset in the section, size) of each function an ELF64
    little-endian relocatable object defines; [] for anything else."""
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return []
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize)
                for i in range(shnum)]
    found = []
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != _SHT_SYMTAB or not entsize:
            continue
        strtab = sections[link]
        str_off, str_size = strtab[4], strtab[5]
        names = obj[str_off:str_off + str_size]
        for at in range(offset, offset + size, entsize):
            st_name, st_info, _other, shndx, value, st_size = struct.unpack_from(
                "<IBBHQQ", obj, at)
            if st_info & 0xF != _STT_FUNC or shndx == 0 or shndx >= 0xFF00:
                continue
            end = names.find(b"\0", st_name)
            found.append((names[st_name:end].decode(errors="replace"), shndx, value, st_size))
    return found


def record(obj: bytes, exports: list[str], address: Callable[[str], int]) -> None:
    """Append the functions of ``obj`` (loaded; ``address(name)`` of an exported symbol)
    to this process's map."""
    symbols = function_symbols(obj)
    bases: dict[int, int] = {}
    exported = set(exports)
    for name, shndx, offset, _size in symbols:
        if name in exported and shndx not in bases:
            addr = address(name)
            if addr:
                bases[shndx] = addr - offset
    lines = [f"{bases[shndx] + offset:x} {size:x} {name}\n"
             for name, shndx, offset, size in symbols if shndx in bases and size]
    if not lines:
        return
    with _lock, open(path(), "a") as f:
        f.writelines(lines)
