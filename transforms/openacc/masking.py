"""Masking for ``convert-acc-to-oacc``'s loops: code that every work-item runs although only
some of them should (``partition.py`` builds the loops around it).

On the CPU the forks, joins and reductions of a partitioned ``acc.loop`` are work-group
barriers, which every work-item must reach alike. So a remainder round holding partitioned
loops runs on every work-item, masked (``masked``), and an ``scf.if`` holding them in
worker-partitioned code runs both branches, each masked by its condition (``if_convert_block``).
A nested ``acc.loop`` is lowered later, by the ``LoopPartitioner``: ``RoundMasker`` records
what its lowering must do and hands it over (``round_validity``, ``finish_sequential_body``).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import acc, arith, complex, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    ComplexType,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator, is_side_effect_free

from xmux.dialects import oacc
from xmux.dialects.oacc import Level
from xmux.transforms.openacc.acc_common import Builder, unsupported


class RoundMasker:
    """The masks of one kernel's loops: which nested ``acc.loop``\\ s run in a masked round
    (their iterations guarded by the round's validity), which sequential ones keep their
    trip count with a masked body or get their ``scf.if``\\ s if-converted."""

    def __init__(self, where: str, loop_levels: Callable[[acc.LoopOp], list[Level]]) -> None:
        self.where = where
        #: the levels an acc.loop is partitioned over (``LoopPartitioner._loop_levels``)
        self.loop_levels = loop_levels
        #: acc.loops inside a masked remainder round -> the round's validity
        self.loop_valid: dict[acc.LoopOp, SSAValue] = {}
        #: sequential acc.loops holding partitioned loops inside a masked round: they keep
        #: their trip count (the nested loops' barriers need it uniform), their body is masked
        self.seq_valid: dict[acc.LoopOp, SSAValue] = {}
        #: sequential acc.loops holding partitioned loops in worker-partitioned code: their
        #: scf.ifs around partitioned loops are if-converted (_if_convert)
        self.seq_ifconv: set[acc.LoopOp] = set()

    # -- what the lowering of a nested acc.loop takes over --------------------------------

    def round_validity(self, lp: acc.LoopOp) -> SSAValue | None:
        """The validity of the masked round ``lp`` is in (None: not in one)."""
        return self.loop_valid.pop(lp, None)

    def finish_sequential_body(self, lp: acc.LoopOp, body: Block) -> None:
        """The body of sequential ``lp``, lowered: masked, or its ``scf.if``\\ s around
        partitioned loops if-converted, where ``lp`` was recorded so."""
        valid = self.seq_valid.pop(lp, None)
        if valid is not None:
            self.mask_block(body, valid)
        elif lp in self.seq_ifconv:
            self.seq_ifconv.discard(lp)
            self.if_convert_block(body)

    def inherit(self, original: acc.LoopOp, clone: acc.LoopOp) -> None:
        """``clone`` (of a body copied for another round) gets ``original``'s records."""
        if original in self.loop_valid:
            self.loop_valid[clone] = self.loop_valid[original]
        if original in self.seq_valid:
            self.seq_valid[clone] = self.seq_valid[original]
        if original in self.seq_ifconv:
            self.seq_ifconv.add(clone)

    # -- masking -------------------------------------------------------------------------

    def masked(self, region: Region, b: Builder, ivs: list[SSAValue], valid: SSAValue) -> None:
        """Inline a remainder round that every work-item runs: nested acc.loops get no
        iteration where ``valid`` is false (a sequential loop holding partitioned loops keeps
        its trip count and masks its body), region ops holding partitioned loops keep their
        control and mask their bodies; other ops with effects (or that may trap) run under
        ``scf.if valid`` (results: zero where masked); pure ops run unguarded."""
        src = region.block
        for a, v in zip(src.args, ivs, strict=True):
            a.replace_all_uses_with(v)
        for o in list(src.ops):
            o.detach()
            if isinstance(o, (acc.YieldOp, acc.TerminatorOp)):
                o.erase()
                continue
            b.op(o)
            self._mask_op(o, valid)

    def _if_convert(self, o: scf.IfOp, valid: SSAValue | None) -> None:
        """Both branches of an ``scf.if`` holding partitioned loops run on every work-item,
        each masked by its condition (and ``valid``): inside worker-partitioned code the
        condition may differ between workers, but the nested loops' forks and joins are
        work-group barriers on the CPU, which every work-item must reach alike."""
        b = Builder(InsertPoint.before(o))
        c = o.cond
        nc = b.v(arith.XOrIOp(c, b.v(arith.ConstantOp(IntegerAttr(1, IntegerType(1))))))
        vt = c if valid is None else b.v(arith.AndIOp(valid, c))
        ve = nc if valid is None else b.v(arith.AndIOp(valid, nc))
        outs: list[list[SSAValue]] = []
        for region, v in ((o.true_region, vt), (o.false_region, ve)):
            if not region.blocks:
                outs.append([])
                continue
            blk = region.block
            y = blk.last_op
            for op in list(blk.ops):
                if op is y:
                    continue
                op.detach()
                b.op(op)
                self._mask_op(op, v)
            outs.append(list(y.operands) if y is not None else [])
        for i, r in enumerate(o.results):
            r.replace_all_uses_with(b.v(arith.SelectOp(c, outs[0][i], outs[1][i])))
        o.detach()
        o.erase()

    def if_convert_block(self, block: Block) -> None:
        """If-convert the ``scf.if``\\ s holding partitioned loops in a worker-partitioned
        body (see ``_if_convert``); sequential loops holding them get the same later."""
        for o in list(block.ops):
            if not any(has_partitioned(r) for r in o.regions):
                continue
            if isinstance(o, scf.IfOp):
                self._if_convert(o, None)
            elif isinstance(o, acc.LoopOp):
                self._check_uniform(o, [*o.lowerbound, *o.upperbound, *o.step])
                self.seq_ifconv.add(o)
            elif isinstance(o, scf.ForOp | scf.WhileOp):
                self._check_uniform(o, list(o.operands) if isinstance(o, scf.WhileOp)
                                    else [o.lb, o.ub, o.step])
                for r in o.regions:
                    for blk in r.blocks:
                        self.if_convert_block(blk)
            else:
                for r in o.regions:
                    for blk in r.blocks:
                        self.if_convert_block(blk)

    def _check_uniform(self, o: Operation, control: list[SSAValue]) -> None:
        """A loop around partitioned loops in worker-partitioned code must run the same
        number of times on every worker (the nested forks/joins are work-group barriers)."""
        if any(_depends_on_position(v, set()) for v in control):
            raise unsupported(
                f"acc.loop in {self.where}: '{o.name}' around a partitioned loop inside a "
                "worker loop, with a trip count that differs between workers")

    def mask_block(self, block: Block, valid: SSAValue) -> None:
        for o in list(block.ops):
            self._mask_op(o, valid)

    def _mask_op(self, o: Operation, valid: SSAValue) -> None:
        where = f"acc.loop in {self.where}"
        if o.has_trait(IsTerminator):
            return
        if isinstance(o, acc.LoopOp):
            if not self.loop_levels(o) and has_partitioned(o.region):
                self.seq_valid[o] = valid  # uniform trip count, masked body
            else:
                self.loop_valid[o] = valid
            return
        if isinstance(o, scf.IfOp) and any(has_partitioned(r) for r in o.regions):
            self._if_convert(o, valid)
            return
        if any(has_partitioned(r) for r in o.regions):
            if not isinstance(o, _MASKABLE):
                raise unsupported(f"{where}: '{o.name}' around a partitioned loop inside a "
                                   "worker/vector loop whose trip count is not a multiple of "
                                   "its size")
            for r in o.regions:
                for blk in r.blocks:
                    self.mask_block(blk, valid)
            return
        if isinstance(o, memref.AllocaOp) or (
                not o.regions and is_side_effect_free(o) and not isinstance(o, _TRAPPING)):
            return  # (a private allocation: every work-item has its own)
        then = Block()
        zeros = [_zero(r.type, where, o) for r in o.results]
        other = Block([*zeros, scf.YieldOp(*[z.results[0] for z in zeros])])
        guard = scf.IfOp(valid, [r.type for r in o.results], Region(then),
                         Region(other) if o.results else None)
        parent = o.parent_block()
        assert parent is not None
        parent.insert_op_before(guard, o)
        o.detach()
        then.add_op(o)
        then.add_op(scf.YieldOp(*o.results))
        for r, nr in zip(o.results, guard.results, strict=True):
            r.replace_uses_with_if(nr, lambda u, g=guard: not g.is_ancestor(u.operation))


#: region ops that keep their control in a masked round and mask their bodies
_MASKABLE = (scf.IfOp, scf.ForOp, scf.WhileOp, scf.IndexSwitchOp, scf.ExecuteRegionOp)

_TRAPPING = (arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp, arith.CeilDivSIOp,
             arith.CeilDivUIOp, arith.FloorDivSIOp)


def _depends_on_position(v: SSAValue, seen: set[SSAValue]) -> bool:
    """Whether ``v`` is computed from a worker or vector position (``oacc.dim_pos``)."""
    if v in seen:
        return False
    seen.add(v)
    owner = v.owner
    if isinstance(owner, oacc.DimPosOp):
        return owner.level_value != Level.GANG
    if isinstance(owner, Block):
        p = owner.parent_op()
        if isinstance(p, scf.ForOp) and v is owner.args[0]:
            return any(_depends_on_position(x, seen) for x in (p.lb, p.ub, p.step))
        return p is not None and any(_depends_on_position(x, seen) for x in p.operands)
    return any(_depends_on_position(x, seen) for x in owner.operands)


def has_partitioned(region: Region) -> bool:
    """Whether ``region`` holds an acc.loop partitioned over some level."""
    return any(
        isinstance(o, acc.LoopOp) and (o.gang or o.gang_operands or o.worker or o.vector)
        for o in region.walk()
    )


def _zero(t: Attribute, where: str, op: Operation) -> Operation:
    if isinstance(t, IntegerType | IndexType):
        return arith.ConstantOp(IntegerAttr(0, t))
    if isinstance(t, AnyFloat):
        return arith.ConstantOp(FloatAttr(0.0, t))
    if isinstance(t, ComplexType):
        el = t.element_type
        return complex.ConstantOp(ArrayAttr([FloatAttr(0.0, el), FloatAttr(0.0, el)]), t)
    raise unsupported(f"{where}: '{op.name}' producing {t} in a masked remainder round")
