"""Type converter of convert-to-llvm: builtin types → llvm-dialect-compatible types.

- ``index`` → ``i64``; integer and float types stay; ``vector<NxT>`` (1-D) → ``vector<Nx conv(T)>``.
- ``memref<...xT>`` of rank R → MLIR's descriptor
  ``!llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>`` = (allocated, aligned,
  offset, sizes, strides), in elements; rank 0 → ``!llvm.struct<(ptr, ptr, i64)>``.
- ``memref<*xT>`` → ``!llvm.struct<(i64, ptr)>`` = (rank, pointer to a ranked descriptor).
- ``complex<T>`` → ``!llvm.struct<(T, T)>`` (real, imaginary: C's and numpy's layout).
- llvm types are kept.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ComplexType,
    FunctionType,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
    Signedness,
    StridedLayoutAttr,
    UnrankedMemRefType,
    VectorType,
    i64,
)
from xdsl.ir import Attribute

from xmux.abi.errors import NotSupportedError
from xmux.dialects.llvmx import descriptor_type  # the layout upstream's lowering uses

PTR = llvm.LLVMPointerType()
UNRANKED_DESCRIPTOR = llvm.LLVMStructType.from_type_list([i64, PTR])

# Field positions in a ranked descriptor.
ALLOCATED, ALIGNED, OFFSET, SIZES, STRIDES = 0, 1, 2, 3, 4


def convert_type(t: Attribute) -> Attribute:
    """The llvm-dialect type a value of builtin type ``t`` has after conversion."""
    if isinstance(t, IndexType):
        return i64
    if isinstance(t, IntegerType):
        if t.signedness.data != Signedness.SIGNLESS:
            raise NotSupportedError(f"convert-to-llvm: signed/unsigned integer type {t}")
        return t
    if isinstance(t, AnyFloat):
        return t
    if isinstance(t, ComplexType):
        elem = convert_type(t.element_type)
        return llvm.LLVMStructType.from_type_list([elem, elem])
    if isinstance(t, VectorType):
        if t.get_num_dims() != 1 or t.get_num_scalable_dims():
            raise NotSupportedError(
                f"convert-to-llvm: only 1-D fixed vectors are supported, got {t}"
            )
        elem = convert_type(t.element_type)
        return t if elem == t.element_type else VectorType(elem, t.get_shape())
    if isinstance(t, MemRefType):
        return descriptor_type(t.get_num_dims())
    if isinstance(t, UnrankedMemRefType):
        return UNRANKED_DESCRIPTOR
    if isinstance(t, (llvm.LLVMStructType, llvm.LLVMPointerType, llvm.LLVMArrayType)):
        return t
    if isinstance(t, (llvm.LLVMFunctionType, llvm.LLVMVoidType)):
        return t
    if isinstance(t, FunctionType):
        raise NotSupportedError(f"convert-to-llvm: function values ({t}) are not supported")
    raise NotSupportedError(f"convert-to-llvm: type {t} has no llvm lowering")


def convert_types(types: object) -> list[Attribute]:
    return [convert_type(t) for t in types]  # type: ignore[union-attr]


def function_type(inputs: list[Attribute], outputs: list[Attribute]) -> llvm.LLVMFunctionType:
    """llvm function type of converted inputs/outputs (several results are packed in a struct)."""
    return llvm.LLVMFunctionType(inputs, result_type(outputs))


def result_type(outputs: list[Attribute]) -> Attribute:
    if not outputs:
        return llvm.LLVMVoidType()
    if len(outputs) == 1:
        return outputs[0]
    return llvm.LLVMStructType.from_type_list(outputs)


def is_dynamic(v: int | None) -> bool:
    return v is None or v == DYNAMIC_INDEX


def memref_strides(t: MemRefType) -> tuple[list[int | None], int | None]:
    """Static strides and offset of a memref type (None where dynamic).

    Only identity and ``strided<...>`` layouts are supported (what numpy arrays produce).
    """
    layout = t.layout
    if not isinstance(layout, (NoneAttr, StridedLayoutAttr)):
        raise NotSupportedError(
            f"convert-to-llvm: memref layout {layout} is not supported (use strided<...>)"
        )
    strides = t.get_strides()
    assert strides is not None
    return [None if is_dynamic(s) else s for s in strides], (
        None if is_dynamic(t.get_offset()) else t.get_offset()
    )


def element_type(t: MemRefType | UnrankedMemRefType) -> Attribute:
    return convert_type(t.get_element_type())


def scalar_bytes(t: Attribute) -> int | None:
    """Allocation size in bytes of a scalar or vector element type, None if unknown here."""
    if isinstance(t, IndexType):
        return 8
    if isinstance(t, IntegerType):
        w = t.width.data
        if w <= 8:
            return 1
        n = 1
        while n * 8 < w:
            n *= 2
        return n
    if isinstance(t, AnyFloat):
        return {16: 2, 32: 4, 64: 8}.get(t.bitwidth)
    if isinstance(t, VectorType):
        inner = scalar_bytes(t.element_type)
        if (
            inner is None
            or isinstance(t.element_type, IntegerType)
            and t.element_type.width.data < 8
        ):
            return None
        total = inner * t.get_shape()[0]
        n = 1
        while n < total:
            n *= 2
        return n
    if isinstance(t, llvm.LLVMPointerType):
        return 8
    if isinstance(t, ComplexType):
        inner = scalar_bytes(t.element_type)
        return None if inner is None else 2 * inner
    return None


def alignment_of(t: Attribute) -> int:
    """ABI alignment of a memref element (what numpy guarantees for its arrays)."""
    if isinstance(t, VectorType | ComplexType):
        return scalar_bytes(t.element_type) or 1
    return scalar_bytes(t) or 1


def intrinsic_suffix(t: Attribute) -> str:
    """LLVM's overload suffix of a converted type: ``i32``, ``f64``, ``v4f32``."""
    if isinstance(t, VectorType):
        return f"v{t.get_shape()[0]}{intrinsic_suffix(t.element_type)}"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    if isinstance(t, AnyFloat):
        return f"f{t.bitwidth}"
    if isinstance(t, llvm.LLVMPointerType):
        return "p0"
    raise NotSupportedError(f"convert-to-llvm: no intrinsic overload for type {t}")


def scalar_of(t: Attribute) -> Attribute:
    """Element type of a vector type, the type itself otherwise."""
    return t.element_type if isinstance(t, VectorType) else t


def vector_length(t: Attribute) -> int | None:
    return t.get_shape()[0] if isinstance(t, VectorType) else None
