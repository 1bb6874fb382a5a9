"""ctypes mirrors of the kernel ABI (docs/architecture.md, "Contracts").

The compiled entry hook is ``void <k>.mux-entry-hook(ptr packed_args, ptr schedule_info)``.
The packed-argument struct holds each kernel argument in order with natural C alignment; a
memref is stored as MLIR's descriptor (allocated, aligned, offset, sizes[R], strides[R]), sizes
and strides counted in elements. ctypes lays structs out like C, which is what LLVM's default
x86-64/aarch64 data layout does for these field types.
"""

from __future__ import annotations

import ctypes
from functools import cache

import numpy as np

from xmux.abi import kernel_layout as layout

SchedInfo = ctypes.c_int64 * layout.SCHED_NUM_FIELDS

ENTRY_HOOK_SUFFIX = ".mux-entry-hook"
EntryHookFn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)

#: MLIR element type spelling → numpy dtype name
MLIR_TO_DTYPE: dict[str, str] = {
    "i1": "bool",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "index": "int64",
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
}

_CTYPE: dict[str, type] = {
    "bool": ctypes.c_int8,  # i1 is stored as i8
    "int8": ctypes.c_int8,
    "int16": ctypes.c_int16,
    "int32": ctypes.c_int32,
    "int64": ctypes.c_int64,
    "uint8": ctypes.c_uint8,
    "uint16": ctypes.c_uint16,
    "uint32": ctypes.c_uint32,
    "uint64": ctypes.c_uint64,
    "float16": ctypes.c_uint16,  # bit pattern
    "float32": ctypes.c_float,
    "float64": ctypes.c_double,
}


def scalar_ctype(dtype: str) -> type:
    return _CTYPE[dtype]


@cache
def descriptor_ctype(rank: int) -> type[ctypes.Structure]:
    fields: list[tuple[str, type]] = [
        ("allocated", ctypes.c_void_p),
        ("aligned", ctypes.c_void_p),
        ("offset", ctypes.c_int64),
    ]
    if rank > 0:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRefDescriptor{rank}", (ctypes.Structure,), {"_fields_": fields})


@cache
def packed_args_ctype(layout: tuple[tuple[str, str, int], ...]) -> type[ctypes.Structure]:
    """A ctypes struct for the packed arguments; ``layout`` is (name, kind/dtype, rank) per arg."""
    fields: list[tuple[str, type]] = []
    for i, (_, what, rank) in enumerate(layout):
        fields.append((f"a{i}", descriptor_ctype(rank) if what == "memref" else _CTYPE[what]))
    return type("PackedArgs", (ctypes.Structure,), {"_fields_": fields})


#: struct module codes of the scalars in ``_CTYPE`` (same sizes; '@' aligns like C)
_STRUCT_CODE: dict[str, str] = {
    "bool": "b",
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint8": "B",
    "uint16": "H",
    "uint32": "I",
    "uint64": "Q",
    "float16": "H",
    "float32": "f",
    "float64": "d",
}


@cache
def packed_args_format(layout: tuple[tuple[str, str, int], ...]) -> str:
    """A ``struct`` format with the byte layout of ``packed_args_ctype(layout)`` (descriptors
    start with a pointer, so native alignment places them as C places the nested struct)."""
    codes = ["@"]
    for _, what, rank in layout:
        codes.append("PPq" + "q" * (2 * rank) if what == "memref" else _STRUCT_CODE[what])
    return "".join(codes)


def descriptor_fields(array: np.ndarray, offset: int = 0) -> list[int]:
    """The memref descriptor of ``array`` as ``packed_args_format`` values; ``offset``: the
    static offset of the memref type's layout (``ArgInfo.offset``), which the lowered kernel
    adds to every index, so the aligned pointer is that many elements before the array."""
    item = array.itemsize
    ptr = array.ctypes.data - offset * item
    return [ptr, ptr, offset, *array.shape, *(s // item for s in array.strides)]


def local_descriptor_fields(shape: list[int]) -> list[int]:
    """A local-memory argument: the shape only (null pointers, contiguous strides); the entry
    hook allocates the buffer of each slice and fills in the pointers."""
    strides = [1] * len(shape)
    for d in reversed(range(len(shape) - 1)):
        strides[d] = strides[d + 1] * shape[d + 1]
    return [0, 0, 0, *shape, *strides]


def layout_of(kernel: layout.KernelInfo) -> tuple[tuple[str, str, int], ...]:
    out = []
    for a in kernel.args:
        if a.kind in ("memref", "local"):
            out.append((a.name, "memref", len(a.shape or [])))
        else:
            out.append((a.name, a.dtype, 0))
    return tuple(out)


def schedule_info(
    global_size: tuple[int, int, int],
    global_offset: tuple[int, int, int],
    local_size: tuple[int, int, int],
    slice_index: int,
    total_slices: int,
    work_dim: int,
    cancel_word: int = 0,
) -> ctypes.Array:
    """One ``schedule_info`` row; ``cancel_word``: the address the entry hook polls before
    each work-group (``layout.SCHED_CANCEL``; 0: none)."""
    s = SchedInfo()
    for d in range(3):
        s[layout.SCHED_GLOBAL_SIZE + d] = global_size[d]
        s[layout.SCHED_GLOBAL_OFFSET + d] = global_offset[d]
        s[layout.SCHED_LOCAL_SIZE + d] = local_size[d]
    s[layout.SCHED_SLICE] = slice_index
    s[layout.SCHED_TOTAL_SLICES] = total_slices
    s[layout.SCHED_WORK_DIM] = work_dim
    s[layout.SCHED_CANCEL] = cancel_word
    return s
