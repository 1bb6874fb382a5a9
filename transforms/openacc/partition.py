"""Loops of ``convert-acc-to-oacc``: ``acc.loop`` partitioned over the gang, worker and
vector levels (uniform-trip-count ``scf.for`` loops over ``oacc.dim_pos``/``dim_size``,
remainder rounds, collapse). What every work-item runs masked, in a remainder round or
worker-partitioned code that holds partitioned loops, is ``masking.py``'s."""

from __future__ import annotations

from xdsl.dialects import acc, arith, func, scf
from xdsl.dialects.builtin import ArrayAttr, IndexType
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from xmux.dialects import oacc
from xmux.dialects.oacc import Level
from xmux.transforms.openacc.acc_common import Builder, const_int, err, unsupported
from xmux.transforms.openacc.masking import RoundMasker, has_partitioned
from xmux.transforms.openacc.reduction_builtins import Red, ReductionBuiltins

_LEVELS = (Level.GANG, Level.WORKER, Level.VECTOR)


def _device_none(a: ArrayAttr | None) -> bool:
    """A clause attribute present for the default device type (``#acc.device_type<none>``)."""
    return a is not None and any(d.data == acc.DeviceType.NONE for d in a.data)


class LoopPartitioner:
    """Lowers one kernel's ``acc.loop``\\ s: each is partitioned over its gang/worker/vector
    levels into ``scf.for`` loops, with its reductions' builtins placed around it by a
    ``ReductionBuiltins``."""

    def __init__(self, where: str, reductions: ReductionBuiltins) -> None:
        self.where = where
        self.reductions = reductions
        self.loop_reds: dict[acc.LoopOp, list[Red]] = {}
        #: the masks of rounds that every work-item runs (masking.py)
        self.masks = RoundMasker(where, self._loop_levels)

    def lower_loops(self, kernel: func.FuncOp) -> None:
        while True:
            lp = next((o for o in kernel.walk() if isinstance(o, acc.LoopOp)), None)
            if lp is None:
                return
            self._lower_loop(kernel, lp)

    def _loop_levels(self, lp: acc.LoopOp) -> list[Level]:
        where = f"acc.loop in {self.where}"
        if lp.gang_operands and not _gang_static_only(lp):
            raise unsupported(f"{where}: the gang(num/dim) clause")
        for vals, what in ((lp.worker_num_operands, "worker(num)"),
                           (lp.vector_operands, "vector(length)"),
                           (lp.tile_operands, "tile")):  # cache: a hint, ignored
            if vals:
                raise unsupported(f"{where}: the {what} clause")
        if lp.results_:
            raise unsupported(f"{where}: loop results")
        if lp.unstructured is not None or not lp.lowerbound:
            raise unsupported(f"{where}: a loop without control(...) (container-like)")
        if len(lp.region.blocks) != 1:
            raise unsupported(f"{where}: a multi-block loop body")
        for a, what in ((lp.gang, "gang"), (lp.worker, "worker"), (lp.vector, "vector"),
                        (lp.seq, "seq"), (lp.independent, "independent"), (lp.auto_, "auto")):
            if a is not None and not _device_none(a):
                raise unsupported(f"{where}: device_type-specific {what}")
        present = (lp.gang or bool(lp.gang_operands), lp.worker, lp.vector)
        levels = [lvl for lvl, a in zip(_LEVELS, present, strict=True) if a]
        if lp.seq is not None and levels:
            raise err(f"{where}: seq together with {'/'.join(x.value for x in levels)}")
        return levels

    def _lower_loop(self, kernel: func.FuncOp, lp: acc.LoopOp) -> None:
        levels = self._loop_levels(lp)
        reds = self.loop_reds.pop(lp)
        results = list(lp.reduction_operands)
        body_region = lp.region
        b = Builder(InsertPoint.before(lp))
        items, lid = self.reductions.enter_loop(kernel, levels, reds, results, body_region, b)
        self._partition(kernel, lp, levels, b)
        # _partition inserted the loops before `lp`; the epilogue goes there too
        self.reductions.exit_loop(kernel, levels, items, lid, b)
        lp.detach()
        lp.erase()

    def _partition(self, kernel: func.FuncOp, lp: acc.LoopOp, levels: list[Level],
                   b: Builder) -> None:
        """Emit the (partitioned) loop nest for ``lp`` at ``b``'s insertion point."""
        ivs = list(lp.region.block.args)
        lbs = [b.index(v) for v in lp.lowerbound]
        ubs = [b.index(v) for v in lp.upperbound]
        steps = [b.index(v) for v in lp.step]
        incl = lp.inclusive_upperbound
        inclusive = [bool(x) for x in incl.get_values()] if incl is not None else []
        inclusive += [False] * (len(ivs) - len(inclusive))
        c0 = b.const(0)
        c1 = b.const(1)
        ntrips = [self._trip_count(b, lb, ub, st, inc)
                  for lb, ub, st, inc in zip(lbs, ubs, steps, inclusive, strict=True)]
        ntrip = ntrips[0]
        for t in ntrips[1:]:
            ntrip = b.mul(ntrip, t)
        valid = self.masks.round_validity(lp)
        if valid is not None:
            # inside a masked remainder round: no iteration for the masked positions
            ntrip = b.v(arith.SelectOp(valid, ntrip, c0))

        # max(n, 1): a masked remainder round computes (unused) indices even when n = 0
        divisors = [
            b.const(max(c, 1)) if (c := const_int(n)) is not None else b.v(arith.MaxUIOp(n, c1))
            for n in ntrips[1:]
        ]
        divisors.insert(0, c1)

        def ivs_of(bb: Builder, k: SSAValue) -> list[SSAValue]:
            """Control-variable values of linear iteration ``k`` (last variable fastest)."""
            out: list[SSAValue] = [c0] * len(ivs)
            rest = k
            for j in reversed(range(len(ivs))):
                if j == 0:
                    idx = rest
                else:
                    idx = bb.v(arith.RemUIOp(rest, divisors[j]))
                    rest = bb.v(arith.DivUIOp(rest, divisors[j]))
                val = bb.add(lbs[j], bb.mul(idx, steps[j]))
                out[j] = bb.cast(val, ivs[j].type)
            return out

        if not levels:
            body = Block(arg_types=[IndexType()])
            bb = Builder(InsertPoint.at_end(body))
            self._inline_body(self._clone_body(lp), body, ivs_of(bb, body.args[0]), bb)
            self.masks.finish_sequential_body(lp, body)
            body.add_op(scf.YieldOp())
            b.op(scf.ForOp(c0, ntrip, c1, [], body))
            return
        gstart: SSAValue | None = None
        static = _gang_static(lp) if levels[0] == Level.GANG else None
        if static is not None:
            # gang(static:N): chunks of N iterations dealt round-robin (GCC's chunking)
            b, gstart, ntrip = self._static_chunks(b, ntrip, static)
            levels = levels[1:]
        elif levels[0] == Level.GANG:
            # gangs take contiguous chunks (a CPU work-group streams through its own part)
            gp = b.v(oacc.DimPosOp(Level.GANG))
            gs = b.v(oacc.DimSizeOp(Level.GANG))
            chunk = b.ceildiv_pos(ntrip, gs)
            gstart = b.mul(gp, chunk)
            # this gang's iterations: min(chunk, n - min(start, n)) (0 past the end)
            rest = b.v(arith.SubiOp(ntrip, b.v(arith.MinUIOp(gstart, ntrip))))
            ntrip = b.v(arith.MinUIOp(rest, chunk))
            levels = levels[1:]
        if Level.WORKER in levels and not has_partitioned(lp.region):
            # workers take contiguous chunks of whole vector rounds: a worker is a row of the
            # work-group's work-item nest, so it streams through its part (its trip count may
            # differ from the other workers': nothing in the body synchronizes them)
            unit = b.v(oacc.DimSizeOp(Level.VECTOR)) if Level.VECTOR in levels else c1
            ws = b.v(oacc.DimSizeOp(Level.WORKER))
            chunk = b.mul(b.ceildiv_pos(ntrip, b.mul(ws, unit)), unit)
            wstart = b.mul(b.v(oacc.DimPosOp(Level.WORKER)), chunk)
            rest = b.v(arith.SubiOp(ntrip, b.v(arith.MinUIOp(wstart, ntrip))))
            ntrip = b.v(arith.MinUIOp(rest, chunk))
            gstart = wstart if gstart is None else b.add(gstart, wstart)
            levels = [lvl for lvl in levels if lvl != Level.WORKER]
        if not levels:
            assert gstart is not None
            body = Block(arg_types=[IndexType()])
            bb = Builder(InsertPoint.at_end(body))
            k = bb.add(gstart, body.args[0])
            self._inline_body(self._clone_body(lp), body, ivs_of(bb, k), bb)
            body.add_op(scf.YieldOp())
            b.op(scf.ForOp(c0, ntrip, c1, [], body))
            return
        pos: SSAValue | None = None
        size: SSAValue | None = None
        for lvl in levels:
            p = b.v(oacc.DimPosOp(lvl))
            s = b.v(oacc.DimSizeOp(lvl))
            pos = p if pos is None else b.add(b.mul(pos, s), p)
            size = s if size is None else b.mul(size, s)
        assert pos is not None and size is not None
        full = b.v(arith.DivUIOp(ntrip, size))
        # full rounds: every position has an iteration
        body = Block(arg_types=[IndexType()])
        bb = Builder(InsertPoint.at_end(body))
        k = bb.add(bb.mul(body.args[0], size), pos)
        if gstart is not None:
            k = bb.add(gstart, k)
        self._inline_body(self._clone_body(lp), body, ivs_of(bb, k), bb)
        if Level.WORKER in levels:
            self.masks.if_convert_block(body)
        body.add_op(scf.YieldOp())
        b.op(scf.ForOp(c0, full, c1, [], body))
        # remainder round, guarded
        k = b.add(b.mul(full, size), pos)
        ok = b.v(arith.CmpiOp(k, ntrip, "ult"))
        if gstart is not None:
            k = b.add(gstart, k)
        region = self._clone_body(lp)
        if (Level.WORKER in levels or Level.VECTOR in levels) and has_partitioned(region):
            # Nested partitioned loops synchronize the work-group (fork/join, reductions), so
            # every work-item runs the round; the masked positions run no iteration of them
            # and skip the other side effects (masking.py).
            self.masks.masked(region, b, ivs_of(b, k), ok)
            return
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        self._inline_body(region, then, ivs_of(tb, k), tb)
        then.add_op(scf.YieldOp())
        b.op(scf.IfOp(ok, [], Region(then)))

    def _static_chunks(self, b: Builder, ntrip: SSAValue, size: SSAValue,
                       ) -> tuple[Builder, SSAValue, SSAValue]:
        """gang(static:N): gang g runs chunks g, g + ng, ... of N iterations; returns a
        builder inside that loop, the chunk's first iteration and its length."""
        c0 = b.const(0)
        size = b.index(size)
        cn = const_int(size)
        if cn is not None and cn < 1:
            raise err(f"acc.loop in {self.where}: gang(static:{cn}) must be at least 1")
        if cn is None:  # a run-time size below 1 is static:* (one contiguous chunk per gang)
            whole = b.ceildiv_pos(ntrip, b.v(oacc.DimSizeOp(Level.GANG)))
            size = b.v(arith.SelectOp(b.v(arith.CmpiOp(size, c0, "sgt")), size, whole))
        nchunks = b.ceildiv_pos(ntrip, size)
        body = Block(arg_types=[IndexType()])
        body.add_op(scf.YieldOp())
        b.op(scf.ForOp(b.v(oacc.DimPosOp(Level.GANG)), nchunks,
                       b.v(oacc.DimSizeOp(Level.GANG)), [], body))
        ib = Builder(InsertPoint.before(body.last_op))  # type: ignore[arg-type]
        start = ib.mul(body.args[0], size)
        n = ib.v(arith.MinUIOp(size, ib.sub(ntrip, start)))
        return ib, start, n

    def _trip_count(self, b: Builder, lb: SSAValue, ub: SSAValue, st: SSAValue, inclusive: bool,
                    ) -> SSAValue:
        """max(0, ceil((ub - lb) / step)); the sign of a non-constant step is taken as +."""
        cst = const_int(st)
        if cst == 0:
            raise err(f"acc.loop in {self.where}: step 0")
        clb, cub = const_int(lb), const_int(ub)
        if cst is not None and clb is not None and cub is not None:
            cub += cst if inclusive else 0
            n = (cub - clb) if cst > 0 else (clb - cub)
            return b.const(max(0, -(-n // abs(cst))))
        if inclusive:
            ub = b.add(ub, st)
        if cst is not None and cst < 0:
            return b.ceildiv_pos(b.sub(lb, ub), b.const(-cst))
        return b.ceildiv_pos(b.sub(ub, lb), st)

    def _inline_body(self, region: Region, into: Block, ivs: list[SSAValue], b: Builder) -> None:
        src = region.block
        for a, v in zip(src.args, ivs, strict=True):
            a.replace_all_uses_with(v)
        for o in list(src.ops):
            o.detach()
            if isinstance(o, (acc.YieldOp, acc.TerminatorOp)):
                if isinstance(o, acc.YieldOp) and o.arguments:
                    raise unsupported(f"acc.loop in {self.where}: acc.yield with values")
                o.erase()
                continue
            into.add_op(o)

    def _clone_body(self, lp: acc.LoopOp) -> Region:
        """A copy of the loop's body; its nested acc.loops get the originals' clauses."""
        region = lp.region.clone()
        originals = [o for o in lp.region.walk() if isinstance(o, acc.LoopOp)]
        clones = [o for o in region.walk() if isinstance(o, acc.LoopOp)]
        assert len(originals) == len(clones)
        for o, c in zip(originals, clones, strict=True):
            self.loop_reds[c] = self.loop_reds[o]
            self.masks.inherit(o, c)
        return region

def _gang_static_only(lp: acc.LoopOp) -> bool:
    kinds = lp.gang_operands_arg_type
    devs = lp.gang_operands_device_type
    return (kinds is not None and all(k.data == acc.GangArgType.STATIC for k in kinds.data)
            and (devs is None or all(d.data == acc.DeviceType.NONE for d in devs.data)))


def _gang_static(lp: acc.LoopOp) -> SSAValue | None:
    """The chunk size of gang(static:N); None without one or for static:* (a negative
    constant, as flang writes it: the default contiguous chunks)."""
    if not lp.gang_operands or not _gang_static_only(lp):
        return None
    v = lp.gang_operands[0]
    c = const_int(v)
    return None if c is not None and c < 0 else v
