"""lower-sub-group-collectives: sub-group collectives and shuffles for sub-groups of one.

The host pipeline has sub-groups of size 1 (define-mux-builtins: ``sub_group_size`` =
``max_sub_group_size`` = 1, ``sub_group_local_id`` = 0), so every sub-group operation
involves only the calling work-item:

==================================  =======================================================
reduce, scan_inclusive              the value (logical kinds on wider integers: 0 or 1)
scan_exclusive                      the kind's identity (see lower-work-group-collectives)
broadcast, any, all                 the value
shuffle(val, lid)                   ``val`` (lid 0; any other lid is out of range)
shuffle_xor(val, mask)              ``val`` (mask 0; any other mask is out of range)
shuffle_up(prev, curr, delta)       index = 0 − delta: ``curr`` for delta 0 (index 0),
                                    ``prev`` for delta 1 (index −1 ≥ −max size: invocation
                                    −1 + 1 = 0 of the previous sub-group's values)
shuffle_down(curr, next, delta)     index = 0 + delta: ``curr`` for delta 0, ``next`` for
                                    delta 1 (index − max size = 0)
``mux.sub_group_barrier``           ``mux.mem_barrier`` with its scope and semantics (the
                                    control part is trivial for one invocation)
==================================  =======================================================

Out-of-range shuffle indices have no defined result in the reference; this pass gives a
defined one: the own value for shuffle / shuffle_xor, ``prev`` for shuffle_up (delta ≥ 2 or
negative) and ``next`` for shuffle_down (delta ≥ 2), so a shuffle is at most one
``arith.select``.

Expects: sub-group size 1 (the kernel's ``mux.reqd_sub_group_size``, when set, must be 1).
Guarantees: no ``mux.sub_group_*`` op remains. Vec-group ops are left alone.

Before::

    %r = mux.sub_group_scan_exclusive add %x : i32
    %u = mux.sub_group_shuffle_up %p, %c, %d : f32
    mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>

After::

    %r = arith.constant 0 : i32
    %0 = arith.constant 0 : i32
    %1 = arith.cmpi eq, %d, %0 : i32
    %u = arith.select %1, %c, %p : f32
    mux.mem_barrier sub_group, <acq_rel, sub_group_memory>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, mux
from xmux.errors import NotSupportedError
from xmux.transforms.lower_work_group_collectives import Ops, identity, normalize_logical


def _delta_is_zero(b: Ops, delta: SSAValue) -> SSAValue:
    zero = b(arith.ConstantOp(IntegerAttr(0, i32)))
    return b(arith.CmpiOp(delta, zero, "eq"))


def _lower(op: Operation, b: Ops) -> SSAValue | None:
    """Ops for one sub-group op (appended to ``b``); its replacement value, None to erase."""
    if isinstance(op, mux.SubGroupBarrierOp):
        b(mux.MemBarrierOp(op.scope, op.semantics))
        return None
    if isinstance(op, mux.SubGroupScanExclusiveOp):
        return identity(b, op.kind_value, op.result.type)
    if isinstance(op, mux.SubGroupReduceOp | mux.SubGroupScanInclusiveOp):
        if op.kind_value in mux.LOGICAL_KINDS:
            return normalize_logical(b, op.value)
        return op.value
    if isinstance(
        op, mux.SubGroupBroadcastOp | mux.SubGroupAnyOp | mux.SubGroupAllOp
        | mux.SubGroupShuffleOp | mux.SubGroupShuffleXorOp
    ):
        return op.operands[0]
    if isinstance(op, mux.SubGroupShuffleUpOp):
        return b(arith.SelectOp(_delta_is_zero(b, op.delta), op.curr, op.prev))
    if isinstance(op, mux.SubGroupShuffleDownOp):
        return b(arith.SelectOp(_delta_is_zero(b, op.delta), op.curr, op.next))
    raise AssertionError(op.name)


def is_sub_group_op(op: Operation) -> bool:
    return isinstance(op, mux.SubGroupBarrierOp) or (
        isinstance(op, mux.GroupCollectiveOp) and op.group_scope == "sub_group"
    )


def _check_sub_group_size(module: ModuleOp) -> None:
    for f in module.walk():
        if isinstance(f, func.FuncOp):
            size = attrs.get_reqd_sub_group_size(f)
            if size not in (None, 1):
                raise NotSupportedError(
                    f"lower-sub-group-collectives: kernel @{f.sym_name.data} requires "
                    f"sub-group size {size}; this pipeline has sub-groups of size 1"
                )


@dataclass(frozen=True)
class LowerSubGroupCollectives(ModulePass):
    """Lower sub-group collectives, shuffles and barriers for sub-groups of one work-item."""

    name = "lower-sub-group-collectives"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        todo = [o for o in op.walk() if is_sub_group_op(o)]
        if not todo:
            return
        _check_sub_group_size(op)
        for o in todo:
            b = Ops()
            value = _lower(o, b)
            Rewriter.insert_op(b.ops, InsertPoint.before(o))
            if value is not None:
                o.results[0].replace_all_uses_with(value)
            Rewriter.erase_op(o)
