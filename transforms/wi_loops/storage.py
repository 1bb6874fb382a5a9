"""The storage plan: where each per-work-item value lives across barrier regions.

Stage 2 of work-item loops with barriers. Reads a ``Regions`` object; decides, in a plain
``StoragePlan`` (printable with ``dump``), for every value of the program that is not a
work-group value:

* **local**: defined and used in one segment — an SSA value of that nest;
* **re-computed** (``remat``): a short chain of pure ops over work-group values, the
  nest's own work-item index and work-item queries ("barrier tidying"), emitted again in
  each segment that uses it, never stored;
* **stored**: an array of one slot per work-item (its *home*), written when its segment
  ends, read in the segments that use it;
* **iteration values** (iteration arguments and results of lifted ops that vary per
  work-item): a home array each, shared where the values are one variable — an
  ``scf.for``'s iteration argument *i* and result *i*; an ``scf.while``'s ``after``
  argument *j* and result *j*, and the ``before`` argument the condition forwards there
  unchanged.

Transfers at the region edges of a lifted op (an initial value → the first iteration, a
yield → the next iteration or the result, ``scf.condition`` → the ``after`` arguments) are
leaving SSA form, and are planned as out-of-SSA translation does it (Sreedhar et al. 1999;
Boissinot et al., CGO 2009): every transfer is first a *parallel copy* at its edge (all
sources read, then all destinations written, in the segment that ends the level: correct by
construction). Coalescing then removes a copy — the source is written straight into the
destination's array when its own segment ends — only where

(a) the source is materialised in a segment of the edge's level that ends before the
    edge: an op result computed there (not a work-group value, not re-computed, not the
    result of a lifted op, whose value lives in an array elsewhere), and
(b) no value that shares the destination's array is read after that store and before the
    edge (liveness of the array's members, not the op kind); an initial value's store
    always passes, since the destination's members live only in and after the op.

A copy whose source already lives in the destination's array is dropped. Sources of the
remaining copies that are defined in an earlier segment are stored (or re-computed) like
any value used across segments.

Private allocations: a static ``memref.alloca`` used in one segment only is hoisted to the
kernel entry and shared (work-items of a segment run one after the other); one used in
several segments becomes a per-work-item slice of a byte buffer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from xmux.abi.errors import NotSupportedError
from xmux.transforms.uniformity import ancestor_in, is_control_barrier, is_pure
from xmux.transforms.wi_loops.nests import Unstructured, byte_size, storable
from xmux.transforms.wi_loops.regions import Regions, lifted_values

#: longest chain of pure ops re-computed instead of stored
MAX_REMAT = 16


@dataclass(eq=False)
class Array:
    """One per-work-item array: ``members`` are the iteration values living in it, or the
    one stored value it holds."""

    index: int
    type: Attribute
    members: list[SSAValue] = field(default_factory=list)


@dataclass(eq=False)
class Copy:
    """A transfer at a region edge: ``src``'s per-work-item value into ``dst``'s array.
    ``how``: "edge" (copied at the edge), "coalesced" (written where ``src`` is defined),
    "same" (``src`` lives in that array already)."""

    src: SSAValue
    dst: SSAValue
    operand: int
    """Index of ``src`` among the operands of the op that carries it (terminator or lifted op)."""
    how: str = "edge"


@dataclass
class Edge:
    """The copies of one region edge of lifted op ``op``: ``where`` is "entry" (before the
    op, in its block), or the block at whose end they run."""

    op: Operation
    where: Block | str
    copies: list[Copy] = field(default_factory=list)


@dataclass
class Private:
    """A private allocation that lives across segments: one slice per work-item."""

    type: MemRefType
    stride: int  # bytes per work-item


@dataclass
class StoragePlan:
    """Where each value lives (module docstring); emission follows it and decides nothing."""

    regions: Regions
    arrays: list[Array] = field(default_factory=list)
    home: dict[SSAValue, Array] = field(default_factory=dict)
    stored: set[SSAValue] = field(default_factory=set)
    """Op results written to their home when their segment ends."""
    early: dict[SSAValue, list[SSAValue]] = field(default_factory=dict)
    """Coalesced copies: source → destinations written when the source's segment ends."""
    entry_edges: dict[Operation, Edge] = field(default_factory=dict)
    exit_edges: dict[Block, Edge] = field(default_factory=dict)
    remat: dict[SSAValue, int | None] = field(default_factory=dict)
    sunk: set[Operation] = field(default_factory=set)
    """Pure ops not emitted where they stand: re-computed in each segment using them."""
    shared_allocas: list[Operation] = field(default_factory=list)
    private: dict[SSAValue, Private] = field(default_factory=dict)

    def edge_copies(self, edge: Edge | None) -> list[Copy]:
        return [c for c in edge.copies if c.how == "edge"] if edge is not None else []

    def dump(self, name: str = "") -> str:
        return _PlanPrinter(self).dump(name)


# =======================================================================================
# Planning
# =======================================================================================


class _Planner:
    def __init__(self, regions: Regions) -> None:
        self.r = regions
        self.plan = StoragePlan(regions)

    def run(self) -> StoragePlan:
        r = self.r
        for op in r.lifted:
            self._homes(op)
        for op in r.lifted:
            self._edges(op)
        for edge in [*self.plan.entry_edges.values(), *self.plan.exit_edges.values()]:
            for c in edge.copies:
                c.how = self._how(edge, c)
                if c.how == "coalesced":
                    self.plan.early.setdefault(c.src, []).append(c.dst)
        coalesced = {
            (e.op if e.where == "entry" else e.where.last_op, c.operand)  # type: ignore
            for e in [*self.plan.entry_edges.values(), *self.plan.exit_edges.values()]
            for c in e.copies
            if c.how == "coalesced"
        }
        for block, ops in r.levels:
            for op in ops:
                if op in r.hoisted or op in r.lifted or op in r.single:
                    continue
                if is_control_barrier(op):
                    continue
                if _is_static_alloca(op):
                    self._classify_alloca(op, block)
                    continue
                if self._sinkable(op):
                    self.plan.sunk.add(op)
                for v in op.results:
                    far = self._far_use(v, block, coalesced) and self._remat_cost(v) is None
                    if v in r.uniformize or far:
                        if not storable(v.type):
                            raise NotSupportedError(
                                f"'{op.name}' result of type {v.type} is used across a "
                                "barrier and cannot be kept per work-item"
                            )
                        self.plan.stored.add(v)
                        self._new_array(v.type, [v])
        return self.plan

    def _new_array(self, t: Attribute, members: list[SSAValue]) -> Array:
        arr = Array(len(self.plan.arrays), t, members)
        self.plan.arrays.append(arr)
        for v in members:
            self.plan.home[v] = arr
        return arr

    # -- homes of iteration values -------------------------------------------------------

    def _homes(self, op: Operation) -> None:
        """Arrays of ``op``'s varying iteration values (shared where they are one
        variable, module docstring)."""
        groups: dict[tuple[int, int], list[SSAValue]] = {}
        for v, _ in lifted_values(op):
            if self.r.is_wg(v):
                continue
            if not storable(v.type):
                raise Unstructured(op, f"a per-work-item value of type {v.type}")
            fwd = _forwarded_before_arg(op, v)
            if fwd is not None and not self.r.is_wg(fwd):
                key = (1, fwd.index)
            elif isinstance(op, scf.ForOp):
                key = (0, (v.index - 1) if isinstance(v, BlockArgument) else v.index)
            elif isinstance(op, scf.WhileOp) and isinstance(v, BlockArgument) and (
                v.block is op.before_region.block
            ):
                key = (1, v.index)
            else:
                key = (2, v.index)  # if result, while after arg / result
            groups.setdefault(key, []).append(v)
        for members in groups.values():
            self._new_array(members[0].type, members)

    # -- edges ---------------------------------------------------------------------------

    def _edges(self, op: Operation) -> None:
        plan = self.plan
        if isinstance(op, scf.ForOp):
            body = op.body.block
            plan.entry_edges[op] = Edge(
                op, "entry", self._copies([(i + 3, v, body.args[i + 1])
                                           for i, v in enumerate(op.iter_args)])
            )
            yld = body.last_op
            assert yld is not None
            plan.exit_edges[body] = Edge(
                op, body, self._copies([(i, v, body.args[i + 1])
                                        for i, v in enumerate(yld.operands)])
            )
        elif isinstance(op, scf.IfOp):
            for region in op.regions:
                if not region.blocks:
                    continue
                yld = region.block.last_op
                assert yld is not None
                plan.exit_edges[region.block] = Edge(
                    op, region.block,
                    self._copies([(i, v, op.results[i]) for i, v in enumerate(yld.operands)]),
                )
        else:
            assert isinstance(op, scf.WhileOp)
            before, after = op.before_region.block, op.after_region.block
            cond, yld = before.last_op, after.last_op
            assert isinstance(cond, scf.ConditionOp) and yld is not None
            plan.entry_edges[op] = Edge(
                op, "entry",
                self._copies([(i, v, before.args[i]) for i, v in enumerate(op.arguments)]),
            )
            plan.exit_edges[before] = Edge(
                op, before,
                self._copies([(j + 1, v, after.args[j]) for j, v in enumerate(cond.args)]),
            )
            plan.exit_edges[after] = Edge(
                op, after,
                self._copies([(i, v, before.args[i]) for i, v in enumerate(yld.operands)]),
            )

    def _copies(self, triples: list[tuple[int, SSAValue, SSAValue]]) -> list[Copy]:
        """Copies into the varying destinations (work-group ones travel as SSA values)."""
        return [Copy(src, dst, i) for i, src, dst in triples if dst in self.plan.home]

    def _how(self, edge: Edge, c: Copy) -> str:
        r = self.r
        if self.plan.home.get(c.src) is self.plan.home[c.dst]:
            return "same"
        owner = c.src.owner
        block = edge.op.parent_block() if edge.where == "entry" else edge.where
        assert isinstance(block, Block)
        # (a) materialised in a segment of this level that ends before the edge
        if (
            not isinstance(owner, Operation)
            or owner.parent_block() is not block
            or owner in r.hoisted
            or owner in r.lifted
            or owner in r.single
            or self._sinkable(owner)
        ):
            return "edge"
        seg = r.seg_index[owner]
        end = r.seg_index[edge.op] if edge.where == "entry" else r.last_index[block]
        if seg >= end:
            return "edge"  # the same segment: the copy costs no extra loop
        # (b) no member of the destination's array is read between the store and the edge
        if edge.where != "entry":
            for member in self.plan.home[c.dst].members:
                for use in member.uses:
                    anc = ancestor_in(use.operation, block)
                    if anc is not None and r.after(anc, seg, block):
                        return "edge"
        return "coalesced"

    # -- values used across segments -----------------------------------------------------

    def _far_use(
        self, v: SSAValue, block: Block, coalesced: set[tuple[Operation, int]]
    ) -> bool:
        """``v`` (an op result at the top of ``block``) is read outside its own segment,
        other than by a coalesced copy."""
        r = self.r
        owner = v.owner
        assert isinstance(owner, Operation)
        mine = r.seg_index[owner]
        for use in v.uses:
            user = use.operation
            anc = ancestor_in(user, block)
            if anc is None:
                return True
            if anc is block.last_op:
                if (anc, use.index) in coalesced:
                    continue
                if mine != r.last_index[block]:
                    return True
            elif anc in r.lifted:
                if user is anc and (anc, use.index) in coalesced:
                    continue
                if user is not anc or r.seg_index[anc] != mine:
                    return True
            elif r.seg_index.get(anc, -1) != mine:
                return True
        return False

    def _remat_cost(self, v: SSAValue) -> int | None:
        """Ops needed to re-compute ``v`` in another segment; None when it is stored."""
        memo = self.plan.remat
        if v in memo:
            return memo[v]
        r = self.r
        if v in r.wi_args:
            return 0  # the nest's own induction variable
        memo[v] = None  # cycles cannot happen in SSA, but be safe
        cost: int | None = None
        op = v.owner
        if isinstance(op, Operation) and is_pure(op) and v not in r.uniformize:
            cost = 1
            for o in op.operands:
                if r.is_wg(o):
                    continue
                sub = self._remat_cost(o)
                if sub is None:
                    cost = None
                    break
                cost += sub
            if cost is not None and cost > MAX_REMAT:
                cost = None
        memo[v] = cost
        return cost

    def _sinkable(self, op: Operation) -> bool:
        """Pure ops with re-computable results are emitted where they are used (possibly
        several times): an id or a cast never opens a loop of its own or gets stored."""
        return (
            bool(op.results)
            and op not in self.r.hoisted
            and is_pure(op)
            and all(self._remat_cost(v) is not None for v in op.results)
            and not any(v in self.r.uniformize for v in op.results)
        )

    # -- private allocations -------------------------------------------------------------

    def _classify_alloca(self, op: Operation, block: Block) -> None:
        assert isinstance(op, memref.AllocaOp)
        v = op.memref
        if not self._far_use(v, block, set()):
            self.plan.shared_allocas.append(op)
            return
        t = v.type
        assert isinstance(t, MemRefType)
        nbytes = byte_size(t)
        if nbytes is None or not isinstance(t.layout, NoneAttr):
            raise NotSupportedError(
                f"private {t} is used across a barrier; only static allocations of "
                "integers and floats with the identity layout can be kept per work-item"
            )
        self.plan.private[v] = Private(t, (nbytes + 15) // 16 * 16)


def _is_static_alloca(op: Operation) -> bool:
    return isinstance(op, memref.AllocaOp) and not op.dynamic_sizes and not op.symbol_operands


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


def plan_storage(regions: Regions) -> StoragePlan:
    """The storage plan of an analysed program (raises ``Unstructured`` or
    ``NotSupportedError`` for values that cannot be kept per work-item)."""
    return _Planner(regions).run()


# =======================================================================================
# Dump
# =======================================================================================


class _PlanPrinter:
    """A readable dump: values by their name hints (``%acc``), else ``%<op>#<n>``."""

    def __init__(self, plan: StoragePlan) -> None:
        self.plan = plan
        self.names: dict[SSAValue, str] = {}

    def name(self, v: SSAValue) -> str:
        if v not in self.names:
            if v.name_hint:
                base = f"%{v.name_hint}"
            elif isinstance(v.owner, Operation):
                base = f"%{v.owner.name}"
            else:
                base = "%arg"
            taken = set(self.names.values())
            n, out = 0, base
            while out in taken:
                n += 1
                out = f"{base}#{n}"
            self.names[v] = out
        return self.names[v]

    @staticmethod
    def region(op: Operation, block: Block) -> str:
        """``scf.for body``, ``scf.if then``, ``scf.while after``..."""
        if isinstance(op, scf.ForOp):
            return f"{op.name} body"
        if isinstance(op, scf.IfOp):
            return f"{op.name} {'then' if block is op.true_region.block else 'else'}"
        assert isinstance(op, scf.WhileOp)
        return f"{op.name} {'before' if block is op.before_region.block else 'after'}"

    def where(self, edge: Edge) -> str:
        if edge.where == "entry":
            return f"{edge.op.name} entry"
        assert isinstance(edge.where, Block)
        return f"{self.region(edge.op, edge.where)} end"

    def dump(self, kernel: str) -> str:
        plan, r = self.plan, self.plan.regions
        lines = [f"work-item-loops plan{' @' + kernel if kernel else ''}:"]
        for block, _ in r.levels:
            owner = block.parent_op()
            label = "program" if owner is None or block is r.block else self.region(owner, block)
            lines.append(f"  level {label}: {r.last_index[block] + 1} segment(s)")
        for arr in plan.arrays:
            members = ", ".join(self.name(v) for v in arr.members)
            lines.append(f"  array #{arr.index} {arr.type}: {members}")
        for v in sorted(plan.stored, key=lambda v: plan.home[v].index):
            lines.append(f"  stored {self.name(v)} -> #{plan.home[v].index}")
        for v in r.uniformize:
            lines.append(f"  uniform by the barrier rule: {self.name(v)}")
        for op in sorted(plan.sunk, key=lambda o: self.name(o.results[0])):
            for v in op.results:
                lines.append(f"  re-computed {self.name(v)} ({plan.remat[v]} ops)")
        for edge in [*plan.entry_edges.values(), *plan.exit_edges.values()]:
            for c in edge.copies:
                arr = plan.home[c.dst].index
                lines.append(
                    f"  copy {self.where(edge)}: {self.name(c.src)} -> {self.name(c.dst)} "
                    f"(#{arr}) {c.how}"
                )
        for v, p in plan.private.items():
            lines.append(f"  private {self.name(v)}: {p.type}, {p.stride} bytes per work-item")
        return "\n".join(lines)


#: value names as the dump prints them (``plan_graph.py`` draws with the same names)
PlanPrinter = _PlanPrinter
