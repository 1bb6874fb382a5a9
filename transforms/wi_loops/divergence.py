"""The checking mode's divergent-barrier check (``work-item-loops{check-barriers=true}``).

A barrier under control flow that the barrier rule made uniform (``regions.py``: the control
value is stored per work-item and read back from work-item 0) runs as work-item 0 decides:
a program whose work-items disagree there (a barrier reached by only some of them, illegal
in OpenCL) would run silently with wrong results. With the check, each work-item compares
its control value with work-item 0's right after storing it, in the same work-item loop
nest (work-item 0 runs first in every nest), and a mismatch is reported through the checking
mode's channel (``xmux_check_failed``, ``runtime/checks.py``) naming the kernel, the barrier
and the control op, the work-group and the work-item that disagrees with work-item 0, and
both values. Integer, index and ``i1`` control values are checked (conditions and trip
counts).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, i1, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.transforms.insert_bounds_checks import Sites, report_ops
from xmux.transforms.uniformity import is_control_barrier

#: the words ``runtime/checks.py`` recognises the failure by
MESSAGE = "divergent barrier"


def checkable(v: SSAValue) -> bool:
    return isinstance(v.type, (IntegerType, IndexType))


def describe(control: Operation) -> str:
    """``scf.if around barrier 3`` and the control op's location when it has one."""
    ids = [
        str(o.id.value.data)  # type: ignore[attr-defined]
        for r in control.regions for b in r.blocks for o in b.ops
        if is_control_barrier(o) and hasattr(o, "id")
    ]
    which = f"barrier {', '.join(ids)}" if ids else "a barrier"
    what = {"scf.if": "condition", "scf.while": "loop condition", "scf.for": "trip count"}
    return f"the {what.get(control.name, 'control')} of the {control.name} around {which}"


def insert_check(
    sites: Sites, kernel: str, control: Operation, original: SSAValue, value: SSAValue,
    slots: SSAValue, ip: InsertPoint,
) -> None:
    """At ``ip`` (inside the nest, after ``value``, the work-item's copy of the control value
    ``original`` of ``control``, was stored to ``slots``): compare with work-item 0's slot
    and report a mismatch."""
    compare = _trip_counts(control, original)
    if compare is None:
        return
    site = sites.message(
        f"kernel @{kernel}: {MESSAGE}: the work-items of a work-group disagree on "
        f"{describe(control)}, so only some of them would reach it"
    )
    zero = arith.ConstantOp.from_int_and_width(0, IndexType())
    first = memref.LoadOp.get(slots, [zero.result])
    ops: list[Operation] = [zero, first]
    mine_c, theirs_c = compare(ops, value), compare(ops, first.res)
    differs = arith.CmpiOp(mine_c, theirs_c, "ne")
    ops.append(differs)
    then = Block()
    mine, theirs = mine_c, theirs_c
    if value.type == i1:  # report 0 / 1, not the sign-extended -1
        ext0, ext1 = arith.ExtUIOp(theirs_c, i64), arith.ExtUIOp(mine_c, i64)
        then.add_ops([ext0, ext1])
        theirs, mine = ext0.result, ext1.result
    then.add_ops([*report_ops(site, [theirs, mine], []), scf.YieldOp()])
    ops.append(scf.IfOp(differs.result, [], Region(then)))
    Rewriter.insert_op(ops, ip)


Compare = Callable[[list[Operation], SSAValue], SSAValue]


def _trip_counts(control: Operation, value: SSAValue) -> Compare | None:
    """What to compare for ``value``: the value itself, or, for the upper bound of an
    ``scf.for`` (its lower bound and step uniform, so the loop was not normalised), the trip
    count it gives: work-items may legally differ on the bound and not on the count (step 2,
    bound 3 or 4). None (no check) where lower bound or step is not a constant."""
    if not (isinstance(control, scf.ForOp) and value is control.ub):
        return lambda ops, v: v
    lb, step = _constant(control.lb), _constant(control.step)
    if lb is None or step is None or step <= 0 or not isinstance(value.type, IndexType):
        return None

    def trips(ops: list[Operation], ub: SSAValue) -> SSAValue:
        c_lb = arith.ConstantOp.from_int_and_width(lb, IndexType())
        c_zero = arith.ConstantOp.from_int_and_width(0, IndexType())
        c_step = arith.ConstantOp.from_int_and_width(step, IndexType())
        c_round = arith.ConstantOp.from_int_and_width(step - 1, IndexType())
        span = arith.SubiOp(ub, c_lb.result)
        pos = arith.MaxSIOp(span.result, c_zero.result)
        up = arith.AddiOp(pos.result, c_round.result)
        count = arith.DivUIOp(up.result, c_step.result)
        ops += [c_lb, c_zero, c_step, c_round, span, pos, up, count]
        return count.result

    return trips


def _constant(v: SSAValue) -> int | None:
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None
