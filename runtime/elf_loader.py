"""Load the CPU target's relocatable objects into executable memory without LLVM.

The JIT's objects (``runtime/jit.py``) are x86-64 ELF relocatable files in LLVM's large code
model with static relocations: every reference to another section or to an external symbol is
an absolute 64-bit address (``R_X86_64_64``) patched in place. Loading one needs no linker:
copy the allocated sections into fresh pages, patch the relocations, make the code pages
executable and the constant pages read-only. Doing that here, with ``struct`` and ``mmap``,
lets a warm start (a disk-cache hit, a saved binary) run its kernels without importing
llvmlite's binding (20-24 ms of a 45 ms warm start on the 2-core VM: bench/RESULTS.md).

What is loaded: every ``SHF_ALLOC`` section with contents or zero-fill (``.ltext``, ``.lrodata``,
``.ldata``, ``.lbss``, their small-model twins), each group (code, constants, data) on its own
pages. ``.eh_frame`` is not loaded: nothing unwinds through kernels (no C++ exceptions; a
crash's backtrace comes from gdb, which a debug build gets through MCJIT).

What is refused (``Unsupported``, and the caller loads the object with MCJIT instead): another
machine or byte order, not ``ET_REL``, thread-local or constructor sections, common symbols,
debug information (gdb's JIT interface is MCJIT's), a relocation type not in ``_RELOCATIONS``
or a PC-relative one whose target is beyond ±2 GiB. So the loader only ever runs objects it
understands whole; everything else keeps the path it had.

Symbols: the defined global and weak symbols of all parts of a module (a module built in parts,
``runtime/split_ir.py``, is one image) are its exports and resolve the parts' references to
each other; an undefined one is asked of ``resolve`` (the JIT's registered symbols, then the C
libraries), and one it cannot find raises ``MissingSymbol``.
"""

from __future__ import annotations

import ctypes
import mmap
import struct
from collections.abc import Callable, Sequence
from typing import NamedTuple

__all__ = ["Image", "MissingSymbol", "Unsupported", "load"]

_ELF_MAGIC = b"\x7fELF"
_ELFCLASS64 = 2
_ELFDATA2LSB = 1
_ET_REL = 1
_EM_X86_64 = 62

_SHT_SYMTAB = 2
_SHT_RELA = 4
_SHT_NOBITS = 8
_SHT_REL = 9
_SHF_WRITE = 0x1
_SHF_ALLOC = 0x2
_SHF_EXECINSTR = 0x4
_SHF_TLS = 0x400

_SHN_UNDEF = 0
_SHN_ABS = 0xFFF1
_SHN_COMMON = 0xFFF2
_STB_LOCAL = 0
_STT_SECTION = 3
_STT_TLS = 6

_R_X86_64_NONE = 0
_R_X86_64_64 = 1
_R_X86_64_PC32 = 2
_R_X86_64_PLT32 = 4
_R_X86_64_32 = 10
_R_X86_64_32S = 11
_R_X86_64_PC64 = 24
#: relocation type -> (struct format of the patched field, PC-relative)
_RELOCATIONS = {
    _R_X86_64_64: ("<Q", False),
    _R_X86_64_PC32: ("<i", True),
    _R_X86_64_PLT32: ("<i", True),
    _R_X86_64_32: ("<I", False),
    _R_X86_64_32S: ("<i", False),
    _R_X86_64_PC64: ("<q", True),
}

#: sections whose presence means the object needs more than copying and patching
_REFUSED_PREFIXES = (".init_array", ".fini_array", ".ctors", ".dtors", ".preinit_array",
                     ".debug_", ".tdata", ".tbss", ".gcc_except_table")
_SKIPPED = (".eh_frame",)

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")

_PAGE = mmap.PAGESIZE
_PROT_READ = 0x1
_PROT_WRITE = 0x2
_PROT_EXEC = 0x4


class Unsupported(Exception):
    """An object this loader does not take whole; the message says what (MCJIT loads it)."""


class MissingSymbol(Exception):
    """An undefined symbol nobody defines; ``args[0]`` lists the names."""


class _Section(NamedTuple):
    name: str
    type: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    align: int
    entsize: int


class _Object:
    """One parsed relocatable object: its sections and symbols."""

    def __init__(self, data: bytes) -> None:
        if len(data) < _EHDR.size or data[:4] != _ELF_MAGIC:
            raise Unsupported("not an ELF object")
        ident, etype, machine, _, _, _, shoff, _, _, _, _, shentsize, shnum, shstrndx = (
            _EHDR.unpack_from(data))
        if ident[4] != _ELFCLASS64 or ident[5] != _ELFDATA2LSB:
            raise Unsupported("not a 64-bit little-endian ELF object")
        if etype != _ET_REL or machine != _EM_X86_64:
            raise Unsupported(f"ELF type {etype}, machine {machine}: not an x86-64 relocatable")
        if shentsize != _SHDR.size or shnum == 0 or shoff + shnum * shentsize > len(data):
            raise Unsupported("malformed section headers")
        raw = [_SHDR.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
        names = raw[shstrndx]
        self.data = data
        self.sections = [
            _Section(self._string(names[4], names[5], r[0]), r[1], r[2], r[4], r[5], r[6],
                     r[7], max(r[8], 1), r[9])
            for r in raw
        ]

    def _string(self, offset: int, size: int, at: int) -> str:
        end = self.data.index(b"\0", offset + at, offset + size)
        return self.data[offset + at:end].decode()

    def symbols(self) -> list[tuple[str, int, int, int, int]]:
        """(name, binding, type, section index, value) of every symbol, in table order."""
        out = []
        for sec in self.sections:
            if sec.type != _SHT_SYMTAB:
                continue
            strtab = self.sections[sec.link]
            for at in range(sec.offset, sec.offset + sec.size, _SYM.size):
                name_at, info, _, shndx, value, _ = _SYM.unpack_from(self.data, at)
                name = self._string(strtab.offset, strtab.size, name_at) if name_at else ""
                out.append((name, info >> 4, info & 0xF, shndx, value))
        return out


class Image:
    """A module's objects loaded into one mapping; keep it alive while its code may run."""

    def __init__(self, memory: mmap.mmap, base: int, exports: dict[str, int]) -> None:
        self._memory = memory  # the pages live as long as this object
        self.base = base
        self.size = len(memory)
        #: exported symbol -> address
        self.exports = exports

    def address(self, symbol: str) -> int:
        return self.exports.get(symbol, 0)


def _check(obj: _Object) -> None:
    for sec in obj.sections:
        if sec.name.startswith(_REFUSED_PREFIXES) or (sec.flags & _SHF_TLS):
            raise Unsupported(f"section {sec.name}")
        if sec.type == _SHT_REL:
            raise Unsupported(f"REL (not RELA) section {sec.name}")


def _loaded(obj: _Object) -> list[int]:
    """Indices of the sections that take memory."""
    return [i for i, s in enumerate(obj.sections)
            if s.flags & _SHF_ALLOC and s.size and not s.name.startswith(_SKIPPED)]


def _group(sec: _Section) -> int:
    """0 code, 1 constants, 2 writable data: each group gets its own pages."""
    if sec.flags & _SHF_EXECINSTR:
        return 0
    return 2 if sec.flags & _SHF_WRITE else 1


def load(objects: Sequence[bytes], resolve: Callable[[str], int | None]) -> Image:
    """Load ``objects`` (the parts of one module) as one image; raises ``Unsupported`` for an
    object it does not take whole and ``MissingSymbol`` for names neither the objects nor
    ``resolve`` define."""
    parsed = [_Object(o) for o in objects]
    for obj in parsed:
        _check(obj)
    # layout: group by group, each section at its alignment, each group page-aligned
    places: dict[tuple[int, int], int] = {}
    spans: list[tuple[int, int, int]] = []  # (group, start, end) offsets in the mapping
    size = 0
    for group in (0, 1, 2):
        start = size
        for n, obj in enumerate(parsed):
            for i in _loaded(obj):
                sec = obj.sections[i]
                if _group(sec) != group:
                    continue
                size = -(-size // sec.align) * sec.align
                places[n, i] = size
                size += sec.size
        if size > start:
            spans.append((group, start, size))
        size = -(-size // _PAGE) * _PAGE
    memory = mmap.mmap(-1, max(size, _PAGE), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                       prot=_PROT_READ | _PROT_WRITE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    for (n, i), at in places.items():
        sec = parsed[n].sections[i]
        if sec.type != _SHT_NOBITS:
            memory[at:at + sec.size] = parsed[n].data[sec.offset:sec.offset + sec.size]
    tables = [obj.symbols() for obj in parsed]
    exports = _exports(parsed, tables, places, base)
    missing: list[str] = []
    for n, obj in enumerate(parsed):
        values = _symbol_values(n, obj, tables[n], places, base, exports, resolve, missing)
        if missing:
            continue
        _relocate(n, obj, values, places, base, memory)
    if missing:
        raise MissingSymbol(sorted(set(missing)))
    libc = _libc()
    for group, start, end in spans:
        prot = (_PROT_READ | _PROT_EXEC, _PROT_READ, _PROT_READ | _PROT_WRITE)[group]
        length = -(-(end - start) // _PAGE) * _PAGE
        if libc.mprotect(ctypes.c_void_p(base + start), ctypes.c_size_t(length), prot) != 0:
            # a policy against executable anonymous memory (SELinux's execmem...)
            raise Unsupported(f"mprotect refused: errno {ctypes.get_errno()}")
    return Image(memory, base, exports)


def _exports(parsed: list[_Object], tables: list[list[tuple[str, int, int, int, int]]],
             places: dict[tuple[int, int], int], base: int) -> dict[str, int]:
    exports: dict[str, int] = {}
    for n, table in enumerate(tables):
        for name, binding, kind, shndx, value in table:
            if binding == _STB_LOCAL or not name or shndx in (_SHN_UNDEF, _SHN_COMMON):
                continue
            if kind == _STT_TLS:
                raise Unsupported(f"thread-local symbol {name}")
            if shndx == _SHN_ABS:
                exports.setdefault(name, value)
            elif (n, shndx) in places:
                exports.setdefault(name, base + places[n, shndx] + value)
    return exports


def _symbol_values(n: int, obj: _Object, table: list[tuple[str, int, int, int, int]],
                   places: dict[tuple[int, int], int], base: int, exports: dict[str, int],
                   resolve: Callable[[str], int | None], missing: list[str]) -> list[int | None]:
    """The address of each symbol of ``obj``'s table (None: one no relocation may use)."""
    values: list[int | None] = []
    for name, _binding, _kind, shndx, value in table:
        if shndx == _SHN_COMMON:
            raise Unsupported(f"common symbol {name}")
        if shndx == _SHN_UNDEF:
            if not name:
                values.append(None)
                continue
            found = exports.get(name)
            if found is None:
                found = resolve(name)
            if found is None:
                missing.append(name)
            values.append(found)
        elif shndx == _SHN_ABS:
            values.append(value)
        elif (n, shndx) in places:
            values.append(base + places[n, shndx] + value)
        else:  # a section not loaded (.eh_frame, an empty .text): a relocation using it
            values.append(None)  # is skipped with its section, or refused (_relocate)
    return values


def _relocate(n: int, obj: _Object, values: list[int | None],
              places: dict[tuple[int, int], int], base: int, memory: mmap.mmap) -> None:
    for sec in obj.sections:
        if sec.type != _SHT_RELA:
            continue
        target = places.get((n, sec.info))
        if target is None:
            if obj.sections[sec.info].flags & _SHF_ALLOC and not obj.sections[
                    sec.info].name.startswith(_SKIPPED) and obj.sections[sec.info].size:
                raise Unsupported(f"relocations of an unplaced section {sec.name}")
            continue
        for at in range(sec.offset, sec.offset + sec.size, _RELA.size):
            offset, info, addend = _RELA.unpack_from(obj.data, at)
            kind, sym = info & 0xFFFFFFFF, info >> 32
            if kind == _R_X86_64_NONE:
                continue
            how = _RELOCATIONS.get(kind)
            if how is None:
                raise Unsupported(f"relocation type {kind} in {sec.name}")
            fmt, relative = how
            s = values[sym] if sym < len(values) else None
            if s is None:
                raise Unsupported(f"relocation {kind} in {sec.name} against an unloaded symbol")
            value = s + addend - (base + target + offset if relative else 0)
            field = struct.Struct(fmt)
            try:
                field.pack_into(memory, target + offset, value)
            except struct.error as e:  # out of the field's range (a far PC-relative target)
                raise Unsupported(f"relocation {kind} in {sec.name} out of range") from e


_libc_handle: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL:
    global _libc_handle
    if _libc_handle is None:
        _libc_handle = ctypes.CDLL(None, use_errno=True)
    return _libc_handle
