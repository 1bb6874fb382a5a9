"""lower-scf-parallel: ``scf.parallel`` as a nest of ``scf.for``, reductions carried.

Upstream's semantics of an ``scf.parallel`` leave the order of its iterations and of the
combinations of its ``scf.reduce`` values open; upstream's own CPU lowering (the
``ParallelLowering`` of convert-scf-to-cf) runs it as nested sequential loops, and so does
this pass: one ``scf.for`` per dimension, outermost first, the reductions' partial values as
``iter_args`` of every loop of the nest (starting from the ``init`` values), and each
iteration folding its ``scf.reduce`` operands in through the reduction regions, inlined as
``region(partial, value)``. In a kernel an ``scf.parallel`` is one work-item's loop, so a
barrier inside it is a barrier inside loops, which work-item-loops handles as for any
``scf.for`` with uniform bounds (it refuses barriers inside an ``scf.parallel``); that is why
the CPU kernel pipeline runs this pass before prepare-barriers. The lowering to LLVM and the
interpreter also take ``scf.parallel`` directly (the same order).

Expects: nothing (a module without ``scf.parallel`` is unchanged). Guarantees: no
``scf.parallel`` / ``scf.reduce`` left; each new op has the location of its ``scf.parallel``.

Before::

    %r = scf.parallel (%i, %j) = (%a, %b) to (%c, %d) step (%e, %f) init (%z) -> f32 {
      %v = memref.load %m[%i, %j] : memref<?x?xf32>
      scf.reduce(%v : f32) {
      ^bb0(%l: f32, %x: f32):
        %s = arith.addf %l, %x : f32
        scf.reduce.return %s : f32
      }
    }

After::

    %r = scf.for %i = %a to %c step %e iter_args(%p = %z) -> (f32) {
      %q = scf.for %j = %b to %d step %f iter_args(%p2 = %p) -> (f32) {
        %v = memref.load %m[%i, %j] : memref<?x?xf32>
        %s = arith.addf %p2, %v : f32
        scf.yield %s : f32
      }
      scf.yield %q : f32
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter


def _fold(reduce: scf.ReduceOp, partials: list[SSAValue], into: list[Operation]) -> list[SSAValue]:
    """The reduction regions' ops moved to ``into``, each applied to (partial, value)."""
    out: list[SSAValue] = []
    for partial, value, region in zip(partials, reduce.args, reduce.reductions, strict=True):
        block = region.block
        ret = block.last_op
        assert isinstance(ret, scf.ReduceReturnOp)
        hints = partial.name_hint, value.name_hint  # keep the names the values had
        block.args[0].replace_all_uses_with(partial)
        block.args[1].replace_all_uses_with(value)
        partial.name_hint, value.name_hint = hints
        for inner in list(block.ops):
            if inner is not ret:
                inner.detach()
                into.append(inner)
        out.append(ret.result)
    return out


def lower(op: scf.ParallelOp) -> None:
    """Replace ``op`` by its loop nest (its body, inlined, for a 0-d ``scf.parallel``)."""
    body = op.body.block
    reduce = body.last_op
    assert isinstance(reduce, scf.ReduceOp)
    loc = op.location
    carried: list[SSAValue] = list(op.initVals)
    loops: list[scf.ForOp] = []
    for lb, ub, step in zip(op.lowerBound, op.upperBound, op.step, strict=True):
        block = Block(arg_types=[IndexType(), *(v.type for v in carried)])
        loop = scf.ForOp(lb, ub, step, carried, block)
        loop.location = loc
        if loops:
            loops[-1].body.block.add_op(loop)
        loops.append(loop)
        carried = list(block.args[1:])
    for arg, loop in zip(body.args, loops, strict=True):
        arg.replace_all_uses_with(loop.body.block.args[0])
    moved: list[Operation] = []
    for inner in list(body.ops):
        if inner is not reduce:
            inner.detach()
            moved.append(inner)
    results = _fold(reduce, carried, moved)
    if not loops:  # 0-d: the body runs once, where the scf.parallel was
        Rewriter.insert_op(moved, InsertPoint.before(op))
        Rewriter.replace_op(op, [], results)
        return
    for inner in moved:
        loops[-1].body.block.add_op(inner)
    for loop in reversed(loops):  # each loop yields what the loop inside it returns
        yield_op = scf.YieldOp(*results)
        yield_op.location = loc
        loop.body.block.add_op(yield_op)
        results = list(loop.results)
    Rewriter.replace_op(op, loops[0], results)


@dataclass(frozen=True)
class LowerScfParallel(ModulePass):
    """Lowers ``scf.parallel`` (reductions included) to nested sequential ``scf.for`` loops."""

    name = "lower-scf-parallel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # innermost first, so an outer nest moves bodies already lowered
        for par in reversed([o for o in op.walk() if isinstance(o, scf.ParallelOp)]):
            lower(par)
