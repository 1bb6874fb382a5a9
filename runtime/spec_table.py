"""Specialization constants: a program's table (property sets, default blob, kernels, LLVM IR
template) and its memory/disk cache. ``runtime/spec_constants.py`` is the public face."""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xmux.abi.errors import XmuxError
from xmux.abi.spec_types import (
    BUFFER_ALIGNMENT,
    DEFAULT_VALUES_SET,
    GLOBAL_PREFIX,
    PADDING_ID,
    PROPERTY_SET,
    Scalar,
    SpecConstantError,
    SpecType,
    encode,
    footprint,
    layout,
    leaves,
    llvm_literal,
    llvm_type,
    store_size,
    type_from_json,
    type_to_json,
    undef_members,
)
from xmux.runtime import disk_cache

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
    #: the bytes of its value in the buffer / default blob (LLVM's store size; set once:
    #: every launch with values reads it)
    size: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.size = store_size(self.type)

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
        padding: str = "dpcpp",
    ) -> None:
        self.mode = mode
        #: the descriptor form (lower-spec-constants' ``padding``): "dpcpp" or "gaps"
        self.padding = padding
        self.constants: dict[str, SpecConstant] = {}
        offset = 0
        for c in sorted(constants, key=lambda c: min(c.leaf_ids, default=0)):
            c.offset = offset  # the reference rule: the sum of the sizes of the earlier ones
            offset += footprint(c.type, c.descriptors)
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
            at = dict(leaves(c.type))  # a leaf's descriptor names it by its offset
            for leaf, off, size in c.descriptors:
                if leaf != PADDING_ID:
                    scalar = at.get(off)
                    if scalar is None or scalar.size != size:
                        raise XmuxError(
                            f"specialization constant '{c.symbolic_id}': descriptor "
                            f"({leaf}, {off}, {size}) names no scalar of {c.type}"
                        )
                    self._leaf_at[leaf] = (scalar, c.offset + off)

    # -- property sets ------------------------------------------------------------------

    def property_sets(self) -> dict[str, dict[str, object]]:
        return {
            PROPERTY_SET: {s: list(c.descriptors) for s, c in self.constants.items()},
            DEFAULT_VALUES_SET: {"all": self.default_values},
        }

    def kernel_property_sets(self, kernel: str) -> dict[str, dict[str, object]]:
        """The property sets of ``kernel``'s own device image, as sycl-post-link writes them
        with ``-split=kernel``: only the constants the kernel (or a function it calls) reads,
        ids from 0 in order of first use there, offsets and default blob laid out anew."""
        use = self.kernels.get(kernel)
        if use is None:
            known = ", ".join(f"'{k}'" for k in self.kernels) or "none"
            raise SpecConstantError(f"unknown kernel {kernel!r} (this program has: {known})")
        consts = [self.constants[s] for s in use.uses]
        placed, size = layout(
            [(c.type, undef_members(c.type, c.descriptors)) for c in consts],
            self.mode,
            self.padding,
        )
        blob = bytearray(size)
        for c, p in zip(consts, placed, strict=True):
            blob[p.offset : p.offset + c.size] = self.default(c.symbolic_id)
        return {
            PROPERTY_SET: {
                c.symbolic_id: p.descriptors for c, p in zip(consts, placed, strict=True)
            },
            DEFAULT_VALUES_SET: {"all": bytes(blob)},
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
            n = c.size
            buf[c.offset : c.offset + n] = raw if len(raw) == n else raw[:n]  # a vector's tail
        return bytes(buf)

    # -- JIT specialization -------------------------------------------------------------

    def prepare(self) -> None:
        """Native mode: optimize the template once, without the loop transformations that
        the values decide. Its leaf globals are declarations
        (``convert-spec-to-llvm{declare-leaves=true}``), so LLVM cannot fold them; the
        template gets O3's scalar work (``jit.SCALAR_ONLY``: inlining, simplification, no
        loop vectorization, unrolling or SLP), and a specialization links in the leaves'
        definitions (``values_module``) and runs the whole O3 on it: the loops are
        vectorized and unrolled knowing the values (a trip count, a divisor), as from the
        unoptimized template, and O3 does a third less work on bench/spec_conv.py's conv
        than on the raw template (a fully optimized template, vectorized without the values,
        re-optimized to other code)."""
        if self.mode != "native" or self.template is None or self.optimized:
            return
        from xmux.runtime import jit

        self.template = jit.optimized_ir(self.template, settings=jit.SCALAR_ONLY)
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
        t = SpecTable(self.mode, [], b"", self.kernels, template, padding=self.padding)
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
                "padding": self.padding,
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
            d.get("padding", "dpcpp"),
        )


_PROP_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def prop_byte_array(data: bytes) -> str:
    """A byte-array property value as sycl-post-link's ``.prop`` files write it: ``2|`` (the
    byte-array type) and the bytes, a 64-bit little-endian bit count in front, six bits per
    character (base64's alphabet), least significant bits first."""
    out, bits, n = [], 0, 0
    for b in (len(data) * 8).to_bytes(8, "little") + data:
        bits |= b << n
        n += 8
        while n >= 6:
            out.append(_PROP_B64[bits & 63])
            bits >>= 6
            n -= 6
    if n:
        out.append(_PROP_B64[bits & 63])
    return "2|" + "".join(out)


def prop_text(sets: Mapping[str, Mapping[str, object]]) -> str:
    """Property sets (``SpecTable.property_sets`` / ``kernel_property_sets``) in the text of a
    sycl-post-link ``.prop`` file: descriptors as uint32 triples, the blob as it is."""
    lines = []
    for name, props in sets.items():
        lines.append(f"[{name}]")
        for key, value in props.items():
            if isinstance(value, (bytes, bytearray)):
                data = bytes(value)
            else:
                data = b"".join(struct.pack("<3I", *d) for d in value)  # type: ignore[union-attr]
            lines.append(f"{key}={prop_byte_array(data)}")
    return "\n".join(lines) + "\n"


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


def collect(module: object, mode: str, padding: str = "dpcpp") -> SpecTable | None:
    """The table of a module right after ``lower-spec-constants`` (None when it has no
    specialization constants). The LLVM IR template is added after lowering."""
    from xmux.dialects import attrs, spec

    props, blob = spec.records(module)  # type: ignore[arg-type]
    if not props:
        return None
    consts = [
        SpecConstant(p.symbolic_id.data, p.model(), p.get_descriptors())
        for p in props
    ]
    kernels = {
        f.sym_name.data: KernelSpecUse(
            attrs.get_spec_constants_used(f), attrs.get_spec_buffer_arg(f) is not None
        )
        for f in attrs.entry_points(module)  # type: ignore[arg-type]
    }
    return SpecTable(mode, consts, blob.blob if blob else b"", kernels, padding=padding)


_tables: dict[str, SpecTable] = {}


def _table_path(cache_dir: Path | str, key: str) -> Path:
    from xmux.runtime.spec_paths import table_path  # spec_constants.load_table's too

    return Path(table_path(cache_dir, key))


def save_table(key: str, table: SpecTable, cache_dir: Path | str | None) -> None:
    """Remember the table of the program compiled under ``key`` (memory, and disk when
    ``cache_dir`` is given; written before the object so a cached object always has it)."""
    table.prepare()  # the optimized template goes to disk too: a warm hit needs no LLVM pass
    _tables[key] = table
    if cache_dir is None:
        return
    disk_cache.write_atomic(
        _table_path(cache_dir, key), disk_cache.dumps_sealed({"table": json.loads(table.to_json())})
    )


def load_table(key: str, cache_dir: Path | str | None) -> SpecTable | None:
    table = _tables.get(key)
    if table is not None or cache_dir is None:
        return table
    path = _table_path(cache_dir, key)
    record = disk_cache.read_sealed(path)
    if record is None:
        return None  # missing or damaged: recompile
    try:
        table = SpecTable.from_json(json.dumps(record["table"]))
    except (ValueError, KeyError, TypeError, AttributeError, IndexError):
        disk_cache.damaged(path, "not a table of this xmux")
        return None
    _tables[key] = table
    return table
