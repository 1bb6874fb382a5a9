"""Work-items as generators: how a work-item stops at a barrier without a thread.

xDSL's interpreter (and the plain mode of ``XInterpreter``) recurses through regions, so a
work-item's state at a barrier is a Python stack. Rather than parking that stack on a
thread, a kernel that can meet at a barrier runs its *synchronising* ops as generators:
the barrier-like op ``yield``s a request ``(scope, op, payload)`` to the group's scheduler,
and every op on the way up from it (``scf.for/parallel/if/while/execute_region/index_switch``,
``func.call``, ``memref.alloca_scope`` — only where its body can reach a barrier) is a
generator that delegates with ``yield from``. Everything else — most ops, and loops or calls
that cannot reach a barrier — runs through the ordinary plans and implementations. Switching
work-items costs a ``send``, a failing work-item's error reaches the scheduler directly,
and the others are closed (``generator.close``): no thread to leak.
"""

from __future__ import annotations

from collections.abc import Generator
from itertools import product
from typing import Any

from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, Region

from xmux.abi.errors import NotSupportedError
from xmux.dialects import mux
from xmux.runtime.interpreter.arith import width_of
from xmux.runtime.interpreter.errors import UndefinedBehaviorError
from xmux.runtime.interpreter.values import to_signed

#: what a suspended work-item hands its scheduler: (scope, op, call stack, operand values)
Request = tuple[str, Operation, tuple[Operation, ...], tuple[Any, ...]]
Gen = Generator[Request, Any, Any]

_BARRIER, _NESTED = 1, 2


def sync_ops(module) -> set[int]:
    """ids of the ops through which a function can reach a barrier-like op: the
    barrier-like ops, calls of functions that reach one, and every op containing either."""
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    reaching: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, f in funcs.items():
            if name in reaching:
                continue
            for op in f.walk():
                if mux.is_barrier_like(op) or (
                    isinstance(op, func.CallOp) and op.callee.string_value() in reaching
                ):
                    reaching.add(name)
                    changed = True
                    break
    out: set[int] = set()
    for name in reaching:
        for op in funcs[name].walk():
            if mux.is_barrier_like(op) or (
                isinstance(op, func.CallOp) and op.callee.string_value() in reaching
            ):
                parent: Operation | None = op
                while parent is not None and not isinstance(parent, func.FuncOp):
                    out.add(id(parent))
                    parent = parent.parent_op()
    return out


def gen_plan(interp, block) -> tuple:
    """The block's plan with each row's kind: plain, barrier-like (yield) or nested
    (a generator implementation)."""
    shared = interp.shared
    key = id(block)
    plan = shared.gplans.get(key)
    if plan is None:
        rows = []
        if shared.sync is None:
            shared.sync = sync_ops(shared.module)
        for row in shared.plan(block):
            op = row[0]
            kind = 0
            if id(op) in shared.sync:
                kind = _BARRIER if mux.is_barrier_like(op) else _NESTED
                if kind == _NESTED and type(op) not in NESTED:
                    raise NotSupportedError(
                        f"interpreter: a barrier inside '{op.name}' is not supported"
                    )
            rows.append((*row, kind))
        plan = shared.gplans[key] = (tuple(id(a) for a in block.args), tuple(rows))
    return plan


def run_block(interp, argkeys, rows, args) -> Gen:
    """``XInterpreter.run_block`` as a generator (returns the yielded values, or None after
    a branch with the successor in ``interp.branch``)."""
    env = interp.env
    for k, v in zip(argkeys, args, strict=True):
        env[k] = v
    for op, ft, fn, okeys, rkeys, term, kind in rows:
        interp.op = op
        operands = tuple([env[k] for k in okeys])
        if kind == _BARRIER:
            result = yield (op.group_scope if isinstance(op, mux.GroupCollectiveOp)  # type: ignore[attr-defined]
                            else _BARRIER_SCOPE[type(op)], op, tuple(interp.stack), operands)
            vals = (result,) if rkeys else ()
        elif kind == _NESTED:
            vals = yield from NESTED[type(op)](interp, op, operands)
            interp.op = op
        elif fn is None:
            return tuple([env[k] for k in okeys])
        else:
            vals = fn(ft, interp, op, operands)
            if term:
                tv = vals.terminator_value
                if tv is not None:
                    if tv.__class__.__name__ == "ReturnedValues":
                        return tv.values
                    interp.branch = tv
                    return None
                vals = vals.values
        if rkeys:
            for k, v in zip(rkeys, vals, strict=True):
                env[k] = v
    return ()


_BARRIER_SCOPE = {mux.WorkGroupBarrierOp: "work_group", mux.SubGroupBarrierOp: "sub_group"}


def run_region(interp, region: Region, args: tuple[Any, ...]) -> Gen:
    block = region.first_block
    if block is None:
        return ()
    while True:
        argkeys, rows = gen_plan(interp, block)
        out = yield from run_block(interp, argkeys, rows, args)
        if out is not None:
            return out
        block, args = interp.branch


def run_function(interp, callee: func.FuncOp, args: tuple[Any, ...]) -> Gen:
    saved = interp.env
    interp.env = {}
    try:
        return (yield from run_region(interp, callee.body, args))
    finally:
        interp.env = saved


# -- generator implementations of the ops that contain a barrier ---------------------------


def _for(interp, op: scf.ForOp, args) -> Gen:
    lb, ub, step, *vals = args
    w = width_of(op, op.lb.type)
    lb, ub, step = to_signed(lb, w), to_signed(ub, w), to_signed(step, w)
    if step <= 0:
        raise UndefinedBehaviorError(f"scf.for with step {step} at {interp.where()}")
    argkeys, rows = gen_plan(interp, op.body.first_block)
    m = (1 << w) - 1
    out = tuple(vals)
    for i in range(lb, ub, step):
        out = yield from run_block(interp, argkeys, rows, (i & m, *out))
    return out


def _parallel(interp, op: scf.ParallelOp, args) -> Gen:
    # a work-item's loop nest with a barrier inside: control.run_parallel's order
    n = len(op.lowerBound)
    w = width_of(op, IndexType())
    lbs, ubs, steps = ([to_signed(v, w) for v in args[k * n:(k + 1) * n]] for k in range(3))
    if any(s <= 0 for s in steps):
        raise UndefinedBehaviorError(f"scf.parallel with steps {steps} at {interp.where()}")
    accs = list(args[3 * n:])
    argkeys, rows = gen_plan(interp, op.body.first_block)
    combines = [interp.shared.entry(r) for r in op.body.block.last_op.reductions]
    m = (1 << w) - 1
    for ivs in product(*(range(lb, ub, s) for lb, ub, s in zip(lbs, ubs, steps, strict=True))):
        vals = yield from run_block(interp, argkeys, rows, tuple(i & m for i in ivs))
        for k, (ckeys, cplan) in enumerate(combines):
            accs[k] = interp.run_block(ckeys, cplan, (accs[k], vals[k]))[0]
    return tuple(accs)


def _if(interp, op: scf.IfOp, args) -> Gen:
    region = op.true_region if args[0] else op.false_region
    return (yield from run_region(interp, region, ()))


def _while(interp, op: scf.WhileOp, args) -> Gen:
    vals = args
    while True:
        cond, *fwd = yield from run_region(interp, op.before_region, vals)
        if not cond:
            return tuple(fwd)
        vals = yield from run_region(interp, op.after_region, tuple(fwd))


def _execute_region(interp, op, args) -> Gen:
    return (yield from run_region(interp, op.region, ()))


def _index_switch(interp, op: scf.IndexSwitchOp, args) -> Gen:
    value, cases = to_signed(args[0], 64), list(op.cases.get_values())
    region = op.case_regions[cases.index(value)] if value in cases else op.default_region
    return (yield from run_region(interp, region, ()))


def _call(interp, op: func.CallOp, args) -> Gen:
    callee = interp.callee(op)
    interp.stack.append(op)
    try:
        return (yield from run_function(interp, callee, args))
    finally:
        interp.stack.pop()


def _alloca_scope(interp, op, args) -> Gen:
    return (yield from run_region(interp, op.scope, ()))


NESTED = {
    scf.ForOp: _for,
    scf.ParallelOp: _parallel,
    scf.IfOp: _if,
    scf.WhileOp: _while,
    scf.ExecuteRegionOp: _execute_region,
    scf.IndexSwitchOp: _index_switch,
    func.CallOp: _call,
    memref.AllocaScopeOp: _alloca_scope,
}
