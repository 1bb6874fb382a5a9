"""lower-scf-forall: ``scf.forall`` (dialects/scf_forall.py) as an ``scf.for`` nest.

Upstream's ``scf.forall`` runs its iterations in parallel, in no given order: running them
one after the other is one of its executions (upstream's ``-scf-forall-to-for``). The
``mapping`` attribute (how to spread the iterations over GPU threads) is dropped: in a kernel
each work-item runs the whole nest, as upstream's lowering without ``-gpu-map-...``.

Expects: ``scf.forall`` without ``shared_outs`` (memrefs; the op's verifier refuses tensors).
Guarantees: no ``scf.forall`` left; a module without one is unchanged.

Before::

    scf.forall (%i, %j) in (4, %n) { "use"(%i, %j) : (index, index) -> () }

After::

    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %n step %c1 { "use"(%i, %j) : (index, index) -> () }
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects.scf_forall import ForallOp


def _lower(op: ForallOp) -> None:
    def value(v: int | SSAValue) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        c = arith.ConstantOp(IntegerAttr(v, IndexType()))
        c.location = op.location
        Rewriter.insert_op(c, InsertPoint.before(op))
        return c.result

    lbs, ubs, steps = ([value(v) for v in vs] for vs in op.bounds())
    block = op.body.block
    term = block.last_op
    assert term is not None
    Rewriter.erase_op(term)
    point = InsertPoint.before(op)
    bodies = []
    for lb, ub, step in zip(lbs, ubs, steps, strict=True):
        body = Block(arg_types=[IndexType()])
        loop = scf.ForOp(lb, ub, step, [], body)
        loop.location = op.location
        Rewriter.insert_op(loop, point)
        bodies.append(body)
        point = InsertPoint.at_end(body)
    inner = bodies[-1]
    for o in list(block.ops):
        o.detach()
        inner.add_op(o)
    for arg, body in zip(block.args, bodies, strict=True):
        arg.replace_all_uses_with(body.args[0])
    for body in bodies:
        y = scf.YieldOp()
        y.location = op.location
        body.add_op(y)
    Rewriter.erase_op(op)


@dataclass(frozen=True)
class LowerScfForall(ModulePass):
    """Lower scf.forall to scf.for nests."""

    name = "lower-scf-forall"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in [o for o in op.walk() if isinstance(o, ForallOp)]:
            _lower(o)
