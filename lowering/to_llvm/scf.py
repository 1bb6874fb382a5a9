"""scf → llvm blocks and branches (our own lowering: it keeps the work-item-loop annotation).

``scf.for`` becomes header (induction variable and carried values as block arguments, compare,
``llvm.cond_br``) → body → latch ``llvm.br`` back to the header; results are the header's
arguments. An ``scf.for`` marked ``mux.work_item_loop`` gets a fresh access group G: the
latch branch's ``loop_annotation`` has ``parallelAccesses = #llvm.access_group<id =
distinct[G]<>>`` and every memory access lowered from its body (nested loops and calls
included) carries ``access_groups = [.., #llvm.access_group<...>]``, upstream's attributes
that become ``llvm.loop.parallel_accesses`` metadata. A loop's ``xmux.loop_vectorize_width``
hint goes into the annotation too (``vectorize = #llvm.loop_vectorize<width = W : i32>``).
``scf.if``, ``scf.while``, ``scf.execute_region`` and ``scf.index_switch`` are lowered to
blocks as in MLIR's scf-to-cf; ``scf.parallel`` to a sequential loop nest whose carried
values are its reductions' partial values, each iteration folding its ``scf.reduce`` values
in through the reduction regions (upstream leaves the combination order unspecified).
"""

from __future__ import annotations

from xdsl.dialects import llvm, scf
from xdsl.ir import Block, Operation, Region, SSAValue

from xmux.dialects import attrs, llvmx
from xmux.lowering.to_llvm.core import FunctionLowerer, Handler
from xmux.lowering.to_llvm.types import convert_type


def _yielded(lw: FunctionLowerer, term: Operation | None, op: Operation) -> list[SSAValue]:
    if term is None:
        raise lw.error(op, "region without a terminator")
    return lw.get_all(term.operands)


def lower_for(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, scf.ForOp)
    group = lw.mod.new_access_group() if attrs.is_work_item_loop(op) else None

    def body(iv: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
        term = lw.lower_ops(op.body.block, [iv, *carried])
        return _yielded(lw, term, op)

    results = lw.build_loop(
        lw.get(op.lb),
        lw.get(op.ub),
        lw.get(op.step),
        lw.get_all(op.iter_args),
        body,
        unsigned="unsignedCmp" in op.properties or "unsignedCmp" in op.attributes,
        parallel_group=group,
        vectorize_width=attrs.get_loop_vectorize_width(op),
    )
    lw.set_results(op, results)


def _combine(lw: FunctionLowerer, op: Operation, region: Region, lhs: SSAValue,
             rhs: SSAValue) -> SSAValue:
    """An scf.reduce region applied to (``lhs``, ``rhs``): its scf.reduce.return's value."""
    block = region.block
    for a, v in zip(block.args, (lhs, rhs), strict=True):
        lw.set(a, v)
    for inner in block.ops:
        if inner is block.last_op and isinstance(inner, scf.ReduceReturnOp):
            return lw.get(inner.result)
        lw.lower_op(inner)
    raise lw.error(op, "scf.reduce region without scf.reduce.return")


def lower_parallel(lw: FunctionLowerer, op: Operation) -> None:
    """A sequential loop nest, the reductions' partial values carried through every level;
    each iteration combines its scf.reduce values into them (upstream leaves the order open)."""
    assert isinstance(op, scf.ParallelOp)
    lbs, ubs, steps = lw.get_all(op.lowerBound), lw.get_all(op.upperBound), lw.get_all(op.step)
    ivs: list[SSAValue] = []

    def nest(d: int, accs: list[SSAValue]) -> list[SSAValue]:
        if d == len(lbs):  # the innermost body (or the only one of a 0-d scf.parallel)
            term = lw.lower_ops(op.body.block, ivs)
            if not isinstance(term, scf.ReduceOp):
                raise lw.error(op, "body without an scf.reduce terminator")
            return [_combine(lw, op, region, acc, lw.get(v)) for acc, v, region in
                    zip(accs, term.args, term.reductions, strict=True)]

        def body(iv: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            ivs.append(iv)
            out = nest(d + 1, carried)
            ivs.pop()
            return out

        return lw.build_loop(lbs[d], ubs[d], steps[d], accs, body)

    lw.set_results(op, nest(0, lw.get_all(op.initVals)))


def lower_if(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, scf.IfOp)
    result_types = [convert_type(r.type) for r in op.output]
    then_block = lw.new_block()
    has_else = bool(op.false_region.blocks)
    else_block = lw.new_block() if has_else else None
    merge = lw.new_block(result_types)
    lw.emit(llvm.CondBrOp(lw.get(op.cond), then_block, [], else_block or merge, []))
    lw.start(then_block)
    term = lw.lower_ops(op.true_region.block)
    lw.emit(llvm.BrOp(merge, *_yielded(lw, term, op)))
    if else_block is not None:
        lw.start(else_block)
        term = lw.lower_ops(op.false_region.block)
        lw.emit(llvm.BrOp(merge, *_yielded(lw, term, op)))
    lw.start(merge)
    lw.set_results(op, list(merge.args))


def lower_while(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, scf.WhileOp)
    inits = lw.get_all(op.arguments)
    before = lw.new_block([v.type for v in inits])
    after = lw.new_block([convert_type(a.type) for a in op.after_region.block.args])
    exit_block = lw.new_block([convert_type(r.type) for r in op.res])
    lw.emit(llvm.BrOp(before, *inits))
    lw.start(before)
    cond_op = lw.lower_ops(op.before_region.block, list(before.args))
    if not isinstance(cond_op, scf.ConditionOp):
        raise lw.error(op, "before region must end with scf.condition")
    args = lw.get_all(cond_op.args)
    lw.emit(llvm.CondBrOp(lw.get(cond_op.condition), after, args, exit_block, args))
    lw.start(after)
    term = lw.lower_ops(op.after_region.block, list(after.args))
    lw.emit(llvm.BrOp(before, *_yielded(lw, term, op)))
    lw.start(exit_block)
    lw.set_results(op, list(exit_block.args))


def _lower_region_to(lw: FunctionLowerer, op: Operation, blocks: list[Block], cont: Block) -> None:
    """Lower a (possibly multi-block) region whose scf.yield branches to ``cont``."""
    new_blocks = [lw.new_block([convert_type(a.type) for a in b.args]) for b in blocks]
    for b, nb in zip(blocks, new_blocks, strict=True):
        lw.bmap[b] = nb
    lw.emit(llvm.BrOp(new_blocks[0]))
    for b, nb in zip(blocks, new_blocks, strict=True):
        lw.start(nb)
        term = lw.lower_ops(b, list(nb.args))
        if term is not None:
            lw.emit(llvm.BrOp(cont, *_yielded(lw, term, op)))


def lower_execute_region(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, scf.ExecuteRegionOp)
    cont = lw.new_block([convert_type(r.type) for r in op.outs])
    _lower_region_to(lw, op, list(op.region.blocks), cont)
    lw.start(cont)
    lw.set_results(op, list(cont.args))


def lower_index_switch(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, scf.IndexSwitchOp)
    cont = lw.new_block([convert_type(r.type) for r in op.output])
    case_values = list(op.cases.get_values())
    case_blocks = [lw.new_block() for _ in case_values]
    default = lw.new_block()
    cases = [(v, b, []) for v, b in zip(case_values, case_blocks, strict=True)]
    lw.emit(llvmx.SwitchOp(lw.get(op.arg), default, [], cases))
    for region, block in zip(
        [*op.case_regions, op.default_region], [*case_blocks, default], strict=True
    ):
        lw.start(block)
        term = lw.lower_ops(region.block)
        lw.emit(llvm.BrOp(cont, *_yielded(lw, term, op)))
    lw.start(cont)
    lw.set_results(op, list(cont.args))


HANDLERS: dict[str, Handler] = {
    "scf.for": lower_for,
    "scf.parallel": lower_parallel,
    "scf.if": lower_if,
    "scf.while": lower_while,
    "scf.execute_region": lower_execute_region,
    "scf.index_switch": lower_index_switch,
}
