"""The read-only (``noalias``) variant of an NVPTX entry: its name, and when a launch may use it.

add-kernel-wrapper-nvptx gives a kernel ``k`` whose memref arguments at positions P are only
read (``transforms/arg_access.py: only_read``) a second PTX entry ``variant_name(k, P)``: the
same code with those pointer parameters ``noalias``, so LLVM proves the loads through them
invariant and emits ``ld.global.nc`` (the read-only data path), as nvcc does for ``const
__restrict__``. ``noalias`` holds only when no other argument's memory overlaps, which the
runtime knows at launch (it holds every buffer's pointer and extent) and the compiler does
not: ``runtime/cuda.py`` launches the variant when ``disjoint`` says so, else ``k``.
When every memref argument of ``k`` is only read, ``k`` itself is marked (nothing written
through an argument can overlap) and there is no variant. No xDSL, no LLVM here.
"""

from __future__ import annotations

from collections.abc import Sequence

#: the variant's PTX entry is ``<kernel><SUFFIX><p>_<q>...`` (the positions it marks)
SUFFIX = "__xmux_ro_"


def variant_name(kernel: str, positions: Sequence[int]) -> str:
    return kernel + SUFFIX + "_".join(str(p) for p in positions)


def parse_variant(symbol: str, kernel: str) -> tuple[int, ...] | None:
    """The positions ``symbol`` marks if it is ``kernel``'s read-only variant, else None."""
    prefix = kernel + SUFFIX
    if not symbol.startswith(prefix):
        return None
    parts = symbol[len(prefix):].split("_")
    if not all(p.isdigit() for p in parts):
        return None
    return tuple(int(p) for p in parts)


def disjoint(marked: Sequence[tuple[int, int]], others: Sequence[tuple[int, int]]) -> bool:
    """Whether no byte range [lo, hi) of ``marked`` overlaps one of ``others`` (marked ranges
    may overlap each other: the kernel only reads them). Empty ranges overlap nothing."""
    for lo, hi in marked:
        if lo >= hi:
            continue
        for olo, ohi in others:
            if olo < ohi and lo < ohi and olo < hi:
                return False
    return True


def without_variants(ptx: str) -> str:
    """``ptx`` without the read-only variants' entries (tests that count instructions of
    the generic code)."""
    import re

    return re.sub(rf"(?ms)^(\t// \.globl\t[^\n]*{SUFFIX}[^\n]*\n)?^\.visible \.entry "
                  rf"[^\s(]*{SUFFIX}[\d_]+\(.*?^\}}\n", "", ptx)
