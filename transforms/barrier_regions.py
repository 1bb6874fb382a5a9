"""Barrier regions: structured fission of work-item loops (no pass in this module).

Used by ``work-item-loops`` (barriers) and ``work-item-loop-interchange`` (implicit barriers
around uniform loops). The input is a *per-work-item program*: the ops of one block, written
for a single work-item. The output is *work-group level* code: work-item loop nests
("segments", one per barrier region) separated by memory fences, with the control flow that
contains barriers lifted to the work-group level (each lifted ``scf.for``/``scf.while``/
``scf.if`` runs once per group and holds its own nests).

Segments
    The ops of a scheduled block (the body, or a region of a lifted op) between two split
    points (barriers, lifted ops) form one segment, wrapped in a fresh work-item loop nest.
    A barrier becomes ``mux.mem_barrier`` with its scope and semantics between two nests:
    the loop boundaries give the control part, the fence keeps the memory part.
Work-group values
    Values the same for every work-item and computable at the group level: values defined
    outside the program, the induction variable of a lifted loop, pure uniform ops on such
    values (hoisted out of the nests, PoCL's uniformity analysis), and iteration arguments
    and results of lifted ops whose incoming values all are work-group values (an optimistic
    fixed point). Lifted control uses them directly (bounds, conditions).
    A control value that is not provably uniform is still legal to lift when the lifted
    region executes a barrier unconditionally (directly in its body): OpenCL requires every
    work-item to reach that barrier equally often, so the value is uniform in every legal
    program. It is stored per work-item and read back from work-item 0 ("uniformized").
    Barriers marked ``mux.sub_group_scope`` (standing in for sub-group ones) do not count:
    their control need only be uniform within each sub-group.
    Anything else is not structured: the caller falls back to region dispatch.
Values crossing segments
    A work-item value used in another segment is re-computed there when it is a short chain
    of pure ops over work-group values and work-item queries ("barrier tidying": casts, id
    arithmetic, ...), otherwise stored in per-work-item storage after its segment and loaded
    where used. Iteration arguments and results of lifted ops that vary per work-item live in
    such storage too (stored before the op, at the end of each iteration, read by uses).
    Storage layout: structure of arrays, one ``memref<?xT>`` (64-byte aligned) per value,
    indexed by the linear work-item index of the nest (innermost loop dimension fastest). The
    innermost work-item loop then touches consecutive elements, which LLVM vectorizes into
    plain vector loads and stores; an array of per-work-item structs (the reference's AoS
    live-variable struct) would need strided gathers/scatters for the same loop.
Single work-item steps
    With ``single_work_item=True`` (and a factory implementing ``open_single``), a
    result-less ``scf.if`` marked ``mux.single_work_item`` forms a segment of its own: its
    body is emitted once at the group level for work-item 0 (linear index 0, the condition
    not tested) instead of a nest testing the condition for every work-item.
Private memory
    A static ``memref.alloca`` used in one segment only is hoisted to the kernel entry and
    shared (work-items of a segment run one after the other). One used in several segments
    is private storage that must survive the barrier: it becomes a per-work-item slice
    (``memref.view`` of a byte buffer allocated per group).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ComplexType,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
    StringAttr,
    i8,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, mux
from xmux.errors import NotSupportedError
from xmux.transforms.uniformity import (
    ancestor_in,
    free_values,
    is_control_barrier,
    is_pure,
    is_uniform_pure,
)

#: longest chain of pure ops re-computed instead of stored
MAX_REMAT = 16

# =======================================================================================
# Nests
# =======================================================================================


@dataclass
class Nest:
    """An empty work-item loop nest: segment work goes at ``ip`` (inside the innermost loop,
    or at the group level when no dimension needs a loop); ``lin`` is the linear
    work-item index valid there (built on first use by ``make_lin``)."""

    outer: Operation | None
    ip: InsertPoint
    make_lin: Callable[[], SSAValue]
    iv: SSAValue | None = None
    """The innermost induction variable (None without a loop)."""
    _lin: SSAValue | None = None

    @property
    def lin(self) -> SSAValue:
        if self._lin is None:
            self._lin = self.make_lin()
        return self._lin


class NestFactory(ABC):
    """What fission needs from its client: nests, per-work-item arrays, a zero index."""

    @abstractmethod
    def open_nest(self, ip: InsertPoint) -> Nest: ...

    @abstractmethod
    def insert_storage(self, ops: Sequence[Operation]) -> None:
        """Insert per-group allocations (and their size computations) at the kernel entry,
        after the sizes and earlier storage, in order."""

    @abstractmethod
    def group_size(self) -> SSAValue:
        """Number of per-work-item slots (valid at ``storage_ip``)."""

    @abstractmethod
    def zero(self) -> SSAValue:
        """Index 0, valid at the group level everywhere."""

    def open_single(self, ip: InsertPoint) -> Nest:
        """A "nest" for work-item 0 alone at the group level (no loop, linear index 0):
        clients that let fission run ``mux.single_work_item`` bodies once per group override
        it to also set the local ids to 0 at ``ip``."""
        raise NotImplementedError(f"{type(self).__name__} does not run single work-items")

    def new_array(self, element: Attribute) -> SSAValue:
        alloca = memref.AllocaOp.get(
            element, alignment=64, shape=[DYNAMIC_INDEX], dynamic_sizes=[self.group_size()]
        )
        self.insert_storage([alloca])
        return alloca.memref


class Unstructured(Exception):
    """Control flow with barriers that fission cannot lift (use region dispatch)."""

    def __init__(self, op: Operation, why: str) -> None:
        super().__init__(f"'{op.name}': {why}")
        self.op = op


def storable(t: Attribute) -> bool:
    if isinstance(t, ComplexType):
        return isinstance(t.element_type, AnyFloat)
    return isinstance(t, (IndexType, IntegerType, AnyFloat))


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


def _control_operands(op: Operation) -> list[SSAValue]:
    if isinstance(op, scf.ForOp):
        return [op.lb, op.ub, op.step]
    if isinstance(op, scf.IfOp):
        return [op.cond]
    if isinstance(op, scf.WhileOp):
        cond = op.before_region.block.last_op
        assert isinstance(cond, scf.ConditionOp)
        return [cond.condition]
    return []


def _uniform_by_rule(op: Operation) -> bool:
    """A barrier runs unconditionally in the lifted region: legal programs make its control
    uniform (see the module docstring). Not so for a barrier standing in for a sub-group one
    (``mux.sub_group_scope``): its control need only be uniform within each sub-group."""
    return any(
        is_control_barrier(o) and not attrs.is_sub_group_scope(o)
        for r in op.regions for b in r.blocks for o in b.ops
    )


# =======================================================================================
# Fission
# =======================================================================================


@dataclass
class _Segment:
    nest: Nest
    mapping: dict[SSAValue, SSAValue] = field(default_factory=dict)
    defined: list[SSAValue] = field(default_factory=list)


@dataclass
class _Private:
    """A private allocation that lives across segments: one slice per work-item."""

    buffer: SSAValue
    stride: SSAValue  # bytes per work-item
    type: MemRefType


class Fission:
    """Rewrites a per-work-item block into work-group level code (see module docstring).

    ``lifted``: ops of scheduled levels to lift (their regions are scheduled levels too).
    ``wi_args``: block arguments of ``block`` that are per work-item (mapped to the nest's
    linear index, e.g. the induction variable of the loop being split).
    ``uniform_dims``: dimensions whose local / global ids are the same for every work-item of
    the nests (the client's nests span only the other dimensions).
    """

    def __init__(
        self,
        block: Block,
        ops: Sequence[Operation],
        lifted: Collection[Operation],
        wi_args: Collection[SSAValue] = (),
        single_work_item: bool = False,
        uniform_dims: Collection[int] = (),
    ) -> None:
        self.f: NestFactory
        self.block = block
        self.ops = list(ops)
        self.lifted = set(lifted)
        self.wi_args = set(wi_args)
        self.allow_single = single_work_item
        self.uniform_dims = frozenset(uniform_dims)
        self.single: set[Operation] = set()
        """Marked ``scf.if``s run once per group as work-item 0 (their own segment)."""
        self.env: dict[SSAValue, SSAValue] = {}
        self.slots: dict[SSAValue, SSAValue] = {}
        self.wg: set[SSAValue] = set()
        self.uniformize: set[SSAValue] = set()
        self.needs_slot: set[SSAValue] = set()
        self.seg_index: dict[Operation, int] = {}
        self.last_index: dict[Block, int] = {}
        self.hoisted: set[Operation] = set()
        self.shared_allocas: list[Operation] = []
        self.private: dict[SSAValue, _Private] = {}
        self.private_allocas: set[SSAValue] = set()
        self._remat: dict[SSAValue, int | None] = {}
        self._array_keys: dict[SSAValue, tuple[Operation, int, int]] = {}
        self._early: dict[SSAValue, list[SSAValue]] = {}
        self._early_pairs: set[tuple[SSAValue, SSAValue]] = set()
        self._early_uses: set[tuple[Operation, int]] = set()
        self._private_types: dict[SSAValue, tuple[MemRefType, int]] = {}
        self.wi_loops: list[Operation] = []
        """Outermost loops of the nests created (for clients that post-process them)."""

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

    def _outside(self, v: SSAValue) -> bool:
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
        return v in self.wg or self._outside(v)

    def _lifted_values(self, op: Operation) -> list[tuple[SSAValue, list[SSAValue]]]:
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

    def _compute_wg(self, levels: list[tuple[Block, list[Operation]]], assume: set[SSAValue]):
        self.wg = set()
        if self.block.args and not self.wi_args:
            self.wg.update(self.block.args)
        for _, ops in levels[:1]:
            self._visit_wg(ops, assume)

    def _visit_wg(self, ops: list[Operation], assume: set[SSAValue]) -> None:
        for op in ops:
            if op in self.lifted:
                if isinstance(op, scf.ForOp):
                    self.wg.add(op.body.block.args[0])
                for v, _ in self._lifted_values(op):
                    if v in assume and isinstance(v, BlockArgument):
                        self.wg.add(v)
                for region in op.regions:
                    for b in region.blocks:
                        self._visit_wg([o for o in b.ops if o is not b.last_op], assume)
                for v in op.results:
                    if v in assume:
                        self.wg.add(v)
            elif self._uniform_pure(op) and all(self.is_wg(o) for o in op.operands):
                self.wg.update(op.results)

    def _uniform_pure(self, op: Operation) -> bool:
        """``is_uniform_pure``, plus the local / global ids of ``uniform_dims``: the same for
        every work-item of the nests of a client that splits only the loops of other
        dimensions (work-item-loop-interchange splits the innermost one)."""
        if isinstance(op, (mux.GetLocalIdOp, mux.GetGlobalIdOp)):
            return op.dim.value.data in self.uniform_dims
        return is_uniform_pure(op)

    def analyze(self) -> None:
        levels = self._levels()
        for op in self.lifted:
            if not isinstance(op, (scf.ForOp, scf.IfOp, scf.WhileOp)):
                raise Unstructured(op, "only scf.for, scf.while and scf.if are lifted")
            if any(len(r.blocks) != 1 for r in op.regions if r.blocks):
                raise Unstructured(op, "regions with several blocks")
        # Work-group values: optimistic fixed point over lifted iteration values.
        assume = {v for op in self.lifted for v, _ in self._lifted_values(op)}
        while True:
            self._compute_wg(levels, assume)
            keep = {
                v
                for op in self.lifted
                for v, ins in self._lifted_values(op)
                if v in assume and all(self.is_wg(i) for i in ins)
            }
            if keep == assume:
                break
            assume = keep
        # Lifted control must be group-level, or uniform by the barrier rule.
        for op in self.lifted:
            for v in _control_operands(op):
                if self.is_wg(v):
                    continue
                if not _uniform_by_rule(op):
                    raise Unstructured(op, "control that is not provably uniform")
                if not storable(v.type):
                    raise Unstructured(op, f"control value of type {v.type}")
                self.uniformize.add(v)
        if self.allow_single:
            self.single = {
                op for _, ops in levels for op in ops if self._runs_once(op)
            }
        # Segments and hoisting.
        for block, ops in levels:
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
                if self._uniform_pure(op) and all(self.is_wg(r) for r in op.results):
                    self.hoisted.add(op)
            self.last_index[block] = idx
        # Per-work-item storage for lifted iteration values that vary.
        for op in self.lifted:
            self._lifted_storage(op)
        for op in self.lifted:
            self._plan_early_stores(op)
        # Values used across segments, private allocations.
        for block, ops in levels:
            for op in ops:
                if op in self.hoisted or op in self.lifted or is_control_barrier(op):
                    continue
                if op in self.single:
                    continue
                if self._is_static_alloca(op):
                    self._classify_alloca(op, block)
                    continue
                for v in op.results:
                    far = self._far_use(v, block) and self._remat_cost(v) is None
                    if v in self.uniformize or far:
                        if not storable(v.type):
                            raise NotSupportedError(
                                f"'{op.name}' result of type {v.type} is used across a barrier "
                                "and cannot be kept per work-item"
                            )
                        self.needs_slot.add(v)

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

    def _lifted_storage(self, op: Operation) -> None:
        """Record which iteration values of ``op`` need arrays (shared where they are the
        same storage); ``_allocate`` creates them."""
        for v, _ in self._lifted_values(op):
            if self.is_wg(v):
                continue
            if not storable(v.type):
                raise Unstructured(op, f"a per-work-item value of type {v.type}")
            # for: iter arg i and result i share an array; while: after arg j and result j,
            # and with before arg i when the condition forwards it unchanged
            fwd = self._forwarded_before_arg(op, v)
            if fwd is not None and not self.is_wg(fwd):
                key = (1, fwd.index)
            elif isinstance(op, scf.ForOp):
                key = (0, (v.index - 1) if isinstance(v, BlockArgument) else v.index)
            elif isinstance(op, scf.WhileOp) and isinstance(v, BlockArgument) and (
                v.block is op.before_region.block
            ):
                key = (1, v.index)
            else:
                key = (2, v.index)  # if result, while after arg / result
            self._array_keys[v] = (op, *key)

    def _region_pairs(
        self, op: Operation
    ) -> list[tuple[Block, list[tuple[int, SSAValue, SSAValue]]]]:
        """(block, [(terminator operand index, value at the block's end, iteration value it
        becomes)]) for each region of a lifted op."""
        out: list[tuple[Block, list[tuple[int, SSAValue, SSAValue]]]] = []
        if isinstance(op, scf.ForOp):
            b = op.body.block
            term = b.last_op
            assert term is not None
            out.append((b, [(i, v, b.args[i + 1]) for i, v in enumerate(term.operands)]))
        elif isinstance(op, scf.IfOp):
            for r in op.regions:
                if r.blocks:
                    term = r.block.last_op
                    assert term is not None
                    out.append(
                        (r.block, [(i, v, op.results[i]) for i, v in enumerate(term.operands)])
                    )
        else:
            assert isinstance(op, scf.WhileOp)
            before, after = op.before_region.block, op.after_region.block
            cond, yld = before.last_op, after.last_op
            assert isinstance(cond, scf.ConditionOp) and yld is not None
            out.append((before, [(j + 1, v, after.args[j]) for j, v in enumerate(cond.args)]))
            out.append((after, [(i, v, before.args[i]) for i, v in enumerate(yld.operands)]))
        return out

    def _plan_early_stores(self, op: Operation) -> None:
        """A value that ends an iteration and is computed in an earlier segment is stored
        into its iteration array when that segment ends (instead of in an extra loop at the
        end), provided nothing after that segment still reads the old value."""
        for block, pairs in self._region_pairs(op):
            last = self.last_index[block]
            for index, src, dst in pairs:
                owner = src.owner
                if (
                    dst not in self._array_keys
                    or not isinstance(owner, Operation)
                    or owner.parent_block() is not block
                    or owner in self.hoisted
                    or self.seg_index.get(owner, last) >= last
                ):
                    continue
                mine = self.seg_index[owner]
                later = False
                for use in dst.uses:
                    anc = ancestor_in(use.operation, block)
                    if anc is None:
                        continue  # used outside this block (after the lifted op)
                    idx = self.seg_index.get(anc)
                    split = anc in self.lifted or is_control_barrier(anc)
                    if idx is None or (idx >= mine if split else idx > mine):
                        later = True
                        break
                if not later:
                    self._early.setdefault(src, []).append(dst)
                    self._early_pairs.add((src, dst))
                    self._early_uses.add((block.last_op, index))  # type: ignore[arg-type]
        # initial values computed in an earlier segment of the op's own block
        if isinstance(op, scf.ForOp):
            inits = [(i + 3, v, op.body.block.args[i + 1]) for i, v in enumerate(op.iter_args)]
        elif isinstance(op, scf.WhileOp):
            before = op.before_region.block
            inits = [(i, v, before.args[i]) for i, v in enumerate(op.arguments)]
        else:
            inits = []
        for index, src, dst in inits:
            owner = src.owner
            if (
                dst in self._array_keys
                and isinstance(owner, Operation)
                and owner.parent_block() is op.parent_block()
                and owner not in self.hoisted
                and owner in self.seg_index
                and self.seg_index[owner] < self.seg_index[op]
            ):
                self._early.setdefault(src, []).append(dst)
                self._early_pairs.add((src, dst))
                self._early_uses.add((op, index))

    @staticmethod
    def _forwarded_before_arg(op: Operation, v: SSAValue) -> BlockArgument | None:
        """For a while's after arg or result: the before arg its condition forwards as is."""
        if not isinstance(op, scf.WhileOp):
            return None
        before = op.before_region.block
        if isinstance(v, BlockArgument) and v.block is before:
            return None
        cond = before.last_op
        assert isinstance(cond, scf.ConditionOp)
        src = cond.args[v.index]
        if isinstance(src, BlockArgument) and src.block is before:
            return src
        return None

    @staticmethod
    def _is_static_alloca(op: Operation) -> bool:
        return (
            isinstance(op, memref.AllocaOp)
            and not op.dynamic_sizes
            and not op.symbol_operands
        )

    def _classify_alloca(self, op: Operation, block: Block) -> None:
        assert isinstance(op, memref.AllocaOp)
        v = op.memref
        if not self._far_use(v, block):
            self.shared_allocas.append(op)
            return
        t = v.type
        assert isinstance(t, MemRefType)
        nbytes = _byte_size(t)
        if nbytes is None or not isinstance(t.layout, NoneAttr):
            raise NotSupportedError(
                f"private {t} is used across a barrier; only static allocations of "
                "integers and floats with the identity layout can be kept per work-item"
            )
        self.private_allocas.add(v)
        self._private_types[v] = (t, (nbytes + 15) // 16 * 16)

    def _allocate(self) -> None:
        """Create the per-group storage the analysis asked for."""
        made: dict[tuple[Operation, int, int], SSAValue] = {}
        for v, key in self._array_keys.items():
            if key not in made:
                made[key] = self.f.new_array(v.type)
            self.slots[v] = made[key]
        for v, (t, stride) in self._private_types.items():
            c = arith.ConstantOp.from_int_and_width(stride, IndexType())
            total = arith.MuliOp(self.f.group_size(), c.result)
            buf = memref.AllocaOp.get(
                i8, alignment=64, shape=[DYNAMIC_INDEX], dynamic_sizes=[total.result],
                memory_space=t.memory_space,
            )
            attrs.mark_per_work_item(buf)
            self.f.insert_storage([c, total, buf])
            self.private[v] = _Private(buf.memref, c.result, t)
        for op in self.shared_allocas:
            clone = op.clone()
            self.f.insert_storage([clone])
            self.env[op.results[0]] = clone.results[0]

    def _far_use(self, v: SSAValue, block: Block) -> bool:
        """``v`` (defined at the top of ``block``) is used outside its own segment."""
        owner = v.owner
        assert isinstance(owner, Operation)
        mine = self.seg_index[owner]
        for use in v.uses:
            user = use.operation
            anc = ancestor_in(user, block)
            if anc is None:
                return True
            if anc is block.last_op:
                if (anc, use.index) in self._early_uses:
                    continue  # stored into its iteration array where it is defined
                if mine != self.last_index[block]:
                    return True
            elif anc in self.lifted:
                if user is anc and (anc, use.index) in self._early_uses:
                    continue
                if user is not anc or self.seg_index[anc] != mine:
                    return True
            elif self.seg_index.get(anc, -1) != mine:
                return True
        return False

    def _remat_cost(self, v: SSAValue) -> int | None:
        """Ops needed to re-compute ``v`` in another segment; None when it is stored."""
        if v in self._remat:
            return self._remat[v]
        if v in self.wi_args:
            return 0  # the nest's own induction variable
        self._remat[v] = None  # cycles cannot happen in SSA, but be safe
        cost: int | None = None
        op = v.owner
        if isinstance(op, Operation) and is_pure(op) and v not in self.uniformize:
            cost = 1
            for o in op.operands:
                if self.is_wg(o):
                    continue
                sub = self._remat_cost(o)
                if sub is None:
                    cost = None
                    break
                cost += sub
            if cost is not None and cost > MAX_REMAT:
                cost = None
        self._remat[v] = cost
        return cost

    # -- emission ------------------------------------------------------------------------

    def emit(self, factory: NestFactory, ip: InsertPoint) -> None:
        """Emit the group-level code at ``ip`` (after ``analyze``)."""
        self.f = factory
        self._allocate()
        seg = self._emit_block(self.ops, ip)
        self._close(seg, ip)

    def _wg_value(self, v: SSAValue) -> SSAValue:
        if self._outside(v):
            return self.env.get(v, v)
        return self.env[v]

    def _open(self, seg: _Segment | None, ip: InsertPoint) -> _Segment:
        if seg is not None:
            return seg
        nest = self.f.open_nest(ip)
        if nest.outer is not None:
            self.wi_loops.append(nest.outer)
        return _Segment(nest)

    def _close(self, seg: _Segment | None, ip: InsertPoint) -> None:
        """Store what later segments need; read back uniformized values at group level."""
        if seg is None:
            return
        for v in seg.defined:
            if v in self.needs_slot:
                if v not in self.slots:
                    self.slots[v] = self.f.new_array(v.type)
                arr = self.slots[v]
                Rewriter.insert_op(
                    memref.StoreOp.get(seg.mapping[v], arr, [seg.nest.lin]), seg.nest.ip
                )
        for v in seg.defined:
            for dst in self._early.get(v, ()):
                Rewriter.insert_op(
                    memref.StoreOp.get(seg.mapping[v], self.slots[dst], [seg.nest.lin]),
                    seg.nest.ip,
                )
        for v in seg.defined:
            if v in self.uniformize:
                load = memref.LoadOp.get(self.slots[v], [self.f.zero()])
                Rewriter.insert_op(load, ip)
                self.env[v] = load.res

    def _import(self, seg: _Segment, v: SSAValue) -> SSAValue:
        """The value of ``v`` inside ``seg`` (re-computed, loaded, or group-level)."""
        if v in seg.mapping:
            return seg.mapping[v]
        if v in self.wi_args:
            out = seg.nest.lin if seg.nest.iv is None else seg.nest.iv
        elif self.is_wg(v) or v in self.env:
            out = self._wg_value(v)
        elif v in self.private:
            p = self.private[v]
            shift = arith.MuliOp(seg.nest.lin, p.stride)
            view = memref.ViewOp(p.buffer, shift.result, [], p.type)
            Rewriter.insert_op([shift, view], seg.nest.ip)
            out = view.result
        elif v in self.slots:
            load = memref.LoadOp.get(self.slots[v], [seg.nest.lin])
            Rewriter.insert_op(load, seg.nest.ip)
            out = load.res
        elif self._remat_cost(v) is not None:
            op = v.owner
            assert isinstance(op, Operation)
            for o in op.operands:
                self._import(seg, o)
            clone = op.clone(value_mapper=dict(seg.mapping))
            Rewriter.insert_op(clone, seg.nest.ip)
            for old, new in zip(op.results, clone.results, strict=True):
                seg.mapping[old] = new
            return seg.mapping[v]
        else:
            raise AssertionError(f"fission: no way to bring {v} into a segment")
        seg.mapping[v] = out
        return out

    def _emit_block(self, ops: list[Operation], ip: InsertPoint) -> _Segment | None:
        """Emit the group-level code of one scheduled block at ``ip``; return the segment
        still open at the end (the caller adds terminator work, then closes it)."""
        seg: _Segment | None = None
        for op in ops:
            if is_control_barrier(op):
                self._close(seg, ip)
                seg = None
                assert isinstance(op, mux.WorkGroupBarrierOp)
                Rewriter.insert_op(mux.MemBarrierOp(op.scope.data, op.semantics_value()), ip)
            elif op in self.lifted:
                seg = self._emit_lifted(op, seg, ip)
            elif op in self.single:
                self._close(seg, ip)
                seg = None
                self._emit_single(op, ip)
            elif op in self.hoisted:
                clone = op.clone(value_mapper={o: self._wg_value(o) for o in op.operands})
                where = ip
                if seg is not None:
                    where = (
                        InsertPoint.before(seg.nest.outer)
                        if seg.nest.outer is not None
                        else seg.nest.ip
                    )
                Rewriter.insert_op(clone, where)
                for old, new in zip(op.results, clone.results, strict=True):
                    self.env[old] = new
            elif op.results and op.results[0] in self.private_allocas:
                continue  # each use takes its work-item's slice
            elif self._sinkable(op):
                continue  # re-computed where used
            elif any(op is a for a in self.shared_allocas):
                continue
            else:
                seg = self._open(seg, ip)
                for v in free_values(op):
                    self._import(seg, v)
                clone = op.clone(value_mapper=dict(seg.mapping))
                Rewriter.insert_op(clone, seg.nest.ip)
                for old, new in zip(op.results, clone.results, strict=True):
                    seg.mapping[old] = new
                    seg.defined.append(old)
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
            clone = inner.clone(value_mapper=dict(one.mapping))
            Rewriter.insert_op(clone, one.nest.ip)
            for old, new in zip(inner.results, clone.results, strict=True):
                one.mapping[old] = new

    def _sinkable(self, op: Operation) -> bool:
        """Pure ops with re-computable results are emitted where they are used (possibly
        several times): an id or a cast never opens a loop of its own or gets stored."""
        return (
            bool(op.results)
            and is_pure(op)
            and all(self._remat_cost(r) is not None for r in op.results)
            and not any(r in self.uniformize for r in op.results)
        )

    def _store_into(
        self, seg: _Segment | None, ip: InsertPoint, pairs: list[tuple[SSAValue, SSAValue]]
    ) -> _Segment | None:
        """In a segment (the open one, else a new one), store each source value's
        per-work-item value into the array of its target."""
        pairs = [
            (src, dst)
            for src, dst in pairs
            if dst in self.slots
            and self.slots.get(src) is not self.slots[dst]
            and (src, dst) not in self._early_pairs
        ]
        if not pairs:
            return seg
        seg = self._open(seg, ip)
        vals = [self._import(seg, src) for src, _ in pairs]
        for val, (_, dst) in zip(vals, pairs, strict=True):
            Rewriter.insert_op(
                memref.StoreOp.get(val, self.slots[dst], [seg.nest.lin]), seg.nest.ip
            )
        return seg

    def _enter_block(self, old: Block, new: Block) -> None:
        """Map the group-level block arguments; read uniformized per-work-item ones."""
        it = iter(new.args)
        for a in old.args:
            if self.is_wg(a):
                self.env[a] = next(it)
                self.env[a].name_hint = a.name_hint
        for a in old.args:
            if a in self.uniformize:
                load = memref.LoadOp.get(self.slots[a], [self.f.zero()])
                Rewriter.insert_op(load, InsertPoint.at_end(new))
                self.env[a] = load.res

    def _after_lifted(self, op: Operation, new: Operation, ip: InsertPoint) -> None:
        it = iter(new.results)
        for r in op.results:
            if self.is_wg(r):
                self.env[r] = next(it)
        for r in op.results:
            if r in self.uniformize:
                load = memref.LoadOp.get(self.slots[r], [self.f.zero()])
                Rewriter.insert_op(load, ip)
                self.env[r] = load.res

    def _finish_region(
        self,
        seg: _Segment | None,
        ip: InsertPoint,
        stores: list[tuple[SSAValue, SSAValue]],
    ) -> None:
        seg = self._store_into(seg, ip, stores)
        self._close(seg, ip)

    def _emit_lifted(self, op: Operation, seg: _Segment | None, ip: InsertPoint) -> None:
        if isinstance(op, scf.ForOp):
            body = op.body.block
            seg = self._store_into(
                seg, ip, list(zip(op.iter_args, body.args[1:], strict=True))
            )
            self._close(seg, ip)
            wg_iters = [i for i, a in enumerate(body.args[1:]) if self.is_wg(a)]
            new_body = Block(
                arg_types=[IndexType()] + [body.args[i + 1].type for i in wg_iters]
            )
            new = scf.ForOp(
                self._wg_value(op.lb),
                self._wg_value(op.ub),
                self._wg_value(op.step),
                [self._wg_value(op.iter_args[i]) for i in wg_iters],
                new_body,
            )
            Rewriter.insert_op(new, ip)
            self.env[body.args[0]] = new_body.args[0]
            new_body.args[0].name_hint = body.args[0].name_hint
            self._enter_block(body, new_body)
            bip = InsertPoint.at_end(new_body)
            yld = body.last_op
            assert yld is not None
            inner = self._emit_block([o for o in body.ops if o is not yld], bip)
            self._finish_region(inner, bip, list(zip(yld.operands, body.args[1:], strict=True)))
            Rewriter.insert_op(
                scf.YieldOp(*[self._wg_value(yld.operands[i]) for i in wg_iters]), bip
            )
            self._after_lifted(op, new, ip)
            return None
        if isinstance(op, scf.IfOp):
            self._close(seg, ip)
            wg_res = [r for r in op.results if self.is_wg(r)]
            regions: list[Region] = []
            for region in op.regions:
                if not region.blocks:
                    regions.append(Region())
                    continue
                old = region.block
                new_block = Block()
                regions.append(Region(new_block))
                bip = InsertPoint.at_end(new_block)
                yld = old.last_op
                assert yld is not None
                inner = self._emit_block([o for o in old.ops if o is not yld], bip)
                self._finish_region(inner, bip, list(zip(yld.operands, op.results, strict=True)))
                Rewriter.insert_op(
                    scf.YieldOp(
                        *[self._wg_value(yld.operands[r.index]) for r in wg_res]
                    ),
                    bip,
                )
            new = scf.IfOp(
                self._wg_value(op.cond),
                [r.type for r in wg_res],
                regions[0],
                regions[1] if regions[1].blocks else None,
            )
            Rewriter.insert_op(new, ip)
            self._after_lifted(op, new, ip)
            return None
        assert isinstance(op, scf.WhileOp)
        before, after = op.before_region.block, op.after_region.block
        cond = before.last_op
        yld = after.last_op
        assert isinstance(cond, scf.ConditionOp) and yld is not None
        seg = self._store_into(seg, ip, list(zip(op.arguments, before.args, strict=True)))
        self._close(seg, ip)
        wg_before = [a for a in before.args if self.is_wg(a)]
        wg_after = [a for a in after.args if self.is_wg(a)]
        new_before = Block(arg_types=[a.type for a in wg_before])
        new_after = Block(arg_types=[a.type for a in wg_after])
        new = scf.WhileOp(
            [self._wg_value(op.arguments[a.index]) for a in wg_before],
            [a.type for a in wg_after],
            Region(new_before),
            Region(new_after),
        )
        Rewriter.insert_op(new, ip)
        # before: the condition's forwarded values go to the after-args' arrays
        self._enter_block(before, new_before)
        bip = InsertPoint.at_end(new_before)
        inner = self._emit_block([o for o in before.ops if o is not cond], bip)
        self._finish_region(inner, bip, list(zip(cond.args, after.args, strict=True)))
        Rewriter.insert_op(
            scf.ConditionOp(
                self._wg_value(cond.condition),
                *[self._wg_value(cond.args[a.index]) for a in wg_after],
            ),
            bip,
        )
        self._enter_block(after, new_after)
        aip = InsertPoint.at_end(new_after)
        inner = self._emit_block([o for o in after.ops if o is not yld], aip)
        self._finish_region(inner, aip, list(zip(yld.operands, before.args, strict=True)))
        Rewriter.insert_op(
            scf.YieldOp(*[self._wg_value(yld.operands[a.index]) for a in wg_before]), aip
        )
        # results: the after-args' arrays (same values as the condition forwarded)
        for r, a in zip(op.results, after.args, strict=True):
            if a in self.slots:
                self.slots[r] = self.slots[a]
        self._after_lifted(op, new, ip)
        return None


def _byte_size(t: MemRefType) -> int | None:
    el = t.element_type
    if isinstance(el, IndexType):
        width = 64
    elif isinstance(el, (IntegerType, AnyFloat)):
        width = el.bitwidth
    elif isinstance(el, ComplexType) and isinstance(el.element_type, AnyFloat):
        width = 2 * el.element_type.bitwidth  # (re, im)
    else:
        return None
    n = 1
    for d in t.get_shape():
        if d < 0:
            return None
        n *= d
    return n * ((width + 7) // 8)


# =======================================================================================
# Region dispatch (any control flow)
# =======================================================================================
#
# The kernel body becomes a function @<k>.mux-regions(args, lin, state, storage...) -> i32
# whose entry block switches on `state` to the kernel's entry (0) or to the continuation of
# barrier i (i = 1..n); each barrier returns i, each return returns EXIT = n + 1. It is then
# copied once per entry, the switch folded to a branch (@<k>.mux-region-<r>). The work-group
# function runs, while some work-item is not at EXIT, every work-item whose state is the
# smallest one pending (all of them, in a legal program), through the copy for that entry,
# then fences:
#
#     state[*] = 0; cur = 0
#     while cur != EXIT:
#       switch cur: case r: for each work-item w: if state[w] == r: state[w] = region_r(.., w)
#       fence; cur = min(state[*])
#
# Divergent barriers (undefined in OpenCL) therefore cannot hang the group: work-items are
# run barrier by barrier in id order. Values whose definition does not dominate a use in the
# region function (live across a barrier, or reaching a use around a loop back edge: the
# reference's external and internal uses) are re-computed before the use when they are short
# pure chains over kernel arguments and work-item queries, else stored in per-work-item
# arrays right after their definition and loaded right before such uses. Module globals
# (work-group local memory) are fetched by the kernel and passed in.

REGIONS_SUFFIX = ".mux-regions"


def _move_after(block: Block, op: Operation, region: Region) -> Block:
    """Split ``block`` after ``op``: the ops after it move to a new block (returned)."""
    cont = Block()
    region.insert_block_after(cont, block)
    ops = list(block.ops)
    for o in ops[ops.index(op) + 1 :]:
        o.detach()
        cont.add_op(o)
    return cont


def _take_blocks(src: Region, dst: Region, after: Block) -> list[Block]:
    blocks = list(src.blocks)
    for b in blocks:
        src.detach_block(b)
    dst.insert_block_after(blocks, after)
    return blocks


def _lower_structured(op: Operation, region: Region) -> None:
    """Lower one scf op (in a block of ``region``) to blocks and branches."""
    from xdsl.dialects import cf

    block = op.parent_block()
    assert block is not None
    cont = _move_after(block, op, region)
    for r in op.results:
        cont.insert_arg(r.type, len(cont.args))
    for r, a in zip(op.results, cont.args, strict=True):
        r.replace_all_uses_with(a)
    ip = InsertPoint.before(op)
    if isinstance(op, scf.ForOp):
        body = op.body.block
        header = Block(arg_types=[a.type for a in body.args])
        region.insert_block_after(header, block)
        _take_blocks(op.body, region, header)
        cmp = arith.CmpiOp(header.args[0], op.ub, "slt")
        header.add_ops(
            [cmp, cf.ConditionalBranchOp(cmp, body, header.args, cont, header.args[1:])]
        )
        yld = body.last_op
        assert yld is not None
        nxt = arith.AddiOp(body.args[0], op.step)
        Rewriter.insert_op(nxt, InsertPoint.before(yld))
        Rewriter.replace_op(yld, cf.BranchOp(header, nxt.result, *yld.operands))
        Rewriter.insert_op(cf.BranchOp(header, op.lb, *op.iter_args), ip)
    elif isinstance(op, scf.IfOp):
        then = _take_blocks(op.true_region, region, block)[0]
        other = cont
        if op.false_region.blocks:
            other = _take_blocks(op.false_region, region, then)[0]
        for b in (then, other):
            if b is not cont and isinstance(b.last_op, scf.YieldOp):
                Rewriter.replace_op(b.last_op, cf.BranchOp(cont, *b.last_op.operands))
        Rewriter.insert_op(cf.ConditionalBranchOp(op.cond, then, [], other, []), ip)
    elif isinstance(op, scf.WhileOp):
        before = _take_blocks(op.before_region, region, block)[0]
        after = _take_blocks(op.after_region, region, before)[0]
        cond, yld = before.last_op, after.last_op
        assert isinstance(cond, scf.ConditionOp) and yld is not None
        args = list(cond.args)
        Rewriter.replace_op(
            cond, cf.ConditionalBranchOp(cond.condition, after, args, cont, args)
        )
        Rewriter.replace_op(yld, cf.BranchOp(before, *yld.operands))
        Rewriter.insert_op(cf.BranchOp(before, *op.arguments), ip)
    elif isinstance(op, scf.ExecuteRegionOp):
        blocks = _take_blocks(op.region, region, block)
        for b in blocks:
            if isinstance(b.last_op, scf.YieldOp):
                Rewriter.replace_op(b.last_op, cf.BranchOp(cont, *b.last_op.operands))
        Rewriter.insert_op(cf.BranchOp(blocks[0]), ip)
    else:
        raise NotSupportedError(
            f"work-item-loops: a barrier inside '{op.name}' is not supported (use scf.for, "
            "scf.while, scf.if, scf.execute_region or cf branches)"
        )
    Rewriter.erase_op(op)


def lower_barrier_control_flow(region: Region) -> None:
    """Turn every structured op that contains a barrier into blocks of ``region``."""
    while True:
        target = next(
            (
                op
                for b in region.blocks
                for op in b.ops
                if op.regions and any(is_control_barrier(o) for o in op.walk())
            ),
            None,
        )
        if target is None:
            return
        _lower_structured(target, region)


def split_at_barriers(region: Region) -> list[mux.WorkGroupBarrierOp]:
    """End a block after every barrier (``cf.br`` to the rest); return the barriers in
    block order (their continuation ids are 1, 2, ...)."""
    from xdsl.dialects import cf

    out: list[mux.WorkGroupBarrierOp] = []
    for block in list(region.blocks):
        cur = block
        while True:
            barrier = next((o for o in cur.ops if is_control_barrier(o)), None)
            if barrier is None:
                break
            assert isinstance(barrier, mux.WorkGroupBarrierOp)
            out.append(barrier)
            nxt = _move_after(cur, barrier, region)
            Rewriter.insert_op(cf.BranchOp(nxt), InsertPoint.after(barrier))
            cur = nxt
    return out


def _ancestor_in_region(op: Operation, region: Region) -> Operation:
    cur = op
    while True:
        b = cur.parent_block()
        assert b is not None
        if b.parent is region:
            return cur
        parent = b.parent_op()
        assert parent is not None
        cur = parent


@dataclass
class Dispatch:
    """Builds the region function of a kernel and the work-group dispatch loop."""

    kernel: Operation  # func.func
    barriers: list[mux.WorkGroupBarrierOp] = field(default_factory=list)
    fn: Operation | None = None
    storage: list[tuple[str, Attribute, MemRefType | None, int]] = field(default_factory=list)
    """Extra region-function arguments: (kind, type, private type, private stride)."""

    @property
    def exit_id(self) -> int:
        return len(self.barriers) + 1

    def build_regions(self) -> None:
        """Move the kernel body into ``@<k>.mux-regions`` (the kernel is left bodiless)."""
        from xdsl.dialects import cf, func
        from xdsl.dialects.builtin import DenseIntElementsAttr, VectorType, i32
        from xdsl.irdl.dominance import DominanceInfo

        kernel = self.kernel
        assert isinstance(kernel, func.FuncOp)
        region = Region()
        kernel.body.move_blocks(region)
        lower_barrier_control_flow(region)
        self.barriers = split_at_barriers(region)
        orig = region.blocks.first
        assert orig is not None
        inputs = list(kernel.function_type.inputs.data)
        entry = Block(arg_types=[*inputs, IndexType(), i32])
        for new, old in zip(entry.args, orig.args, strict=False):
            new.name_hint = old.name_hint
            old.replace_all_uses_with(new)
        entry.args[len(inputs)].name_hint = "lin"
        entry.args[len(inputs) + 1].name_hint = "state"
        while orig.args:
            orig.erase_arg(orig.args[-1])
        region.insert_block_before(entry, orig)
        conts: list[Block] = []
        for i, barrier in enumerate(self.barriers, start=1):
            br = barrier.next_op
            assert isinstance(br, cf.BranchOp)
            conts.append(br.successor)
            c = arith.ConstantOp.from_int_and_width(i, i32)
            Rewriter.insert_op(c, InsertPoint.before(br))
            Rewriter.replace_op(br, func.ReturnOp(c))
            Rewriter.erase_op(barrier)
        for b in region.blocks:
            ret = b.last_op
            if isinstance(ret, func.ReturnOp) and not ret.arguments:
                c = arith.ConstantOp.from_int_and_width(self.exit_id, i32)
                Rewriter.insert_op(c, InsertPoint.before(ret))
                Rewriter.replace_op(ret, func.ReturnOp(c))
        cases = DenseIntElementsAttr.from_list(
            VectorType(i32, [len(conts)]), list(range(1, len(conts) + 1))
        )
        entry.add_op(
            cf.SwitchOp(entry.args[len(inputs) + 1], orig, [], cases, conts, [[] for _ in conts])
        )
        name = kernel.sym_name.data + REGIONS_SUFFIX
        self.fn = func.FuncOp(
            name, (list(entry.arg_types), [i32]), region, visibility="private"
        )
        Rewriter.insert_op(self.fn, InsertPoint.after(kernel))
        self._globals_as_args(region, entry)
        self._live_values(region, entry, DominanceInfo(region), len(inputs))

    def _globals_as_args(self, region: Region, entry: Block) -> None:
        """Module globals (work-group local memory above all) are fetched by the kernel and
        passed in: the region function stays free of ``memref.get_global``."""
        args: dict[str, SSAValue] = {}
        for op in list(region.walk()):
            if not isinstance(op, memref.GetGlobalOp):
                continue
            name = op.name_.root_reference.data
            if name not in args:
                args[name] = self._add_arg(entry, "global:" + name, op.memref.type)
                args[name].name_hint = name
            op.memref.replace_all_uses_with(args[name])
            Rewriter.erase_op(op)

    def _add_arg(self, entry: Block, kind: str, t: Attribute, private=None, stride=0):
        arg = entry.insert_arg(t, len(entry.args))
        self.storage.append((kind, t, private, stride))
        return arg

    def _live_values(self, region: Region, entry: Block, dom, n_inputs: int) -> None:
        from xdsl.dialects import func

        lin = entry.args[n_inputs]

        def dominates(v: SSAValue, at: Operation) -> bool:
            owner = v.owner
            d = owner if isinstance(owner, Block) else owner.parent_block()
            u = at.parent_block()
            assert d is not None and u is not None
            if d is not u:
                return dom.dominates(d, u)
            if isinstance(owner, Block):
                return True
            return u.get_operation_index(owner) < u.get_operation_index(at)

        def remat_ok(v: SSAValue, depth: int = 0) -> bool:
            op = v.owner
            if isinstance(op, Block):
                return op is entry
            if depth > MAX_REMAT or not is_pure(op):
                return False
            return all(remat_ok(o, depth + 1) for o in op.operands)

        def remat(v: SSAValue, at: Operation) -> SSAValue:
            op = v.owner
            if isinstance(op, Block) or dominates(v, at):
                return v
            mapping = {o: remat(o, at) for o in op.operands}
            clone = op.clone(value_mapper=mapping)
            Rewriter.insert_op(clone, InsertPoint.before(at))
            return clone.results[op.results.index(v)]  # type: ignore[arg-type]

        first = entry.last_op
        assert first is not None
        values: list[SSAValue] = []
        for b in list(region.blocks):
            if b is not entry:
                values.extend(b.args)
            for o in list(b.ops):
                values.extend(o.results)
        for v in values:
            uses = [(u, _ancestor_in_region(u.operation, region)) for u in list(v.uses)]
            far = [(u, at) for u, at in uses if not dominates(v, at)]
            owner = v.owner
            if (
                isinstance(owner, memref.AllocaOp)
                and not owner.dynamic_sizes
                and not owner.symbol_operands
            ):
                t = owner.memref.type
                assert isinstance(t, MemRefType)
                if not far:  # keep the stack static: allocate at the entry
                    owner.detach()
                    Rewriter.insert_op(owner, InsertPoint.before(first))
                    continue
                nbytes = _byte_size(t)
                if nbytes is None or not isinstance(t.layout, NoneAttr):
                    raise NotSupportedError(
                        f"work-item-loops: private {t} in kernel @{self._name} is used across "
                        "a barrier; only static allocations of integers and floats with the "
                        "identity layout can be kept per work-item"
                    )
                stride = (nbytes + 15) // 16 * 16
                buf_t = MemRefType(i8, [DYNAMIC_INDEX], memory_space=t.memory_space)
                buf = self._add_arg(entry, "private", buf_t, t, stride)
                c = arith.ConstantOp.from_int_and_width(stride, IndexType())
                shift = arith.MuliOp(lin, c.result)
                view = memref.ViewOp(buf, shift.result, [], t)
                Rewriter.insert_op([c, shift, view], InsertPoint.before(first))
                owner.memref.replace_all_uses_with(view.result)
                Rewriter.erase_op(owner)
                continue
            if not far:
                continue
            if remat_ok(v):
                for u, at in far:
                    u.operation.operands[u.index] = remat(v, at)
                continue
            if not storable(v.type):
                what = f"'{owner.name}'" if isinstance(owner, Operation) else "a block argument"
                raise NotSupportedError(
                    f"work-item-loops: {what} value of type {v.type} in kernel @{self._name} "
                    "is live across a barrier and cannot be kept per work-item"
                )
            arr = self._add_arg(entry, "slot", MemRefType(v.type, [DYNAMIC_INDEX]))
            store = memref.StoreOp.get(v, arr, [lin])
            if isinstance(owner, Block):
                Rewriter.insert_op(store, InsertPoint.at_start(owner))
            else:
                Rewriter.insert_op(store, InsertPoint.after(owner))
            for u, at in far:
                load = memref.LoadOp.get(arr, [lin])
                Rewriter.insert_op(load, InsertPoint.before(at))
                u.operation.operands[u.index] = load.res
        fn = self.fn
        assert isinstance(fn, func.FuncOp)
        fn.function_type = func.FunctionType.from_lists(list(entry.arg_types), [i32_type()])

    @property
    def _name(self) -> str:
        return self.kernel.sym_name.data  # type: ignore[attr-defined]

    def emit(self, factory: NestFactory, ip: InsertPoint) -> None:
        """The dispatch loop at ``ip`` of the (now empty) kernel body's entry block."""
        from xdsl.dialects import func
        from xdsl.dialects.builtin import DenseArrayBase, i32, i64

        kernel = self.kernel
        assert isinstance(kernel, func.FuncOp) and self.fn is not None
        args = list(kernel.body.block.args)
        extras: list[SSAValue] = []
        for kind, t, private, stride in self.storage:
            if kind.startswith("global:"):
                get = memref.GetGlobalOp(kind.split(":", 1)[1], t)
                factory.insert_storage([get])
                extras.append(get.memref)
            elif kind == "slot":
                assert isinstance(t, MemRefType)
                extras.append(factory.new_array(t.element_type))
            else:
                assert private is not None
                c = arith.ConstantOp.from_int_and_width(stride, IndexType())
                total = arith.MuliOp(factory.group_size(), c.result)
                buf = memref.AllocaOp.get(
                    i8, alignment=64, shape=[DYNAMIC_INDEX], dynamic_sizes=[total.result],
                    memory_space=private.memory_space,
                )
                attrs.mark_per_work_item(buf)
                factory.insert_storage([c, total, buf])
                extras.append(buf.memref)
        state = factory.new_array(i32)
        zero32 = arith.ConstantOp.from_int_and_width(0, i32)
        exit_c = arith.ConstantOp.from_int_and_width(self.exit_id, i32)
        Rewriter.insert_op([zero32, exit_c], ip)
        init = factory.open_nest(ip)
        Rewriter.insert_op(memref.StoreOp.get(zero32, state, [init.lin]), init.ip)
        before = Block(arg_types=[i32])
        go = arith.CmpiOp(before.args[0], exit_c, "ne")
        before.add_ops([go, scf.ConditionOp(go, before.args[0])])
        after = Block(arg_types=[i32])
        cur = after.args[0]
        cur.name_hint = "cur"
        loop = scf.WhileOp([zero32], [i32], Region(before), Region(after))
        Rewriter.insert_op(loop, ip)
        aip = InsertPoint.at_end(after)
        # One copy of the region function per entry (its switch folded to a branch), one
        # work-item loop per entry selected at group level: the entry is known in each
        # loop, so LLVM inlines and optimizes each region on its own.
        cases: list[Region] = []
        for r, fn in enumerate(self._entry_copies()):
            case = Block()
            yld = scf.YieldOp()
            case.add_op(yld)
            nest = factory.open_nest(InsertPoint.before(yld))
            st = memref.LoadOp.get(state, [nest.lin])
            run = arith.CmpiOp(st.res, cur, "eq")
            then = Block()
            call = func.CallOp(fn, [*args, nest.lin, cur, *extras], [i32])
            then.add_ops(
                [call, memref.StoreOp.get(call.res[0], state, [nest.lin]), scf.YieldOp()]
            )
            Rewriter.insert_op([st, run, scf.IfOp(run, [], Region(then))], nest.ip)
            cases.append(Region(case))
            del r
        default = Block()
        default.add_op(scf.YieldOp())
        which = arith.IndexCastOp(cur, IndexType())
        switch = scf.IndexSwitchOp(
            which,
            DenseArrayBase.from_list(i64, list(range(len(cases)))),
            Region(default),
            cases,
            [],
        )
        Rewriter.insert_op([which, switch], aip)
        Rewriter.insert_op(self._fence(), aip)
        # next = min(state): the barrier every pending work-item waits at (all the same
        # in a legal program)
        body = Block(arg_types=[IndexType(), i32])
        x = memref.LoadOp.get(state, [body.args[0]])
        m = arith.MinUIOp(body.args[1], x.res)
        body.add_ops([x, m, scf.YieldOp(m)])
        one = arith.ConstantOp.from_int_and_width(1, IndexType())
        mn = scf.ForOp(factory.zero(), factory.group_size(), one, [exit_c], body)
        Rewriter.insert_op([one, mn, scf.YieldOp(mn.results[0])], aip)

    def _entry_copies(self) -> list[str]:
        """``@<k>.mux-region-<r>`` for r = 0 (kernel entry) and each barrier: the region
        function with its entry switch replaced by a branch to that region's start."""
        from xdsl.dialects import cf, func

        fn = self.fn
        assert isinstance(fn, func.FuncOp)
        switch = fn.body.blocks.first.last_op  # type: ignore[union-attr]
        assert isinstance(switch, cf.SwitchOp)
        targets = [switch.default_block, *switch.case_blocks]
        names: list[str] = []
        anchor: Operation = fn
        for r, target in enumerate(targets):
            block_map: dict[Block, Block] = {}
            copy = fn.clone(block_mapper=block_map)
            copy.sym_name = StringAttr(f"{self._name}.mux-region-{r}")
            entry = copy.body.blocks.first
            assert entry is not None
            Rewriter.replace_op(entry.last_op, cf.BranchOp(block_map[target]))  # type: ignore
            _drop_unreachable(copy.body)
            Rewriter.insert_op(copy, InsertPoint.after(anchor))
            anchor = copy
            names.append(copy.sym_name.data)
        Rewriter.erase_op(fn)
        self.fn = None
        return names

    def _fence(self) -> mux.MemBarrierOp:
        """One fence as strong as every barrier's memory part."""
        scopes = [b.scope_value() for b in self.barriers]
        semantics = 0
        for b in self.barriers:
            semantics |= b.semantics_value()
        ordering = semantics & 0x1F
        if ordering:
            semantics = (semantics & ~0x1F) | (0x10 if ordering & 0x10 else 0x8)
        return mux.MemBarrierOp(min(scopes) if scopes else 2, semantics)


def _drop_unreachable(region: Region) -> None:
    """Erase the blocks the entry cannot reach (what other entries needed)."""
    entry = region.blocks.first
    assert entry is not None
    seen = {entry}
    stack = [entry]
    while stack:
        b = stack.pop()
        for succ in b.last_op.successors if b.last_op is not None else ():
            if succ not in seen:
                seen.add(succ)
                stack.append(succ)
    dead = [region.detach_block(b) for b in list(region.blocks) if b not in seen]
    for b in dead:
        for op in b.ops:
            op.drop_all_references()
    for b in dead:
        b.erase(safe_erase=False)


def i32_type() -> Attribute:
    from xdsl.dialects.builtin import i32

    return i32
