"""lower-sub-group-collectives: sub-group collectives, shuffles and barriers → plain SIMT code.

**Sub-group size.** The source of truth is each kernel's ``mux.reqd_sub_group_size``; the
option ``sub-group-size=N`` (default 1) applies to kernels without it. A kernel whose
attribute differs from a non-default option is an error naming it. Functions that are not
kernels take the size of the entry points that reach them (an error when those disagree),
else the option. Afterwards every kernel that uses sub-groups (ops or queries, directly or
through calls) carries its size in ``mux.reqd_sub_group_size``, as does every other function
using them at a size other than 1 (absent means 1), so define-mux-builtins reads it there.

A sub-group is N consecutive work-items in local linear order (x fastest); the last one of a
work-group whose size L is not a multiple of N is smaller ("degenerate"): sub-group ``sg``
has ``min(N, L − sg·N)`` invocations, sub-group local id = local linear id mod N.

**Size 1.** Every sub-group operation involves only the calling work-item:

==================================  =======================================================
reduce, scan_inclusive              the value (logical kinds on wider integers: 0 or 1)
scan_exclusive                      the kind's identity (see lower-work-group-collectives)
broadcast, any, all                 the value
shuffle(val, lid)                   ``val`` (lid 0; any other lid is out of range)
shuffle_xor(val, mask)              ``val`` (mask 0; any other mask is out of range)
shuffle_up(prev, curr, delta)       index = 0 − delta: ``curr`` for delta 0 (index 0),
                                    ``prev`` for delta 1 (index −1 ≥ −max size: invocation
                                    −1 + 1 = 0 of the previous sub-group's values)
shuffle_down(curr, next, delta)     index = 0 + delta: ``curr`` for delta 0, ``next`` for
                                    delta 1 (index − max size = 0)
``mux.sub_group_barrier``           ``mux.mem_barrier`` with its scope and semantics (the
                                    control part is trivial for one invocation)
==================================  =======================================================

**Size N > 1.** Consecutive independent sub-group collectives of a block form a batch (the
same rule as lower-work-group-collectives, whose helpers this pass shares) lowered in three
phases:

    write    each work-item stores its operand(s) at scratch[row, lid]  (lid = local linear id)
    mux.work_group_barrier
    combine  each work-item reads the slots of its own sub-group, lanes base .. base+S
             (base = lid − lid mod N, S = min(N, L − base), lane = lid − base):
             reduce / any / all fold all S lanes in lane order (no reassociation: every
             lane gets the same bits), inclusive scans lanes 0..lane, exclusive scans the
             identity then lanes 0..lane−1, broadcast / shuffles one load at the source lane
    mux.work_group_barrier (before the slots are written again)

A work-group barrier is a valid, stronger synchronisation for a sub-group: the
work-item-loops machinery (structured fission or region dispatch) handles it, and a
sub-group op under control flow that provably differs within a sub-group gets its
divergent-barrier error. ``mux.sub_group_barrier`` becomes a ``mux.work_group_barrier``
with the same id, scope and semantics. All these barriers carry ``mux.sub_group_scope``:
their control flow need only be uniform within each sub-group (e.g. a loop bound on local id
y when N divides the required size x, or a trip count read per sub-group). work-item-loops
then accepts local-id-y/z control where each sub-group lies in one row / plane, and never
runs such control once per group (the "barrier rule" is for work-group barriers only), so it
takes region dispatch: every work-item waiting at the lowest pending barrier runs next, so
a sub-group always moves as one, barrier by barrier, and its slots are its own. (Rather than
the brief's "sub-groups one after another", which region dispatch subsumes.)

Storage: ``@__mux_sg_scratch_<type> : memref<R x CAP x T, 3>``, R = the most rows one batch
needs of that type (shuffle_up / shuffle_down store two operands), CAP as for work-group
collectives (product of the reaching kernels' ``reqd_work_group_size``, else 1024, which the
launcher then enforces).

Source lanes and out-of-range rules (the reference's; its undefined cases get a defined
result that matches size 1, so a lane that is out of range reads its *own* value):

==================================  =======================================================
broadcast(val, k), shuffle(val, k)  lane k (unsigned) if k < S, else the own ``val``
shuffle_xor(val, m)                 lane ``lane xor m`` if < S, else the own ``val``
shuffle_up(prev, curr, δ)           i = lane − δ (signed): ``curr`` of lane i if 0 ≤ i < S;
                                    ``prev`` of lane i + N if −N ≤ i < 0 and i + N < S;
                                    else the own ``prev``
shuffle_down(curr, next, δ)         i = lane + δ (unsigned): ``curr`` of lane i if i < S;
                                    ``next`` of lane i − N if N ≤ i and i − N < S;
                                    else the own ``next``
==================================  =======================================================

Lanes in [S, N) of a degenerate sub-group, which the reference calls in range (it bounds by
the maximum size), do not exist and count as out of range.

Expects: prepare-barriers has run (sub-group ops are in the kernels). Guarantees: no
``mux.sub_group_*`` op remains. Vec-group ops are left alone.

Before (size 1)::

    %r = mux.sub_group_scan_exclusive add %x : i32
    %u = mux.sub_group_shuffle_up %p, %c, %d : f32
    mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>

After::

    %r = arith.constant 0 : i32
    %0 = arith.constant 0 : i32
    %1 = arith.cmpi eq, %d, %0 : i32
    %u = arith.select %1, %c, %p : f32
    mux.mem_barrier sub_group, <acq_rel, sub_group_memory>

Before (``sub-group-size=8``, no required work-group size)::

    %r = mux.sub_group_reduce add %x : i32

After::

    %lid = mux.get_local_linear_id : index
    %s = memref.get_global @__mux_sg_scratch_i32 : memref<1x1024xi32, 3>
    memref.store %x, %s[%c0, %lid] : memref<1x1024xi32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %lid1 = mux.get_local_linear_id : index
    %L = ... ls0 · ls1 · ls2 ...
    %sg = arith.divui %lid1, %c8 : index
    %base = arith.muli %sg, %c8 : index
    %lane = arith.subi %lid1, %base : index
    %left = arith.subi %L, %base : index
    %size = arith.minui %left, %c8 : index
    %s1 = memref.get_global @__mux_sg_scratch_i32 : memref<1x1024xi32, 3>
    %hi = arith.addi %base, %size : index
    %x0 = memref.load %s1[%c0, %base] : memref<1x1024xi32, 3>
    %lo = arith.addi %base, %c1 : index
    %r = scf.for %i = %lo to %hi step %c1 iter_args(%a = %x0) -> (i32) {
      %xi = memref.load %s1[%c0, %i] : memref<1x1024xi32, 3>
      %a2 = arith.addi %a, %xi : i32
      scf.yield %a2 : i32
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, i32, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs, mux
from xmux.dialects.mux import GroupOpKind
from xmux.transforms.lower_work_group_collectives import (
    MAX_WORK_GROUP_SIZE,
    Ops,
    Scratch,
    batches_of_block,
    capacity,
    combine,
    declare_scratch,
    identity,
    local_linear_size,
    normalize_logical,
    reachable_functions,
    renumber_barriers,
    type_key,
)

PASS = "lower-sub-group-collectives"
SCRATCH_PREFIX = "__mux_sg_scratch_"
INDEX = IndexType()
K = GroupOpKind

#: Queries whose value depends on the sub-group size.
SUB_GROUP_QUERIES: tuple[type[Operation], ...] = (
    mux.GetSubGroupIdOp,
    mux.GetSubGroupLocalIdOp,
    mux.GetSubGroupSizeOp,
    mux.GetMaxSubGroupSizeOp,
    mux.GetNumSubGroupsOp,
)


def is_sub_group_op(op: Operation) -> bool:
    return isinstance(op, mux.SubGroupBarrierOp) or is_sub_group_collective(op)


def is_sub_group_collective(op: Operation) -> bool:
    return isinstance(op, mux.GroupCollectiveOp) and op.group_scope == "sub_group"


def uses_sub_groups(f: func.FuncOp) -> bool:
    """``f`` has a sub-group op or a sub-group query."""
    return any(is_sub_group_op(o) or isinstance(o, SUB_GROUP_QUERIES) for o in f.walk())


# ---------------------------------------------------------------------------------------
# Sub-group sizes
# ---------------------------------------------------------------------------------------


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return attrs.functions(module)


def function_sub_group_sizes(
    module: ModuleOp, names: list[str], default: int = 1, *, where: str = PASS
) -> dict[str, int]:
    """Sub-group size of each function of ``names``: its ``mux.reqd_sub_group_size``, else
    that of the entry points reaching it (``default`` for one without the attribute), else
    ``default``. Entry points that reach a function with different sizes are an error."""
    funcs = _functions(module)
    kernels = attrs.entry_points(module)
    reach = {k.sym_name.data: reachable_functions(k, funcs) for k in kernels}
    out: dict[str, int] = {}
    for name in names:
        own = attrs.get_reqd_sub_group_size(funcs[name])
        if own is not None:
            out[name] = own
            continue
        by_kernel = {
            k.sym_name.data: attrs.get_reqd_sub_group_size(k) or default
            for k in kernels
            if name in reach[k.sym_name.data]
        }
        sizes = set(by_kernel.values())
        if len(sizes) > 1:
            listed = ", ".join(f"@{k}: {s}" for k, s in sorted(by_kernel.items()))
            raise XmuxError(
                f"{where}: @{name} uses sub-groups and is called from kernels with different "
                f"sub-group sizes ({listed})"
            )
        out[name] = sizes.pop() if sizes else default
    return out


def _check_sizes(funcs: list[func.FuncOp], option: int) -> None:
    for f in funcs:
        size = attrs.get_reqd_sub_group_size(f)
        if size is None:
            continue
        if size < 1:
            raise XmuxError(
                f"{PASS}: kernel @{f.sym_name.data} has mux.reqd_sub_group_size {size}; "
                "it must be at least 1"
            )
        if option != 1 and size != option:
            raise XmuxError(
                f"{PASS}: kernel @{f.sym_name.data} requires sub-group size {size} but the "
                f"pipeline asks for sub-group-size={option}"
            )


# ---------------------------------------------------------------------------------------
# Size 1
# ---------------------------------------------------------------------------------------


def _delta_is_zero(b: Ops, delta: SSAValue) -> SSAValue:
    zero = b(arith.ConstantOp(IntegerAttr(0, i32)))
    return b(arith.CmpiOp(delta, zero, "eq"))


def _lower_one(op: Operation, b: Ops) -> SSAValue | None:
    """Ops for one sub-group op of size 1 (appended to ``b``); its value, None to erase."""
    if isinstance(op, mux.SubGroupBarrierOp):
        b(mux.MemBarrierOp(op.scope, op.semantics))
        return None
    if isinstance(op, mux.SubGroupScanExclusiveOp):
        return identity(b, op.kind_value, op.result.type)
    if isinstance(op, mux.SubGroupReduceOp | mux.SubGroupScanInclusiveOp):
        if op.kind_value in mux.LOGICAL_KINDS:
            return normalize_logical(b, op.value)
        return op.value
    if isinstance(
        op, mux.SubGroupBroadcastOp | mux.SubGroupAnyOp | mux.SubGroupAllOp
        | mux.SubGroupShuffleOp | mux.SubGroupShuffleXorOp
    ):
        return op.operands[0]
    if isinstance(op, mux.SubGroupShuffleUpOp):
        return b(arith.SelectOp(_delta_is_zero(b, op.delta), op.curr, op.prev))
    if isinstance(op, mux.SubGroupShuffleDownOp):
        return b(arith.SelectOp(_delta_is_zero(b, op.delta), op.curr, op.next))
    raise AssertionError(op.name)


def _lower_size_one(f: func.FuncOp) -> None:
    for o in [o for o in f.walk() if is_sub_group_op(o)]:
        b = Ops()
        value = _lower_one(o, b)
        Rewriter.insert_op(b.ops, InsertPoint.before(o))
        if value is not None:
            o.results[0].replace_all_uses_with(value)
        Rewriter.erase_op(o)


# ---------------------------------------------------------------------------------------
# Size N > 1
# ---------------------------------------------------------------------------------------


def _stored(op: Operation) -> list[SSAValue]:
    """The operands each work-item writes to the scratch slots (one row each)."""
    if isinstance(op, mux.SubGroupShuffleUpOp):
        return [op.prev, op.curr]
    if isinstance(op, mux.SubGroupShuffleDownOp):
        return [op.curr, op.next]
    return [op.operands[0]]


@dataclass
class _Lanes:
    """The calling work-item's place in its sub-group (all ``index``)."""

    n: int
    lid: SSAValue  # local linear id
    base: SSAValue  # local linear id of lane 0
    lane: SSAValue  # sub-group local id
    size: SSAValue  # invocations of this sub-group

    @staticmethod
    def build(b: Ops, n: int) -> _Lanes:
        lid = b(mux.GetLocalLinearIdOp(INDEX))
        total = local_linear_size(b)
        nc = b.index(n)
        base = b(arith.MuliOp(b(arith.DivUIOp(lid, nc)), nc))
        lane = b(arith.SubiOp(lid, base))
        size = b(arith.MinUIOp(b(arith.SubiOp(total, base)), nc))
        return _Lanes(n, lid, base, lane, size)


def _fold(
    b: Ops, kind: GroupOpKind, s: SSAValue, row: SSAValue, lo: SSAValue, hi: SSAValue,
    init: SSAValue,
) -> SSAValue:
    """``init kind s[row, lo] kind ... kind s[row, hi-1]``, in slot order."""
    body = Block(arg_types=[INDEX, init.type])
    i, acc = body.args
    inner = Ops()
    x = inner(memref.LoadOp.get(s, [row, i]))
    inner(scf.YieldOp(combine(inner, kind, acc, x)))
    body.add_ops(inner.ops)
    return b(scf.ForOp(lo, hi, b.index(1), [init], body))


def _fold_lanes(
    b: Ops, kind: GroupOpKind, s: SSAValue, row: SSAValue, ln: _Lanes, end: SSAValue,
    *, exclusive: bool = False,
) -> SSAValue:
    """Fold lanes base .. end−1. Logical kinds and exclusive scans start from the identity
    (results normalised to 0/1); the others, and exclusive fmin/fmax scans, from lane 0
    (exact: −0.0, NaN survive)."""
    t = s.type.element_type  # type: ignore[attr-defined]
    nan_dropping = kind in (GroupOpKind.FMIN, GroupOpKind.FMAX)
    if (exclusive and not nan_dropping) or kind in mux.LOGICAL_KINDS:
        return _fold(b, kind, s, row, ln.base, end, identity(b, kind, t))
    first = b(memref.LoadOp.get(s, [row, ln.base]))
    folded = _fold(b, kind, s, row, b(arith.AddiOp(ln.base, b.index(1))), end, first)
    if not exclusive:
        return folded
    # an exclusive fmin/fmax scan is the inclusive one shifted (a NaN prefix survives:
    # minnum(+inf, NaN) would drop it); lane 0 gets the identity
    empty = b(arith.CmpiOp(end, ln.base, "eq"))
    return b(arith.SelectOp(empty, identity(b, kind, t), folded))


def _to_index(b: Ops, v: SSAValue, *, signed: bool) -> SSAValue:
    wide = b(arith.ExtSIOp(v, i64) if signed else arith.ExtUIOp(v, i64))
    return b(arith.IndexCastOp(wide, INDEX))


def _lane_or_own(
    b: Ops, s: SSAValue, row: SSAValue, ln: _Lanes, k: SSAValue, ok: SSAValue
) -> SSAValue:
    """s[row, base + k] where ``ok``, else the own slot s[row, lid]."""
    slot = b(arith.SelectOp(ok, b(arith.AddiOp(ln.base, k)), ln.lid))
    return b(memref.LoadOp.get(s, [row, slot]))


def _in_lanes(b: Ops, k: SSAValue, ln: _Lanes) -> SSAValue:
    return b(arith.CmpiOp(k, ln.size, "ult"))


def _combine_one(b: Ops, op: Operation, s: SSAValue, rows: list[int], ln: _Lanes) -> SSAValue:
    """The result of sub-group collective ``op`` for the calling work-item."""
    row = b.index(rows[0])
    if isinstance(op, mux.SubGroupAnyOp | mux.SubGroupAllOp | mux.SubGroupReduceOp):
        end = b(arith.AddiOp(ln.base, ln.size))
        if isinstance(op, mux.SubGroupReduceOp):
            return _fold_lanes(b, op.kind_value, s, row, ln, end)
        kind = K.OR if isinstance(op, mux.SubGroupAnyOp) else K.AND
        return _fold_lanes(b, kind, s, row, ln, end)
    if isinstance(op, mux.SubGroupScanInclusiveOp):
        upto = b(arith.AddiOp(ln.lid, b.index(1)))
        return _fold_lanes(b, op.kind_value, s, row, ln, upto)
    if isinstance(op, mux.SubGroupScanExclusiveOp):
        return _fold_lanes(b, op.kind_value, s, row, ln, ln.lid, exclusive=True)
    if isinstance(op, mux.SubGroupBroadcastOp | mux.SubGroupShuffleOp):
        k = _to_index(b, op.operands[1], signed=False)
        return _lane_or_own(b, s, row, ln, k, _in_lanes(b, k, ln))
    if isinstance(op, mux.SubGroupShuffleXorOp):
        k = b(arith.XOrIOp(ln.lane, _to_index(b, op.xor_val, signed=False)))
        return _lane_or_own(b, s, row, ln, k, _in_lanes(b, k, ln))
    other = b.index(rows[1])
    n = b.index(ln.n)
    if isinstance(op, mux.SubGroupShuffleUpOp):  # rows: prev, curr
        i = b(arith.SubiOp(ln.lane, _to_index(b, op.delta, signed=True)))
        in_curr = _in_lanes(b, i, ln)
        curr = _lane_or_own(b, s, other, ln, i, in_curr)
        ip = b(arith.AddiOp(i, n))
        below = b(arith.CmpiOp(i, b.index(0), "slt"))
        in_prev = b(arith.AndIOp(below, _in_lanes(b, ip, ln)))
        prev = _lane_or_own(b, s, row, ln, ip, in_prev)
        return b(arith.SelectOp(in_curr, curr, prev))
    if isinstance(op, mux.SubGroupShuffleDownOp):  # rows: curr, next
        i = b(arith.AddiOp(ln.lane, _to_index(b, op.delta, signed=False)))
        in_curr = _in_lanes(b, i, ln)
        curr = _lane_or_own(b, s, row, ln, i, in_curr)
        inext = b(arith.SubiOp(i, n))
        above = b(arith.CmpiOp(i, n, "uge"))
        in_next = b(arith.AndIOp(above, _in_lanes(b, inext, ln)))
        nxt = _lane_or_own(b, s, other, ln, inext, in_next)
        return b(arith.SelectOp(in_curr, curr, nxt))
    raise AssertionError(op.name)


def _views(b: Ops, scratch: Scratch, ops: list[Operation]) -> dict[str, SSAValue]:
    views: dict[str, SSAValue] = {}
    for o in ops:
        key = type_key(o.results[0].type)
        if key not in views:
            views[key] = scratch.view(b, key)
    return views


def _barrier(
    scope: mux.MemScope | str | int = mux.MemScope.WORK_GROUP,
    semantics: int | str | tuple[str, ...] = ("acq_rel", "work_group_memory"),
    id: int = 0,
) -> mux.WorkGroupBarrierOp:
    """A work-group barrier marked as standing in for a sub-group one: its control flow
    need only be uniform within each sub-group (work-item-loops, barrier-regions)."""
    b = mux.WorkGroupBarrierOp(scope, semantics, id)
    attrs.mark_sub_group_scope(b)
    return b


def _lower_batch(
    scratch: Scratch, members: list[Operation], moved: list[Operation], n: int,
    rows: dict[Operation, list[int]],
) -> None:
    # one builder per phase: nothing computed before a barrier is used after it
    write, comb = Ops(), Ops()
    lid = write(mux.GetLocalLinearIdOp(INDEX))
    views = _views(write, scratch, members)
    for o in members:
        s = views[type_key(o.results[0].type)]
        for value, row in zip(_stored(o), rows[o], strict=True):
            write(memref.StoreOp.get(value, s, [write.index(row), lid]))
    comb(_barrier())
    lanes = _Lanes.build(comb, n)
    views = _views(comb, scratch, members)
    results = [
        _combine_one(comb, o, views[type_key(o.results[0].type)], rows[o], lanes)
        for o in members
    ]
    comb(_barrier())
    last = members[-1]
    Rewriter.insert_op([*write.ops, *comb.ops], InsertPoint.before(last))
    for o in moved:
        o.detach()
        Rewriter.insert_op(o, InsertPoint.before(last))
    for o, r in zip(members, results, strict=True):
        if o.results[0].name_hint:
            r.name_hint = o.results[0].name_hint
        o.results[0].replace_all_uses_with(r)
    for o in members:
        Rewriter.erase_op(o)


def _lower_wide(module: ModuleOp, wide: list[func.FuncOp], sizes: dict[str, int]) -> None:
    scratch = Scratch(capacity(module, wide), extra=0)
    plans = []
    for f in wide:
        for o in list(f.walk()):
            if isinstance(o, mux.SubGroupBarrierOp):
                Rewriter.replace_op(
                    o, _barrier(o.scope.data, o.semantics_value(), o.barrier_id)
                )
        blocks = [blk for o in f.walk() for r in o.regions for blk in r.blocks]
        for blk in blocks:
            for batch in batches_of_block(blk, is_sub_group_collective):
                members = [m.op for m in batch.members]
                used: dict[str, int] = {}
                rows: dict[Operation, list[int]] = {}
                for o in members:
                    key = type_key(o.results[0].type)
                    k = len(_stored(o))
                    rows[o] = list(range(used.get(key, 0), used.get(key, 0) + k))
                    used[key] = used.get(key, 0) + k
                    scratch.types[key] = o.results[0].type
                    scratch.rows[key] = max(scratch.rows.get(key, 0), used[key])
                plans.append((members, batch.moved, sizes[f.sym_name.data], rows))
    if scratch.types:
        declare_scratch(module, scratch, SCRATCH_PREFIX)
    for members, moved, n, rows in plans:
        _lower_batch(scratch, members, moved, n, rows)
    for f in wide:
        renumber_barriers(f)


@dataclass(frozen=True)
class LowerSubGroupCollectives(ModulePass):
    """Lower sub-group collectives, shuffles and barriers for sub-groups of N work-items.

    N: the kernel's ``mux.reqd_sub_group_size``, else ``sub_group_size``."""

    name = "lower-sub-group-collectives"

    sub_group_size: int = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.sub_group_size < 1:
            raise XmuxError(f"{PASS}: sub-group-size must be at least 1, got {self.sub_group_size}")
        funcs = _functions(op)
        users = [name for name, f in funcs.items() if uses_sub_groups(f)]
        if not users:
            return
        kernels = [
            k for k in attrs.entry_points(op)
            if reachable_functions(k, funcs).intersection(users)
        ]
        _check_sizes([*kernels, *(funcs[u] for u in users)], self.sub_group_size)
        sizes = function_sub_group_sizes(op, users, self.sub_group_size)
        # collectives of sub-groups wider than 1 go through scratch sized for the largest
        # work-group unless the size is required: that is the kernel's limit
        scratch_users = {u for u in users if any(map(is_sub_group_collective, funcs[u].walk()))}
        for k in kernels:
            size = attrs.get_reqd_sub_group_size(k) or self.sub_group_size
            attrs.set_reqd_sub_group_size(k, size)
            if size > 1 and attrs.get_reqd_work_group_size(k) is None and (
                    scratch_users & reachable_functions(k, funcs)):
                attrs.set_max_work_group_size(k, MAX_WORK_GROUP_SIZE)
        for name in users:
            if sizes[name] != 1 or attrs.is_kernel(funcs[name]):
                attrs.set_reqd_sub_group_size(funcs[name], sizes[name])
        wide = [funcs[u] for u in users if sizes[u] > 1]
        for u in users:
            if sizes[u] == 1:
                _lower_size_one(funcs[u])
        if wide:
            _lower_wide(op, wide, sizes)


def uses_sub_group_scratch(module: ModuleOp, kernel: func.FuncOp, option: int = 1) -> bool:
    """True when ``kernel`` (with ``option`` as the pass's sub-group size) reaches a sub-group
    collective lowered through work-group local storage (size > 1)."""
    size = attrs.get_reqd_sub_group_size(kernel) or option
    if size <= 1:
        return False
    funcs = _functions(module)
    return any(
        any(is_sub_group_collective(o) for o in funcs[n].walk())
        for n in reachable_functions(kernel, funcs)
    )
