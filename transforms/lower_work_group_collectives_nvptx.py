"""lower-work-group-collectives-nvptx: work-group collectives → warp shuffles, shared memory
and ``bar.sync``.

The NVPTX form of lower-work-group-collectives, as a GPU compiler does it: each warp folds
its own values with shuffles (lower-sub-group-collectives-nvptx's warp trees), one value per
warp goes through shared memory, and the first warp combines the warp values. Runs before
lower-sub-group-collectives-nvptx and define-mux-builtins-nvptx (the barriers it writes are
``mux.work_group_barrier``, the queries ``mux.get_sub_group_*``).

Storage: per element type one ``memref.global`` in memory space 3 (shared memory),
``@__mux_wg_nvptx_<type> : memref<R x 64 x T, 3>``, per row slots 0..31 (one per warp:
1024 work-items at most) and slots 32..63. Every collective has two barriers B1, B2 and follows one
discipline: slots 0..31 are written before B1 and read between B1 and B2; slots 32..63 are
written between B1 and B2 and read after B2. So consecutive collectives (also around loop back
edges) reuse the storage without a third barrier: the next one writes slots 0..31 only after
this one's B2, and slots 32..63 only after its own B1, which every reader of this one has
passed.

=====================  ==================================================================
reduce                 warp tree (``shfl.sync.down``) → lane 0 stores slot[warp]; B1;
                       warp 0 folds slots 0..nw−1 (nw = number of warps) with the same tree
                       and lane 0 stores slot[32]; B2; every work-item loads slot[32] (the
                       same bits for all)
scan_inclusive         warp scan (Kogge-Stone, ``shfl.sync.up``) → the warp's last live
scan_exclusive         lane stores its total at slot[warp]; B1; warp 0 scans the totals and
                       stores the prefix of warps 0..w−1 at slot[32 + w] (w = 1..nw−1); B2;
                       warp w > 0 folds slot[32 + w] with its own scan (exclusive: lane 0 of
                       warp w > 0 gets the prefix itself, lane 0 of warp 0 the identity)
broadcast              the chosen work-item stores slot[0]; B1; every work-item loads
                       slot[0]; B2
any, all               ``bar.red.or`` / ``bar.red.and`` (``llvm.nvvm.barrier0.or/and``):
                       the barrier itself folds the predicate; no storage
=====================  ==================================================================

**Batches.** Consecutive collectives of one block that do not use each other's results,
with only write-free ops between them, share B1 and B2 (lower-work-group-collectives'
batches): each writes its own row of its type's storage (R rows: the largest batch), warp 0
runs all their second stages in one branch; ops between them that use a result move after
the batch. any/all are their own barriers and stay out of batches.

Logical kinds on wider integers give 0 or 1; floats combine in tree order. A work-group of
any size 1..1024 in 1-3 dimensions works: warps are taken in local linear order, and the last
one may be partial (its trees combine only live lanes). Like on every target, a work-group
collective must be reached by every work-item of the group.

Expects: collectives in uniform control flow. Guarantees: no work-group collective remains.

Before::

    %r = mux.work_group_reduce add %x : i32

After (``...``: the warp tree of lower-sub-group-collectives-nvptx)::

    %lane = mux.get_sub_group_local_id : i32
    %size = mux.get_sub_group_size : i32
    %mask = ...
    %warp = mux.get_sub_group_id : i32
    %warps = mux.get_num_sub_groups : i32
    %scratch = memref.get_global @__mux_wg_nvptx_i32 : memref<1x64xi32, 3>
    %t = ...                           // shfl.sync.down tree: lane 0 has the warp's total
    %lane0 = arith.cmpi eq, %lane, %c0_i32 : i32
    scf.if %lane0 {
      %w = arith.index_cast %warp : i32 to index
      memref.store %t, %scratch[%c0, %w] : memref<1x64xi32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %warp0 = arith.cmpi eq, %warp, %c0_i32 : i32
    scf.if %warp0 {
      ...                              // slot[min(lane, warps − 1)], the tree over
    }                                  // %warps lanes, lane 0 stores slot 32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %r = memref.load %scratch[%c0, %c32] : memref<1x64xi32, 3>
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, ModuleOp, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, mux
from xmux.dialects.mux import GroupOpKind
from xmux.errors import NotSupportedError
from xmux.transforms.lower_sub_group_collectives_nvptx import (
    WARP,
    Warp,
    c32,
    if_,
    operand,
    reduce_to_lane0,
    scan_inclusive,
    shift_up,
)
from xmux.transforms.lower_work_group_collectives import (
    Ops,
    Scratch,
    _Batch,
    batches_of_block,
    combine,
    declare_scratch,
    is_work_group_collective,
    type_key,
)

PASS = "lower-work-group-collectives-nvptx"
SCRATCH_PREFIX = "__mux_wg_nvptx_"
#: Slots 0..31: one per warp (written before B1); 32..63: results (written after B1).
SLOTS = 2 * WARP
RESULT = WARP
INDEX = IndexType()


@dataclass
class _Group:
    """What a batch needs: the warp, the warp id, the number of warps, the storage views."""

    warp: Warp
    sg: SSAValue  # i32
    nw: SSAValue  # i32
    views: dict[str, SSAValue]

    @staticmethod
    def build(b: Ops, scratch: Scratch, members: list[mux.GroupCollectiveOp]) -> _Group:
        w = Warp.build(b)
        sg = b(mux.GetSubGroupIdOp(i32))
        sg.name_hint = "warp"
        nw = b(mux.GetNumSubGroupsOp(i32))
        nw.name_hint = "warps"
        views: dict[str, SSAValue] = {}
        for m in members:
            key = type_key(m.results[0].type)
            if key not in views:
                views[key] = scratch.view(b, key)
                views[key].name_hint = "scratch"
        return _Group(w, sg, nw, views)


def _idx(b: Ops, v: SSAValue | int) -> SSAValue:
    return b.index(v) if isinstance(v, int) else b(arith.IndexCastOp(v, INDEX))


@dataclass
class _Member:
    """One collective of a batch: its storage row and what its phases computed."""

    op: mux.GroupCollectiveOp
    g: _Group
    row: int
    kind: GroupOpKind | None = None
    own: SSAValue | None = None  # the warp-level value (a scan's own prefix, a broadcast)

    @property
    def view(self) -> SSAValue:
        return self.g.views[type_key(self.op.results[0].type)]

    def store(self, b: Ops, v: SSAValue, slot: SSAValue | int) -> None:
        b(memref.StoreOp.get(v, self.view, [b.index(self.row), _idx(b, slot)]))

    def load(self, b: Ops, slot: SSAValue | int) -> SSAValue:
        return b(memref.LoadOp.get(self.view, [b.index(self.row), _idx(b, slot)]))

    def warp_value(self, b: Ops) -> SSAValue:
        """Warp 0's lane l: slot min(l, nw − 1) (lanes past the warps read a real value)."""
        last = b(arith.SubiOp(self.g.nw, c32(b, 1)))
        return self.load(b, b(arith.MinUIOp(self.g.warp.lane, last)))


def _when(b: Ops, cond: SSAValue, body: Callable[[Ops], None]) -> None:
    def then(bb: Ops) -> list[SSAValue]:
        body(bb)
        return []

    if_(b, cond, [], then)


def _eq(b: Ops, x: SSAValue, y: SSAValue) -> SSAValue:
    return b(arith.CmpiOp(x, y, "eq"))


def _is_scan(op: Operation) -> bool:
    return isinstance(op, mux.WorkGroupScanInclusiveOp | mux.WorkGroupScanExclusiveOp)


# --- the phases: before B1 (every work-item), warp 0 between B1 and B2, after B2 ---------


def _write(b: Ops, m: _Member) -> None:
    w, op = m.g.warp, m.op
    if isinstance(op, mux.WorkGroupBroadcastOp):
        lid = b(mux.GetLocalLinearIdOp(INDEX))
        sizes = [b(mux.GetLocalSizeOp(d, INDEX)) for d in range(2)]
        yz = b(arith.AddiOp(op.local_id_y, b(arith.MuliOp(op.local_id_z, sizes[1]))))
        chosen = b(arith.AddiOp(op.local_id_x, b(arith.MuliOp(yz, sizes[0]))))
        _when(b, _eq(b, lid, chosen), lambda bb: m.store(bb, op.value, 0))
        return
    assert isinstance(op, mux.ReductionLikeOp)
    x, m.kind = operand(b, op.kind_value, op.value)
    if isinstance(op, mux.WorkGroupReduceOp):
        total = reduce_to_lane0(b, m.kind, x, w, w.size)
        _when(b, _eq(b, w.lane, c32(b, 0)), lambda bb: m.store(bb, total, m.g.sg))
        return
    m.own = scan_inclusive(b, m.kind, x, w)
    last_lane = _eq(b, w.lane, b(arith.SubiOp(w.size, c32(b, 1))))
    incl = m.own
    _when(b, last_lane, lambda bb: m.store(bb, incl, m.g.sg))


def _first_warp(b: Ops, m: _Member) -> None:
    w = m.g.warp
    assert m.kind is not None
    if isinstance(m.op, mux.WorkGroupReduceOp):
        r = reduce_to_lane0(b, m.kind, m.warp_value(b), w, m.g.nw)
        _when(b, _eq(b, w.lane, c32(b, 0)), lambda bb: m.store(bb, r, RESULT))
        return
    # scans: lane l < nw − 1 stores the prefix of warps 0..l for warp l + 1
    totals = scan_inclusive(b, m.kind, m.warp_value(b), w)
    nxt = b(arith.AddiOp(w.lane, c32(b, 1)))
    store = b(arith.CmpiOp(nxt, m.g.nw, "ult"))
    slot = b(arith.AddiOp(nxt, c32(b, RESULT)))
    _when(b, store, lambda bb: m.store(bb, totals, slot))


def _between(b: Ops, m: _Member) -> None:
    """Every work-item, between the barriers: a broadcast's load (slots 0..31 are read
    only here), an exclusive scan's shuffle (every lane of the warp runs it)."""
    if isinstance(m.op, mux.WorkGroupBroadcastOp):
        m.own = m.load(b, 0)
    elif isinstance(m.op, mux.WorkGroupScanExclusiveOp):
        assert m.own is not None
        m.own = shift_up(b, m.op.kind_value, m.own, m.g.warp)


def _read(b: Ops, m: _Member) -> SSAValue:
    if isinstance(m.op, mux.WorkGroupBroadcastOp):
        assert m.own is not None
        return m.own
    if isinstance(m.op, mux.WorkGroupReduceOp):
        return m.load(b, RESULT)
    own, w, kind = m.own, m.g.warp, m.kind
    assert own is not None and kind is not None
    exclusive = isinstance(m.op, mux.WorkGroupScanExclusiveOp)

    def later_warp(bb: Ops) -> list[SSAValue]:
        prefix = m.load(bb, bb(arith.AddiOp(m.g.sg, c32(bb, RESULT))))
        folded = combine(bb, kind, prefix, own)
        if not exclusive:
            return [folded]
        return [bb(arith.SelectOp(_eq(bb, w.lane, c32(bb, 0)), prefix, folded))]

    warp0 = _eq(b, m.g.sg, c32(b, 0))
    return if_(b, warp0, [own.type], lambda bb: [own], later_warp)[0]


def _lower_batch(scratch: Scratch, batch: _Batch, rows: dict[Operation, int]) -> None:
    ops = [mm.op for mm in batch.members]
    b = Ops()
    g = _Group.build(b, scratch, ops)
    members = [_Member(o, g, rows[o]) for o in ops]
    for m in members:
        _write(b, m)
    b(mux.WorkGroupBarrierOp())
    shuffled = [m for m in members if not isinstance(m.op, mux.WorkGroupBroadcastOp)]
    if shuffled:

        def first_warp(bb: Ops) -> None:
            for m in shuffled:
                _first_warp(bb, m)

        _when(b, _eq(b, g.sg, c32(b, 0)), first_warp)
    for m in members:
        _between(b, m)
    b(mux.WorkGroupBarrierOp())
    results = [_read(b, m) for m in members]
    last = ops[-1]
    Rewriter.insert_op(b.ops, InsertPoint.before(last))
    for o in batch.moved:  # ops between members that use their results
        o.detach()
        Rewriter.insert_op(o, InsertPoint.before(last))
    for o, r in zip(ops, results, strict=True):
        if o.results[0].name_hint:
            r.name_hint = o.results[0].name_hint
        o.results[0].replace_all_uses_with(r)
    for o in ops:
        Rewriter.erase_op(o)


def _vote(op: mux.WorkGroupAnyOp | mux.WorkGroupAllOp) -> None:
    b = Ops()
    which = "or" if isinstance(op, mux.WorkGroupAnyOp) else "and"
    pred = b(arith.ExtUIOp(op.value, i32))
    r = b(llvm.CallIntrinsicOp(f"llvm.nvvm.barrier0.{which}", [pred], [i32]))
    value = b(arith.CmpiOp(r, c32(b, 0), "ne"))
    if op.result.name_hint:
        value.name_hint = op.result.name_hint
    Rewriter.insert_op(b.ops, InsertPoint.before(op))
    op.result.replace_all_uses_with(value)
    Rewriter.erase_op(op)


def _check_type(op: mux.GroupCollectiveOp, f: func.FuncOp) -> None:
    t = op.results[0].type
    if not isinstance(t, IntegerType | IndexType | AnyFloat):
        raise NotSupportedError(
            f"{PASS}: '{op.name}' of type {t} in @{f.sym_name.data} is not supported "
            "(scalar integers and floats only)"
        )


def _is_vote(op: Operation) -> bool:
    return isinstance(op, mux.WorkGroupAnyOp | mux.WorkGroupAllOp)


def _uses_storage(op: Operation) -> bool:
    return is_work_group_collective(op) and not _is_vote(op)


@dataclass(frozen=True)
class LowerWorkGroupCollectivesNvptx(ModulePass):
    """Lower work-group collectives to warp shuffles, shared memory and barriers (NVPTX)."""

    name = "lower-work-group-collectives-nvptx"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = [
            f for f in attrs.functions(op).values()
            if any(is_work_group_collective(o) for o in f.walk())
        ]
        if not funcs:
            return
        scratch = Scratch(SLOTS, extra=0)
        plans: list[tuple[_Batch, dict[Operation, int]]] = []
        for f in funcs:
            for o in f.walk():
                if is_work_group_collective(o):
                    _check_type(o, f)  # type: ignore[arg-type]
            blocks = [blk for o in f.walk() for r in o.regions for blk in r.blocks]
            for blk in blocks:
                for batch in batches_of_block(blk, _uses_storage):
                    used: dict[str, int] = {}
                    rows: dict[Operation, int] = {}
                    for mm in batch.members:
                        t = mm.op.results[0].type
                        key = type_key(t)
                        rows[mm.op] = used.get(key, 0)
                        used[key] = rows[mm.op] + 1
                        scratch.types[key] = t
                        scratch.rows[key] = max(scratch.rows.get(key, 0), used[key])
                    plans.append((batch, rows))
        if scratch.types:
            declare_scratch(op, scratch, SCRATCH_PREFIX)
        for batch, rows in plans:
            _lower_batch(scratch, batch, rows)
        for f in funcs:
            for o in [o for o in f.walk() if _is_vote(o)]:
                _vote(o)  # type: ignore[arg-type]
