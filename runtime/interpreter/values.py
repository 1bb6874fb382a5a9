"""How the interpreter represents values, and conversions between types and numpy.

- ``iN`` / ``index``: a Python ``int`` in *unsigned* canonical form ``[0, 2**N)`` (``index`` is
  64 bits, as the compiled path lowers it); ``i1`` is 0 or 1. Signless arith ops pick the
  interpretation (``to_signed``), so wrap-around is one mask.
- ``f16`` / ``f32`` / ``f64``: numpy scalars of that width, so every operation rounds as the
  type does (``f32`` math in Python floats would round as ``f64``).
- ``complex<f32/f64>``: numpy ``complex64`` / ``complex128`` scalars.
- ``vector<…xT>``: numpy arrays of the storage dtype below (``i1``: ``bool``).
- memrefs: ``memory.MemRef``; ``!llvm.ptr``: an ``int`` fake address (``memory.Addresses``);
  ``!llvm.struct`` / ``!llvm.array``: tuples.
Memory holds integers in their *unsigned* numpy dtype (``uint32`` for ``i32``), which is the
same bits as the user's signed arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ComplexType,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute

from xmux.abi.errors import NotSupportedError

FLOAT_DTYPES: dict[type, type[np.floating]] = {
    Float16Type: np.float16,
    Float32Type: np.float32,
    Float64Type: np.float64,
}
COMPLEX_DTYPES: dict[type, type[np.complexfloating]] = {
    Float32Type: np.complex64,
    Float64Type: np.complex128,
}
_UNSIGNED = {1: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def int_width(t: Attribute) -> int | None:
    """Bit width of an integer or index type (index = 64), else None."""
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    return None


def elem_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def mask(width: int) -> int:
    return (1 << width) - 1


def to_signed(v: int, width: int) -> int:
    """The signed value of an unsigned-canonical ``width``-bit integer."""
    return v - (1 << width) if v >> (width - 1) else v


def wrap(v: int, width: int) -> int:
    return v & ((1 << width) - 1)


def storage_dtype(t: Attribute) -> np.dtype:
    """numpy dtype of a memref element / vector lane of type ``t`` (integers unsigned)."""
    w = int_width(t)
    if w is not None:
        if w not in _UNSIGNED:
            raise NotSupportedError(f"interpreter: integer type {t} in memory is not supported")
        return np.dtype(_UNSIGNED[w])
    if type(t) in FLOAT_DTYPES:
        return np.dtype(FLOAT_DTYPES[type(t)])
    if isinstance(t, ComplexType) and type(t.element_type) in COMPLEX_DTYPES:
        return np.dtype(COMPLEX_DTYPES[type(t.element_type)])
    raise NotSupportedError(f"interpreter: element type {t} is not supported")


def vector_dtype(t: Attribute) -> np.dtype:
    """numpy dtype of the lanes of a vector of element type ``t`` (i1 lanes are bool)."""
    if isinstance(t, IntegerType) and t.width.data == 1:
        return np.dtype(np.bool_)
    return storage_dtype(t)


def from_python(value: Any, t: Attribute) -> Any:
    """A Python / numpy scalar given by the user (or an attribute) as a value of type ``t``."""
    w = int_width(t)
    if w is not None:
        return int(value) & mask(w)
    if type(t) in FLOAT_DTYPES:
        return FLOAT_DTYPES[type(t)](value)
    if isinstance(t, ComplexType) and type(t.element_type) in COMPLEX_DTYPES:
        return COMPLEX_DTYPES[type(t.element_type)](value)
    if isinstance(t, VectorType):
        return np.asarray(value).astype(vector_dtype(t.element_type)).reshape(t.get_shape())
    raise NotSupportedError(f"interpreter: values of type {t} are not supported")


def from_memory(v: Any, t: Attribute) -> Any:
    """An element read from memory (storage dtype) as a value of type ``t``."""
    if int_width(t) is not None:
        return int(v)
    return v


def attr_value(attr: Attribute, t: Attribute) -> Any:
    """The value of a constant attribute (arith.constant and friends) of type ``t``."""
    if isinstance(attr, IntegerAttr):
        return from_python(attr.value.data, t)
    if isinstance(attr, FloatAttr):
        return from_python(attr.value.data, t)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        values = attr.get_values()
        et = elem_type(t)
        shape = t.get_shape() if isinstance(t, VectorType) else attr.get_type().get_shape()
        if int_width(et) is not None:
            w = int_width(et)
            arr = np.array([int(v) & mask(w) for v in values], dtype=object)
            arr = arr.astype(vector_dtype(et))
        else:
            arr = np.array(values, dtype=vector_dtype(et))
        if arr.size == 1 and int(np.prod(shape)) != 1:
            arr = np.full(int(np.prod(shape)), arr[0], dtype=arr.dtype)
        arr = arr.reshape(shape)
        return arr if isinstance(t, VectorType) else arr
    raise NotSupportedError(f"interpreter: constant attribute {attr} is not supported")


def zero_of(t: Attribute) -> Any:
    """The zero value of type ``t`` (results of masked-off lanes etc.)."""
    if isinstance(t, VectorType):
        return np.zeros(t.get_shape(), dtype=vector_dtype(t.element_type))
    return from_python(0, t)


def show(v: Any) -> str:
    """A value for error messages."""
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=8)
    return repr(v.item()) if isinstance(v, np.generic) else repr(v)
