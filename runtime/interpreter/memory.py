"""Memory: allocations, memref views, memref.* ops, LLVM pointers, DMA and local-memory checks.

An ``Allocation`` is a flat byte buffer (a kernel argument's numpy array is used zero-copy,
so the caller sees the results in place); a ``MemRef`` is MLIR's descriptor over it: the
byte position of the aligned pointer, the offset, sizes and strides in elements. Accesses
check every index against the memref's shape (``OutOfBoundsError``). Work-group local
allocations (memory space 3) carry an "initialised" byte mask (``UninitializedReadError``)
and, with ``races=True``, the last writer and readers of every element between barriers
(``DataRaceError``). LLVM pointers (``!llvm.ptr`` from ``extract_aligned_pointer_as_index``
+ ``inttoptr``, ``llvm.mlir.addressof``) are fake addresses: allocation number << 40 | byte.
"""

from __future__ import annotations

import itertools
import math
import weakref
from typing import Any

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    UnitAttr,
)
from xdsl.interpreter import (
    InterpreterFunctions,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute

from xmux.abi.errors import NotSupportedError
from xmux.dialects.memref_atomic import ATOMIC_KINDS, AtomicYieldOp, GenericAtomicRMWOp
from xmux.dialects.memref_ops import AssumeAlignmentOp
from xmux.runtime.interpreter import arith as _arith
from xmux.runtime.interpreter.errors import (
    DataRaceError,
    OutOfBoundsError,
    UninitializedReadError,
)
from xmux.runtime.interpreter.values import int_width, storage_dtype, to_signed

LOCAL_SPACE = 3
_ADDR_SHIFT = 40
_ids = itertools.count(1)
_by_id: weakref.WeakValueDictionary[int, Allocation] = weakref.WeakValueDictionary()


def memory_space(t: Attribute) -> int:
    ms = getattr(t, "memory_space", None)
    if ms is None or isinstance(ms, NoneAttr):
        return 0
    v = getattr(ms, "value", None)
    return int(v.data) if v is not None else 0


class RaceState:
    """Per element (first byte): the last writer and the last two distinct readers, each
    with the work-group and sub-group barrier epochs of the access."""

    __slots__ = ("w", "r1", "r2")

    def __init__(self, nbytes: int) -> None:
        self.w = np.full((nbytes, 3), -1, dtype=np.int64)
        self.r1 = np.full((nbytes, 3), -1, dtype=np.int64)
        self.r2 = np.full((nbytes, 3), -1, dtype=np.int64)


class Allocation:
    """A byte buffer; ``views`` caches typed numpy views at a byte position."""

    __slots__ = ("raw", "name", "space", "init", "race", "views", "id", "__weakref__")

    def __init__(self, raw: np.ndarray, name: str, space: int = 0, *, local: bool = False,
                 races: bool = False) -> None:
        self.raw = raw
        self.name = name
        self.space = space
        #: work-group local memory: 1 per byte some work-item of the group wrote (a
        #: bytearray: ``find(0, lo, hi)`` checks an element at C speed)
        self.init = bytearray(raw.size) if local else None
        self.race = RaceState(raw.size) if local and races else None
        self.views: dict[tuple[np.dtype, int], np.ndarray] = {}
        self.id = next(_ids)
        _by_id[self.id] = self

    @classmethod
    def new(cls, nbytes: int, name: str, space: int = 0, **kw: bool) -> Allocation:
        return cls(np.zeros(max(nbytes, 1), dtype=np.uint8)[:nbytes], name, space, **kw)

    def view(self, dtype: np.dtype, base: int) -> np.ndarray:
        key = (dtype, base)
        v = self.views.get(key)
        if v is None:
            n = max(0, (self.raw.size - base) // dtype.itemsize)
            v = self.raw[base : base + n * dtype.itemsize].view(dtype)
            self.views[key] = v
        return v

    @property
    def address(self) -> int:
        return self.id << _ADDR_SHIFT


def resolve_address(addr: int, interp) -> tuple[Allocation, int]:
    alloc = _by_id.get(addr >> _ADDR_SHIFT)
    if alloc is None:
        raise OutOfBoundsError(f"pointer {addr:#x} points to no live buffer at {interp.where()}")
    return alloc, addr & ((1 << _ADDR_SHIFT) - 1)


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= s
    return tuple(reversed(strides))


class MemRef:
    """A memref value: allocation, dtype, aligned byte position, offset/sizes/strides."""

    __slots__ = ("alloc", "dtype", "base", "offset", "shape", "strides", "is_int", "_view",
                 "_safe")

    def __init__(self, alloc: Allocation, dtype: np.dtype, base: int, offset: int,
                 shape: tuple[int, ...], strides: tuple[int, ...], is_int: bool) -> None:
        self.alloc = alloc
        self.dtype = dtype
        self.base = base
        self.offset = offset
        self.shape = shape
        self.strides = strides
        self.is_int = is_int
        self._view: np.ndarray | None = None
        #: every in-shape index lands in the buffer (checked once, on first access)
        self._safe: bool | None = None

    @property
    def view(self) -> np.ndarray:
        """The typed numpy view of the buffer from the aligned pointer on."""
        v = self._view
        if v is None:
            v = self._view = self.alloc.view(self.dtype, self.base)
        return v

    def with_layout(self, offset: int, shape, strides, dtype=None, base=None, is_int=None):
        return MemRef(self.alloc, self.dtype if dtype is None else dtype,
                      self.base if base is None else base, offset, tuple(shape), tuple(strides),
                      self.is_int if is_int is None else is_int)

    def element(self, idx: tuple[int, ...], interp, what: str) -> int:
        """Linear element index of ``idx`` (checked against the shape and the buffer)."""
        shape, strides = self.shape, self.strides
        n = len(idx)
        if n == 1:
            i = idx[0]
            if i >= shape[0]:
                raise self._oob(idx, interp, what)
            off = self.offset + i * strides[0]
        elif n == 2:
            i, j = idx
            if i >= shape[0] or j >= shape[1]:
                raise self._oob(idx, interp, what)
            off = self.offset + i * strides[0] + j * strides[1]
        else:
            off = self.offset
            for i, d, st in zip(idx, shape, strides, strict=True):
                if i >= d:
                    raise self._oob(idx, interp, what)
                off += i * st
        safe = self._safe
        if safe is None:
            safe = self._safe = self._extent_fits()
        if not safe and (off < 0 or off >= len(self.view)):
            raise self._oob(idx, interp, what, buffer=True)
        return off

    def _extent_fits(self) -> bool:
        if any(d == 0 for d in self.shape):
            return True
        low = self.offset + sum((d - 1) * s for d, s in zip(self.shape, self.strides,
                                                             strict=True) if s < 0)
        high = self.offset + sum((d - 1) * s for d, s in zip(self.shape, self.strides,
                                                              strict=True) if s > 0)
        return low >= 0 and high < len(self.view)

    def _oob(self, idx, interp, what: str, buffer: bool = False) -> OutOfBoundsError:
        shown = [to_signed(i, 64) for i in idx]
        why = "outside its buffer" if buffer else f"outside the shape {list(self.shape)}"
        return OutOfBoundsError(
            f"out-of-bounds {what} at index {shown} of {self.alloc.name} ({why}) at "
            f"{interp.where()}"
        )

    def ndarray(self) -> np.ndarray:
        """A numpy view of the elements (strided, zero-copy)."""
        flat = self.alloc.view(self.dtype, self.base)
        if any(s == 0 for s in self.shape):
            return np.zeros(self.shape, dtype=self.dtype)
        return np.lib.stride_tricks.as_strided(
            flat[self.offset :] if self.offset >= 0 else flat, shape=self.shape,
            strides=[s * self.dtype.itemsize for s in self.strides],
        )


def from_array(arr: np.ndarray, name: str, elem: Attribute) -> MemRef:
    """A kernel argument: the array's memory as a byte buffer (any strides, zero-copy)."""
    dtype = storage_dtype(elem)
    item = arr.itemsize
    low_index = tuple(n - 1 if st < 0 else 0 for n, st in zip(arr.shape, arr.strides, strict=True))
    if arr.size == 0:
        return MemRef(Allocation.new(0, name), dtype, 0, 0, arr.shape,
                      tuple(s // item for s in arr.strides), int_width(elem) is not None)
    start = arr[tuple(slice(i, i + 1) for i in low_index)] if arr.ndim else arr
    span = sum((n - 1) * abs(st) for n, st in zip(arr.shape, arr.strides, strict=True)) + item
    raw = np.lib.stride_tricks.as_strided(start.reshape(-1)[:1].view(np.uint8),
                                          shape=(span,), strides=(1,))
    offset = sum((n - 1) * -st for n, st in zip(arr.shape, arr.strides, strict=True) if st < 0)
    return MemRef(Allocation(raw, name), dtype, 0, offset // item, arr.shape,
                  tuple(s // item for s in arr.strides), int_width(elem) is not None)


def new_memref(t: MemRefType, dyn: tuple[int, ...], name: str, *, local: bool = False,
               races: bool = False) -> MemRef:
    it = iter(dyn)
    shape = tuple(next(it) if s == DYNAMIC_INDEX else s for s in t.get_shape())
    dtype = storage_dtype(t.element_type)
    space = memory_space(t)
    alloc = Allocation.new(math.prod(shape) * dtype.itemsize, name, space, local=local,
                           races=races)
    return MemRef(alloc, dtype, 0, 0, shape, contiguous_strides(shape),
                  int_width(t.element_type) is not None)


def type_layout(t: MemRefType, shape: tuple[int, ...]) -> tuple[int | None, list[int | None]]:
    """(offset, strides) of a memref type (None where dynamic)."""
    if isinstance(t.layout, StridedLayoutAttr):
        strides = [None if s is None else int(s) for s in t.layout.get_strides()]
        off = t.layout.get_offset()
        return (None if off is None else int(off)), strides
    return 0, list(contiguous_strides(shape))


# -- checked element access ---------------------------------------------------------------


def _check_local_read(m: MemRef, off: int, interp, what: str) -> None:
    a = m.alloc
    b = m.base + off * m.dtype.itemsize
    if a.init is not None and a.init.find(0, b, b + m.dtype.itemsize) != -1:
        raise UninitializedReadError(
            f"{what} of uninitialised work-group local memory: element {off} of {a.name} "
            f"was not written by any work-item of this group, at {interp.where()}"
        )


def _race(m: MemRef, off: int, interp, write: bool) -> None:
    st = m.alloc.race
    wi = interp.wi
    if st is None or wi is None:
        return
    b = m.base + off * m.dtype.itemsize
    me = (wi.llid, wi.group.epoch, wi.sg_epoch)

    def clash(rec: np.ndarray) -> bool:
        item = int(rec[0])
        if item < 0 or item == me[0] or int(rec[1]) != me[1]:
            return False
        return not (wi.same_sub_group(item) and int(rec[2]) != me[2])

    others = [("written", st.w[b])]
    if write:
        others += [("read", st.r1[b]), ("read", st.r2[b])]
    for how, rec in others:
        if clash(rec):
            other = wi.group.items[int(rec[0])].describe()
            raise DataRaceError(
                f"data race on work-group local memory: element {off} of {m.alloc.name} "
                f"{how} by {other} and {'written' if write else 'read'} without a barrier "
                f"in between, at {interp.where()}"
            )
    if write:
        st.w[b] = me
    elif int(st.r1[b][0]) != me[0]:
        st.r2[b] = st.r1[b]
        st.r1[b] = me
    else:
        st.r1[b] = me


def load(m: MemRef, idx: tuple[int, ...], interp, atomic: bool = False) -> Any:
    off = m.element(idx, interp, "load")
    if m.alloc.init is not None:
        _check_local_read(m, off, interp, "read")
        if not atomic:
            _race(m, off, interp, False)
    v = m.view[off]
    return int(v) if m.is_int else v


def store(m: MemRef, idx: tuple[int, ...], value: Any, interp, atomic: bool = False) -> None:
    off = m.element(idx, interp, "store")
    a = m.alloc
    if a.init is not None:
        if not atomic:
            _race(m, off, interp, True)
        b = m.base + off * m.dtype.itemsize
        a.init[b : b + m.dtype.itemsize] = _ONES[m.dtype.itemsize]
    m.view[off] = value


_ONES = {n: b"\x01" * n for n in (1, 2, 4, 8, 16)}


def mark_initialised(m: MemRef) -> None:
    """Every element of ``m`` counts as written (the destination of a copy)."""
    init = m.alloc.init
    if init is not None and all(s > 0 for s in m.shape):
        isz = m.dtype.itemsize
        for idx in itertools.product(*(range(s) for s in m.shape)):
            b = m.base + (m.offset + sum(i * s for i, s in zip(idx, m.strides, strict=True))) * isz
            init[b : b + isz] = b"\x01" * isz


# -- atomics (memref.atomic_rmw kinds as MLIR's arith::AtomicRMWKind) ---------------------


def atomic_combine(kind: str, old: Any, v: Any, w: int | None) -> Any:
    if kind == "assign":
        return v
    if kind == "addf":
        return old + v
    if kind == "mulf":
        return old * v
    if kind in ("maximumf", "minimumf", "maxnumf", "minnumf"):
        return getattr(_arith, kind)(old, v)
    assert w is not None
    m = (1 << w) - 1
    return {
        "addi": lambda: (old + v) & m,
        "muli": lambda: (old * v) & m,
        "ori": lambda: old | v,
        "andi": lambda: old & v,
        "xori": lambda: old ^ v,
        "maxs": lambda: old if to_signed(old, w) >= to_signed(v, w) else v,
        "mins": lambda: old if to_signed(old, w) <= to_signed(v, w) else v,
        "maxu": lambda: max(old, v),
        "minu": lambda: min(old, v),
    }[kind]()


def _mixed(static, dynamic) -> list[int]:
    it = iter(dynamic)
    return [next(it) if s == DYNAMIC_INDEX else s for s in static.get_values()]


class MemrefFunctions(InterpreterFunctions):
    """memref.* over ``MemRef`` values."""

    @impl(memref.LoadOp)
    def run_load(self, interp, op, args):
        m = args[0]
        a = m.alloc
        if m._safe and a.race is None:  # fast path: in-shape index, no race bookkeeping
            n = len(args)
            shape, strides = m.shape, m.strides
            off = -1
            if n == 2:
                if args[1] < shape[0]:
                    off = m.offset + args[1] * strides[0]
            elif n == 3:
                if args[1] < shape[0] and args[2] < shape[1]:
                    off = m.offset + args[1] * strides[0] + args[2] * strides[1]
            if off >= 0:
                init = a.init
                isz = m.dtype.itemsize
                b = m.base + off * isz
                if init is None or init.find(0, b, b + isz) == -1:
                    v = m._view[off]
                    return (int(v) if m.is_int else v,)
        return (load(m, args[1:], interp),)

    @impl(memref.StoreOp)
    def run_store(self, interp, op, args):
        m = args[1]
        a = m.alloc
        if m._safe and a.race is None:  # fast path, as in run_load
            n = len(args)
            shape, strides = m.shape, m.strides
            off = -1
            if n == 3:
                if args[2] < shape[0]:
                    off = m.offset + args[2] * strides[0]
            elif n == 4:
                if args[2] < shape[0] and args[3] < shape[1]:
                    off = m.offset + args[2] * strides[0] + args[3] * strides[1]
            if off >= 0:
                m._view[off] = args[0]
                if a.init is not None:
                    isz = m.dtype.itemsize
                    b = m.base + off * isz
                    a.init[b : b + isz] = _ONES[isz]
                return ()
        store(m, args[2:], args[0], interp)
        return ()

    @impl(memref.AllocOp)
    def run_alloc(self, interp, op: memref.AllocOp, args):
        return (new_memref(op.memref.type, args, "a memref.alloc buffer"),)

    @impl(memref.AllocaOp)
    def run_alloca(self, interp, op: memref.AllocaOp, args):
        t = op.memref.type
        local = memory_space(t) == LOCAL_SPACE
        return (new_memref(t, args, "a private memref.alloca buffer", local=local),)

    @impl(memref.DeallocOp)
    def run_dealloc(self, interp, op, args):
        return ()

    @impl(memref.GetGlobalOp)
    def run_get_global(self, interp, op: memref.GetGlobalOp, args):
        return (interp.global_memref(op),)

    @impl(memref.CastOp)
    def run_cast(self, interp, op, args):
        return (args[0],)

    @impl(memref.DimOp)
    def run_dim(self, interp, op, args):
        m, d = args
        if d >= len(m.shape):
            raise OutOfBoundsError(f"memref.dim {d} of a rank-{len(m.shape)} memref at "
                                   f"{interp.where()}")
        return (m.shape[d],)

    @impl(memref.RankOp)
    def run_rank(self, interp, op, args):
        return (len(args[0].shape),)

    @impl(memref.SubviewOp)
    def run_subview(self, interp, op: memref.SubviewOp, args):
        src: MemRef = args[0]
        n_off, n_size = len(op.offsets), len(op.sizes)
        offs = _mixed(op.static_offsets, args[1 : 1 + n_off])
        sizes = _mixed(op.static_sizes, args[1 + n_off : 1 + n_off + n_size])
        strides = _mixed(op.static_strides, args[1 + n_off + n_size :])
        for d, (o, s, st) in enumerate(zip(offs, sizes, strides, strict=True)):
            if s and o + (s - 1) * st >= src.shape[d]:
                raise OutOfBoundsError(
                    f"memref.subview reaches beyond dimension {d} (size {src.shape[d]}): offset "
                    f"{o}, size {s}, stride {st} at {interp.where()}"
                )
        offset = src.offset + sum(o * s for o, s in zip(offs, src.strides, strict=True))
        out_shape = [s for s in sizes]
        out_strides = [st * s for st, s in zip(strides, src.strides, strict=True)]
        rshape = op.result.type.get_shape()
        drop = len(out_shape) - len(rshape)
        keep_shape, keep_strides, j = [], [], 0
        for d, s in enumerate(out_shape):
            left_src, left_res = len(out_shape) - d, len(rshape) - j
            if drop and s == 1 and (left_src > left_res) and not (
                j < len(rshape) and rshape[j] == 1 and left_src == left_res
            ):
                drop -= 1
                continue
            keep_shape.append(s)
            keep_strides.append(out_strides[d])
            j += 1
        return (src.with_layout(offset, keep_shape, keep_strides),)

    @impl(memref.ReinterpretCastOp)
    def run_reinterpret_cast(self, interp, op: memref.ReinterpretCastOp, args):
        src: MemRef = args[0]
        n_off, n_size = len(op.offsets), len(op.sizes)
        offs = _mixed(op.static_offsets, args[1 : 1 + n_off])
        sizes = _mixed(op.static_sizes, args[1 + n_off : 1 + n_off + n_size])
        strides = _mixed(op.static_strides, args[1 + n_off + n_size :])
        return (src.with_layout(offs[0], sizes, strides),)

    @impl(memref.ViewOp)
    def run_view(self, interp, op: memref.ViewOp, args):
        src: MemRef = args[0]
        shift = args[1]
        t = op.result.type
        it = iter(args[2:])
        shape = tuple(next(it) if s == DYNAMIC_INDEX else s for s in t.get_shape())
        dtype = storage_dtype(t.element_type)
        base = src.base + src.offset * src.dtype.itemsize + shift
        nbytes = math.prod(shape) * dtype.itemsize
        if base + nbytes > src.alloc.raw.size:
            raise OutOfBoundsError(
                f"memref.view of {nbytes} bytes at byte {base} reaches beyond {src.alloc.name} "
                f"({src.alloc.raw.size} bytes) at {interp.where()}"
            )
        return (MemRef(src.alloc, dtype, base, 0, shape, contiguous_strides(shape),
                       int_width(t.element_type) is not None),)

    @impl(memref.CollapseShapeOp)
    def run_collapse_shape(self, interp, op, args):
        src: MemRef = args[0]
        sizes, strides = [], []
        for group in _groups(op):
            sizes.append(math.prod(src.shape[i] for i in group))
            strides.append(src.strides[group[-1]] if group else 1)
        return (src.with_layout(src.offset, sizes, strides),)

    @impl(memref.ExpandShapeOp)
    def run_expand_shape(self, interp, op, args):
        src: MemRef = args[0]
        out = _mixed(op.static_output_shape, args[1:])
        strides = [0] * len(out)
        for d, group in enumerate(_groups(op)):
            running = src.strides[d]
            for i in reversed(group):
                strides[i] = running
                running *= out[i]
        return (src.with_layout(src.offset, out, strides),)

    @impl(memref.ExtractStridedMetaDataOp)
    def run_extract_strided_metadata(self, interp, op, args):
        src: MemRef = args[0]
        base = src.with_layout(0, (), ())
        return (base, src.offset, *src.shape, *src.strides)

    @impl(memref.ExtractAlignedPointerAsIndexOp)
    def run_extract_aligned_pointer(self, interp, op, args):
        src: MemRef = args[0]
        return (src.alloc.address + src.base,)

    @impl(memref.AtomicRMWOp)
    def run_atomic_rmw(self, interp, op: memref.AtomicRMWOp, args):
        v, m, *idx = args
        kind = ATOMIC_KINDS.get(op.kind.value.data)
        if kind is None:
            raise NotSupportedError(f"memref.atomic_rmw kind {op.kind.value.data} at "
                                    f"{interp.where()}")
        old = load(m, tuple(idx), interp, atomic=True)
        new = atomic_combine(kind, old, v, int_width(op.value.type))
        store(m, tuple(idx), new, interp, atomic=True)
        return (old,)

    @impl(GenericAtomicRMWOp)
    def run_generic_atomic_rmw(self, interp, op, args):
        # the body runs between the atomic load and store: it cannot reach a barrier, so no
        # other work-item runs in between (the update is atomic, as the cmpxchg loop makes it)
        m, *idx = args
        old = load(m, tuple(idx), interp, atomic=True)
        (new,) = interp.run_ssacfg_region(op.body, (old,))
        store(m, tuple(idx), new, interp, atomic=True)
        return (old,)

    @impl_terminator(AtomicYieldOp)
    def run_atomic_yield(self, interp, op, args):
        return ReturnedValues(args), ()

    @impl(memref.MemorySpaceCastOp)
    def run_memory_space_cast(self, interp, op, args):
        return (args[0],)  # one memory: the space is only a type

    @impl(AssumeAlignmentOp)
    def run_assume_alignment(self, interp, op, args):
        return ()  # a promise about addresses the interpreter does not model

    @impl(memref.AllocaScopeOp)
    def run_alloca_scope(self, interp, op, args):
        return interp.run_ssacfg_region(op.scope, ())

    @impl_terminator(memref.AllocaScopeReturnOp)
    def run_alloca_scope_return(self, interp, op, args):
        return ReturnedValues(args), ()


def _groups(op) -> list[list[int]]:
    reassoc = op.properties["reassociation"]
    return [[e.value.data for e in g.data] for g in reassoc.data]


if hasattr(memref, "CopyOp"):

    def _run_copy(self, interp, op, args):
        src, dst = args
        if src.shape != dst.shape:
            raise OutOfBoundsError(f"memref.copy between shapes {list(src.shape)} and "
                                   f"{list(dst.shape)} at {interp.where()}")
        for m, what in ((src, "copy source"), (dst, "copy destination")):
            if all(s > 0 for s in m.shape):
                m.element(tuple(s - 1 for s in m.shape), interp, what)
                m.element(tuple(0 for _ in m.shape), interp, what)
        if src.alloc.init is not None:
            for idx in itertools.product(*(range(s) for s in src.shape)):
                _check_local_read(src, src.element(idx, interp, "copy"), interp, "copy")
        dst.ndarray()[...] = src.ndarray()
        mark_initialised(dst)
        return ()

    MemrefFunctions.run_copy = impl(memref.CopyOp)(_run_copy)  # type: ignore[attr-defined]

register_impls(MemrefFunctions)


# -- globals -------------------------------------------------------------------------------


def global_initial(op: memref.GlobalOp, name: str) -> MemRef:
    """A non-local ``memref.global``'s buffer with its initial value."""
    t = op.type
    m = new_memref(t, (), name)
    init = op.initial_value
    if isinstance(init, DenseIntOrFPElementsAttr):
        values = init.get_values()
        arr = m.ndarray()
        if int_width(t.element_type) is not None:
            w = int_width(t.element_type)
            flat = np.array([int(v) & ((1 << w) - 1) for v in values], dtype=object)
        else:
            flat = np.array(values)
        if flat.size == 1:
            arr[...] = flat.astype(m.dtype)[0]
        else:
            arr[...] = flat.astype(m.dtype).reshape(arr.shape)
    elif not isinstance(init, UnitAttr | NoneAttr):
        raise NotSupportedError(f"memref.global @{op.sym_name.data}: initial value {init}")
    return m


# -- DMA ---------------------------------------------------------------------------------


def dma_copy(interp, dst: MemRef, src: MemRef, width: int, rows: list[tuple[int, int]]) -> None:
    """Copy ``width`` bytes per (dst byte offset, src byte offset) row, from the memrefs'
    first elements; bounds-checked against each buffer."""
    d0 = dst.base + dst.offset * dst.dtype.itemsize
    s0 = src.base + src.offset * src.dtype.itemsize
    for dr, sr in rows:
        d, s = d0 + dr, s0 + sr
        for m, b, what in ((dst, d, "destination"), (src, s, "source")):
            if b < 0 or b + width > m.alloc.raw.size:
                raise OutOfBoundsError(
                    f"DMA {what} bytes [{b}, {b + width}) outside {m.alloc.name} "
                    f"({m.alloc.raw.size} bytes) at {interp.where()}"
                )
        if src.alloc.init is not None and src.alloc.init.find(0, s, s + width) != -1:
            raise UninitializedReadError(
                f"DMA read of uninitialised work-group local memory (bytes [{s}, "
                f"{s + width}) of {src.alloc.name}) at {interp.where()}"
            )
        dst.alloc.raw[d : d + width] = src.alloc.raw[s : s + width]
        if dst.alloc.init is not None:
            dst.alloc.init[d : d + width] = b"\x01" * width
