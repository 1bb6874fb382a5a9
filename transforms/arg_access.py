"""Which memref arguments of a kernel it may write, and which it only reads (no pass here).

The launcher refuses a read-only numpy array (``writeable`` off: a read-only ``mmap``, an
array over ``bytes``) for an argument the kernel may write: writing it segfaulted or
mutated an immutable object. The analysis follows the argument through view-like ops and
into called functions; any use it does not know counts as a write (conservative).
``only_read`` is the stricter question of the NVPTX target's ``noalias`` marks: read, and
the address never leaves the memref ops.
"""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.ir import Operation, SSAValue

from xmux.dialects import mux

#: ops that only read through their memref operands
_READS = (memref.LoadOp, memref.DimOp, memref.ExtractAlignedPointerAsIndexOp)
#: ops whose results alias their memref operand
_VIEWS = (
    memref.SubviewOp,
    memref.CastOp,
    memref.ReinterpretCastOp,
    memref.ViewOp,
    memref.CollapseShapeOp,
    memref.ExpandShapeOp,
)


def may_write(value: SSAValue, symbols: dict[str, func.FuncOp], depth: int = 0) -> bool:
    """Whether memory reached through the memref ``value`` may be written."""
    return not _only_reads(value, symbols, depth, strict=False)


def only_read(value: SSAValue, symbols: dict[str, func.FuncOp], depth: int = 0) -> bool:
    """Whether memory reached through the memref ``value`` is only read, and its address
    does not escape (stricter than ``not may_write``: ``extract_aligned_pointer_as_index``
    hands the address to integer code, which may write through it). What the NVPTX target
    marks ``noalias`` (add-kernel-wrapper-nvptx) needs this."""
    return _only_reads(value, symbols, depth, strict=True)


def _only_reads(value: SSAValue, symbols: dict[str, func.FuncOp], depth: int,
                strict: bool) -> bool:
    """Follow ``value`` through views and calls: every use reads (``strict``: and the
    address stays in memref ops: no pointer extraction, the descriptor never stored)."""
    reads = (memref.LoadOp, memref.DimOp) if strict else _READS
    stack, seen = [value], {value}
    while stack:
        v = stack.pop()
        for use in v.uses:
            op = use.operation
            if isinstance(op, reads):
                continue
            if isinstance(op, memref.StoreOp) and op.memref is not v:
                if strict:
                    return False  # the descriptor itself is stored: it escapes
                continue  # v is an index (cannot be) or the stored value (cannot be)
            if isinstance(op, _VIEWS):
                for r in op.results:
                    if r not in seen:
                        seen.add(r)
                        stack.append(r)
                continue
            if _reads_only_dma(op, use.index):
                continue
            if isinstance(op, func.CallOp) and depth < 8:
                callee = symbols.get(op.callee.string_value())
                if callee is not None and callee.body.blocks:
                    arg = callee.body.blocks[0].args[use.index]
                    if _only_reads(arg, symbols, depth + 1, strict):
                        continue
            return False
    return True


def _reads_only_dma(op: Operation, index: int) -> bool:
    """A DMA copy reads its source operand (and writes its destination)."""
    return isinstance(op, mux.DmaOp) and op.operands[index] is op.src  # type: ignore[attr-defined]
