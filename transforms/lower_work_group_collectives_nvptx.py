"""lower-work-group-collectives-nvptx: work-group collectives → warp shuffles, shared memory
and ``bar.sync``.

The NVPTX form of lower-work-group-collectives, as a GPU compiler does it: each warp folds
its own values with shuffles (lower-sub-group-collectives-nvptx's warp trees), one value per
warp goes through shared memory, and the first warp combines the warp values. Runs before
lower-sub-group-collectives-nvptx and define-mux-builtins-nvptx (the barriers it writes are
``mux.work_group_barrier``, the queries ``mux.get_sub_group_*``).

Storage: per element type one ``memref.global`` in memory space 3 (shared memory),
``@__mux_wg_nvptx_<type> : memref<1x64xT, 3>``: slots 0..31 (one per warp: 1024 work-items
at most) and slots 32..63. Every collective has two barriers B1, B2 and follows one
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
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.dialects import attrs, mux
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
    combine,
    declare_scratch,
    is_work_group_collective,
    record_work_group_limit,
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
    """What one collective needs: the warp, the warp id, the number of warps, the storage."""

    warp: Warp
    sg: SSAValue  # i32
    nw: SSAValue  # i32
    view: SSAValue

    @staticmethod
    def build(b: Ops, scratch: Scratch, t: Attribute) -> _Group:
        w = Warp.build(b)
        sg = b(mux.GetSubGroupIdOp(i32))
        sg.name_hint = "warp"
        nw = b(mux.GetNumSubGroupsOp(i32))
        nw.name_hint = "warps"
        view = scratch.view(b, type_key(t))
        view.name_hint = "scratch"
        return _Group(w, sg, nw, view)


def _idx(b: Ops, v: SSAValue | int) -> SSAValue:
    return b.index(v) if isinstance(v, int) else b(arith.IndexCastOp(v, INDEX))


def _store(b: Ops, g: _Group, v: SSAValue, slot: SSAValue | int) -> None:
    b(memref.StoreOp.get(v, g.view, [b.index(0), _idx(b, slot)]))


def _load(b: Ops, g: _Group, slot: SSAValue | int) -> SSAValue:
    return b(memref.LoadOp.get(g.view, [b.index(0), _idx(b, slot)]))


def _when(b: Ops, cond: SSAValue, body: Callable[[Ops], None]) -> None:
    def then(bb: Ops) -> list[SSAValue]:
        body(bb)
        return []

    if_(b, cond, [], then)


def _barrier(b: Ops) -> None:
    b(mux.WorkGroupBarrierOp())


def _eq(b: Ops, x: SSAValue, y: SSAValue) -> SSAValue:
    return b(arith.CmpiOp(x, y, "eq"))


def _warp_value(b: Ops, g: _Group) -> SSAValue:
    """Warp 0's lane l: slot[min(l, nw − 1)] (lanes past the warps read a real value)."""
    last = b(arith.SubiOp(g.nw, c32(b, 1)))
    return _load(b, g, b(arith.MinUIOp(g.warp.lane, last)))


def _reduce(b: Ops, g: _Group, op: mux.ReductionLikeOp) -> SSAValue:
    w = g.warp
    x, kind = operand(b, op.kind_value, op.value)
    total = reduce_to_lane0(b, kind, x, w, w.size)
    lane0 = _eq(b, w.lane, c32(b, 0))
    _when(b, lane0, lambda bb: _store(bb, g, total, g.sg))
    _barrier(b)

    def first_warp(bb: Ops) -> None:
        v = _warp_value(bb, g)
        r = reduce_to_lane0(bb, kind, v, w, g.nw)
        _when(bb, _eq(bb, w.lane, c32(bb, 0)), lambda b3: _store(b3, g, r, RESULT))

    _when(b, _eq(b, g.sg, c32(b, 0)), first_warp)
    _barrier(b)
    return _load(b, g, RESULT)


def _scan(b: Ops, g: _Group, op: mux.ReductionLikeOp, exclusive: bool) -> SSAValue:
    w = g.warp
    x, kind = operand(b, op.kind_value, op.value)
    incl = scan_inclusive(b, kind, x, w)
    last_lane = _eq(b, w.lane, b(arith.SubiOp(w.size, c32(b, 1))))
    _when(b, last_lane, lambda bb: _store(bb, g, incl, g.sg))
    _barrier(b)

    def first_warp(bb: Ops) -> None:
        totals = scan_inclusive(bb, kind, _warp_value(bb, g), w)
        nxt = bb(arith.AddiOp(w.lane, c32(bb, 1)))
        store = bb(arith.CmpiOp(nxt, g.nw, "ult"))
        slot = bb(arith.AddiOp(nxt, c32(bb, RESULT)))
        _when(bb, store, lambda b3: _store(b3, g, totals, slot))

    _when(b, _eq(b, g.sg, c32(b, 0)), first_warp)
    # shuffles before the branch on the warp: every lane of the warp runs them
    own = shift_up(b, op.kind_value, incl, w) if exclusive else incl
    _barrier(b)
    warp0 = _eq(b, g.sg, c32(b, 0))

    def later_warp(bb: Ops) -> list[SSAValue]:
        prefix = _load(bb, g, bb(arith.AddiOp(g.sg, c32(bb, RESULT))))
        folded = combine(bb, kind, prefix, own)
        if not exclusive:
            return [folded]
        return [bb(arith.SelectOp(_eq(bb, w.lane, c32(bb, 0)), prefix, folded))]

    return if_(b, warp0, [own.type], lambda bb: [own], later_warp)[0]


def _broadcast(b: Ops, scratch: Scratch, op: mux.WorkGroupBroadcastOp) -> SSAValue:
    view = scratch.view(b, type_key(op.result.type))
    view.name_hint = "scratch"
    g = _Group(None, None, None, view)  # type: ignore[arg-type] - the storage only
    lid = b(mux.GetLocalLinearIdOp(INDEX))
    sizes = [b(mux.GetLocalSizeOp(d, INDEX)) for d in range(2)]
    yz = b(arith.AddiOp(op.local_id_y, b(arith.MuliOp(op.local_id_z, sizes[1]))))
    chosen = b(arith.AddiOp(op.local_id_x, b(arith.MuliOp(yz, sizes[0]))))
    _when(b, _eq(b, lid, chosen), lambda bb: _store(bb, g, op.value, 0))
    _barrier(b)
    r = _load(b, g, 0)
    _barrier(b)
    return r


def _vote(b: Ops, op: mux.WorkGroupAnyOp | mux.WorkGroupAllOp) -> SSAValue:
    which = "or" if isinstance(op, mux.WorkGroupAnyOp) else "and"
    pred = b(arith.ExtUIOp(op.value, i32))
    r = b(llvm.CallIntrinsicOp(f"llvm.nvvm.barrier0.{which}", [pred], [i32]))
    return b(arith.CmpiOp(r, c32(b, 0), "ne"))


def _check_type(op: mux.GroupCollectiveOp, f: func.FuncOp) -> None:
    t = op.results[0].type
    if not isinstance(t, IntegerType | IndexType | AnyFloat):
        raise NotSupportedError(
            f"{PASS}: '{op.name}' of type {t} in @{f.sym_name.data} is not supported "
            "(scalar integers and floats only)"
        )


def lower_op(b: Ops, scratch: Scratch, op: mux.GroupCollectiveOp) -> SSAValue:
    if isinstance(op, mux.WorkGroupAnyOp | mux.WorkGroupAllOp):
        return _vote(b, op)
    if isinstance(op, mux.WorkGroupBroadcastOp):
        return _broadcast(b, scratch, op)
    g = _Group.build(b, scratch, op.results[0].type)
    if isinstance(op, mux.WorkGroupReduceOp):
        return _reduce(b, g, op)
    if isinstance(op, mux.WorkGroupScanInclusiveOp | mux.WorkGroupScanExclusiveOp):
        return _scan(b, g, op, isinstance(op, mux.WorkGroupScanExclusiveOp))
    raise NotSupportedError(f"{PASS}: '{op.name}' is not supported")


@dataclass(frozen=True)
class LowerWorkGroupCollectivesNvptx(ModulePass):
    """Lower work-group collectives to warp shuffles, shared memory and barriers (NVPTX)."""

    name = "lower-work-group-collectives-nvptx"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        found = [
            (f, o)
            for f in attrs.functions(op).values()
            for o in f.walk()
            if is_work_group_collective(o)
        ]
        if not found:
            return
        # one slot per warp: 32 warps, MAX_WORK_GROUP_SIZE work-items
        record_work_group_limit(op, list({id(f): f for f, _ in found}.values()))
        scratch = Scratch(SLOTS, extra=0)
        for f, o in found:
            _check_type(o, f)  # type: ignore[arg-type]
            if isinstance(o, mux.WorkGroupAnyOp | mux.WorkGroupAllOp):
                continue
            key = type_key(o.results[0].type)
            scratch.types[key] = o.results[0].type
            scratch.rows[key] = 1
        if scratch.types:
            declare_scratch(op, scratch, SCRATCH_PREFIX)
        for _, o in found:
            b = Ops()
            value = lower_op(b, scratch, o)  # type: ignore[arg-type]
            if o.results[0].name_hint:
                value.name_hint = o.results[0].name_hint
            Rewriter.insert_op(b.ops, InsertPoint.before(o))
            o.results[0].replace_all_uses_with(value)
            Rewriter.erase_op(o)

