"""The read-only (``noalias``) variant of an NVPTX entry: its name, and when a launch may use it.

add-kernel-wrapper-nvptx gives a kernel ``k`` whose memref arguments at positions P are only
read (``transforms/arg_access.py: only_read``) a second PTX entry ``variant_name(k, P)``: the
same code with those pointer parameters ``noalias``, so LLVM proves the loads through them
invariant and emits ``ld.global.nc`` (the read-only data path), as nvcc does for ``const
__restrict__``. ``noalias`` holds only when no other argument's memory overlaps, which the
runtime knows at launch (it holds every buffer's pointer and extent) and the compiler does
not: ``runtime/cuda.py`` launches the variant when ``disjoint`` says so, else ``k``.
When every memref argument of ``k`` is only read, ``k`` itself is marked (nothing written
through an argument can overlap) and there is no variant.

32-bit address variants (narrow-indices-nvptx): an entry ``e`` (``k`` or its read-only
variant) may have a twin ``index32_name(e)`` whose memref accesses compute their element
offset in 32 bits (one ``mul.wide`` per address, as NVRTC's ``int`` indices) and whose loops
run on 32-bit induction variables. It computes the same addresses when ``index32_fits`` holds
for the launch's memref arguments, which ``runtime/cuda.py`` tests per launch; a launch thus
picks among generic / read-only / 32-bit / read-only + 32-bit. No xDSL, no LLVM here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

#: the variant's PTX entry is ``<kernel><SUFFIX><p>_<q>...`` (the positions it marks)
SUFFIX = "__xmux_ro_"
#: an entry's 32-bit address twin is ``<entry><I32_SUFFIX>``
I32_SUFFIX = "__xmux_i32"
#: the largest element offset (and size, stride) a 32-bit variant may meet: 2^31 - 1
INDEX32_LIMIT = 2**31 - 1


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


def index32_name(entry: str) -> str:
    """The PTX entry of ``entry``'s 32-bit address twin."""
    return entry + I32_SUFFIX


def index32_fits(descriptors: Iterable[tuple[int, Sequence[int], Sequence[int]]]) -> bool:
    """Whether a 32-bit twin computes the generic entry's addresses for memref arguments
    with these (element offset, sizes, strides): every stride and size in [0, 2^31), the
    offset >= 0, and the largest element offset ``offset + sum((size - 1) * stride)`` below
    2^31. Then every in-bounds index, each ``index * stride`` term and every partial sum of
    an access's offset lies in [0, 2^31): 32-bit arithmetic neither wraps signed nor
    unsigned (narrow-indices-nvptx's ``nsw``/``nuw`` flags hold). An array without elements
    has no in-bounds access: only its strides and sizes count."""
    limit = INDEX32_LIMIT
    for offset, sizes, strides in descriptors:
        if not 0 <= offset <= limit:
            return False
        if any(not 0 <= v <= limit for v in (*sizes, *strides)):
            return False
        if all(n > 0 for n in sizes) and offset + sum(
                (n - 1) * st for n, st in zip(sizes, strides, strict=True)) > limit:
            return False
    return True


def without_variants(ptx: str) -> str:
    """``ptx`` without the read-only variants' and 32-bit twins' entries (tests that count
    instructions of the generic code)."""
    import re

    variant = rf"[^\s(]*(?:{SUFFIX}[\d_]+|{I32_SUFFIX})"
    return re.sub(rf"(?ms)^(\t// \.globl\t[^\n]*(?:{SUFFIX}|{I32_SUFFIX})[^\n]*\n)?"
                  rf"^\.visible \.entry "
                  rf"{variant}\(.*?^\}}\n", "", ptx)
