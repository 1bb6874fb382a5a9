"""The storage check: every per-work-item array is written before it is read, on every path.

Run by ``work-item-loops{check-plan=true}`` on each kernel it scheduled (the checking mode,
tests and the differential fuzzer turn it on; ``shadow.py`` adds the run-time check). It
reads the emitted work-group function, not the plan, so it also checks that emission
followed the plan: a must-be-written analysis over the group-level control flow, where a
work-item loop nest (an ``scf.for`` whose body starts with ``mux.set_local_id``) runs at
least once (groups are not empty) and writes its slot of every work-item, a group-level
``scf.for`` may run zero times, an ``scf.if`` writes what both branches write, an
``scf.while`` what its ``before`` region writes.
"""

from __future__ import annotations

from xdsl.dialects import func, memref, scf
from xdsl.ir import Block, Operation, SSAValue

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs, mux


def per_work_item_arrays(kernel: func.FuncOp) -> list[SSAValue]:
    """Per-work-item arrays read and written by ``memref.load``/``store`` (not the byte
    buffers that private allocations take slices of), in program order."""
    out: list[SSAValue] = []
    for op in kernel.walk():
        if isinstance(op, memref.AllocaOp) and attrs.is_per_work_item(op):
            if all(isinstance(u.operation, (memref.LoadOp, memref.StoreOp))
                   for u in op.memref.uses):
                out.append(op.memref)
    return out


def _is_nest_loop(op: Operation) -> bool:
    return isinstance(op, scf.ForOp) and isinstance(op.body.block.first_op, mux.SetLocalIdOp)


class _Check:
    def __init__(self, kernel: func.FuncOp) -> None:
        self.kernel = kernel
        order = per_work_item_arrays(kernel)
        self.arrays = set(order)
        self.index = {v: i for i, v in enumerate(order)}

    def block(self, block: Block, written: frozenset[SSAValue]) -> frozenset[SSAValue]:
        for op in block.ops:
            written = self.op(op, written)
        return written

    def op(self, op: Operation, written: frozenset[SSAValue]) -> frozenset[SSAValue]:
        if isinstance(op, memref.StoreOp) and op.memref in self.arrays:
            return written | {op.memref}
        if isinstance(op, memref.LoadOp) and op.memref in self.arrays:
            if op.memref not in written:
                raise XmuxError(
                    f"work-item-loops: kernel @{self.kernel.sym_name.data}: per-work-item "
                    f"array #{self.index[op.memref]} is read before it is written on some "
                    "path (storage plan check)"
                )
            return written
        if isinstance(op, scf.ForOp):
            out = self.block(op.body.block, written)
            return out if _is_nest_loop(op) else written
        if isinstance(op, scf.IfOp):
            then = self.block(op.true_region.block, written)
            other = (
                self.block(op.false_region.block, written)
                if op.false_region.blocks else written
            )
            return then & other
        if isinstance(op, scf.WhileOp):
            out = self.block(op.before_region.block, written)
            self.block(op.after_region.block, out)
            return out
        for region in op.regions:  # anything else: checked, its writes not counted
            for b in region.blocks:
                self.block(b, written)
        return written


def check_storage(kernel: func.FuncOp) -> None:
    """Raise an ``XmuxError`` naming the kernel when a per-work-item array may be read
    before it was written."""
    check = _Check(kernel)
    if check.arrays and kernel.body.blocks:
        for b in kernel.body.blocks:
            check.block(b, frozenset())
