"""Which work-items read a value: the facts lower-work-group-collectives-nvptx's one-reader
reduce rests on (docs/architecture.md, "NVRTC parity").

A work-group reduce whose value only work-item 0 needs can leave it in work-item 0 alone and
skip the broadcast (a barrier, a shared-memory store and load). Two facts make that sound;
this module proves them conservatively and proves nothing else:

``reader_dims(value)``: a set D of dimensions such that every work-item whose behaviour
depends on ``value`` has local id 0 in each dimension of D (None: no such proof). Each use
of ``value`` (and, transitively, of the results of the ops below) must be

* inside the *then* region of an ``scf.if`` (at any depth) whose condition implies
  ``local id d == 0``: ``arith.cmpi eq`` of ``mux.get_local_id d`` (or of its
  ``index_cast`` / ``extui`` / ``extsi``) with a constant 0, either side, ``ule … 0`` /
  ``ult … 1``, ``mux.get_local_linear_id`` compared so (all three dimensions), and
  ``arith.andi`` of such conditions (the union of their dimensions). The dimensions of all
  enclosing such ``scf.if``s add up: a work-item runs an op there only where all of them
  hold, and local ids do not change during a work-item's life on this target. Or
* an ``arith`` op that cannot have undefined behaviour for any operand (every one but the
  integer divisions and remainders, which are immediate UB on a zero divisor): other
  work-items may run it on a value that is not the reduction's (poison at worst, never
  UB), so it only matters who reads its results, proven the same way.

D is the intersection over the uses (a value with no use: all three dimensions).
Everything else — a store, a call, a yield or loop argument outside such a region, the
condition of the ``scf.if`` itself — gives None.

``is_last(op)``: after ``op`` the work-item runs no other work-group collective that uses
shared storage (reduce, scans, broadcast; any/all are ``bar.red`` without storage): ``op``
sits in an entry point that no call in the module targets, its function body is one block
and every op enclosing it is an ``scf.if`` (no loop, so it runs at most once), and no such
collective, no call of a function that (transitively) contains one and no indirect call
comes after it in the function's pre-order walk (``scf.if`` branches after it included).
"""

from __future__ import annotations

from xdsl.dialects import arith, func, llvm, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue

from xmux.dialects import attrs, mux

ALL_DIMS = frozenset(range(3))
NONE = frozenset[int]()
#: arith ops that are immediate UB for some operand values (a zero divisor)
_MAY_BE_UB = (
    arith.DivSIOp,
    arith.DivUIOp,
    arith.RemSIOp,
    arith.RemUIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
    arith.FloorDivSIOp,
)
#: casts that keep a local id's zero-ness (ids are small non-negative numbers)
_SAME_ZERO = (arith.IndexCastOp, arith.ExtUIOp, arith.ExtSIOp)
#: collectives that need no shared storage (the barrier itself folds them)
_STORAGE_FREE = (mux.WorkGroupAnyOp, mux.WorkGroupAllOp)


def _constant(v: SSAValue) -> int | None:
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def _id_dims(v: SSAValue) -> frozenset[int]:
    """The local-id dimensions that ``v == 0`` pins to 0."""
    op = v.owner
    while isinstance(op, _SAME_ZERO):
        op = op.operands[0].owner
    if isinstance(op, mux.GetLocalIdOp):
        return frozenset({op.dim.value.data})
    if isinstance(op, mux.GetLocalLinearIdOp):
        return ALL_DIMS
    return NONE


def zero_dims(cond: SSAValue) -> frozenset[int]:
    """Dimensions d such that ``cond`` true implies local id d == 0."""
    op = cond.owner
    if isinstance(op, arith.AndIOp):
        return zero_dims(op.lhs) | zero_dims(op.rhs)
    if not isinstance(op, arith.CmpiOp):
        return NONE
    pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    lhs, rhs = op.lhs, op.rhs
    if pred == "eq":
        if _constant(rhs) == 0:
            return _id_dims(lhs)
        if _constant(lhs) == 0:
            return _id_dims(rhs)
    if (pred == "ule" and _constant(rhs) == 0) or (pred == "ult" and _constant(rhs) == 1):
        return _id_dims(lhs)
    return NONE


def enclosing_dims(op: Operation) -> frozenset[int]:
    """The dimensions whose local id is 0 wherever ``op`` runs (its enclosing ``scf.if``
    then-regions), up to its function."""
    dims = NONE
    child: Operation = op
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.IfOp) and child.parent_region() is parent.true_region:
            dims |= zero_dims(parent.cond)
        child, parent = parent, parent.parent_op()
    return dims


def reader_dims(value: SSAValue, _memo: dict[SSAValue, frozenset[int] | None] | None = None
                ) -> frozenset[int] | None:
    """D: every work-item whose behaviour depends on ``value`` has local id 0 in each
    dimension of D; None when that cannot be proven (module docstring)."""
    memo = {} if _memo is None else _memo
    if value in memo:
        return memo[value]
    dims: frozenset[int] | None = ALL_DIMS
    for use in value.uses:
        user = use.operation
        proven = enclosing_dims(user)
        if user.dialect_name() == "arith" and not isinstance(user, _MAY_BE_UB):
            # run by anyone, harmlessly: what matters is who reads its results
            meet = ALL_DIMS
            for r in user.results:
                d = reader_dims(r, memo)
                meet = NONE if d is None else meet & d
            proven |= meet
        if not proven:
            dims = None
            break
        dims = dims & proven
    memo[value] = dims
    return dims


def _callee(op: Operation) -> str | None:
    if isinstance(op, func.CallOp):
        return op.callee.string_value()
    if isinstance(op, llvm.CallOp) and op.callee is not None:
        return op.callee.string_value()
    return None


def _indirect(op: Operation) -> bool:
    """A call whose callee is not named (it may run anything)."""
    # xDSL 0.74's func dialect has no call_indirect: llvm.call without a callee
    return isinstance(op, llvm.CallOp) and op.callee is None


def _uses_storage(op: Operation) -> bool:
    return (
        isinstance(op, mux.GroupCollectiveOp)
        and op.group_scope == "work_group"
        and not isinstance(op, _STORAGE_FREE)
    )


def _with_collectives(module: ModuleOp) -> set[str]:
    """Functions that (transitively) run a collective with shared storage."""
    funcs = attrs.functions(module)
    calls = {name: {c for o in f.walk() if (c := _callee(o))} for name, f in funcs.items()}
    found = {name for name, f in funcs.items() if any(_uses_storage(o) for o in f.walk())}
    grew = True
    while grew:
        more = {name for name, callees in calls.items() if callees & found} - found
        found |= more
        grew = bool(more)
    return found


def is_last(op: Operation, module: ModuleOp) -> bool:
    """``op`` runs at most once per work-item and no collective with shared storage can
    follow it (module docstring)."""
    f = op.parent_op()
    while f is not None and not isinstance(f, func.FuncOp):
        if not isinstance(f, scf.IfOp):
            return False  # a loop (or anything that may run its body again)
        f = f.parent_op()
    if f is None or not attrs.is_entry_point(f) or len(f.body.blocks) != 1:
        return False
    name = f.sym_name.data
    if any(_callee(o) == name for o in module.walk()):
        return False
    with_collectives = _with_collectives(module)
    after = False
    for o in f.walk():
        if o is op:
            after = True
            continue
        if after and (_uses_storage(o) or _callee(o) in with_collectives or _indirect(o)):
            return False
    return True
