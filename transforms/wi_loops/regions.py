"""Region formation: segments between barriers, lifted control flow, work-group values.

Stage 1 of work-item loops with barriers. Reads a *per-work-item program* (the ops of one
block, written for a single work-item) and the ops that contain barriers; guarantees, in a
``Regions`` object, everything later stages need to know about its *shape*:

Levels and segments
    A *level* is the program's block or a block of a lifted op. The ops of a level between
    two split points (barriers, lifted ops, single work-item steps) form a *segment*, which
    emission wraps in a work-item loop nest. ``seg_index[op]`` numbers them per level; a
    split op has the number of the segment before it, ``last_index[block]`` is the number of
    the segment that ends the level (where its terminator's copies go).
Lifted ops
    ``scf.for``/``scf.while``/``scf.if`` that contain barriers run once per group, at the
    group level, with their segments inside (anything else raises ``Unstructured``: the
    caller falls back to region dispatch).
Work-group values (``wg``)
    Values the same for every work-item and computable at the group level: values defined
    outside the program, the induction variable of a lifted loop with group-level bounds,
    pure uniform ops on such values (``hoisted``: emitted at the group level, PoCL's
    uniformity analysis), and iteration arguments and results of lifted ops whose incoming
    values all are work-group values (an optimistic fixed point). Lifted control uses them.
Uniform by the barrier rule (``uniformize``)
    A control value that is not provably uniform is still legal to lift when the lifted
    region executes a barrier unconditionally (directly in its body): OpenCL requires every
    work-item to reach that barrier equally often, so the value is uniform in every legal
    program; it is stored per work-item and read back from work-item 0. For an ``scf.for``
    that rule makes only the *trip count* uniform: a loop whose lower bound or step is not
    a work-group value is first normalised to ``for k in [0, trip count)`` with the
    per-work-item induction variable ``lb + k * step`` inside, so that no work-item runs
    with work-item 0's induction variable. Barriers marked ``mux.sub_group_scope`` do not
    count: their control need only be uniform within each sub-group.
Single work-item steps (``single``)
    A result-less ``scf.if`` marked ``mux.single_work_item`` without barriers (the combining
    step of a lowered collective) is a segment of its own, run once per group as work-item
    0, when the client asks for it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, mux
from xmux.transforms.uniformity import is_control_barrier, is_uniform_pure
from xmux.transforms.wi_loops.nests import Unstructured, storable


def lifts_for_barriers(block: Block) -> list[Operation]:
    """Ops of ``block`` (recursively through lifted regions) that contain a barrier."""
    out: list[Operation] = []
    for op in block.ops:
        if is_control_barrier(op) or not any(is_control_barrier(o) for o in op.walk()):
            continue
        out.append(op)
        for region in op.regions:
            for b in region.blocks:
                out += lifts_for_barriers(b)
    return out


def control_operands(op: Operation) -> list[SSAValue]:
    """The operands that decide a lifted op's control flow."""
    if isinstance(op, scf.ForOp):
        return [op.lb, op.ub, op.step]
    if isinstance(op, scf.IfOp):
        return [op.cond]
    if isinstance(op, scf.WhileOp):
        cond = op.before_region.block.last_op
        assert isinstance(cond, scf.ConditionOp)
        return [cond.condition]
    return []


def uniform_by_rule(op: Operation) -> bool:
    """A barrier runs unconditionally in a region of the lifted op: legal programs make its
    control uniform (see the module docstring). Not so for a barrier standing in for a
    sub-group one (``mux.sub_group_scope``): its control need only be uniform within each
    sub-group."""
    return any(
        is_control_barrier(o) and not attrs.is_sub_group_scope(o)
        for r in op.regions for b in r.blocks for o in b.ops
    )


def lifted_values(op: Operation) -> list[tuple[SSAValue, list[SSAValue]]]:
    """(value, incoming values) for the iteration args and results of a lifted op."""
    out: list[tuple[SSAValue, list[SSAValue]]] = []
    if isinstance(op, scf.ForOp):
        body = op.body.block
        yld = body.last_op
        assert yld is not None
        for i, init in enumerate(op.iter_args):
            ins = [init, yld.operands[i]]
            out += [(body.args[i + 1], ins), (op.results[i], ins)]
    elif isinstance(op, scf.IfOp):
        for i, res in enumerate(op.results):
            ins = [r.block.last_op.operands[i] for r in op.regions]  # type: ignore
            out.append((res, ins))
    elif isinstance(op, scf.WhileOp):
        before, after = op.before_region.block, op.after_region.block
        cond, yld = before.last_op, after.last_op
        assert isinstance(cond, scf.ConditionOp) and yld is not None
        for i, init in enumerate(op.arguments):
            out.append((before.args[i], [init, yld.operands[i]]))
        for j, arg in enumerate(cond.args):
            out += [(after.args[j], [arg]), (op.results[j], [arg])]
    return out


@dataclass
class Regions:
    """The shape of a per-work-item program (see the module docstring)."""

    block: Block
    ops: list[Operation]
    lifted: set[Operation]
    wi_args: set[SSAValue]
    uniform_dims: frozenset[int]
    levels: list[tuple[Block, list[Operation]]] = field(default_factory=list)
    wg: set[SSAValue] = field(default_factory=set)
    uniformize: set[SSAValue] = field(default_factory=set)
    #: the lifted op whose control each uniformized value is
    uniformized_for: dict[SSAValue, Operation] = field(default_factory=dict)
    single: set[Operation] = field(default_factory=set)
    seg_index: dict[Operation, int] = field(default_factory=dict)
    last_index: dict[Block, int] = field(default_factory=dict)
    hoisted: set[Operation] = field(default_factory=set)

    def outside(self, v: SSAValue) -> bool:
        """Defined outside the program (above it): a group-level value."""
        if v in self.wi_args:
            return False
        owner = v.owner
        block = owner if isinstance(owner, Block) else owner.parent_block()
        while block is not None:
            if block is self.block:
                return v in self.block.args
            parent = block.parent_op()
            block = parent.parent_block() if parent is not None else None
        return True

    def is_wg(self, v: SSAValue) -> bool:
        return v in self.wg or self.outside(v)

    def uniform_pure(self, op: Operation) -> bool:
        """``is_uniform_pure``, plus the local / global ids of ``uniform_dims``: the same for
        every work-item of the nests of a client that splits only the loops of other
        dimensions (work-item-loop-interchange splits the innermost one)."""
        if isinstance(op, (mux.GetLocalIdOp, mux.GetGlobalIdOp)):
            return op.dim.value.data in self.uniform_dims
        return is_uniform_pure(op)

    def after(self, anc: Operation, seg: int, block: Block) -> bool:
        """``anc`` (an op of ``block``) runs after segment ``seg`` of ``block`` closed."""
        if anc is block.last_op:
            return True
        idx = self.seg_index.get(anc)
        if idx is None:
            return True
        if is_control_barrier(anc) or anc in self.lifted:
            return idx >= seg
        return idx > seg

    # -- analysis ------------------------------------------------------------------------

    def _levels(self) -> list[tuple[Block, list[Operation]]]:
        out: list[tuple[Block, list[Operation]]] = [(self.block, self.ops)]
        stack = list(self.ops)
        while stack:
            op = stack.pop()
            if op in self.lifted:
                for region in op.regions:
                    for b in region.blocks:
                        body = [o for o in b.ops if o is not b.last_op]
                        out.append((b, body))
                        stack.extend(body)
        return out

    def _compute_wg(self, assume: set[SSAValue]) -> None:
        self.wg = set()
        if self.block.args and not self.wi_args:
            self.wg.update(self.block.args)
        self._visit_wg(self.ops, assume)

    def _visit_wg(self, ops: list[Operation], assume: set[SSAValue]) -> None:
        for op in ops:
            if op in self.lifted:
                if isinstance(op, scf.ForOp) and self.is_wg(op.lb) and self.is_wg(op.step):
                    self.wg.add(op.body.block.args[0])
                for v, _ in lifted_values(op):
                    if v in assume and isinstance(v, BlockArgument):
                        self.wg.add(v)
                for region in op.regions:
                    for b in region.blocks:
                        self._visit_wg([o for o in b.ops if o is not b.last_op], assume)
                for v in op.results:
                    if v in assume:
                        self.wg.add(v)
            elif self.uniform_pure(op) and all(self.is_wg(o) for o in op.operands):
                self.wg.update(op.results)

    def _fixed_point(self) -> None:
        """Work-group values: optimistic fixed point over lifted iteration values."""
        assume = {v for op in self.lifted for v, _ in lifted_values(op)}
        while True:
            self._compute_wg(assume)
            keep = {
                v
                for op in self.lifted
                for v, ins in lifted_values(op)
                if v in assume and all(self.is_wg(i) for i in ins)
            }
            if keep == assume:
                return
            assume = keep

    def _normalize_loops(self) -> bool:
        """Normalise lifted ``scf.for``s whose lower bound or step varies (module
        docstring); True when one was rewritten (the analysis then starts again)."""
        for op in self.lifted:
            if (
                isinstance(op, scf.ForOp)
                and not (self.is_wg(op.lb) and self.is_wg(op.step))
                and uniform_by_rule(op)
            ):
                new = normalize_for(op)
                if op.parent_block() is self.block:
                    at = self.ops.index(op)
                    self.ops[at:at] = new
                return True
        return False

    def analyze(self, single_work_item: bool) -> None:
        for op in self.lifted:
            if not isinstance(op, (scf.ForOp, scf.IfOp, scf.WhileOp)):
                raise Unstructured(op, "only scf.for, scf.while and scf.if are lifted")
            if any(len(r.blocks) != 1 for r in op.regions if r.blocks):
                raise Unstructured(op, "regions with several blocks")
        self._fixed_point()
        while self._normalize_loops():
            self._fixed_point()
        self.levels = self._levels()
        # Lifted control must be group-level, or uniform by the barrier rule.
        for op in self.lifted:
            for v in control_operands(op):
                if self.is_wg(v):
                    continue
                if not uniform_by_rule(op):
                    raise Unstructured(op, "control that is not provably uniform")
                if not storable(v.type):
                    raise Unstructured(op, f"control value of type {v.type}")
                self.uniformize.add(v)
                self.uniformized_for.setdefault(v, op)
        if single_work_item:
            self.single = {op for _, ops in self.levels for op in ops if self._runs_once(op)}
        self._segments()

    def _segments(self) -> None:
        for block, ops in self.levels:
            idx = 0
            for op in ops:
                if is_control_barrier(op) or op in self.lifted:
                    self.seg_index[op] = idx
                    idx += 1
                    continue
                if op in self.single:  # a segment of its own, between two others
                    self.seg_index[op] = idx + 1
                    idx += 2
                    continue
                self.seg_index[op] = idx
                if self.uniform_pure(op) and all(self.is_wg(r) for r in op.results):
                    self.hoisted.add(op)
            self.last_index[block] = idx

    def _runs_once(self, op: Operation) -> bool:
        """A result-less ``scf.if`` marked ``mux.single_work_item`` (condition: local
        linear id == 0) without an else branch or barriers: its body can run once per group
        as work-item 0 instead of testing the condition in a work-item loop."""
        return (
            isinstance(op, scf.IfOp)
            and attrs.is_single_work_item(op)
            and op not in self.lifted
            and not op.results
            and len(op.true_region.blocks) == 1
            and (
                not op.false_region.blocks
                or op.false_region.block.first_op is op.false_region.block.last_op
            )
            and not any(is_control_barrier(o) for o in op.walk())
        )


def normalize_for(op: scf.ForOp) -> list[Operation]:
    """``for %iv = lb to ub step s`` → ``for %k = 0 to tc step 1`` with ``%iv = lb + k * s``
    at the top of the body, ``tc = ub > lb ? ceildiv(ub - lb, s) : 0`` (scf.for's signed
    bounds, positive step) computed before the loop; returns the ops inserted before it."""
    idx = IndexType()
    zero = arith.ConstantOp.from_int_and_width(0, idx)
    one = arith.ConstantOp.from_int_and_width(1, idx)
    diff = arith.SubiOp(op.ub, op.lb)
    bump = arith.AddiOp(diff.result, op.step)
    span = arith.SubiOp(bump.result, one.result)
    count = arith.DivSIOp(span.result, op.step)
    runs = arith.CmpiOp(op.ub, op.lb, "sgt")
    trips = arith.SelectOp(runs.result, count.result, zero.result)
    trips.result.name_hint = "trips"
    before = [zero, one, diff, bump, span, count, runs, trips]
    Rewriter.insert_op(before, InsertPoint.before(op))
    lb, step = op.lb, op.step
    body = op.body.block
    iv = body.args[0]
    k = body.insert_arg(idx, 0)
    k.name_hint = "k"
    scaled = arith.MuliOp(k, step)
    value = arith.AddiOp(lb, scaled.result)
    value.result.name_hint = iv.name_hint
    Rewriter.insert_op([scaled, value], InsertPoint.at_start(body))
    iv.replace_all_uses_with(value.result)
    body.erase_arg(iv)
    op.operands[0] = zero.result
    op.operands[1] = trips.result
    op.operands[2] = one.result
    return before


def form_regions(
    block: Block,
    ops: Sequence[Operation],
    lifted: Collection[Operation],
    wi_args: Collection[SSAValue] = (),
    single_work_item: bool = False,
    uniform_dims: Collection[int] = (),
) -> Regions:
    """Analyse the program ``ops`` of ``block`` (raises ``Unstructured``)."""
    regions = Regions(block, list(ops), set(lifted), set(wi_args), frozenset(uniform_dims))
    regions.analyze(single_work_item)
    return regions
