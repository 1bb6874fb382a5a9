"""Emission: work-group level code from the regions and the storage plan.

Stage 3 of work-item loops with barriers. Reads ``Regions`` and a ``StoragePlan`` and
decides nothing: each segment becomes a work-item loop nest from the client's
``NestFactory``; a barrier becomes ``mux.mem_barrier`` with its scope and semantics between
two nests (the loop boundaries give the control part, the fence keeps the memory part);
lifted ops are rebuilt at the group level with only their work-group iteration values as
SSA values; per-work-item values move as the plan says — stored when their segment ends
(into their home and the arrays of their coalesced copies), loaded or re-computed where
used, copied at the edges the plan left. A ``mux.single_work_item`` step runs once at the
group level as work-item 0 (``NestFactory.open_single``; per-work-item values read at
index 0). Values uniform by the barrier rule are read back from work-item 0 once their
segment closed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, UnknownLoc, i8
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, mux
from xmux.transforms.insert_bounds_checks import Sites
from xmux.transforms.uniformity import ancestor_in, free_values, is_control_barrier
from xmux.transforms.wi_loops.divergence import checkable, insert_check
from xmux.transforms.wi_loops.nests import Nest, NestFactory, debug_build
from xmux.transforms.wi_loops.regions import Regions
from xmux.transforms.wi_loops.storage import Copy, StoragePlan


@dataclass
class _Segment:
    nest: Nest
    mapping: dict[SSAValue, SSAValue] = field(default_factory=dict)
    defined: list[SSAValue] = field(default_factory=list)


@dataclass
class _Slice:
    buffer: SSAValue
    stride: SSAValue  # bytes per work-item


class _Lifted(ABC):
    """Rebuilds lifted ops at the group level, their levels emitted by ``Emitter``:
    only work-group iteration values stay SSA values; uniformized ones are read from
    work-item 0 on entry."""

    plan: StoragePlan
    r: Regions
    f: NestFactory
    env: dict[SSAValue, SSAValue]
    slots: dict[SSAValue, SSAValue]

    @abstractmethod
    def _wg_value(self, v: SSAValue) -> SSAValue: ...

    @abstractmethod
    def _emit_block(self, ops: list[Operation], ip: InsertPoint) -> _Segment | None: ...

    @abstractmethod
    def _finish(self, block: Block, seg: _Segment | None, ip: InsertPoint) -> None: ...

    #: debug builds: where the nests of the segments opened from now on say they are (the
    #: barrier or the lifted op that starts them, else the program's enclosing op)
    boundary: Attribute
    debug: bool

    @staticmethod
    def _insert_like(old: Operation, new: Operation, ip: InsertPoint) -> None:
        """Insert ``new``, the group-level form of ``old``, with ``old``'s location."""
        new.location = old.location
        Rewriter.insert_op(new, ip)

    def _uniform_read(self, load: memref.LoadOp, v: SSAValue, op: Operation | None) -> None:
        """A value uniform by the barrier rule, read from work-item 0 at the group level
        for lifted op ``op``: at its line (debug builds: a variable of ``v``'s name)."""
        if op is not None:
            load.location = op.location
        if self.debug:
            load.res.name_hint = v.name_hint

    def _at_lifted(self, op: Operation) -> None:
        """The segments that open each level of lifted ``op``, and the one after it, start
        at its line."""
        self.boundary = op.location

    def _enter_block(self, old: list[SSAValue], new: Block, first: int = 0) -> None:
        """Map the group-level block arguments ``old`` to ``new``'s (from ``first``); read
        uniformized per-work-item ones from work-item 0."""
        it = iter(new.args[first:])
        for a in old:
            if self.r.is_wg(a):
                self.env[a] = next(it)
                self.env[a].name_hint = a.name_hint
        for a in old:
            if a in self.r.uniformize:
                load = memref.LoadOp.get(self.slots[a], [self.f.zero()])
                self._uniform_read(load, a, self.r.uniformized_for.get(a))
                Rewriter.insert_op(load, InsertPoint.at_end(new))
                self.env[a] = load.res

    def _after_lifted(self, op: Operation, new: Operation, ip: InsertPoint) -> None:
        it = iter(new.results)
        for res in op.results:
            if self.r.is_wg(res):
                self.env[res] = next(it)
        for res in op.results:
            if res in self.r.uniformize:
                load = memref.LoadOp.get(self.slots[res], [self.f.zero()])
                self._uniform_read(load, res, op)
                Rewriter.insert_op(load, ip)
                self.env[res] = load.res

    def _level(self, old: Block, new: Block) -> InsertPoint:
        """Emit level ``old`` into ``new`` (up to its terminator); returns the end."""
        self._enter_block(list(old.args), new)
        at = InsertPoint.at_end(new)
        seg = self._emit_block([o for o in old.ops if o is not old.last_op], at)
        self._finish(old, seg, at)
        return at

    @staticmethod
    def _kept_types(values: Sequence[SSAValue], keep: Sequence[bool]) -> list[Attribute]:
        return [v.type for v, k in zip(values, keep, strict=True) if k]

    def _wg_operands(self, values: Sequence[SSAValue], keep: Sequence[bool]) -> list[SSAValue]:
        return [self._wg_value(v) for v, k in zip(values, keep, strict=True) if k]

    def _emit_lifted(self, op: Operation, ip: InsertPoint) -> None:
        if isinstance(op, scf.ForOp):
            self._emit_for(op, ip)
        elif isinstance(op, scf.IfOp):
            self._emit_if(op, ip)
        else:
            assert isinstance(op, scf.WhileOp)
            self._emit_while(op, ip)

    def _emit_for(self, op: scf.ForOp, ip: InsertPoint) -> None:
        body = op.body.block
        keep = [self.r.is_wg(a) for a in body.args[1:]]
        new_body = Block(
            arg_types=[IndexType(), *self._kept_types(body.args[1:], keep)]
        )
        new = scf.ForOp(
            self._wg_value(op.lb),
            self._wg_value(op.ub),
            self._wg_value(op.step),
            self._wg_operands(op.iter_args, keep),
            new_body,
        )
        # the loop's vectorization hint is the kernel author's (or an earlier pass's)
        attrs.set_loop_vectorize_width(new, attrs.get_loop_vectorize_width(op))
        new.location = op.location
        Rewriter.insert_op(new, ip)
        iv = body.args[0]  # group level: region formation makes the bounds so
        self.env[iv] = new_body.args[0]
        new_body.args[0].name_hint = iv.name_hint
        self._enter_block(list(body.args[1:]), new_body, first=1)
        at = InsertPoint.at_end(new_body)
        yld = body.last_op
        assert yld is not None
        self._at_lifted(op)
        seg = self._emit_block([o for o in body.ops if o is not yld], at)
        self._finish(body, seg, at)
        self._insert_like(yld, scf.YieldOp(*self._wg_operands(yld.operands, keep)), at)
        self._at_lifted(op)
        self._after_lifted(op, new, ip)

    def _emit_if(self, op: scf.IfOp, ip: InsertPoint) -> None:
        keep = [self.r.is_wg(res) for res in op.results]
        regions: list[Region] = []
        for region in op.regions:
            if not region.blocks:
                regions.append(Region())
                continue
            old = region.block
            new_block = Block()
            regions.append(Region(new_block))
            self._at_lifted(op)
            at = self._level(old, new_block)
            self._at_lifted(op)
            yld = old.last_op
            assert yld is not None
            self._insert_like(yld, scf.YieldOp(*self._wg_operands(yld.operands, keep)), at)
        new = scf.IfOp(
            self._wg_value(op.cond),
            self._kept_types(op.results, keep),
            regions[0],
            regions[1] if regions[1].blocks else None,
        )
        new.location = op.location
        Rewriter.insert_op(new, ip)
        self._after_lifted(op, new, ip)

    def _emit_while(self, op: scf.WhileOp, ip: InsertPoint) -> None:
        before, after = op.before_region.block, op.after_region.block
        cond = before.last_op
        yld = after.last_op
        assert isinstance(cond, scf.ConditionOp) and yld is not None
        keep_before = [self.r.is_wg(a) for a in before.args]
        keep_after = [self.r.is_wg(a) for a in after.args]
        new_before = Block(arg_types=self._kept_types(before.args, keep_before))
        new_after = Block(arg_types=self._kept_types(after.args, keep_after))
        new = scf.WhileOp(
            self._wg_operands(op.arguments, keep_before),
            self._kept_types(after.args, keep_after),
            Region(new_before),
            Region(new_after),
        )
        new.location = op.location
        Rewriter.insert_op(new, ip)
        self._at_lifted(op)
        at = self._level(before, new_before)
        self._insert_like(
            cond,
            scf.ConditionOp(
                self._wg_value(cond.condition), *self._wg_operands(cond.args, keep_after)
            ),
            at,
        )
        self.boundary = cond.location  # the after region starts at the condition
        at = self._level(after, new_after)
        self._insert_like(yld, scf.YieldOp(*self._wg_operands(yld.operands, keep_before)), at)
        self._at_lifted(op)
        self._after_lifted(op, new, ip)


class Emitter(_Lifted):
    """Emits one analysed program (see the module docstring)."""

    def __init__(self, plan: StoragePlan, factory: NestFactory,
                 check: tuple[Sites, str] | None = None) -> None:
        self.plan = plan
        #: the checking mode's divergent-barrier check: its message sites and the kernel
        self.check = check
        self.r = plan.regions
        self.f = factory
        self.env: dict[SSAValue, SSAValue] = {}
        """Group-level values of the program's work-group values."""
        self.slots: dict[SSAValue, SSAValue] = {}
        self.slices: dict[SSAValue, _Slice] = {}
        self.wi_loops: list[Operation] = []
        """Outermost loops of the nests created (for clients that post-process them)."""
        enclosing = self.r.block.parent_op()
        #: debug builds (``nests.debug_build``): each segment describes the named values in
        #: scope at its start, read for its work-item (``_describe``)
        self.debug = debug_build(enclosing)
        self.boundary = enclosing.location if enclosing is not None else UnknownLoc()
        #: debug builds: the location of the op being emitted (given to what it reads)
        self._loc: Attribute = self.boundary
        self._described_values: list[SSAValue] | None = None

    def emit(self, ip: InsertPoint) -> None:
        self._allocate()
        seg = self._emit_block(self.r.ops, ip)
        self._close(seg, ip)

    def _allocate(self) -> None:
        arrays = {arr.index: self.f.new_array(arr.type) for arr in self.plan.arrays}
        for v, arr in self.plan.home.items():
            self.slots[v] = arrays[arr.index]
        for v, p in self.plan.private.items():
            c = arith.ConstantOp.from_int_and_width(p.stride, IndexType())
            total = arith.MuliOp(self.f.group_size(), c.result)
            buf = memref.AllocaOp.get(
                i8, alignment=64, shape=[DYNAMIC_INDEX], dynamic_sizes=[total.result],
                memory_space=p.type.memory_space,
            )
            attrs.mark_per_work_item(buf)
            self.f.insert_storage([c, total, buf])
            self.slices[v] = _Slice(buf.memref, c.result)
        for op in self.plan.shared_allocas:
            clone = op.clone()
            self.f.insert_storage([clone])
            self.env[op.results[0]] = clone.results[0]

    # -- values --------------------------------------------------------------------------

    def _wg_value(self, v: SSAValue) -> SSAValue:
        if self.r.outside(v):
            return self.env.get(v, v)
        return self.env[v]

    def _import(self, seg: _Segment, v: SSAValue) -> SSAValue:
        """The value of ``v`` inside ``seg`` (re-computed, loaded, or group-level)."""
        if v in seg.mapping:
            return seg.mapping[v]
        r = self.r
        if v in r.wi_args:
            out = seg.nest.lin if seg.nest.iv is None else seg.nest.iv
        elif r.is_wg(v) or v in self.env:
            out = self._wg_value(v)
        elif v in self.slices:
            p = self.slices[v]
            shift = arith.MuliOp(seg.nest.lin, p.stride)
            t = self.plan.private[v].type
            view = memref.ViewOp(p.buffer, shift.result, [], t)
            self._located([shift, view])
            Rewriter.insert_op([shift, view], seg.nest.ip)
            out = view.result
        elif v in self.slots:
            load = memref.LoadOp.get(self.slots[v], [seg.nest.lin])
            self._located([load])
            Rewriter.insert_op(load, seg.nest.ip)
            out = load.res
        elif self.plan.remat.get(v) is not None:
            op = v.owner
            assert isinstance(op, Operation)
            for o in op.operands:
                self._import(seg, o)
            self._clone_into(seg, op, define=False)
            return seg.mapping[v]
        else:
            raise AssertionError(f"work-item-loops: no way to bring {v} into a segment")
        if self.debug and v.name_hint and not out.name_hint:
            out.name_hint = v.name_hint  # the variable, read for this work-item
        seg.mapping[v] = out
        return out

    def _located(self, ops: list[Operation]) -> None:
        """Debug builds: what a segment reads carries the location of the op reading it."""
        if self.debug:
            for op in ops:
                op.location = self._loc

    def _clone_into(self, seg: _Segment, op: Operation, define: bool) -> None:
        clone = op.clone(value_mapper=dict(seg.mapping))
        Rewriter.insert_op(clone, seg.nest.ip)
        for old, new in zip(op.results, clone.results, strict=True):
            seg.mapping[old] = new
            if define:
                seg.defined.append(old)

    # -- segments ------------------------------------------------------------------------

    def _open(self, seg: _Segment | None, ip: InsertPoint, at: Operation) -> _Segment:
        """The open segment, else a new one whose first op is ``at`` (an op of the level
        being emitted: the first op of the segment, the lifted op or terminator whose edge
        copies it makes)."""
        if seg is not None:
            return seg
        nest = self.f.open_nest(ip)
        if nest.outer is not None:
            self.wi_loops.append(nest.outer)
        seg = _Segment(nest)
        if self.debug:
            self._describe(seg, at)
        return seg

    # -- debug builds ----------------------------------------------------------------------

    def _describe(self, seg: _Segment, at: Operation) -> None:
        """Debug builds: at the top of a new segment, bring in each named per-work-item value
        in scope at ``at`` (defined before it, at its level or one enclosing it) that lives
        in storage (read at the work-item's slot) or is re-computed, so that the variable
        of its name (the emitter's named values) holds its value for the work-item running
        throughout the segment. The nest and these reads get the location of the boundary
        that opens the segment (the barrier, the lifted op: a breakpoint at the first line
        of the segment lands after them; re-computed ops keep their own lines). A stored
        iteration value whose array already holds the next value (a coalesced copy wrote
        it) is left out."""
        if seg.nest.outer is not None:
            for op in seg.nest.outer.walk():  # the loops, set_local_id, yields
                op.location = self.boundary
        outer, self._loc = self._loc, self.boundary
        try:
            for v in self._described():
                if self._in_scope(v, at) and not self._overwritten(v, at):
                    self._import(seg, v)
        finally:
            self._loc = outer

    def _described(self) -> list[SSAValue]:
        """The named per-work-item values a segment may describe, in program order."""
        if self._described_values is not None:
            return self._described_values
        out: list[SSAValue] = []
        r, plan = self.r, self.plan
        for op in r.ops:
            for inner in op.walk():
                values = list(inner.results)
                for region in inner.regions:
                    for block in region.blocks:
                        values += block.args
                for v in values:
                    if not v.name_hint or r.is_wg(v) or v in r.uniformize:
                        continue
                    if v in self.slots or v in self.slices or (
                        inner in plan.sunk and plan.remat.get(v) is not None
                    ):
                        out.append(v)
        self._described_values = out
        return out

    @staticmethod
    def _in_scope(v: SSAValue, at: Operation) -> bool:
        """``v`` dominates ``at`` (structured control flow)."""
        owner = v.owner
        if isinstance(owner, Block):
            return ancestor_in(at, owner) is not None
        block = owner.parent_block()
        if block is None:
            return False
        anc = ancestor_in(at, block)
        return anc is not None and anc is not owner and owner.is_before_in_block(anc)

    def _overwritten(self, v: SSAValue, at: Operation) -> bool:
        """``v``'s array holds another member's value at ``at`` (a coalesced copy into it,
        from a source whose segment closed before ``at``)."""
        arr = self.plan.home.get(v)
        if arr is None:
            return False
        return any(
            src is not v and self._in_scope(src, at)
            and any(self.plan.home[d] is arr for d in dsts)
            for src, dsts in self.plan.early.items()
        )

    def _close(self, seg: _Segment | None, ip: InsertPoint) -> None:
        """Store what the plan keeps of the segment; read back uniformized values."""
        if seg is None:
            return
        for v in seg.defined:
            targets = [v] if v in self.plan.stored else []
            targets += self.plan.early.get(v, [])
            for dst in targets:
                store = memref.StoreOp.get(seg.mapping[v], self.slots[dst], [seg.nest.lin])
                if self.debug:  # storing v: v's line
                    store.location = v.owner.location  # type: ignore[union-attr]
                Rewriter.insert_op(store, seg.nest.ip)
        for v in seg.defined:
            if v in self.r.uniformize and self.check is not None and checkable(v):
                sites, kernel = self.check
                insert_check(sites, kernel, self.r.uniformized_for[v], v, seg.mapping[v],
                             self.slots[v], seg.nest.ip)
        for v in seg.defined:
            if v in self.r.uniformize:
                load = memref.LoadOp.get(self.slots[v], [self.f.zero()])
                self._uniform_read(load, v, self.r.uniformized_for.get(v))
                Rewriter.insert_op(load, ip)
                self.env[v] = load.res

    def _copy(self, seg: _Segment | None, ip: InsertPoint, copies: list[Copy],
              at: Operation) -> _Segment | None:
        """A parallel copy in a segment (the open one, else a new one at ``at``): every
        source is read before any destination is written."""
        if not copies:
            return seg
        seg = self._open(seg, ip, at)
        values = [self._import(seg, c.src) for c in copies]
        for val, c in zip(values, copies, strict=True):
            store = memref.StoreOp.get(val, self.slots[c.dst], [seg.nest.lin])
            self._located([store])
            Rewriter.insert_op(store, seg.nest.ip)
        return seg

    def _finish(self, block: Block, seg: _Segment | None, ip: InsertPoint) -> None:
        """End a level: its exit copies, then the last segment's stores."""
        end = block.last_op
        assert end is not None
        seg = self._copy(seg, ip, self.plan.edge_copies(self.plan.exit_edges.get(block)), end)
        self._close(seg, ip)

    def _emit_block(self, ops: list[Operation], ip: InsertPoint) -> _Segment | None:
        """Emit the group-level code of one level at ``ip``; return the segment still open
        at the end (the caller adds the exit copies, then closes it)."""
        r, plan = self.r, self.plan
        seg: _Segment | None = None
        for op in ops:
            if self.debug:
                self._loc = op.location
            if is_control_barrier(op):
                self._close(seg, ip)
                seg = None
                assert isinstance(op, mux.WorkGroupBarrierOp)
                self._insert_like(op, mux.MemBarrierOp(op.scope.data, op.semantics_value()), ip)
                self.boundary = op.location
            elif op in r.lifted:
                seg = self._copy(seg, ip, plan.edge_copies(plan.entry_edges.get(op)), op)
                self._close(seg, ip)
                seg = None
                self._emit_lifted(op, ip)
            elif op in r.single:
                self._close(seg, ip)
                seg = None
                self._emit_single(op, ip)
            elif op in r.hoisted:
                clone = op.clone(value_mapper={o: self._wg_value(o) for o in op.operands})
                where = ip
                if seg is not None:
                    outer = seg.nest.outer
                    where = InsertPoint.before(outer) if outer is not None else seg.nest.ip
                Rewriter.insert_op(clone, where)
                for old, new in zip(op.results, clone.results, strict=True):
                    self.env[old] = new
            elif op.results and op.results[0] in plan.private:
                continue  # each use takes its work-item's slice
            elif op in plan.sunk:
                continue  # re-computed where used
            elif any(op is a for a in plan.shared_allocas):
                continue
            else:
                seg = self._open(seg, ip, op)
                for v in free_values(op):
                    self._import(seg, v)
                self._clone_into(seg, op, define=True)
        return seg

    def _emit_single(self, op: Operation, ip: InsertPoint) -> None:
        """The body of a single-work-item ``scf.if``, once, at the group level, as
        work-item 0 (per-work-item values it uses are read at index 0)."""
        assert isinstance(op, scf.IfOp)
        one = _Segment(self.f.open_single(ip))
        body = op.true_region.block
        for inner in body.ops:
            if inner is body.last_op:
                break
            for v in free_values(inner):
                self._import(one, v)
            self._clone_into(one, inner, define=False)
