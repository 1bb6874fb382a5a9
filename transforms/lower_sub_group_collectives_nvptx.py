"""lower-sub-group-collectives-nvptx: sub-group collectives and shuffles → warp shuffles.

The NVPTX form of lower-sub-group-collectives: a sub-group is a warp of 32 work-items
(sub-group local id = local linear id mod 32, as define-mux-builtins-nvptx defines the
queries), and its collectives are ``shfl.sync`` / ``vote.sync`` instructions over the lanes
of the warp, written as ``llvm.call_intrinsic "llvm.nvvm.shfl.sync.<mode>.<i32|f32>"``
(convergent: LLVM neither sinks nor duplicates them into divergent code). No shared memory and
no work-group barrier is involved, so a sub-group op may sit under control flow that differs
between warps (as long as every lane of a warp reaches it, the rule of ``shfl.sync``).

The last warp of a work-group whose size L is not a multiple of 32 is partial: S = min(32,
L − 32·sub_group_id) live lanes, whose mask ``(1 << S) − 1`` (all ones for a full warp) is the
``membermask`` of every instruction; no lane ever reads a lane ≥ S.

=================================  ========================================================
reduce                             a full warp: a butterfly (``shfl.sync.bfly``, offsets 16,
                                   8, 4, 2, 1), every lane folds the same values in the same
                                   order; a partial warp: a ``shfl.sync.down`` tree whose
                                   steps only combine lanes < S, then lane 0's total to all
                                   (``shfl.sync.idx``)
scan_inclusive                     Kogge-Stone with ``shfl.sync.up`` (offsets 1 .. 16; lane i
                                   combines lane i − off when i ≥ off, lower lanes first)
scan_exclusive                     the inclusive scan moved up one lane; lane 0 the kind's
                                   identity (fmin/fmax: a NaN prefix survives, as on the CPU)
any, all                           ``vote.sync.any`` / ``vote.sync.all`` over the live lanes
broadcast(v, k), shuffle(v, k)     ``shfl.sync.idx`` from lane k if k < S, else the own ``v``
shuffle_xor(v, m)                  from lane ``lane xor m`` if < S, else the own ``v``
shuffle_up(prev, curr, δ)          i = lane − δ (signed): ``curr`` of lane i if 0 ≤ i < S;
                                   ``prev`` of lane i + 32 if i < 0 and i + 32 < S; else the
                                   own ``prev`` (two ``shfl.sync.idx``, then a select)
shuffle_down(curr, next, δ)        i = lane + δ (unsigned): ``curr`` of lane i if i < S;
                                   ``next`` of lane i − 32 if 32 ≤ i and i − 32 < S; else
                                   the own ``next``
=================================  ========================================================

These are lower-sub-group-collectives' results at size 32 (its out-of-range rules: an
out-of-range lane reads its own value). Logical kinds on wider integers give 0 or 1; float
reductions and scans combine in tree order (not lane order: a float sum may differ from the
CPU's in the last bits, as OpenCL allows). Values travel as 32-bit words: f32 and i32 as they
are, narrower integers and f16/bf16 widened, i64/f64/index (as i64) and wider integers as
32-bit halves / pieces, one shuffle each.

``mux.sub_group_barrier`` stays for define-mux-builtins-nvptx (``bar.warp.sync``); vec-group
ops are left alone (no target lowers them yet).

Expects: functions whose ``mux.reqd_sub_group_size`` is absent or 32. Guarantees: no
``mux.sub_group_*`` collective or shuffle remains; the lowering uses the sub-group queries
(``get_sub_group_local_id``, ``get_sub_group_size``), defined by define-mux-builtins-nvptx.

Before::

    %r = mux.sub_group_shuffle_xor %x, %m : f32

After::

    %lane = mux.get_sub_group_local_id : i32
    %size = mux.get_sub_group_size : i32
    %0 = arith.constant 1 : i32
    %1 = arith.shli %0, %size : i32
    %2 = arith.subi %1, %0 : i32
    %3 = arith.constant 32 : i32
    %4 = arith.cmpi eq, %size, %3 : i32
    %5 = arith.constant -1 : i32
    %mask = arith.select %4, %5, %2 : i32
    %6 = arith.xori %lane, %m : i32
    %7 = arith.cmpi ult, %6, %size : i32
    %8 = arith.select %7, %6, %lane : i32
    %9 = arith.constant 31 : i32
    %r = llvm.call_intrinsic "llvm.nvvm.shfl.sync.idx.f32"(%mask, %x, %8, %9)
        : (i32, f32, i32, i32) -> f32
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi import nvptx_abi as abi
from xmux.abi.errors import NotSupportedError
from xmux.dialects import attrs, mux
from xmux.dialects.mux import GroupOpKind
from xmux.transforms.lower_work_group_collectives import (
    Ops,
    combine,
    identity,
    normalize_logical,
)

PASS = "lower-sub-group-collectives-nvptx"
WARP = abi.WARP_SIZE
K = GroupOpKind
#: Butterfly / tree offsets, widest first.
OFFSETS = (16, 8, 4, 2, 1)


def c32(b: Ops, value: int) -> SSAValue:
    """An i32 constant, one per builder (like ``Ops.index``)."""
    key = (value, "i32")
    if key not in b._consts:  # noqa: SLF001 - Ops' own constant cache
        b._consts[key] = b(arith.ConstantOp(IntegerAttr(value, i32)))
    return b._consts[key]


def if_(
    b: Ops,
    cond: SSAValue,
    types: list[Attribute],
    then: Callable[[Ops], list[SSAValue]],
    other: Callable[[Ops], list[SSAValue]] | None = None,
) -> list[SSAValue]:
    """``scf.if`` with results ``types``; each branch builds its ops and returns its values."""

    def region(build: Callable[[Ops], list[SSAValue]]) -> Region:
        inner = Ops()
        values = build(inner)
        inner(scf.YieldOp(*values))
        return Region(Block(inner.ops))

    other_region = region(other) if other is not None else Region()
    op = scf.IfOp(cond, types, region(then), other_region)
    b(op)
    return list(op.results)


# ---------------------------------------------------------------------------------------
# The calling lane's warp
# ---------------------------------------------------------------------------------------


def lane_mask(b: Ops, size: SSAValue) -> SSAValue:
    """The mask of lanes 0 .. size−1 (i32): all ones for a full warp ((1 << 32) − 1 is
    poison, hence the select)."""
    one = c32(b, 1)
    low = b(arith.SubiOp(b(arith.ShLIOp(one, size)), one))
    full = b(arith.CmpiOp(size, c32(b, WARP), "eq"))
    return b(arith.SelectOp(full, c32(b, -1), low))


@dataclass
class Warp:
    """The calling work-item's lane, the live lanes of its warp and their mask (all i32)."""

    lane: SSAValue
    size: SSAValue
    mask: SSAValue

    @staticmethod
    def build(b: Ops) -> Warp:
        lane = b(mux.GetSubGroupLocalIdOp(i32))
        lane.name_hint = "lane"
        size = b(mux.GetSubGroupSizeOp(i32))
        size.name_hint = "size"
        mask = lane_mask(b, size)
        mask.name_hint = "mask"
        return Warp(lane, size, mask)


# ---------------------------------------------------------------------------------------
# Values as 32-bit words
# ---------------------------------------------------------------------------------------


def _int_width(t: Attribute) -> int:
    return t.width.data  # type: ignore[attr-defined]


Rebuild = Callable[[Ops, list[SSAValue]], SSAValue]


def to_words(b: Ops, v: SSAValue) -> tuple[list[SSAValue], Rebuild]:
    """``v`` as i32/f32 words, and how to rebuild a value of its type from such words."""
    t = v.type
    if t in (i32, f32):
        return [v], lambda _b, ws: ws[0]
    if isinstance(t, IndexType):
        words, rebuild = to_words(b, b(arith.IndexCastOp(v, i64)))
        return words, lambda bb, ws: bb(arith.IndexCastOp(rebuild(bb, ws), t))
    if isinstance(t, AnyFloat):
        it = IntegerType(t.bitwidth)
        words, rebuild = to_words(b, b(arith.BitcastOp(v, it)))
        return words, lambda bb, ws: bb(arith.BitcastOp(rebuild(bb, ws), t))
    if not isinstance(t, IntegerType):
        raise NotSupportedError(f"{PASS}: values of type {t} cannot be shuffled")
    w = _int_width(t)
    if w < 32:
        return [b(arith.ExtUIOp(v, i32))], lambda bb, ws: bb(arith.TruncIOp(ws[0], t))
    n = (w + 31) // 32
    wide_t = IntegerType(32 * n)
    wide = v if w == 32 * n else b(arith.ExtUIOp(v, wide_t))
    words = []
    for k in range(n):
        part = wide
        if k:
            shift = b(arith.ConstantOp(IntegerAttr(32 * k, wide_t)))
            part = b(arith.ShRUIOp(wide, shift))
        words.append(b(arith.TruncIOp(part, i32)))

    def rebuild(bb: Ops, ws: list[SSAValue]) -> SSAValue:
        acc = bb(arith.ExtUIOp(ws[0], wide_t))
        for k in range(1, n):
            shift = bb(arith.ConstantOp(IntegerAttr(32 * k, wide_t)))
            piece = bb(arith.ShLIOp(bb(arith.ExtUIOp(ws[k], wide_t)), shift))
            acc = bb(arith.OrIOp(acc, piece))
        return acc if w == 32 * n else bb(arith.TruncIOp(acc, t))

    return words, rebuild


def shfl(b: Ops, mode: str, mask: SSAValue, v: SSAValue, lane_arg: SSAValue) -> SSAValue:
    """``shfl.sync.<mode>`` of ``v`` (any scalar type) over the lanes of ``mask``: the
    source lane is ``lane_arg`` (idx), lane − it (up), lane + it (down) or lane xor it (bfly);
    a source outside the warp gives the own value."""
    clamp = c32(b, 0 if mode == "up" else WARP - 1)
    words, rebuild = to_words(b, v)
    out = []
    for w in words:
        suffix = "f32" if w.type == f32 else "i32"
        name = f"llvm.nvvm.shfl.sync.{mode}.{suffix}"
        out.append(b(llvm.CallIntrinsicOp(name, [mask, w, lane_arg, clamp], [w.type])))
    return rebuild(b, out)


# ---------------------------------------------------------------------------------------
# Warp reductions and scans (shared with lower-work-group-collectives-nvptx)
# ---------------------------------------------------------------------------------------


_BITWISE = {K.LOGICAL_AND: K.AND, K.LOGICAL_OR: K.OR, K.LOGICAL_XOR: K.XOR}


def operand(b: Ops, kind: GroupOpKind, v: SSAValue) -> tuple[SSAValue, GroupOpKind]:
    """The value a reduce/scan folds and the kind that folds it: a logical kind's values
    are made 0 or 1 once, then and/or/xor keep them so."""
    if kind in _BITWISE:
        return normalize_logical(b, v), _BITWISE[kind]
    return v, kind


def reduce_to_lane0(b: Ops, kind: GroupOpKind, x: SSAValue, w: Warp, count: SSAValue) -> SSAValue:
    """A ``shfl.sync.down`` tree: lane 0 gets ``x`` of lanes 0 .. count−1 folded (count ≤ the
    warp's live lanes); other lanes get partial values."""
    for off in OFFSETS:
        o = c32(b, off)
        y = shfl(b, "down", w.mask, x, o)
        ok = b(arith.CmpiOp(b(arith.AddiOp(w.lane, o)), count, "ult"))
        x = b(arith.SelectOp(ok, combine(b, kind, x, y), x))
    return x


def all_reduce(b: Ops, kind: GroupOpKind, x: SSAValue, w: Warp) -> SSAValue:
    """Every live lane gets the fold of the warp's values."""
    full = b(arith.CmpiOp(w.size, c32(b, WARP), "eq"))

    def butterfly(bb: Ops) -> list[SSAValue]:
        v, everyone = x, c32(bb, -1)
        for off in OFFSETS:
            v = combine(bb, kind, v, shfl(bb, "bfly", everyone, v, c32(bb, off)))
        return [v]

    def tree(bb: Ops) -> list[SSAValue]:
        total = reduce_to_lane0(bb, kind, x, w, w.size)
        return [shfl(bb, "idx", w.mask, total, c32(bb, 0))]

    return if_(b, full, [x.type], butterfly, tree)[0]


def scan_inclusive(b: Ops, kind: GroupOpKind, x: SSAValue, w: Warp) -> SSAValue:
    """Kogge-Stone: lane i gets the fold of lanes 0 .. i (lower lanes on the left)."""
    for off in reversed(OFFSETS):
        o = c32(b, off)
        y = shfl(b, "up", w.mask, x, o)
        ok = b(arith.CmpiOp(w.lane, o, "uge"))
        x = b(arith.SelectOp(ok, combine(b, kind, y, x), x))
    return x


def shift_up(b: Ops, kind: GroupOpKind, incl: SSAValue, w: Warp) -> SSAValue:
    """An inclusive scan moved up one lane: the exclusive one (lane 0: ``kind``'s
    identity)."""
    prev = shfl(b, "up", w.mask, incl, c32(b, 1))
    first = b(arith.CmpiOp(w.lane, c32(b, 0), "eq"))
    return b(arith.SelectOp(first, identity(b, kind, incl.type), prev))


# ---------------------------------------------------------------------------------------
# One op
# ---------------------------------------------------------------------------------------


def _from_lane(b: Ops, w: Warp, v: SSAValue, k: SSAValue) -> SSAValue:
    """``v`` of lane k (i32, unsigned) when k < S, else the own ``v``."""
    ok = b(arith.CmpiOp(k, w.size, "ult"))
    return shfl(b, "idx", w.mask, v, b(arith.SelectOp(ok, k, w.lane)))


def _two_sources(
    b: Ops, w: Warp, i: SSAValue, near: SSAValue, other: SSAValue, j: SSAValue, j_ok: SSAValue
) -> SSAValue:
    """``near`` of lane i (i64) if 0 ≤ i < S, else ``other`` of lane j where ``j_ok``, else
    the own ``other``."""
    size = b(arith.ExtUIOp(w.size, i64))
    in_near = b(arith.CmpiOp(i, size, "ult"))  # a negative i is a huge unsigned one
    src = b(arith.SelectOp(in_near, b(arith.TruncIOp(i, i32)), w.lane))
    a = shfl(b, "idx", w.mask, near, src)
    j_ok = b(arith.AndIOp(j_ok, b(arith.CmpiOp(j, size, "ult"))))
    src2 = b(arith.SelectOp(j_ok, b(arith.TruncIOp(j, i32)), w.lane))
    c = shfl(b, "idx", w.mask, other, src2)
    return b(arith.SelectOp(in_near, a, c))


def _swap(pair: tuple[SSAValue, GroupOpKind]) -> tuple[GroupOpKind, SSAValue]:
    return pair[1], pair[0]


def lower_op(b: Ops, op: mux.GroupCollectiveOp, w: Warp) -> SSAValue:
    """Ops for sub-group collective ``op`` (appended to ``b``); its value."""
    if isinstance(op, mux.SubGroupAnyOp | mux.SubGroupAllOp):
        which = "any" if isinstance(op, mux.SubGroupAnyOp) else "all"
        return b(llvm.CallIntrinsicOp(f"llvm.nvvm.vote.{which}.sync", [w.mask, op.value], [i1]))
    if isinstance(op, mux.SubGroupReduceOp):
        return all_reduce(b, *_swap(operand(b, op.kind_value, op.value)), w)
    if isinstance(op, mux.SubGroupScanInclusiveOp | mux.SubGroupScanExclusiveOp):
        x, fold = operand(b, op.kind_value, op.value)
        incl = scan_inclusive(b, fold, x, w)
        if isinstance(op, mux.SubGroupScanInclusiveOp):
            return incl
        return shift_up(b, op.kind_value, incl, w)
    if isinstance(op, mux.SubGroupBroadcastOp | mux.SubGroupShuffleOp):
        return _from_lane(b, w, op.operands[0], op.operands[1])
    if isinstance(op, mux.SubGroupShuffleXorOp):
        return _from_lane(b, w, op.value, b(arith.XOrIOp(w.lane, op.xor_val)))
    lane = b(arith.ExtUIOp(w.lane, i64))
    warp = b(arith.ConstantOp(IntegerAttr(WARP, i64)))
    if isinstance(op, mux.SubGroupShuffleUpOp):
        i = b(arith.SubiOp(lane, b(arith.ExtSIOp(op.delta, i64))))
        below = b(arith.CmpiOp(i, b(arith.ConstantOp(IntegerAttr(0, i64))), "slt"))
        return _two_sources(b, w, i, op.curr, op.prev, b(arith.AddiOp(i, warp)), below)
    if isinstance(op, mux.SubGroupShuffleDownOp):
        i = b(arith.AddiOp(lane, b(arith.ExtUIOp(op.delta, i64))))
        above = b(arith.CmpiOp(i, warp, "uge"))
        return _two_sources(b, w, i, op.curr, op.next, b(arith.SubiOp(i, warp)), above)
    raise NotSupportedError(f"{PASS}: '{op.name}' is not supported")


def is_lowered(op: Operation) -> bool:
    """Sub-group collectives and shuffles (not the barrier)."""
    return isinstance(op, mux.GroupCollectiveOp) and op.group_scope == "sub_group"


def _check_size(f: func.FuncOp) -> None:
    size = attrs.get_reqd_sub_group_size(f)
    if size not in (None, WARP):
        raise NotSupportedError(
            f"{PASS}: @{f.sym_name.data} requires sub-groups of {size} and uses sub-group "
            f"collectives; the NVPTX target's sub-groups are warps of {WARP}"
        )


@dataclass(frozen=True)
class LowerSubGroupCollectivesNvptx(ModulePass):
    """Lower sub-group collectives and shuffles to warp shuffles and votes (NVPTX)."""

    name = "lower-sub-group-collectives-nvptx"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in attrs.functions(op).values():
            ops = [o for o in f.walk() if is_lowered(o)]
            if not ops:
                continue
            _check_size(f)
            for o in ops:
                b = Ops()
                value = lower_op(b, o, Warp.build(b))  # type: ignore[arg-type]
                if o.results[0].name_hint:
                    value.name_hint = o.results[0].name_hint
                Rewriter.insert_op(b.ops, InsertPoint.before(o))
                o.results[0].replace_all_uses_with(value)
                Rewriter.erase_op(o)
