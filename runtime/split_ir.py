"""Split LLVM IR text into independent parts that LLVM builds on several cores at once.

A module of many kernels spends its LLVM time per function (O3 and code generation of
``bench/compile_scaling.py``'s ``many`` 4000, 80 kernels: 9 s + 4 s on one core), and nothing
in LLVM's pipeline as llvmlite runs it uses a second core. ``split(ir_text, parts)`` cuts the
module along its reference graph: a *unit* is a set of definitions (functions, global
variables) closed under references between them (a kernel, its wrapper, its entry hook, the
helpers and globals only they use), so that no part refers to a definition of another part
and each part is a whole module: every part has the module's declarations, types, attribute
groups and metadata, and the definitions of its units. The parts' objects are loaded into one
engine together (``jit.JitModule``) and define what the module did, each symbol once.

What it refuses (``None``: the module is built whole, as before): text it does not read as
``llvmlite.ir`` prints a module (a top-level line of another kind), debug info (the compile
unit would be in every part), metadata that names a global (``!{ptr @f}``), module-level
inline assembly, and a module whose units do not fill two parts. A part is whole, so an
error in it is the error the whole module would have: LLVM verifies each part as it would
the module.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence

from xmux.abi.errors import XmuxError

__all__ = ["pack_objects", "split", "unpack_objects"]

#: an ``@name`` or ``@"quoted name"`` reference (LLVM IR global identifiers)
_GLOBAL_REF = re.compile(r'@(?:"((?:[^"\\]|\\.)*)"|([-a-zA-Z$._][-a-zA-Z$._0-9]*|\d+))')
#: the first tokens of the top-level lines that every part keeps as they are
_SHARED = ("declare ", "attributes ", "target ", "source_filename", "; ", "%", "!", "$")


def _name(match: re.Match[str]) -> str:
    return match.group(1) if match.group(1) is not None else match.group(2)


class _Definition:
    __slots__ = ("lines", "name", "refs")

    def __init__(self, name: str, lines: list[str]) -> None:
        self.name = name
        self.lines = lines
        self.refs: set[str] = set()


def _read(ir_text: str) -> tuple[list[str | _Definition], dict[str, _Definition]] | None:
    """The module as a list of shared lines and definitions, in order, or None."""
    items: list[str | _Definition] = []
    defined: dict[str, _Definition] = {}
    lines = ir_text.split("\n")
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if line.startswith("define "):
            m = _GLOBAL_REF.search(line)
            if m is None:
                return None
            start = i
            while i < n and lines[i] != "}":
                i += 1
            if i == n:
                return None
            d = _Definition(_name(m), lines[start:i + 1])
            i += 1
        elif line.startswith("@"):
            m = _GLOBAL_REF.match(line)
            if m is None:
                return None
            d = _Definition(_name(m), [line])
            i += 1
        else:
            if line.startswith("!") and "@" in line:  # metadata naming a global
                return None
            if line.strip() and not line.startswith(_SHARED):
                return None
            items.append(line)
            i += 1
            continue
        if d.name in defined:
            return None
        defined[d.name] = d
        items.append(d)
    return items, defined


def _units(defined: dict[str, _Definition]) -> list[list[str]]:
    """The definitions grouped by the reference graph's connected components."""
    parent = {name: name for name in defined}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for d in defined.values():
        for line in d.lines:
            for m in _GLOBAL_REF.finditer(line):
                ref = _name(m)
                if ref in defined and ref != d.name:
                    a, b = find(d.name), find(ref)
                    if a != b:
                        parent[a] = b
    groups: dict[str, list[str]] = {}
    for name in defined:
        groups.setdefault(find(name), []).append(name)
    return list(groups.values())


def split(ir_text: str, parts: int) -> list[str] | None:
    """``ir_text`` as at most ``parts`` modules of about equal size that together define
    what it defines (module docstring), or None where it cannot or need not be split."""
    if parts < 2 or "!llvm.dbg.cu" in ir_text or "\nmodule asm" in ir_text:
        return None
    read = _read(ir_text)
    if read is None:
        return None
    items, defined = read
    units = _units(defined)
    if len(units) < 2:
        return None
    weight = {name: sum(len(line) for line in d.lines) for name, d in defined.items()}
    sized = sorted(((sum(weight[n] for n in u), u) for u in units), key=lambda t: -t[0])
    parts = min(parts, len(sized))
    loads = [0] * parts
    part_of: dict[str, int] = {}
    for size, unit in sized:  # largest first, each to the lightest part
        k = loads.index(min(loads))
        loads[k] += size
        for name in unit:
            part_of[name] = k
    if min(loads) == 0:
        return None
    out: list[list[str]] = [[] for _ in range(parts)]
    for item in items:
        if isinstance(item, str):
            for lines in out:
                lines.append(item)
        else:
            out[part_of[item.name]].extend(item.lines)
    return ["\n".join(lines) for lines in out]


#: the start of several objects packed into one blob (``pack_objects``): a module built in parts
_OBJECTS_MAGIC = b"XMUXOBJS"
_COUNT = struct.Struct("<I")
_SIZE = struct.Struct("<Q")


def pack_objects(objects: Sequence[bytes]) -> bytes:
    """One object as it is; several as magic, count, sizes, objects (what a ``JitModule``,
    the disk cache and ``xmux.save`` keep as the module's ``object_code``)."""
    if len(objects) == 1:
        return objects[0]
    head = _OBJECTS_MAGIC + _COUNT.pack(len(objects))
    return head + b"".join(_SIZE.pack(len(o)) for o in objects) + b"".join(objects)


def unpack_objects(blob: bytes) -> list[bytes]:
    """The objects of ``pack_objects``' blob."""
    if not blob.startswith(_OBJECTS_MAGIC):
        return [blob]
    at = len(_OBJECTS_MAGIC)
    (count,) = _COUNT.unpack_from(blob, at)
    at += _COUNT.size
    sizes = [_SIZE.unpack_from(blob, at + i * _SIZE.size)[0] for i in range(count)]
    at += count * _SIZE.size
    out = []
    for size in sizes:
        out.append(blob[at:at + size])
        at += size
    if at != len(blob):
        raise XmuxError("a packed object blob of the wrong size")
    return out
