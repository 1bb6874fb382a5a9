"""Specialization constants: the type model and values <-> bytes (no xDSL, no LLVM).

The layout model ``lower-spec-constants`` lays the buffer out with, mirroring LLVM's host data
layout (natural alignment; a vector is aligned to its size rounded up to a power of two; a
struct's size is rounded up to its alignment), the encoding of user values into that layout and
back, and the LLVM IR literal of a scalar leaf. ``runtime/spec_constants.py`` is the public face.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from xmux.abi.errors import XmuxError

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
    #: C's ``__attribute__((packed))`` / LLVM's ``<{...}>``: fields back to back, alignment 1
    packed: bool = False

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
        return 1 if t.packed else max(align_of(f) for f in t.fields)
    if isinstance(t, Array):
        return align_of(t.elem)
    return 1 << (store_size(t) - 1).bit_length()  # vector: size rounded up to a power of 2


def store_size(t: SpecType) -> int:
    """LLVM's store size: what a load of ``t`` reads (a vector without its tail padding; the
    allocation size otherwise). A constant occupies this much of the buffer / default blob."""
    if isinstance(t, Vector):
        return t.count * t.elem.size
    return size_of(t)


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
        pos = pos if t.packed else _round_up(pos, align_of(f))
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


#: Descriptor forms: ``dpcpp`` (sycl-post-link's, the default) and ``gaps`` (xmux's own).
PADDING_FORMS = ("dpcpp", "gaps")

#: a struct member by its path of element indices from the constant's type (``(1, 0)``: field
#: 0 of field 1); the members whose default is undef (explicit padding members)
Path = tuple[int, ...]


def descriptors(
    t: SpecType, first_id: int, form: str = "dpcpp", undef: frozenset[Path] = frozenset()
) -> tuple[list[tuple[int, int, int]], int]:
    """The descriptors of one value of type ``t`` whose leaf ids start at ``first_id``, and
    the next free id. Ids go depth first, one per scalar leaf and one per undef member (its
    leaves get none and no descriptor: it is padding, as in sycl-post-link).

    * ``dpcpp`` (sycl-post-link's ``collectCompositeElementsInfoRecursive``): the leaves and
      one padding descriptor per struct for its *tail* padding (from the end of its last
      member, or the start of an undef last member, to its size); inner gaps follow from the
      offsets;
    * ``gaps``: the leaves and a padding descriptor for every gap in ``[0, sizeof(t))``, so the
      descriptors tile the value (a vector's tail padding included)."""
    out: list[tuple[int, int, int]] = []
    next_id = first_id

    def walk(t: SpecType, base: int, path: Path) -> int:
        nonlocal next_id
        if path in undef:
            next_id += 1
            return base
        if isinstance(t, Scalar):
            out.append((next_id, base, t.size))
            next_id += 1
            return base + t.size
        end = base
        for i, (off, sub) in enumerate(children(t)):
            end = walk(sub, base + off, (*path, i))
        if isinstance(t, Struct):
            if form == "dpcpp" and base + size_of(t) > end:
                out.append((PADDING_ID, end, base + size_of(t) - end))
            return base + size_of(t)
        return end

    walk(t, 0, ())
    if form == "gaps":
        leaves_only = [d for d in out if d[0] != PADDING_ID]
        out, pos = [], 0
        for d in leaves_only:
            if d[1] > pos:
                out.append((PADDING_ID, pos, d[1] - pos))
            out.append(d)
            pos = d[1] + d[2]
        if size_of(t) > pos:
            out.append((PADDING_ID, pos, size_of(t) - pos))
    return out, next_id


def footprint(t: SpecType, descs: Sequence[tuple[int, int, int]]) -> int:
    """The bytes a constant takes in the buffer / default blob: its store size, or more when
    its descriptors say so (a padding descriptor appended for the gap before the next one)."""
    return max([store_size(t), *(o + s for _, o, s in descs)])


@dataclass
class Placed:
    """One constant of a layout: its first leaf id, descriptors and offset."""

    first_id: int
    descriptors: list[tuple[int, int, int]]
    offset: int


def layout(
    constants: Sequence[tuple[SpecType, frozenset[Path]]], mode: str, form: str = "dpcpp"
) -> tuple[list[Placed], int]:
    """Ids, descriptors and offsets of constants (type, undef members) in ascending id order,
    and the blob's size. Each takes its store size; emulated (and always in the ``gaps`` form)
    it is aligned to its type, the gap appended to the previous constant as a padding
    descriptor at its end (sycl-post-link's ``updatePaddingInLastMDNode``); native
    sycl-post-link packs the blob (nothing reads it at an offset)."""
    out: list[Placed] = []
    pos = next_id = 0
    aligned = mode == "emulated" or form == "gaps"
    for t, undef in constants:
        pad = -pos % align_of(t) if aligned else 0
        if pad:
            prev = out[-1]  # the first constant sits at offset 0
            prev.descriptors.append((PADDING_ID, pos - prev.offset, pad))
            pos += pad
        descs, ids_end = descriptors(t, next_id, form, undef)
        out.append(Placed(next_id, descs, pos))
        pos += footprint(t, descs)
        next_id = ids_end
    return out, pos


def undef_members(t: SpecType, descs: Sequence[tuple[int, int, int]]) -> frozenset[Path]:
    """The undef (explicit padding) members of a constant, read back from its descriptors:
    the struct members none of whose leaves has a descriptor."""
    defined = {o for i, o, _ in descs if i != PADDING_ID}
    out: set[Path] = set()

    def walk(t: SpecType, base: int, path: Path, member: bool) -> None:
        if member and not any(base + o in defined for o, _ in leaves(t)):
            out.add(path)
            return
        for i, (off, sub) in enumerate(children(t)):
            walk(sub, base + off, (*path, i), isinstance(t, Struct))

    walk(t, 0, (), False)
    return frozenset(out)


def type_to_json(t: SpecType) -> object:
    if isinstance(t, Scalar):
        return str(t)
    if isinstance(t, Struct):
        return ["struct", [type_to_json(f) for f in t.fields], t.packed]
    if isinstance(t, Array):
        return ["array", t.count, type_to_json(t.elem)]
    return ["vector", t.count, type_to_json(t.elem)]


def type_from_json(data: object) -> SpecType:
    if isinstance(data, str):
        return SCALARS[data]
    assert isinstance(data, list)
    if data[0] == "struct":
        return Struct(tuple(type_from_json(f) for f in data[1]), bool(data[2:] and data[2]))
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
            if item is not None:  # None: an (explicit padding) field left zero
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
