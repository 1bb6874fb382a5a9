"""Uniformity helpers for work-group function formation (no pass in this module).

Terms used by ``work-item-loops``, ``work-item-loop-interchange`` and
``transforms/wi_loops/``:

* **pure**: no memory effect, no region, not a terminator, not a load — an op that can be
  re-executed (re-computed) anywhere its operands are available. Work-item queries are pure
  (they read the ids that each work-item loop header sets).
* **uniform pure**: pure and the same for every work-item of a group when its operands are:
  every op above except the queries whose result varies per work-item
  (``VARYING_QUERIES``). Like PoCL's VariableUniformityAnalysis this is conservative: a load
  is never uniform, even from a uniform address, except a load of an emulated
  specialization constant (``spec.buffer_load``: the runtime fills that buffer before the
  launch and no kernel code can write it), which is pure like the ``spec.*`` op it replaced.
* **divergent condition**: a condition that provably differs between the work-items of a
  group of more than one work-item: ``local id ==/!= uniform`` (through casts and adding or
  subtracting uniform values), in a dimension whose size is not known to be 1. A barrier
  under such a condition is an error (OpenCL requires all work-items or none to reach it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from xdsl.dialects import arith, llvm, memref, scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator, is_side_effect_free

from xmux.dialects import attrs, mux

#: Queries whose result differs between the work-items of a group.
VARYING_QUERIES: tuple[type[Operation], ...] = (
    mux.GetGlobalIdOp,
    mux.GetLocalIdOp,
    mux.GetGlobalLinearIdOp,
    mux.GetLocalLinearIdOp,
    mux.GetSubGroupIdOp,
    mux.GetSubGroupLocalIdOp,
    mux.GetSubGroupSizeOp,  # the last sub-group of a group may be smaller
)


def is_pure(op: Operation) -> bool:
    """Side-effect free, region-free and re-computable (work-item queries included)."""
    if isinstance(op, mux.WorkItemQuery):
        return True
    if op.regions or op.has_trait(IsTerminator):
        return False
    if isinstance(op, llvm.LoadOp) and attrs.is_spec_buffer_load(op):
        return True  # emulated specialization constants: a buffer nothing writes in a launch
    if isinstance(op, (mux.SetLocalIdOp, memref.LoadOp, llvm.LoadOp)):
        return False
    return is_side_effect_free(op)


def is_uniform_pure(op: Operation) -> bool:
    """Pure and the same for every work-item of the group, given uniform operands."""
    if isinstance(op, VARYING_QUERIES):
        return False
    return is_pure(op)


def is_inside(value: SSAValue, op: Operation) -> bool:
    """True when ``value`` is defined by an op nested in ``op`` or a block of ``op`` (or is a
    result of ``op`` itself)."""
    owner = value.owner
    cur = owner.parent_op() if isinstance(owner, Block) else owner
    while cur is not None:
        if cur is op:
            return True
        cur = cur.parent_op()
    return False


def ancestor_in(op: Operation, block: Block) -> Operation | None:
    """The ancestor of ``op`` (or ``op`` itself) whose parent block is ``block``."""
    cur: Operation | None = op
    while cur is not None and cur.parent_block() is not block:
        cur = cur.parent_op()
    return cur


def contains(op: Operation, pred: Callable[[Operation], bool]) -> bool:
    return any(pred(o) for o in op.walk())


def is_control_barrier(op: Operation) -> bool:
    """Ops at which a work-group function is split into barrier regions."""
    return isinstance(op, mux.WorkGroupBarrierOp)


def contains_barrier(op: Operation) -> bool:
    return contains(op, is_control_barrier)


def has_direct_barrier(blocks: Iterable[Block]) -> bool:
    """A barrier directly in one of ``blocks`` (executed whenever the block is)."""
    return any(is_control_barrier(o) for b in blocks for o in b.ops)


def free_values(op: Operation) -> list[SSAValue]:
    """Operands of ``op`` and of the ops nested in it that are defined outside ``op``."""
    inside: set[SSAValue] = set()
    for inner in op.walk():
        inside.update(inner.results)
        for region in inner.regions:
            for block in region.blocks:
                inside.update(block.args)
    out: dict[SSAValue, None] = {}
    for inner in op.walk():
        for v in inner.operands:
            if v not in inside:
                out[v] = None
    return list(out)


_CASTS = (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp)


def _local_id_offset(
    value: SSAValue, is_uniform: Callable[[SSAValue], bool], unit_dims: set[int]
) -> bool:
    """``value`` = local id (of a dimension not known to be 1) + uniform, through casts."""
    op = value.owner
    if isinstance(op, mux.GetLocalIdOp):
        return op.dim.value.data not in unit_dims
    if isinstance(op, mux.GetLocalLinearIdOp):
        return len(unit_dims) < 3
    if isinstance(op, _CASTS):
        return _local_id_offset(op.operands[0], is_uniform, unit_dims)
    if isinstance(op, (arith.AddiOp, arith.SubiOp)):
        lhs, rhs = op.operands
        return (_local_id_offset(lhs, is_uniform, unit_dims) and is_uniform(rhs)) or (
            isinstance(op, arith.AddiOp)
            and _local_id_offset(rhs, is_uniform, unit_dims)
            and is_uniform(lhs)
        )
    return False


def provably_divergent(
    cond: SSAValue, is_uniform: Callable[[SSAValue], bool], unit_dims: set[int]
) -> bool:
    """``cond`` differs between work-items of every group of more than one work-item."""
    op = cond.owner
    if not isinstance(op, arith.CmpiOp) or op.predicate.value.data not in (0, 1):  # eq, ne
        return False
    lhs, rhs = op.lhs, op.rhs
    return (_local_id_offset(lhs, is_uniform, unit_dims) and is_uniform(rhs)) or (
        _local_id_offset(rhs, is_uniform, unit_dims) and is_uniform(lhs)
    )


def local_id_offset(
    value: SSAValue, is_uniform: Callable[[SSAValue], bool], unit_dims: set[int]
) -> bool:
    """``value`` is a local id (of a dimension not known to be 1) plus a uniform value."""
    return _local_id_offset(value, is_uniform, unit_dims)


class UniformValues:
    """Provably uniform values of a function: its arguments and uniform pure ops of them."""

    def __init__(self, args: Iterable[SSAValue]) -> None:
        self._memo: dict[SSAValue, bool] = {a: True for a in args}

    def __call__(self, v: SSAValue) -> bool:
        if v in self._memo:
            return self._memo[v]
        op = v.owner
        self._memo[v] = False
        ok = isinstance(op, Operation) and is_uniform_pure(op) and all(
            self(o) for o in op.operands
        )
        self._memo[v] = ok
        return ok


def work_item_loop_header(wi_loop: scf.ForOp) -> list[Operation]:
    """The ops that set the work-item's id at the top of a work-item loop body:
    ``set_local_id d, %iv``, or in the main part of work-item-loops' vector schedule
    ``%x = arith.addi %xb, %iv`` + ``set_local_id d, %x``; empty for anything else."""
    block = wi_loop.body.block
    iv = block.args[0]
    first = block.first_op
    if isinstance(first, mux.SetLocalIdOp) and first.value is iv:
        return [first]
    if (
        isinstance(first, arith.AddiOp)
        and first.rhs is iv
        and first.lhs is not iv
        and isinstance(first.next_op, mux.SetLocalIdOp)
        and first.next_op.value is first.result
        and all(use.operation is first for use in iv.uses)
    ):
        return [first, first.next_op]
    return []
