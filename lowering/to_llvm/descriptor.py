"""Reading and building memref descriptors (MLIR's layout, see types.py).

Static sizes, strides and offsets from the memref type are used as constants; dynamic ones are
extracted from the descriptor. ``element_ptr`` linearizes indices as
``aligned + offset + Σ idx·stride`` with one ``inbounds`` GEP.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, MemRefType, i64
from xdsl.ir import Attribute, SSAValue

from xmux.dialects import llvm as llvm_ext
from xmux.lowering.to_llvm.core import FunctionLowerer
from xmux.lowering.to_llvm.types import (
    ALIGNED,
    ALLOCATED,
    OFFSET,
    PTR,
    SIZES,
    STRIDES,
    descriptor_type,
    element_type,
    is_dynamic,
    memref_strides,
)

Index = int | SSAValue


@cache  # attributes are immutable: one per position (xDSL builds one in ~40 µs)
def _pos(*p: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(p))


class MemRefDescriptor:
    """A converted memref value with its source type."""

    def __init__(self, lw: FunctionLowerer, value: SSAValue, mtype: MemRefType):
        self.lw = lw
        self.value = value
        self.type = mtype
        self.rank = mtype.get_num_dims()
        self.static_strides, self.static_offset = memref_strides(mtype)

    @staticmethod
    def of(lw: FunctionLowerer, src: SSAValue) -> MemRefDescriptor:
        assert isinstance(src.type, MemRefType)
        return MemRefDescriptor(lw, lw.get(src), src.type)

    # -- fields ----------------------------------------------------------------------

    def _extract(self, t: Attribute, *pos: int) -> SSAValue:
        return self.lw.emit_value(llvm.ExtractValueOp(_pos(*pos), self.value, t))

    def allocated(self) -> SSAValue:
        return self._extract(PTR, ALLOCATED)

    def aligned(self) -> SSAValue:
        return self._extract(PTR, ALIGNED)

    def offset(self) -> Index:
        if self.static_offset is not None:
            return self.static_offset
        return self._extract(i64, OFFSET)

    def size(self, i: int) -> Index:
        s = self.type.get_shape()[i]
        if not is_dynamic(s):
            return s
        return self._extract(i64, SIZES, i)

    def stride(self, i: int) -> Index:
        s = self.static_strides[i]
        if s is not None:
            return s
        return self._extract(i64, STRIDES, i)

    def sizes(self) -> list[Index]:
        return [self.size(i) for i in range(self.rank)]

    def strides(self) -> list[Index]:
        return [self.stride(i) for i in range(self.rank)]

    def element_ptr(self, indices: Sequence[SSAValue]) -> SSAValue:
        """Address of the element at ``indices`` (converted i64 values)."""
        lw = self.lw
        linear: Index = self.offset()
        for i, idx in enumerate(indices):
            linear = add(lw, linear, mul(lw, idx, self.stride(i)))
        base = self.aligned()
        if isinstance(linear, int) and linear == 0:
            return base
        return lw.emit_value(
            llvm.GEPOp.from_mixed_indices(
                base, [as_value(lw, linear)], element_type(self.type), inbounds=True
            )
        )

    # -- building --------------------------------------------------------------------

    @staticmethod
    def build(
        lw: FunctionLowerer,
        mtype: MemRefType,
        allocated: SSAValue,
        aligned: SSAValue,
        offset: Index,
        sizes: Sequence[Index],
        strides: Sequence[Index],
    ) -> SSAValue:
        rank = mtype.get_num_dims()
        assert len(sizes) == rank and len(strides) == rank
        d = lw.emit_value(llvm.UndefOp(descriptor_type(rank)))

        def ins(value: Index, *pos: int) -> None:
            nonlocal d
            d = lw.emit_value(llvm.InsertValueOp(_pos(*pos), d, as_value(lw, value)))

        ins(allocated, ALLOCATED)
        ins(aligned, ALIGNED)
        ins(offset, OFFSET)
        for i, s in enumerate(sizes):
            ins(s, SIZES, i)
        for i, s in enumerate(strides):
            ins(s, STRIDES, i)
        return d


def contiguous_strides(lw: FunctionLowerer, sizes: Sequence[Index]) -> list[Index]:
    """Row-major strides of the given sizes."""
    strides: list[Index] = [1] * len(sizes)
    for i in reversed(range(len(sizes) - 1)):
        strides[i] = mul(lw, strides[i + 1], sizes[i + 1])
    return strides


def as_value(lw: FunctionLowerer, v: Index) -> SSAValue:
    return lw.const(v) if isinstance(v, int) else v


def add(lw: FunctionLowerer, a: Index, b: Index) -> Index:
    """a + b on i64, folding constants (nsw: index arithmetic of addresses does not wrap)."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(a, int) and a == 0:
        return b
    if isinstance(b, int) and b == 0:
        return a
    return lw.emit_value(llvm_ext.AddOp(as_value(lw, a), as_value(lw, b), overflow=_NSW))


def mul(lw: FunctionLowerer, a: Index, b: Index) -> Index:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if isinstance(a, int) and a == 1:
        return b
    if isinstance(b, int) and b == 1:
        return a
    if (isinstance(a, int) and a == 0) or (isinstance(b, int) and b == 0):
        return 0
    return lw.emit_value(llvm_ext.MulOp(as_value(lw, a), as_value(lw, b), overflow=_NSW))


_NSW = llvm.OverflowAttr((llvm.OverflowFlag.NO_SIGNED_WRAP,))
