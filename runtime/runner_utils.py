"""``printMemref{F32,F64,I32,I64}`` for JIT-run host code, in MLIR runner-utils format.

MLIR's ``printMemrefF32(int64_t rank, void *descriptor)`` takes an unranked memref (rank and a
pointer to a ranked descriptor) and prints

    Unranked Memref base@ = 0x... rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
    [[1,   2,   3],
     [4,   5,   6]]

Elements are printed as C++ streams print them (``%g`` for floats). We implement the printers
as ctypes callbacks so the JIT resolves the symbols to Python.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

import numpy as np

from xmux.runtime import abi

PrintFn = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)

_ELEMENTS: dict[str, tuple[type, Callable[[object], str]]] = {
    "printMemrefF32": (ctypes.c_float, lambda v: f"{v:g}"),
    "printMemrefF64": (ctypes.c_double, lambda v: f"{v:g}"),
    "printMemrefI32": (ctypes.c_int32, str),
    "printMemrefI64": (ctypes.c_int64, str),
}


def format_memref(
    data: np.ndarray, base: int, offset: int, sizes: list[int], strides: list[int], fmt
) -> str:
    """Text of one memref as MLIR's printMemref* writes it (``data`` is a flat view)."""
    rank = len(sizes)
    head = (
        f"Unranked Memref base@ = {hex(base)} rank = {rank} offset = {offset} "
        f"sizes = [{', '.join(map(str, sizes))}] strides = [{', '.join(map(str, strides))}] "
        "data = \n"
    )
    out: list[str] = []

    def rec(dim: int, off: int) -> None:
        # dim counts the dimensions still to print, as in MLIR's MemRefDataPrinter
        if dim == 0:
            out.append(fmt(data[off]))
            return
        axis = rank - dim
        out.append("[")
        n = sizes[axis]
        for i in range(n):
            if i > 0:
                out.append(" " * (rank - dim + 1) if dim > 1 else " " * rank)
            rec(dim - 1, off + i * strides[axis])
            if i + 1 < n:
                out.append(", ")
                if dim > 1:
                    out.append("\n")
        out.append("]")

    if rank == 0:
        out.append("[")
        rec(0, offset)
        out.append("]")
    else:
        rec(rank, offset)
    return head + "".join(out)


def _make_printer(name: str, skip: Callable[[], bool]):
    ctype, fmt = _ELEMENTS[name]

    def printer(rank: int, desc_ptr: int) -> None:
        if skip():
            return
        desc = abi.descriptor_ctype(rank).from_address(desc_ptr)
        sizes = [desc.sizes[d] for d in range(rank)] if rank else []
        strides = [desc.strides[d] for d in range(rank)] if rank else []
        extent = desc.offset + sum((s - 1) * st for s, st in zip(sizes, strides, strict=True)) + 1
        if any(s == 0 for s in sizes):
            extent = 0
        data = (ctype * max(extent, 1)).from_address(desc.aligned) if desc.aligned else []
        sys.stdout.write(format_memref(data, desc.aligned or 0, desc.offset, sizes, strides, fmt))
        sys.stdout.write("\n")
        sys.stdout.flush()

    return PrintFn(printer)


def printers(skip: Callable[[], bool] = lambda: False) -> dict[str, ctypes._CFuncPtr]:
    """Callback objects by symbol name; keep them alive while JIT code may call them.
    ``skip()`` true: print nothing (xmux-run after a failed launch: the data is not valid)."""
    return {name: _make_printer(name, skip) for name in _ELEMENTS}
