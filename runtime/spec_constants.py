"""Specialization constants at run time: layouts, values, the emulated buffer, JIT specialization.

This is the runtime half of ``reference/sycl-specialization-constants.txt`` (the DPC++ RT part):
``lower-spec-constants`` (the SpecConstantsPass) records per symbolic id the list of
``(leaf id, offset, size)`` descriptors and one default-value blob; the runtime keeps a value
map per program, and before a launch either

* **JIT-specializes** (the default, the CPU's "native" support): the program was lowered once
  with every scalar leaf ``spec.constant`` read from a constant global
  ``@"xmux.spec_constant.<leaf id>"``, declared, not defined (``convert-spec-to-llvm
  {declare-leaves=true}``); for a value set a small module defining those globals with the
  values (``SpecTable.values_module``, built from the typed values) is linked into the
  optimized template and the result JIT-compiled, so LLVM folds the values as literals ("the
  underlying JIT can see all the values"). Nothing edits printed LLVM IR: a template does
  not depend on how LLVM prints a line (a regular expression over it once missed ``+0.0``
  defaults, which llvmlite prints padded, and O3 folded them for good). Compiled modules are
  cached per kernel and per distinct value set (and in the JIT's memory/disk cache, keyed on
  the program's source key and the values); or
* **emulates** them: fills the buffer (the blob with the set values copied in at each
  constant's offset) and passes its address as the kernel's trailing argument.

Nothing here imports xDSL: a warm disk-cache hit must not pay for it. The type model below
(``Scalar``, ``Struct``, ``Array``, ``Vector``) is the one ``lower-spec-constants`` lays the
buffer out with, mirroring LLVM's host data layout (natural alignment; a vector is aligned to
its size rounded up to a power of two; a struct's size is rounded up to its alignment).

Buffer layout and descriptors (the "SYCL/specialization constants" property set):

* constants sit in ascending numeric id order (= order of first use), each at an offset aligned
  to its type's alignment;
* a constant's descriptors are its scalar leaves, depth first, ``(leaf id, offset in the value,
  size)``, plus explicit **padding leaves** ``(PADDING_ID, offset, size)`` for every gap inside
  the value (between struct fields, at the end of a struct, after a vector's last element) and,
  as DPC++ does, for the gap before the *next* constant (appended to this constant at offset
  ``sizeof(T)``). So the descriptors of all constants tile the buffer exactly and a constant's
  offset is the sum of the sizes of all descriptors of constants with smaller ids (the
  reference runtime's rule).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from xmux.errors import XmuxError
from xmux.runtime import forksafe

#: Leaf id of padding descriptors (the reference runtime skips this magic value).
PADDING_ID = 0xFFFFFFFF

#: Names of the two property sets, as in the reference.
PROPERTY_SET = "SYCL/specialization constants"
DEFAULT_VALUES_SET = "SYCL/specialization constants default values"

#: Prefix of the per-leaf constant globals that carry values into the JIT.
GLOBAL_PREFIX = "xmux.spec_constant."

#: Emulated buffers are allocated with at least this alignment.
BUFFER_ALIGNMENT = 64


class SpecConstantError(XmuxError):
    """A bad specialization constant id or value."""


# ---------------------------------------------------------------------------------------
# Type model
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scalar:
    kind: str  # "int" | "float"
    bits: int

    @property
    def size(self) -> int:
        return 1 if self.bits == 1 else self.bits // 8

    @property
    def align(self) -> int:
        return self.size

    @property
    def dtype(self) -> np.dtype:
        if self.kind == "float":
            return np.dtype(f"<f{self.size}")
        return np.dtype("u1") if self.bits == 1 else np.dtype(f"<i{self.size}")

    def __str__(self) -> str:
        return f"{'i' if self.kind == 'int' else 'f'}{self.bits}"


@dataclass(frozen=True)
class Struct:
    fields: tuple[SpecType, ...]

    def __str__(self) -> str:
        return "!llvm.struct<(" + ", ".join(map(str, self.fields)) + ")>"


@dataclass(frozen=True)
class Array:
    count: int
    elem: SpecType

    def __str__(self) -> str:
        return f"!llvm.array<{self.count} x {self.elem}>"


@dataclass(frozen=True)
class Vector:
    count: int
    elem: Scalar

    def __str__(self) -> str:
        return f"vector<{self.count}x{self.elem}>"


SpecType = Scalar | Struct | Array | Vector

SCALARS: dict[str, Scalar] = {
    str(s): s
    for s in (
        Scalar("int", 1),
        Scalar("int", 8),
        Scalar("int", 16),
        Scalar("int", 32),
        Scalar("int", 64),
        Scalar("float", 16),
        Scalar("float", 32),
        Scalar("float", 64),
    )
}


def _round_up(n: int, a: int) -> int:
    return -(-n // a) * a


def align_of(t: SpecType) -> int:
    if isinstance(t, Scalar):
        return t.align
    if isinstance(t, Struct):
        return max(align_of(f) for f in t.fields)
    if isinstance(t, Array):
        return align_of(t.elem)
    return 1 << (store_size(t) - 1).bit_length()  # vector: size rounded up to a power of 2


def store_size(t: Vector) -> int:
    return t.count * t.elem.size


def size_of(t: SpecType) -> int:
    """The allocation size (what a value occupies in the buffer, tail padding included)."""
    if isinstance(t, Scalar):
        return t.size
    if isinstance(t, Struct):
        end = 0
        for f, off in zip(t.fields, field_offsets(t), strict=True):
            end = off + size_of(f)
        return _round_up(end, align_of(t))
    if isinstance(t, Array):
        return t.count * size_of(t.elem)
    return _round_up(store_size(t), align_of(t))


def field_offsets(t: Struct) -> list[int]:
    offs, pos = [], 0
    for f in t.fields:
        pos = _round_up(pos, align_of(f))
        offs.append(pos)
        pos += size_of(f)
    return offs


def children(t: SpecType) -> list[tuple[int, SpecType]]:
    """(offset, type) of the direct elements of a composite."""
    if isinstance(t, Struct):
        return list(zip(field_offsets(t), t.fields, strict=True))
    if isinstance(t, Array):
        step = size_of(t.elem)
        return [(i * step, t.elem) for i in range(t.count)]
    if isinstance(t, Vector):
        return [(i * t.elem.size, t.elem) for i in range(t.count)]
    return []


def leaves(t: SpecType, base: int = 0) -> Iterator[tuple[int, Scalar]]:
    """(offset, scalar type) of every scalar leaf, depth first (the numeric id order)."""
    if isinstance(t, Scalar):
        yield base, t
        return
    for off, sub in children(t):
        yield from leaves(sub, base + off)


def num_leaves(t: SpecType) -> int:
    return sum(1 for _ in leaves(t))


def descriptors(t: SpecType, first_id: int) -> list[tuple[int, int, int]]:
    """Leaf and padding descriptors of one value of type ``t``, covering ``[0, sizeof)``."""
    out: list[tuple[int, int, int]] = []
    pos = 0
    for i, (off, s) in enumerate(leaves(t)):
        if off > pos:
            out.append((PADDING_ID, pos, off - pos))
        out.append((first_id + i, off, s.size))
        pos = off + s.size
    if size_of(t) > pos:
        out.append((PADDING_ID, pos, size_of(t) - pos))
    return out


def type_to_json(t: SpecType) -> object:
    if isinstance(t, Scalar):
        return str(t)
    if isinstance(t, Struct):
        return ["struct", [type_to_json(f) for f in t.fields]]
    if isinstance(t, Array):
        return ["array", t.count, type_to_json(t.elem)]
    return ["vector", t.count, type_to_json(t.elem)]


def type_from_json(data: object) -> SpecType:
    if isinstance(data, str):
        return SCALARS[data]
    assert isinstance(data, list)
    if data[0] == "struct":
        return Struct(tuple(type_from_json(f) for f in data[1]))
    if data[0] == "array":
        return Array(int(data[1]), type_from_json(data[2]))
    elem = type_from_json(data[2])
    assert isinstance(elem, Scalar)
    return Vector(int(data[1]), elem)


# ---------------------------------------------------------------------------------------
# Values <-> bytes
# ---------------------------------------------------------------------------------------


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, np.generic):
        return f"a numpy {value.dtype} scalar"
    return f"{type(value).__name__} {value!r}"[:80]


def _scalar_bytes(t: Scalar, value: object, where: str) -> bytes:
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.names is None:
        value = value[()]
    if t.bits == 1:
        if isinstance(value, (bool, np.bool_)) or (
            isinstance(value, (int, np.integer)) and int(value) in (0, 1)
        ):
            return bytes([int(bool(value))])
        raise SpecConstantError(f"{where}: expected a bool (i1), got {_describe(value)}")
    if t.kind == "int":
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise SpecConstantError(f"{where}: expected an integer ({t}), got {_describe(value)}")
        v = int(value)
        lo, hi = -(1 << (t.bits - 1)), (1 << t.bits) - 1
        if not lo <= v <= hi:  # signless: the signed or the unsigned reading, as an argument
            raise SpecConstantError(
                f"{where}: {v} does not fit in {t} (a signless integer takes {lo} .. {hi})"
            )
        return (v & ((1 << t.bits) - 1)).to_bytes(t.size, "little")
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise SpecConstantError(f"{where}: expected a float ({t}), got {_describe(value)}")
    return np.asarray(value, dtype=t.dtype).tobytes()


def _dense_leaf(t: SpecType) -> tuple[tuple[int, ...], Scalar] | None:
    """(shape, scalar) when ``t`` is an array/vector nest of one scalar with no padding."""
    shape: list[int] = []
    while isinstance(t, (Array, Vector)):
        if isinstance(t, Vector) and size_of(t) != store_size(t):
            return None
        shape.append(t.count)
        t = t.elem
    if not isinstance(t, Scalar) or not shape or t.bits == 1:
        return None
    return tuple(shape), t


def _encode_into(buf: bytearray, base: int, t: SpecType, value: object, where: str) -> None:
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        if len(raw) != size_of(t):
            raise SpecConstantError(
                f"{where}: {len(raw)} bytes given for {t}, which is {size_of(t)} bytes"
            )
        buf[base : base + len(raw)] = raw
        return
    if isinstance(t, Scalar):
        raw = _scalar_bytes(t, value, where)
        buf[base : base + len(raw)] = raw
        return
    if isinstance(value, str):
        raise SpecConstantError(f"{where}: expected a value of type {t}, got {_describe(value)}")
    if isinstance(t, Struct):
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.names:
            value = value[()]
        if isinstance(value, np.void) and value.dtype.names:
            items = [value[n] for n in value.dtype.names]
        elif isinstance(value, (tuple, list)):
            items = list(value)
        else:
            raise SpecConstantError(
                f"{where}: expected a tuple/list or numpy structured scalar with "
                f"{len(t.fields)} fields for {t}, got {_describe(value)}"
            )
        if len(items) != len(t.fields):
            raise SpecConstantError(
                f"{where}: {t} has {len(t.fields)} fields, got a value with {len(items)}"
            )
        for i, ((off, sub), item) in enumerate(zip(children(t), items, strict=True)):
            _encode_into(buf, base + off, sub, item, f"{where}.{i}")
        return
    dense = _dense_leaf(t)
    if dense is not None and isinstance(value, np.ndarray) and value.dtype.names is None:
        shape, leaf = dense
        if value.shape != shape:
            raise SpecConstantError(f"{where}: expected shape {shape} for {t}, got {value.shape}")
        if leaf.kind == "int" and value.dtype.kind not in "iu":
            raise SpecConstantError(f"{where}: expected integers for {t}, got dtype {value.dtype}")
        if leaf.kind == "float" and value.dtype.kind not in "iuf":
            raise SpecConstantError(f"{where}: expected numbers for {t}, got dtype {value.dtype}")
        if leaf.kind == "int" and value.size:
            lo, hi = -(1 << (leaf.bits - 1)), (1 << leaf.bits) - 1
            if int(value.min()) < lo or int(value.max()) > hi:
                raise SpecConstantError(f"{where}: values out of range for {leaf}")
        raw = np.ascontiguousarray(value.astype(leaf.dtype, copy=False)).tobytes()
        buf[base : base + len(raw)] = raw
        return
    if isinstance(value, np.ndarray):
        items = list(value) if value.ndim > 0 else None
    elif isinstance(value, (tuple, list)):
        items = list(value)
    else:
        items = None
    assert isinstance(t, (Array, Vector))
    if items is None:
        raise SpecConstantError(
            f"{where}: expected a sequence of {t.count} elements for {t}, got {_describe(value)}"
        )
    if len(items) != t.count:
        raise SpecConstantError(
            f"{where}: {t} has {t.count} elements, got a value with {len(items)}"
        )
    for i, ((off, sub), item) in enumerate(zip(children(t), items, strict=True)):
        _encode_into(buf, base + off, sub, item, f"{where}[{i}]")


def encode(t: SpecType, value: object, where: str = "value") -> bytes:
    """The bytes of ``value`` as a ``t`` (padding zero). Accepts Python/numpy scalars, sequences
    or numpy arrays for arrays/vectors, tuples/lists or numpy structured scalars for structs
    (fields by position), and raw ``bytes`` of exactly ``sizeof(t)``."""
    buf = bytearray(size_of(t))
    _encode_into(buf, 0, t, value, where)
    return bytes(buf)


def decode(t: SpecType, raw: bytes, base: int = 0) -> object:
    """The Python value of a ``t`` stored at ``raw[base:]``: int/float/bool scalars, tuples for
    structs, numpy arrays for arrays/vectors of scalars, lists otherwise."""
    if isinstance(t, Scalar):
        v = np.frombuffer(raw, dtype=t.dtype, count=1, offset=base)[0]
        return bool(v) if t.bits == 1 else v.item()
    if isinstance(t, Struct):
        return tuple(decode(sub, raw, base + off) for off, sub in children(t))
    dense = _dense_leaf(t)
    if dense is not None:
        shape, leaf = dense
        count = math.prod(shape)
        return np.frombuffer(raw, leaf.dtype, count, base).reshape(shape).copy()
    return [decode(sub, raw, base + off) for off, sub in children(t)]


def llvm_type(t: Scalar) -> str:
    """The LLVM IR type of a scalar leaf."""
    if t.kind == "int":
        return f"i{t.bits}"
    return {16: "half", 32: "float", 64: "double"}[t.bits]


def llvm_literal(t: Scalar, raw: bytes, offset: int = 0) -> str:
    """The LLVM IR literal of the scalar stored at ``raw[offset:]`` (bit-exact for floats)."""
    data = raw[offset : offset + t.size]
    if t.kind == "int":
        if t.bits == 1:
            return "true" if data[0] & 1 else "false"
        return str(int.from_bytes(data, "little", signed=True))
    if t.bits == 16:
        return f"0xH{int.from_bytes(data, 'little'):04X}"
    if t.bits == 64:
        return f"0x{int.from_bytes(data, 'little'):016X}"
    bits = int.from_bytes(data, "little")  # f32: LLVM wants the value as a double, exactly
    sign, exp, mant = bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
    if exp == 0xFF:  # inf / nan: widen the bit pattern by hand (keeps the payload)
        dbits = (sign << 63) | (0x7FF << 52) | (mant << 29)
    else:
        dbits = struct.unpack("<Q", struct.pack("<d", struct.unpack("<f", data)[0]))[0]
    return f"0x{dbits:016X}"


# ---------------------------------------------------------------------------------------
# The program's table: property sets, default blob, kernels, template
# ---------------------------------------------------------------------------------------


@dataclass
class SpecConstant:
    """One specialization constant of a program (a "SYCL/specialization constants" property)."""

    symbolic_id: str
    type: SpecType
    #: (leaf id or PADDING_ID, offset, size), incl. the padding before the next constant
    descriptors: list[tuple[int, int, int]]
    #: offset in the emulated buffer / default blob
    offset: int = 0

    @property
    def size(self) -> int:
        return size_of(self.type)

    @property
    def leaf_ids(self) -> list[int]:
        return [d[0] for d in self.descriptors if d[0] != PADDING_ID]


@dataclass
class KernelSpecUse:
    #: symbolic ids the kernel (or a function it calls) reads
    uses: list[str] = field(default_factory=list)
    #: emulated mode: the kernel takes the buffer's address as a trailing argument
    buffer_arg: bool = False


class SpecTable:
    """Everything the runtime knows about a program's specialization constants."""

    def __init__(
        self,
        mode: str,
        constants: Sequence[SpecConstant],
        default_values: bytes,
        kernels: Mapping[str, KernelSpecUse],
        template: str | None = None,
        optimized: bool = False,
    ) -> None:
        self.mode = mode
        self.constants: dict[str, SpecConstant] = {}
        offset = 0
        for c in sorted(constants, key=lambda c: min(c.leaf_ids, default=0)):
            c.offset = offset  # the reference rule: sum of the sizes of earlier descriptors
            offset += sum(d[2] for d in c.descriptors)
            self.constants[c.symbolic_id] = c
        self.default_values = bytes(default_values)
        if len(self.default_values) != offset:
            raise XmuxError(
                f"specialization constants: the default-value blob has {len(default_values)} "
                f"bytes but the descriptors cover {offset}"
            )
        self.kernels = dict(kernels)
        #: native mode: the program's LLVM IR (``optimized`` once ``prepare`` has run)
        self.template = template
        self.optimized = optimized
        #: a variant's template may compute other bits at another vector width (not tuned)
        self.width_dependent = False
        self._leaf_at: dict[int, tuple[Scalar, int]] = {}
        for c in self.constants.values():
            ids = iter(c.leaf_ids)
            for off, s in leaves(c.type):
                self._leaf_at[next(ids)] = (s, c.offset + off)

    # -- property sets ------------------------------------------------------------------

    def property_sets(self) -> dict[str, dict[str, object]]:
        return {
            PROPERTY_SET: {s: list(c.descriptors) for s, c in self.constants.items()},
            DEFAULT_VALUES_SET: {"all": self.default_values},
        }

    def default(self, symbolic_id: str) -> bytes:
        c = self.constants[symbolic_id]
        return self.default_values[c.offset : c.offset + c.size]

    # -- values -------------------------------------------------------------------------

    def lookup(self, symbolic_id: object) -> SpecConstant:
        c = self.constants.get(symbolic_id) if isinstance(symbolic_id, str) else None
        if c is None:
            known = ", ".join(f"'{s}'" for s in self.constants) or "none"
            raise SpecConstantError(
                f"unknown specialization constant {symbolic_id!r} (this program has: {known})"
            )
        return c

    def encode_value(self, symbolic_id: object, value: object) -> bytes:
        c = self.lookup(symbolic_id)
        return encode(c.type, value, f"specialization constant '{c.symbolic_id}' ({c.type})")

    def buffer_bytes(self, values: Mapping[str, bytes]) -> bytes:
        """The default blob with ``values`` (already encoded) copied in."""
        if not values:
            return self.default_values
        buf = bytearray(self.default_values)
        for sid, raw in values.items():
            c = self.constants[sid]
            buf[c.offset : c.offset + c.size] = raw
        return bytes(buf)

    # -- JIT specialization -------------------------------------------------------------

    def prepare(self) -> None:
        """Native mode: optimize the template once. Its leaf globals are declarations
        (``convert-spec-to-llvm{declare-leaves=true}``), so LLVM cannot fold them; a
        specialization links in their definitions (``values_module``) and re-runs O3 on the
        already optimized IR: the same code as from the unoptimized template (the values are
        folded just the same), about a fifth cheaper to compile."""
        if self.mode != "native" or self.template is None or self.optimized:
            return
        from xmux.runtime import jit

        self.template = jit.optimized_ir(self.template)
        self.optimized = True

    def values_module(self, buffer: bytes) -> str:
        """The LLVM IR module that defines every leaf global with its value in ``buffer``
        (built from the typed values, bit-exact: ``llvm_literal``); linked into the template
        it makes the specialization."""
        lines = []
        for leaf, (scalar, offset) in sorted(self._leaf_at.items()):
            lines.append(
                f'@"{GLOBAL_PREFIX}{leaf}" = constant {llvm_type(scalar)} '
                f"{llvm_literal(scalar, buffer, offset)}"
            )
        return "\n".join(lines) + "\n"

    def specialize(self, buffer: bytes) -> tuple[str, tuple[str]]:
        """The program's LLVM IR template and the values module for ``buffer``: what
        ``jit.compile_ir(template, link=...)`` compiles into the specialization."""
        self.prepare()
        assert self.template is not None
        return self.template, (self.values_module(buffer),)

    def with_template(self, template: str) -> SpecTable:
        """The same constants with another LLVM IR template (a variant of the program)."""
        t = SpecTable(self.mode, [], b"", self.kernels, template)
        t.constants, t.default_values = self.constants, self.default_values
        t._leaf_at = self._leaf_at
        return t

    # -- serialization (stored next to the cached object) -------------------------------

    def to_json(self) -> str:
        return json.dumps(
            {
                "mode": self.mode,
                "constants": [
                    {
                        "symbolic_id": c.symbolic_id,
                        "type": type_to_json(c.type),
                        "descriptors": [list(d) for d in c.descriptors],
                    }
                    for c in self.constants.values()
                ],
                "default_values": self.default_values.hex(),
                "kernels": {k: [u.uses, u.buffer_arg] for k, u in self.kernels.items()},
                "template": self.template,
                "optimized": self.optimized,
            }
        )

    @staticmethod
    def from_json(text: str) -> SpecTable:
        d = json.loads(text)
        consts = [
            SpecConstant(
                c["symbolic_id"], type_from_json(c["type"]), [tuple(x) for x in c["descriptors"]]
            )
            for c in d["constants"]
        ]
        kernels = {k: KernelSpecUse(list(v[0]), bool(v[1])) for k, v in d["kernels"].items()}
        return SpecTable(
            d["mode"],
            consts,
            bytes.fromhex(d["default_values"]),
            kernels,
            d["template"],
            bool(d.get("optimized")),
        )


def aligned_buffer(data: bytes) -> np.ndarray:
    """A uint8 array holding ``data`` at a ``BUFFER_ALIGNMENT``-aligned address."""
    n = max(1, len(data))
    raw = np.zeros(n + BUFFER_ALIGNMENT, np.uint8)
    start = (-raw.ctypes.data) % BUFFER_ALIGNMENT
    arr = raw[start : start + n]
    arr[: len(data)] = np.frombuffer(data, np.uint8)
    return arr


def value_set_key(program_key: str, buffer: bytes) -> str:
    """JIT cache key of a specialization: the program's source key and the buffer's bytes."""
    h = hashlib.sha256()
    for part in (program_key.encode(), b"spec-constants", buffer):
        h.update(part)
        h.update(b"\0")
    return h.hexdigest()


# ---------------------------------------------------------------------------------------
# Reading the records (after lower-spec-constants) and caching the table
# ---------------------------------------------------------------------------------------


def collect(module: object, mode: str) -> SpecTable | None:
    """The table of a module right after ``lower-spec-constants`` (None when it has no
    specialization constants). The LLVM IR template is added after lowering."""
    from xmux.dialects import attrs, spec

    props, blob = spec.records(module)  # type: ignore[arg-type]
    if not props:
        return None
    consts = [
        SpecConstant(p.symbolic_id.data, spec.spec_type(p.constant_type), p.get_descriptors())
        for p in props
    ]
    kernels = {
        f.sym_name.data: KernelSpecUse(
            attrs.get_spec_constants_used(f), attrs.get_spec_buffer_arg(f) is not None
        )
        for f in attrs.entry_points(module)  # type: ignore[arg-type]
    }
    return SpecTable(mode, consts, blob.blob if blob else b"", kernels)


_tables: dict[str, SpecTable] = {}


def _table_path(cache_dir: Path | str, key: str) -> Path:
    return Path(cache_dir) / f"{key}.spec.json"


def save_table(key: str, table: SpecTable, cache_dir: Path | str | None) -> None:
    """Remember the table of the program compiled under ``key`` (memory, and disk when
    ``cache_dir`` is given; written before the object so a cached object always has it)."""
    table.prepare()  # the optimized template goes to disk too: a warm hit needs no LLVM pass
    _tables[key] = table
    if cache_dir is None:
        return
    path = _table_path(cache_dir, key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w") as f:
            f.write(table.to_json())
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache must not break compilation


def load_table(key: str, cache_dir: Path | str | None) -> SpecTable | None:
    table = _tables.get(key)
    if table is not None or cache_dir is None:
        return table
    try:
        table = SpecTable.from_json(_table_path(cache_dir, key).read_text())
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None  # missing, torn, or JSON of another shape: recompile
    _tables[key] = table
    return table


# ---------------------------------------------------------------------------------------
# A program's values and what a launch needs
# ---------------------------------------------------------------------------------------


class LaunchTarget(NamedTuple):
    """What ``SpecState.launch`` resolved: the entry hook to call (None: the program's own),
    trailing arguments, an object to keep alive during the launch, and the value-set bytes."""

    entry: object | None
    extra: tuple[int, ...]
    keep: object
    buffer: bytes


class SpecState:
    """Per program: the value map (``set_spec_constant``) and the specializations.

    ``launch(kernel, call_values)`` returns ``(entry or None, extra_args, keepalive)``: in JIT
    mode the entry hook of the kernel specialized for the values it reads (None: the program's
    own, compiled with the defaults); in emulated mode the buffer's address as the trailing
    argument (when the kernel takes one) and the array to keep alive during the launch.
    """

    #: emulated buffers kept per distinct value set (then recreated)
    MAX_BUFFERS = 64

    def __init__(
        self,
        table: SpecTable,
        program_key: str | None,
        kernel_infos_json: str,
        disk_cache: bool,
    ) -> None:
        table.prepare()
        self.table = table
        self.program_key = program_key
        self.kernel_infos_json = kernel_infos_json
        self.disk_cache = disk_cache
        self.values: dict[str, bytes] = {}
        #: bumped by ``set``: a launch without call values resolves as the last one of its
        #: kernel did while it is unchanged (``_resolved``: kernel -> (version, target))
        self._version = 0
        self._resolved: dict[str, tuple[int, LaunchTarget]] = {}
        self._lock = forksafe.lock(self)
        self._modules: dict[object, object] = {}  # value set (, variant tag, width) -> module
        self._entries: dict[tuple[str, bytes], object] = {}
        self._buffers: dict[bytes, tuple[np.ndarray, int]] = {}  # blob -> (buffer, address)
        self._variants: dict[str, SpecTable] = {}
        self._variant_entries: dict[tuple[str, bytes], object] = {}
        #: distinct value sets this program specialized for (tests and benchmarks)
        self.specializations = 0

    def set(self, symbolic_id: object, value: object) -> None:
        self.values[self.table.lookup(symbolic_id).symbolic_id] = self.table.encode_value(
            symbolic_id, value
        )
        self._version += 1

    def current(self, symbolic_id: object) -> object:
        c = self.table.lookup(symbolic_id)
        raw = self.values.get(c.symbolic_id, self.table.default(c.symbolic_id))
        return decode(c.type, raw)

    def _merged(self, call_values: Mapping[str, object] | None) -> dict[str, bytes]:
        if not call_values:
            return self.values
        if not isinstance(call_values, Mapping):
            raise SpecConstantError(
                "spec_constants= takes a dict {symbolic id: value}, got "
                f"{type(call_values).__name__}"
            )
        merged = dict(self.values)
        for sid, value in call_values.items():
            merged[self.table.lookup(sid).symbolic_id] = self.table.encode_value(sid, value)
        return merged

    def launch(
        self, kernel: str, symbol: str, call_values: Mapping[str, object] | None
    ) -> LaunchTarget:
        """``resolve`` then, in JIT mode, the entry hook specialized for the values."""
        target = self.resolve(kernel, call_values)
        if self.table.mode != "native":
            return target
        return target._replace(entry=self.entry(kernel, symbol, target.buffer))

    def entry(self, kernel: str, symbol: str, buf: bytes) -> object | None:
        """JIT mode: the program's entry hook specialized for ``buf`` (None: the defaults,
        i.e. the program's own code)."""
        if buf == self.table.default_values:
            return None
        entry = self._entries.get((kernel, buf))
        if entry is None:
            entry = self._specialize(kernel, symbol, buf)
        return entry

    def resolve(self, kernel: str, call_values: Mapping[str, object] | None) -> LaunchTarget:
        """The value set of a launch (checked), without compiling anything: in JIT mode the
        blob with the values of the constants the kernel reads, in emulated mode the buffer
        (its address as the trailing argument when the kernel takes one)."""
        if not call_values:  # the program's values: kept per kernel until ``set``
            version = self._version  # read first: a ``set`` meanwhile makes the entry stale
            hit = self._resolved.get(kernel)
            if hit is not None and hit[0] == version:
                return hit[1]
            target = self._resolve(kernel, self.values)
            self._resolved[kernel] = (version, target)
            return target
        return self._resolve(kernel, self._merged(call_values))

    def _resolve(self, kernel: str, merged: Mapping[str, bytes]) -> LaunchTarget:
        use = self.table.kernels.get(kernel, KernelSpecUse())
        if self.table.mode == "emulated":
            if not use.buffer_arg:
                return LaunchTarget(None, (), None, b"")
            buf = self.table.buffer_bytes(merged)
            kept = self._buffers.get(buf)
            if kept is None:
                arr = aligned_buffer(buf)
                kept = (arr, arr.ctypes.data)  # ``ctypes.data`` costs ~0.8 µs: asked once
                with self._lock:
                    if len(self._buffers) >= self.MAX_BUFFERS:
                        self._buffers.clear()
                    self._buffers[buf] = kept
            return LaunchTarget(None, (kept[1],), kept[0], buf)
        # JIT: specialize on the constants this kernel reads; the others keep their defaults
        mine = {s: v for s, v in merged.items() if s in use.uses}
        return LaunchTarget(None, (), None, self.table.buffer_bytes(mine))

    def variant_entry(
        self,
        symbol: str,
        tag: str,
        buf: bytes,
        build_ir: Callable[[], object],
        tune: bool = False,
        label: str = "variant",
    ) -> object:
        """JIT mode: the entry hook of a *variant* of the program (e.g. its kernel specialized
        on a local size: ``build_ir()`` lowers it, ``launcher.Lowered``: its LLVM IR, with the
        leaf globals, and whether it is width-dependent),
        specialized for the value set ``buf``. Variants are lowered once per ``tag``. With
        ``tune`` on a host with 512-bit vectors, a ``tuning.BuildTuner`` over the
        specialized code built with 512- and 256-bit vectors, as other variants get."""
        from xmux.runtime import abi, jit, tuning

        entry = self._variant_entries.get((tag, buf))
        if entry is not None:
            return entry
        with self._lock:
            table = self._variants.get(tag)
            if table is None:
                lowered = build_ir()
                table = self.table.with_template(lowered.ir)  # type: ignore[attr-defined]
                table.width_dependent = lowered.width_dependent  # type: ignore[attr-defined]
                self._variants[tag] = table
            key = None
            if self.program_key:
                key = value_set_key(f"{self.program_key}/{tag}", buf)
            ir_text, link = table.specialize(buf)

            def build(vector_bits: int | None = None) -> object:
                module = jit.compile_ir(
                    ir_text,
                    link=link,
                    kernel_infos_json=self.kernel_infos_json,
                    cache_key=key,
                    disk_cache=self.disk_cache and key is not None,
                    vector_bits=vector_bits,
                )
                self._modules[(tag, buf, vector_bits)] = module  # type: ignore[index]
                return abi.EntryHookFn(module.address(symbol))  # type: ignore[attr-defined]

            if tune and jit.host_has_wide_vectors() and not table.width_dependent:
                entry = tuning.BuildTuner(
                    [build, lambda: build(256)], label, ("512-bit", "256-bit")
                )
            else:
                entry = build()
            self._variant_entries[(tag, buf)] = entry
            self.specializations += 1
            return entry

    def _specialize(self, kernel: str, symbol: str, buf: bytes) -> object:
        from xmux.runtime import abi, jit

        with self._lock:
            module = self._modules.get(buf)
            if module is None:
                key = value_set_key(self.program_key, buf) if self.program_key else None
                ir_text, link = self.table.specialize(buf)
                module = jit.compile_ir(
                    ir_text,
                    link=link,
                    kernel_infos_json=self.kernel_infos_json,
                    cache_key=key,
                    disk_cache=self.disk_cache and key is not None,
                )
                self._modules[buf] = module
                self.specializations += 1
            entry = abi.EntryHookFn(module.address(symbol))  # type: ignore[attr-defined]
            self._entries[(kernel, buf)] = entry
            return entry


# ---------------------------------------------------------------------------------------
# Helpers for xmux.api
# ---------------------------------------------------------------------------------------


class Collector:
    """``run_pipeline`` observer: reads the records right after ``lower-spec-constants``."""

    def __init__(self) -> None:
        self.table: SpecTable | None = None
        #: leaf globals convert-spec-to-llvm defined (with their defaults) instead of declaring
        self.defined_leaves: list[str] = []

    def __call__(self, pass_: object, module: object) -> None:
        name = getattr(pass_, "name", None)
        if name == "lower-spec-constants":
            self.table = collect(module, getattr(pass_, "mode", "native"))
        elif name == "convert-spec-to-llvm":
            from xdsl.dialects import llvm

            self.defined_leaves = [
                g.sym_name.data for g in module.ops  # type: ignore[attr-defined]
                if isinstance(g, llvm.GlobalOp) and g.sym_name.data.startswith(GLOBAL_PREFIX)
                and g.value is not None
            ]


def may_have_markers(text: str) -> bool:
    """Whether MLIR text can contain specialization-constant markers (custom or generic)."""
    return "spec.get_" in text


#: name of the hidden trailing argument (emulated mode) in launch metadata
BUFFER_ARG_NAME = "spec_constants_buffer"


def launch_info(info: object) -> object:
    """The kernel metadata with the emulated buffer's address appended as a 64-bit scalar (an
    ``!llvm.ptr`` field of the packed struct has the size and alignment of a ``uint64``)."""
    import dataclasses

    from xmux.dialects.attrs import ArgInfo

    return dataclasses.replace(
        info,  # type: ignore[type-var]
        args=[*info.args, ArgInfo(BUFFER_ARG_NAME, "scalar", "uint64")],  # type: ignore[attr-defined]
    )


def reject_values(where: str, call_values: object) -> None:
    """Values given for a program without specialization constants."""
    if call_values:
        names = ", ".join(repr(k) for k in call_values) if isinstance(call_values, Mapping) else ""
        raise SpecConstantError(
            f"{where}: unknown specialization constant(s) {names} (this program has none)"
        )
