"""lower-work-group-collectives: work-group collectives → barriers + work-group local memory.

Rewrites every ``mux.work_group_reduce`` / ``…_scan_inclusive`` / ``…_scan_exclusive`` /
``…_broadcast`` / ``…_any`` / ``…_all`` into plain SIMT code: stores to a work-group local
scratch buffer, two ``mux.work_group_barrier``s and a combining step run by work-item 0, so
that prepare-barriers and work-item-loops handle collectives like any other barrier. Runs
*before* them (and after host code is gone); replace-local-module-scope-variables later turns
the scratch buffer into per-work-group storage.

Every collective has the same three phases::

    write    each work-item stores its value at scratch[row, lid]   (lid = local linear id;
             broadcast: only the chosen work-item, at scratch[row, CAP+1])
    barrier
    combine  scf.if lid == 0: reduce/any/all fold scratch[row, 0..n) in local-linear-id order
             into scratch[row, CAP]; scans rewrite scratch[row, 0..n) with the prefixes in
             place (exclusive: starting from the kind's identity); broadcast copies
             scratch[row, CAP+1] to scratch[row, CAP]             (n = ls0·ls1·ls2, actual)
    barrier
    read     reduce/any/all/broadcast load scratch[row, CAP]; scans load scratch[row, lid]

Writes touch only a work-item's own slot (or the staging slot CAP+1), reads only the result
slot CAP or the own slot, and the combining step runs alone between the barriers, so
consecutive collectives (also around loop back edges) can reuse the same storage without a
race. Nothing computed before a barrier is used after it: the ids, sizes and the scratch
view are re-queried in each phase, so no value of this pass lives across a barrier.

**Sharing barriers.** Consecutive collectives of one block form a *batch* when no collective
(transitively) uses the result of an earlier one and the ops between them are free of
writes (side-effect free or read-only, without regions). A batch shares one pair of barriers
and one combining step: its write phase sits where its last collective was; ops between its
members that use an earlier member's result move after the read phase. Each member of a
batch gets its own row of the scratch buffer of its element type.

**Storage.** One ``memref.global`` in memory space 3 per element type,
``@__mux_wg_scratch_<type> : memref<R x (CAP+2) x T, 3>``: R = the largest number of batch
members of that type; CAP = the largest work-group the collectives can see: the product of
``mux.reqd_work_group_size`` of the entry points that reach them, or
``MAX_WORK_GROUP_SIZE`` (1024) for a kernel without a required size — the launcher refuses
larger work-groups for such kernels (``KernelInfo.max_work_group_size``).

**Semantics.** any/all are or/and reductions of i1. Scans fold in local-linear-id order. A
reduce's fadd/fmul carry ``reassoc`` (OpenCL leaves the order unspecified) so LLVM
vectorizes the fold; the result is the same for every work-item and every run. Reductions
fold ``[0, n)`` from an exact identity (fadd from -0.0, fmul 1.0, integers' identities), so
no element is peeled and the vector loads stay aligned; fmin/fmax start from element 0
(``minnum(+inf, NaN)`` would drop a lone NaN). When every entry point reaching the
collective requires the same work-group size, n is that constant (the launcher runs only
full groups then): the fold is fully unrolled, and after the work-item loops LLVM folds the
scratch round trip away (``reduce_wg``: the group's inputs summed straight from memory).
fmin/fmax are IEEE minNum/maxNum (``arith.minnumf``), as OpenCL's ``fmin``/``fmax``; an
exclusive fmin/fmax scan folds from element 0 too (element i gets the inclusive prefix of
i - 1, a NaN prefix included: minnum(+inf, NaN) would drop it). Logical
kinds on wider integers produce 0 or 1. Identities (exclusive scans' first element):
add/or/xor/umax/logical_or/logical_xor 0, mul/logical_and 1, and/umin all ones, smin/smax
the largest/smallest signed value, fadd 0.0, fmul 1.0, fmin +inf, fmax -inf.

Expects: collectives in uniform control flow (the barriers' rules), in any function.
Guarantees: no work-group collective remains.

Before::

    %r = mux.work_group_reduce fadd %x : f32

After (CAP = 255 + 1 with reqd_work_group_size 256x1x1)::

    %lid = mux.get_local_linear_id : index
    %s = memref.get_global @__mux_wg_scratch_f32 : memref<1x258xf32, 3>
    memref.store %x, %s[%c0, %lid] : memref<1x258xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %lid1 = mux.get_local_linear_id : index
    %first = arith.cmpi eq, %lid1, %c0 : index
    scf.if %first {
      %n = arith.constant 256 : index         // ls0 · ls1 · ls2 without a required size
      %s1 = memref.get_global @__mux_wg_scratch_f32 : memref<1x258xf32, 3>
      %id = arith.constant -0.000000e+00 : f32
      %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %id) -> (f32) {
        %xi = memref.load %s1[%c0, %i] : memref<1x258xf32, 3>
        %a2 = arith.addf %a, %xi fastmath<reassoc> : f32
        scf.yield %a2 : f32
      }
      memref.store %acc, %s1[%c0, %c256] : memref<1x258xf32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %s2 = memref.get_global @__mux_wg_scratch_f32 : memref<1x258xf32, 3>
    %r = memref.load %s2[%c0, %c256] : memref<1x258xf32, 3>
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i1,
    i32,
)
from xdsl.dialects.utils.fast_math import FastMathFlag
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, MemoryEffectKind, only_has_effect

from xmux.abi.errors import NotSupportedError
from xmux.dialects import attrs, mux
from xmux.dialects.mux import GroupOpKind

#: Work-group size the scratch storage is sized for when a kernel has no required size.
MAX_WORK_GROUP_SIZE = 1024
SCRATCH_PREFIX = "__mux_wg_scratch_"
LOCAL_MEMORY_SPACE = 3

INDEX = IndexType()
K = GroupOpKind


# ---------------------------------------------------------------------------------------
# Group operation semantics (shared with lower-sub-group-collectives)
# ---------------------------------------------------------------------------------------


class Ops:
    """Collects ops in order; calling it with an op appends it and returns its result."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []
        self._consts: dict[tuple[int, str], SSAValue] = {}

    def __call__(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def index(self, value: int) -> SSAValue:
        key = (value, "index")
        if key not in self._consts:
            self._consts[key] = self(arith.ConstantOp.from_int_and_width(value, INDEX))
        return self._consts[key]


def _int_width(t: Attribute) -> int:
    return 64 if isinstance(t, IndexType) else t.width.data  # type: ignore[attr-defined]


def identity_value(kind: GroupOpKind, t: Attribute) -> int | float:
    """The identity of ``kind`` for values of type ``t`` (integers in signed form)."""
    if isinstance(t, AnyFloat):
        return {K.FADD: 0.0, K.FMUL: 1.0, K.FMIN: math.inf, K.FMAX: -math.inf}[kind]
    w = _int_width(t)
    return {
        K.ADD: 0,
        K.MUL: 1,
        K.SMIN: (1 << (w - 1)) - 1,
        K.UMIN: -1,
        K.SMAX: -(1 << (w - 1)),
        K.UMAX: 0,
        K.AND: -1,
        K.OR: 0,
        K.XOR: 0,
        K.LOGICAL_AND: 1 if w > 1 else -1,
        K.LOGICAL_OR: 0,
        K.LOGICAL_XOR: 0,
    }[kind]


def identity(b: Ops, kind: GroupOpKind, t: Attribute) -> SSAValue:
    v = identity_value(kind, t)
    if isinstance(t, AnyFloat):
        return b(arith.ConstantOp(FloatAttr(float(v), t)))
    return b(arith.ConstantOp(IntegerAttr(int(v), t)))  # type: ignore[arg-type]


_BINARY: dict[GroupOpKind, type[Operation]] = {
    K.ADD: arith.AddiOp,
    K.FADD: arith.AddfOp,
    K.MUL: arith.MuliOp,
    K.FMUL: arith.MulfOp,
    K.SMIN: arith.MinSIOp,
    K.UMIN: arith.MinUIOp,
    K.FMIN: arith.MinnumfOp,
    K.SMAX: arith.MaxSIOp,
    K.UMAX: arith.MaxUIOp,
    K.FMAX: arith.MaxnumfOp,
    K.AND: arith.AndIOp,
    K.OR: arith.OrIOp,
    K.XOR: arith.XOrIOp,
}
_LOGICAL: dict[GroupOpKind, type[Operation]] = {
    K.LOGICAL_AND: arith.AndIOp,
    K.LOGICAL_OR: arith.OrIOp,
    K.LOGICAL_XOR: arith.XOrIOp,
}


def _truth(b: Ops, v: SSAValue) -> SSAValue:
    zero = b(arith.ConstantOp(IntegerAttr(0, v.type)))  # type: ignore[arg-type]
    return b(arith.CmpiOp(v, zero, "ne"))


def _from_truth(b: Ops, bit: SSAValue, t: Attribute) -> SSAValue:
    one = b(arith.ConstantOp(IntegerAttr(1, t)))  # type: ignore[arg-type]
    zero = b(arith.ConstantOp(IntegerAttr(0, t)))  # type: ignore[arg-type]
    return b(arith.SelectOp(bit, one, zero))


def normalize_logical(b: Ops, v: SSAValue) -> SSAValue:
    """An integer as a logical value: 0 or 1 (i1 as it is)."""
    if v.type == i1:
        return v
    return _from_truth(b, _truth(b, v), v.type)


def combine(
    b: Ops, kind: GroupOpKind, x: SSAValue, y: SSAValue, *, reassoc: bool = False
) -> SSAValue:
    """``x kind y``; logical kinds on wider integers give 0 or 1. ``reassoc`` marks fadd /
    fmul as reassociable (LLVM may then vectorize a fold of them)."""
    if reassoc and kind in (K.FADD, K.FMUL):
        return b(_BINARY[kind](x, y, arith.FastMathFlagsAttr([FastMathFlag.REASSOC])))  # type: ignore
    if kind in _LOGICAL:
        op = _LOGICAL[kind]
        if x.type == i1:
            return b(op(x, y))  # type: ignore[call-arg]
        bit = b(op(_truth(b, x), _truth(b, y)))  # type: ignore[call-arg]
        return _from_truth(b, bit, x.type)
    return b(_BINARY[kind](x, y))  # type: ignore[call-arg]


# ---------------------------------------------------------------------------------------
# Batches of collectives
# ---------------------------------------------------------------------------------------


def is_work_group_collective(op: Operation) -> bool:
    return isinstance(op, mux.GroupCollectiveOp) and op.group_scope == "work_group"


def _member_kind(op: mux.GroupCollectiveOp) -> GroupOpKind | None:
    if isinstance(op, mux.WorkGroupAnyOp):
        return K.OR
    if isinstance(op, mux.WorkGroupAllOp):
        return K.AND
    if isinstance(op, mux.ReductionLikeOp):
        return op.kind_value
    return None


@dataclass
class _Member:
    op: mux.GroupCollectiveOp
    row: int = 0

    @property
    def collective(self) -> str:
        # any/all are reductions
        c = self.op.collective
        return "reduce" if c in ("any", "all") else c

    @property
    def kind(self) -> GroupOpKind | None:
        return _member_kind(self.op)

    @property
    def type(self) -> Attribute:
        return self.op.results[0].type


@dataclass
class _Batch:
    members: list[_Member]
    moved: list[Operation] = field(default_factory=list)
    """Ops between members that use a member's result: they go after the read phase."""


def _write_free(op: Operation) -> bool:
    return (
        not op.regions
        and not op.has_trait(IsTerminator)
        and only_has_effect(op, MemoryEffectKind.READ)
    )


def batches_of_block(
    block: Block, is_member: Callable[[Operation], bool] = is_work_group_collective
) -> list[_Batch]:
    """Batches of consecutive ``is_member`` ops of ``block`` that may share two barriers."""
    ops = list(block.ops)
    pos = {op: i for i, op in enumerate(ops)}
    batches: list[_Batch] = []
    i = 0
    while i < len(ops):
        first = ops[i]
        if not is_member(first):
            i += 1
            continue
        members = [first]
        tainted: set[SSAValue] = set(first.results)
        moved: list[Operation] = []
        for o in ops[i + 1 :]:
            uses = any(v in tainted for v in o.operands)
            if is_member(o):
                if uses:
                    break
                members.append(o)
            elif _write_free(o):
                if uses:
                    moved.append(o)
                else:
                    continue
            else:
                break
            tainted.update(o.results)
        last = pos[members[-1]]
        moved = [o for o in moved if pos[o] < last]
        batches.append(_Batch([_Member(m) for m in members], moved))  # type: ignore[arg-type]
        i = last + 1
    return batches


# ---------------------------------------------------------------------------------------
# Storage
# ---------------------------------------------------------------------------------------


def type_key(t: Attribute) -> str:
    return "index" if isinstance(t, IndexType) else str(t)


@dataclass
class Scratch:
    """Work-group local storage: per element type one ``memref<rows x (capacity+extra)>``.
    Work-group collectives use two extra slots (result and staging)."""

    capacity: int
    rows: dict[str, int] = field(default_factory=dict)
    types: dict[str, Attribute] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    extra: int = 2

    def memref_type(self, key: str) -> MemRefType:
        return MemRefType(
            self.types[key],
            [self.rows[key], self.capacity + self.extra],
            memory_space=IntegerAttr(LOCAL_MEMORY_SPACE, 64),
        )

    def view(self, b: Ops, key: str) -> SSAValue:
        return b(memref.GetGlobalOp(self.names[key], self.memref_type(key)))

    @property
    def result_slot(self) -> int:
        return self.capacity

    @property
    def staging_slot(self) -> int:
        return self.capacity + 1


def _check_type(m: _Member) -> None:
    t = m.type
    if not isinstance(t, IntegerType | IndexType | AnyFloat):
        raise NotSupportedError(
            f"lower-work-group-collectives: '{m.op.name}' of type {t} is not supported "
            "(scalar integers and floats only)"
        )


# ---------------------------------------------------------------------------------------
# Lowering one batch
# ---------------------------------------------------------------------------------------


def local_linear_size(b: Ops) -> SSAValue:
    sizes = [b(mux.GetLocalSizeOp(d, INDEX)) for d in range(3)]
    return b(arith.MuliOp(b(arith.MuliOp(sizes[0], sizes[1])), sizes[2]))


def _views(b: Ops, scratch: Scratch, batch: _Batch) -> dict[str, SSAValue]:
    views: dict[str, SSAValue] = {}
    for m in batch.members:
        key = type_key(m.type)
        if key not in views:
            views[key] = scratch.view(b, key)
    return views


def _write_phase(b: Ops, scratch: Scratch, batch: _Batch) -> None:
    lid = b(mux.GetLocalLinearIdOp(INDEX))
    views = _views(b, scratch, batch)
    for m in batch.members:
        s = views[type_key(m.type)]
        row = b.index(m.row)
        value = m.op.operands[0]
        if isinstance(m.op, mux.WorkGroupBroadcastOp):
            op = m.op
            sizes = [b(mux.GetLocalSizeOp(d, INDEX)) for d in range(2)]
            yz = b(arith.AddiOp(op.local_id_y, b(arith.MuliOp(op.local_id_z, sizes[1]))))
            chosen = b(arith.AddiOp(op.local_id_x, b(arith.MuliOp(yz, sizes[0]))))
            is_chosen = b(arith.CmpiOp(lid, chosen, "eq"))
            store = memref.StoreOp.get(value, s, [row, b.index(scratch.staging_slot)])
            b(scf.IfOp(is_chosen, [], [store, scf.YieldOp()]))
        else:
            b(memref.StoreOp.get(value, s, [row, lid]))


def _fold_loop(
    b: Ops, m: _Member, s: SSAValue, row: SSAValue, n: SSAValue, *, scan: str | None
) -> SSAValue | None:
    """Fold scratch[row, 0..n) with the member's kind; scans store the prefixes in place.
    Returns the total (reduce) or None (scans)."""
    kind = m.kind
    assert kind is not None
    t = m.type
    # Logical kinds start from the identity so that every result is normalised to 0/1; so do
    # reductions whose identity is exact (integers; fadd from -0.0, fmul from 1.0: -0.0 and
    # NaN survive), so that the loop covers [0, n): no peeled element, aligned vector loads.
    # fmin/fmax and inclusive scans start from element 0 (minnum(+inf, NaN) is +inf).
    exact_identity = scan is None and kind not in (K.FMIN, K.FMAX)
    nan_dropping = kind in (K.FMIN, K.FMAX)
    from_identity = (
        (scan == "scan_exclusive" and not nan_dropping) or kind in _LOGICAL or exact_identity
    )
    if scan == "scan_exclusive" and nan_dropping:
        # element 0 becomes the identity, the fold starts from it: excl[i] = incl[i-1]
        # also for a NaN prefix (maxnum(-inf, NaN) would have dropped it to -inf)
        init = b(memref.LoadOp.get(s, [row, b.index(0)]))
        b(memref.StoreOp.get(identity(b, kind, t), s, [row, b.index(0)]))
        lb = b.index(1)
    elif from_identity:
        if scan is None and kind == K.FADD:
            init = b(arith.ConstantOp(FloatAttr(-0.0, t)))  # type: ignore[arg-type]
        else:
            init = identity(b, kind, t)
        lb = b.index(0)
    else:
        init = b(memref.LoadOp.get(s, [row, b.index(0)]))
        lb = b.index(1)  # element 0 is its own inclusive prefix: already in place
    body = Block(arg_types=[INDEX, t])
    i, acc = body.args
    inner = Ops()
    x = inner(memref.LoadOp.get(s, [row, i]))
    # a reduction's float order is unspecified (OpenCL): let LLVM vectorize it; scans keep
    # the local-linear-id order
    new = combine(inner, kind, acc, x, reassoc=scan is None)
    if scan == "scan_exclusive":
        inner(memref.StoreOp.get(acc, s, [row, i]))
    elif scan == "scan_inclusive":
        inner(memref.StoreOp.get(new, s, [row, i]))
    inner(scf.YieldOp(new))
    body.add_ops(inner.ops)
    loop = scf.ForOp(lb, n, b.index(1), [init], body)
    total = b(loop)
    return total if scan is None else None


def _combine_phase(b: Ops, scratch: Scratch, batch: _Batch, size: int | None) -> None:
    lid = b(mux.GetLocalLinearIdOp(INDEX))
    is_first = b(arith.CmpiOp(lid, b.index(0), "eq"))
    inner = Ops()
    n = None
    if any(m.collective != "broadcast" for m in batch.members):
        # a known group size makes the fold a constant-trip-count loop (fully unrolled)
        n = inner.index(size) if size is not None else local_linear_size(inner)
    views = _views(inner, scratch, batch)
    for m in batch.members:
        s = views[type_key(m.type)]
        row = inner.index(m.row)
        result_slot = inner.index(scratch.result_slot)
        if m.collective == "broadcast":
            v = inner(memref.LoadOp.get(s, [row, inner.index(scratch.staging_slot)]))
            inner(memref.StoreOp.get(v, s, [row, result_slot]))
        elif m.collective == "reduce":
            assert n is not None
            total = _fold_loop(inner, m, s, row, n, scan=None)
            assert total is not None
            inner(memref.StoreOp.get(total, s, [row, result_slot]))
        else:
            assert n is not None
            _fold_loop(inner, m, s, row, n, scan=m.collective)
    inner(scf.YieldOp())
    combine_if = scf.IfOp(is_first, [], inner.ops)
    attrs.mark_single_work_item(combine_if)  # a hint for work-item-loops: no loop needed
    b(combine_if)


def _read_phase(b: Ops, scratch: Scratch, batch: _Batch) -> list[SSAValue]:
    views = _views(b, scratch, batch)
    lid = None
    results = []
    for m in batch.members:
        s = views[type_key(m.type)]
        if m.collective in ("scan_inclusive", "scan_exclusive"):
            if lid is None:
                lid = b(mux.GetLocalLinearIdOp(INDEX))
            slot = lid
        else:
            slot = b.index(scratch.result_slot)
        r = b(memref.LoadOp.get(s, [b.index(m.row), slot]))
        hint = m.op.results[0].name_hint
        if hint:
            r.name_hint = hint
        results.append(r)
    return results


def _lower_batch(scratch: Scratch, batch: _Batch, size: int | None = None) -> None:
    """``size``: the work-group size every kernel reaching the batch has (required)."""
    # one builder per phase: not even a constant is shared across a barrier
    write, comb, read = Ops(), Ops(), Ops()
    _write_phase(write, scratch, batch)
    comb(mux.WorkGroupBarrierOp())
    _combine_phase(comb, scratch, batch, size)
    read(mux.WorkGroupBarrierOp())
    results = _read_phase(read, scratch, batch)
    last = batch.members[-1].op
    Rewriter.insert_op([*write.ops, *comb.ops, *read.ops], InsertPoint.before(last))
    point = InsertPoint.before(last)
    for o in batch.moved:
        o.detach()
        Rewriter.insert_op(o, point)
    for m, r in zip(batch.members, results, strict=True):
        m.op.results[0].replace_all_uses_with(r)
    for m in batch.members:
        Rewriter.erase_op(m.op)


# ---------------------------------------------------------------------------------------
# Capacity: the largest work-group that reaches each collective
# ---------------------------------------------------------------------------------------


def _kernel_capacity(kernel: func.FuncOp) -> int:
    reqd = attrs.get_reqd_work_group_size(kernel)
    return math.prod(reqd) if reqd is not None else MAX_WORK_GROUP_SIZE


def _callees(f: func.FuncOp) -> Iterable[str]:
    for op in f.walk():
        if isinstance(op, func.CallOp):
            yield op.callee.root_reference.data


def reachable_functions(kernel: func.FuncOp, funcs: dict[str, func.FuncOp]) -> set[str]:
    """Names of the functions ``kernel`` calls, directly or not (and its own)."""
    seen: set[str] = set()
    stack = [kernel.sym_name.data]
    while stack:
        name = stack.pop()
        if name in seen or name not in funcs:
            continue
        seen.add(name)
        stack.extend(_callees(funcs[name]))
    return seen


def uses_work_group_collectives(module: ModuleOp, kernel: func.FuncOp) -> bool:
    """True when ``kernel`` or a function it calls has a work-group collective."""
    funcs = attrs.functions(module)
    return any(
        any(is_work_group_collective(o) for o in funcs[n].walk())
        for n in reachable_functions(kernel, funcs)
    )


def record_work_group_limit(module: ModuleOp, users: Sequence[func.FuncOp]) -> None:
    """Kernels without a required size that reach one of ``users`` get storage sized for
    ``MAX_WORK_GROUP_SIZE``: that is their largest work-group (``mux.max_work_group_size``,
    which the launcher checks)."""
    funcs = attrs.functions(module)
    names = {f.sym_name.data for f in users}
    for k in attrs.entry_points(module):
        if attrs.get_reqd_work_group_size(k) is None and names & reachable_functions(k, funcs):
            attrs.set_max_work_group_size(k, MAX_WORK_GROUP_SIZE)


def capacity(module: ModuleOp, users: Sequence[func.FuncOp]) -> int:
    funcs = attrs.functions(module)
    kernels = attrs.entry_points(module)
    reach = {k.sym_name.data: reachable_functions(k, funcs) for k in kernels}
    cap = 1
    for f in users:
        name = f.sym_name.data
        sizes = [_kernel_capacity(k) for k in kernels if name in reach[k.sym_name.data]]
        cap = max(cap, max(sizes) if sizes else MAX_WORK_GROUP_SIZE)
    return cap


def _exact_sizes(module: ModuleOp, users: Sequence[func.FuncOp]) -> dict[str, int | None]:
    """Per function with collectives: the work-group size (product) when every entry point
    reaching it requires the same one (the launcher then runs full groups of exactly that
    size), else None."""
    funcs = attrs.functions(module)
    kernels = attrs.entry_points(module)
    reach = {k.sym_name.data: reachable_functions(k, funcs) for k in kernels}
    out: dict[str, int | None] = {}
    for f in users:
        name = f.sym_name.data
        reqd = [
            attrs.get_reqd_work_group_size(k) for k in kernels if name in reach[k.sym_name.data]
        ]
        sizes = {math.prod(r) if r is not None else None for r in reqd}
        out[name] = sizes.pop() if len(sizes) == 1 else None
    return out


def _unique_name(module: ModuleOp, base: str) -> str:
    taken = {
        o.properties["sym_name"].data  # type: ignore[union-attr]
        for o in module.ops
        if isinstance(o.properties.get("sym_name"), StringAttr)
    }
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


@dataclass(frozen=True)
class LowerWorkGroupCollectives(ModulePass):
    """Lower work-group collectives to local memory, barriers and a combining step."""

    name = "lower-work-group-collectives"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        users = [
            f
            for f in op.walk()
            if isinstance(f, func.FuncOp) and any(is_work_group_collective(o) for o in f.walk())
        ]
        if not users:
            return
        scratch = Scratch(capacity(op, users))
        record_work_group_limit(op, users)
        exact = _exact_sizes(op, users)
        batches: list[_Batch] = []
        sizes: list[int | None] = []
        for f in users:
            blocks = [blk for o in f.walk() for r in o.regions for blk in r.blocks]
            for blk in blocks:
                found = batches_of_block(blk)
                batches.extend(found)
                sizes.extend([exact[f.sym_name.data]] * len(found))
        for batch in batches:
            used: dict[str, int] = {}
            for m in batch.members:
                _check_type(m)
                key = type_key(m.type)
                m.row = used.get(key, 0)
                used[key] = m.row + 1
                scratch.types[key] = m.type
                scratch.rows[key] = max(scratch.rows.get(key, 0), used[key])
        declare_scratch(op, scratch, SCRATCH_PREFIX)
        for batch, size in zip(batches, sizes, strict=True):
            _lower_batch(scratch, batch, size)
        for f in users:
            renumber_barriers(f)


def declare_scratch(module: ModuleOp, scratch: Scratch, prefix: str) -> None:
    """One ``memref.global`` per element type of ``scratch`` (named ``prefix<type>``, made
    unique), at the top of ``module``; fills ``scratch.names``."""
    first = module.body.block.first_op
    point = InsertPoint.before(first) if first else InsertPoint.at_end(module.body.block)
    for key in sorted(scratch.types):
        scratch.names[key] = _unique_name(module, prefix + key)
        g = memref.GlobalOp.get(
            StringAttr(scratch.names[key]),
            scratch.memref_type(key),
            UnitAttr(),
            alignment=64,
        )
        Rewriter.insert_op(g, point)


def renumber_barriers(f: func.FuncOp) -> None:
    """Ids 1, 2, ... in walk order when prepare-barriers already numbered ``f``'s barriers
    (what it would give if it ran now); untouched ids (all 0) stay for it to assign."""
    barriers = [
        o
        for o in f.walk()
        if isinstance(o, mux.WorkGroupBarrierOp | mux.SubGroupBarrierOp)
        or is_work_group_collective(o)
    ]
    if all(o.barrier_id == 0 for o in barriers):  # type: ignore[attr-defined]
        return
    for i, o in enumerate(barriers, start=1):
        o.properties["id"] = IntegerAttr(i, i32)
