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
                       if nw > 1 (nw = number of warps), warp 0 folds slots 0..nw−1 with
                       the same tree (else lane 0 has the total); lane 0 of warp 0 stores
                       slot[32]; B2; every work-item loads slot[32] (the same bits for all)
reduce, one reader     the same up to warp 0's fold, then nothing: the value is valid in
                       work-item 0 only (below); one barrier, no slot 32
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

Reduce trees: a full warp ((linear id | 31) < group size) shuffles under the constant member
mask −1 without guards, like CUDA's warp reductions (a register mask costs ptxas a
``MATCH.ANY``/``REDUX``/``VOTEU``/``BRA.DIV`` check per tree); the last, partial warp uses
its lane mask and the ``p`` form of the shuffle clamped at its last lane, whose predicate is
the guard; warp 0's fold runs only when there are several warps, so warp 0 is full (mask
−1), clamped at lane nw − 1. Lane 0 gets the same tree, so the same bits, on every path.

One reader (option ``one_reader``, default on; ``XMUX_NVPTX_WG_ONE_READER=0`` turns it off
in ``pipelines.nvptx``): a reduce whose value is only read inside ``scf.if``s that pin local
ids to 0, and after which no collective with storage can run (``first_item_reads``: what
exactly it proves is in its docstring), keeps its value in work-item 0 and drops B2 and the
slot-32 store/load (NVRTC's shape for bench/gpu.py's ``reduce_wg``). Warps other than warp 0
are done after B1; warp 0 reading slots 0..31 after B1 races with nothing, as nothing writes
them again. Dimensions the readers' conditions do not pin and whose local size is not known
to be 1 (``mux.reqd_work_group_size``, ``mux.max_work_dim``) are checked at launch: when
one is not 1, a uniform branch broadcasts the value as above.

Logical kinds on wider integers give 0 or 1; floats combine in tree order. A work-group of
any size 1..1024 in 1-3 dimensions works: warps are taken in local linear order, and the last
one may be partial (its trees combine only live lanes). Like on every target, a work-group
collective must be reached by every work-item of the group.

Expects: collectives in uniform control flow. Guarantees: no work-group collective remains.

Before::

    %r = mux.work_group_reduce add %x : i32

After (``...``: shfl.sync.down trees)::

    %lane = mux.get_sub_group_local_id : i32
    %size = mux.get_sub_group_size : i32
    %warp = mux.get_sub_group_id : i32
    %warps = mux.get_num_sub_groups : i32
    %scratch = memref.get_global @__mux_wg_nvptx_i32 : memref<1x64xi32, 3>
    %full = ...                        // (linear id | 31) < group size
    %warp_total = scf.if %full -> (i32) {
      ...                              // mask −1, no guards
    } else {
      ...                              // lane mask, shfl.sync.down.i32p clamped at size − 1
    }
    %lane0 = arith.cmpi eq, %lane, %c0_i32 : i32
    scf.if %lane0 {
      %w = arith.index_cast %warp : i32 to index
      memref.store %warp_total, %scratch[%c0, %w] : memref<1x64xi32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %fold = ...                        // warp == 0 and warps > 1
    %group_total = scf.if %fold -> (i32) {
      ...                              // slot[min(lane, warps − 1)], mask −1, clamped at
    } else {                           // warps − 1
      scf.yield %warp_total : i32
    }
    ...                                // work-item 0 stores %group_total in slot 32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %r = memref.load %scratch[%c0, %c32] : memref<1x64xi32, 3>

One reader: the same up to ``%group_total``, which replaces ``%r`` (with dimensions to
check at launch: ``scf.if`` on their local sizes being 1, else the broadcast above).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    IndexType,
    IntegerType,
    ModuleOp,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.dialects import attrs, mux
from xmux.dialects.mux import GroupOpKind
from xmux.transforms.first_item_reads import is_last, reader_dims
from xmux.transforms.lower_sub_group_collectives_nvptx import (
    OFFSETS,
    WARP,
    Warp,
    c32,
    if_,
    lane_mask,
    operand,
    scan_inclusive,
    shfl,
    shift_up,
    to_words,
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
    def build(b: Ops, scratch: Scratch, t: Attribute, mask: bool = True) -> _Group:
        """``mask``: with the warp's lane mask (a reduce builds its own where needed)."""
        if mask:
            w = Warp.build(b)
        else:
            lane, size = b(mux.GetSubGroupLocalIdOp(i32)), b(mux.GetSubGroupSizeOp(i32))
            w = Warp(lane, size, None)  # type: ignore[arg-type]
            w.lane.name_hint, w.size.name_hint = "lane", "size"
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


def _down(b: Ops, mask: SSAValue, v: SSAValue, off: int,
          last: SSAValue | None) -> tuple[SSAValue, SSAValue | None]:
    """``shfl.sync.down`` of ``v`` by ``off``; with ``last`` (i32, the highest lane to read)
    the ``p`` form, whose predicate says that lane + off ≤ last (the instruction's clamp
    does the guard's compare: no per-lane index arithmetic)."""
    if last is None:
        return shfl(b, "down", mask, v, c32(b, off)), None
    words, rebuild = to_words(b, v)
    out, ok = [], None
    for w in words:
        suffix = "f32p" if w.type == f32 else "i32p"
        pair = b(llvm.CallIntrinsicOp(f"llvm.nvvm.shfl.sync.down.{suffix}",
                                      [mask, w, c32(b, off), last],
                                      [llvm.LLVMStructType.from_type_list([w.type, i1])]))
        out.append(b(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [0]), pair, w.type)))
        ok = ok or b(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), pair, i1))
    return rebuild(b, out), ok


def _tree(b: Ops, kind: GroupOpKind, x: SSAValue, mask: SSAValue,
          last: SSAValue | None) -> SSAValue:
    """A ``shfl.sync.down`` tree: lane 0 gets ``x`` of lanes 0 .. ``last`` folded (all 32
    when ``last`` is None) in ``reduce_to_lane0``'s order, so the same bits; other lanes get
    partial values (without ``last``: some folded with copies of their own, never read by
    lane 0, as in CUDA's warp reductions)."""
    for off in OFFSETS:
        y, ok = _down(b, mask, x, off, last)
        folded = combine(b, kind, x, y)
        x = folded if ok is None else b(arith.SelectOp(ok, folded, x))
    return x


def _full_warp(b: Ops) -> SSAValue:
    """Whether the calling work-item's warp is full: (linear id | 31) < local size, in 32
    bits (sizes ≤ 1024), cheaper than the 64-bit sub-group size's compare."""
    llid = b(arith.IndexCastOp(b(mux.GetLocalLinearIdOp(INDEX)), i32))
    sizes = [b(mux.GetLocalSizeOp(d, INDEX)) for d in range(3)]
    n = b(arith.IndexCastOp(b(arith.MuliOp(b(arith.MuliOp(sizes[0], sizes[1])), sizes[2])), i32))
    n.name_hint = "group_size"
    last = b(arith.OrIOp(llid, c32(b, WARP - 1)))
    last.name_hint = "warp_last"
    full = b(arith.CmpiOp(last, n, "ult"))
    full.name_hint = "full"
    return full


def _warp_total(b: Ops, kind: GroupOpKind, x: SSAValue, w: Warp) -> SSAValue:
    """Lane 0: the fold of its warp's live lanes. A full warp shuffles under the constant
    mask −1 without guards (ptxas then checks no register mask); the last, partial warp
    under its lane mask with the clamp at its last lane."""
    full = _full_warp(b)

    def partial(bb: Ops) -> list[SSAValue]:
        # the mask built here: LLVM keeps it off the full warps' path
        mask = lane_mask(bb, w.size)
        mask.name_hint = "mask"
        last = bb(arith.SubiOp(w.size, c32(bb, 1)))
        last.name_hint = "last"
        return [_tree(bb, kind, x, mask, last)]

    total = if_(b, full, [x.type], lambda bb: [_tree(bb, kind, x, c32(bb, -1), None)],
                partial)[0]
    total.name_hint = "warp_total"
    return total


def _fold_warps(b: Ops, g: _Group, kind: GroupOpKind) -> SSAValue:
    """In warp 0 when the group has several warps (so warp 0 is full: constant mask −1):
    lane 0 gets slots 0 .. nw − 1 folded (lanes past nw − 1 read slot nw − 1, a defined
    value the clamp keeps out)."""
    last = b(arith.SubiOp(g.nw, c32(b, 1)))
    last.name_hint = "last_warp"
    v = _load(b, g, b(arith.MinUIOp(g.warp.lane, last)))
    return _tree(b, kind, v, c32(b, -1), last)


def _to_first_item(b: Ops, g: _Group, op: mux.ReductionLikeOp) -> SSAValue:
    """The reduce up to its value in work-item 0 (warp 0's lane 0; other work-items get
    a defined value that is not the result). Each warp's tree, lane 0 stores slot[warp];
    B1; warp 0 folds the slots when there are several warps (so warp 0 is full); with one,
    lane 0 holds the group's total already."""
    w = g.warp
    x, kind = operand(b, op.kind_value, op.value)
    total = _warp_total(b, kind, x, w)
    lane0 = _eq(b, w.lane, c32(b, 0))
    _when(b, lane0, lambda bb: _store(bb, g, total, g.sg))
    _barrier(b)
    several = b(arith.CmpiOp(g.nw, c32(b, 1), "ugt"))
    fold = b(arith.AndIOp(_eq(b, g.sg, c32(b, 0)), several))
    r = if_(b, fold, [total.type], lambda bb: [_fold_warps(bb, g, kind)],
            lambda _bb: [total])[0]
    r.name_hint = "group_total"
    return r


def _broadcast_first(b: Ops, g: _Group, r: SSAValue) -> SSAValue:
    """Work-item 0's ``r`` to every work-item: slot 32; B2; everyone loads it."""
    w = g.warp
    first = b(arith.AndIOp(_eq(b, g.sg, c32(b, 0)), _eq(b, w.lane, c32(b, 0))))
    _when(b, first, lambda bb: _store(bb, g, r, RESULT))
    _barrier(b)
    return _load(b, g, RESULT)


def _reduce(b: Ops, g: _Group, op: mux.ReductionLikeOp) -> SSAValue:
    return _broadcast_first(b, g, _to_first_item(b, g, op))


def _reduce_one_reader(b: Ops, g: _Group, op: mux.ReductionLikeOp,
                       open_dims: list[int]) -> SSAValue:
    """A reduce whose value work-item 0 alone needs (the last collective of its kernel,
    first_item_reads): NVRTC's shape, ``_reduce`` without its broadcast; warps other than
    warp 0 are done after B1. ``open_dims``: dimensions that the readers' ``scf.if`` did
    not pin to local id 0 and whose local size is not known to be 1: where one is not 1 at
    the launch (a uniform branch), more work-items read the value and it is broadcast as
    ``_reduce`` does. Either way the same trees: the same bits."""
    r = _to_first_item(b, g, op)
    if not open_dims:
        return r
    one = None
    for d in open_dims:
        size = b(mux.GetLocalSizeOp(d, INDEX))
        is_one = b(arith.CmpiOp(size, b.index(1), "eq"))
        one = is_one if one is None else b(arith.AndIOp(one, is_one))
    assert one is not None
    return if_(b, one, [r.type], lambda _bb: [r], lambda bb: [_broadcast_first(bb, g, r)])[0]


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


def lower_op(b: Ops, scratch: Scratch, op: mux.GroupCollectiveOp,
             one_reader: list[int] | None = None) -> SSAValue:
    """Ops for ``op`` (appended to ``b``); its value. ``one_reader``: a reduce whose value
    only work-item 0 reads, with the dimensions left to check at launch
    (``_reduce_one_reader``)."""
    if isinstance(op, mux.WorkGroupAnyOp | mux.WorkGroupAllOp):
        return _vote(b, op)
    if isinstance(op, mux.WorkGroupBroadcastOp):
        return _broadcast(b, scratch, op)
    reduce = isinstance(op, mux.WorkGroupReduceOp)
    g = _Group.build(b, scratch, op.results[0].type, mask=not reduce)
    if isinstance(op, mux.WorkGroupReduceOp):
        if one_reader is not None:
            return _reduce_one_reader(b, g, op, one_reader)
        return _reduce(b, g, op)
    if isinstance(op, mux.WorkGroupScanInclusiveOp | mux.WorkGroupScanExclusiveOp):
        return _scan(b, g, op, isinstance(op, mux.WorkGroupScanExclusiveOp))
    raise NotSupportedError(f"{PASS}: '{op.name}' is not supported")


@dataclass(frozen=True)
class LowerWorkGroupCollectivesNvptx(ModulePass):
    """Lower work-group collectives to warp shuffles, shared memory and barriers (NVPTX)."""

    name = "lower-work-group-collectives-nvptx"

    #: the one-reader reduce (``_reduce_one_reader``) where first_item_reads proves it
    #: sound; false: every collective broadcasts (A/B: ``XMUX_NVPTX_WG_ONE_READER=0``)
    one_reader: bool = True

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
        # decided before any op is lowered: is_last looks for collectives in callees
        plans = [self._one_reader(op, f, o) for f, o in found]
        for (_, o), plan in zip(found, plans, strict=True):
            b = Ops()
            value = lower_op(b, scratch, o, plan)  # type: ignore[arg-type]
            if o.results[0].name_hint:
                value.name_hint = o.results[0].name_hint
            Rewriter.insert_op(b.ops, InsertPoint.before(o))
            o.results[0].replace_all_uses_with(value)
            Rewriter.erase_op(o)

    def _one_reader(self, module: ModuleOp, f: func.FuncOp, o: Operation) -> list[int] | None:
        """For a reduce that may leave its value in work-item 0 alone: the dimensions whose
        local size the launch must show to be 1 (first_item_reads proves the rest)."""
        if not self.one_reader or not isinstance(o, mux.WorkGroupReduceOp):
            return None
        dims = reader_dims(o.result)
        if dims is None or not is_last(o, module):
            return None
        reqd = attrs.get_reqd_work_group_size(f)
        max_dim = attrs.get_max_work_dim(f)
        return [
            d
            for d in range(3)
            if d not in dims
            and not (reqd is not None and reqd[d] == 1)
            and not (max_dim is not None and d >= max_dim)
        ]
