"""pack-group-panels: copy a work-group's strided panel of an array into contiguous scratch.

After ``work-item-unroll-and-jam`` the naive matmul's work-group is a loop over blocks of rows
``y`` holding the uniform ``k`` loop, and inside it the work-item loop over the columns ``x``,
which loads ``B[k, col]``: one row segment of B per ``k``, ``n`` elements apart. Every block
of rows reads the same ``ls0 x n`` panel of B again, and each ``k`` step touches a new cache
line on a new page: with a power-of-two ``n`` the panel's lines share a few cache sets, every
step needs its own TLB entry, and the hardware prefetchers stop at page boundaries. BLAS
libraries copy ("pack") such panels into contiguous memory first; this pass does the same
for the work-group: before the loop over rows, the panel is copied once into a stack buffer
``P[k - lb][x]``, and the load in the nest reads ``P`` instead (contiguous along ``x`` and
``k``, reused by every block of rows).

Legality is the argument of ``hoist-uniform-loads``: without a barrier between them, a store
of one work-item and an access of another to the same location are a data race. The panel
load's address does not depend on the outer work-item dimension, so the work-items of the
group read the same ``P`` entries; copying them before the nest gives each work-item the
value it would read, provided nothing the work-item does before its last panel load may
write memory: in the ``k`` loop's body and before it in the outer loop's body only loads,
pure ops and stores to the kernel's own allocations (the per-work-item accumulators) are
allowed; no call, atomic, fence, barrier or store to an argument. The copy reads exactly the
addresses the nest reads (the load sits unconditionally in the work-item loop, which runs
over the whole local size, in the ``k`` loop, directly in the outer loop, which runs at least
twice): no new fault, and nothing a race-free kernel could observe.

Which loads: ``memref.load %M[i_0, ..., i_last]`` of a kernel argument whose last index
depends on the work-item loop's id (``mux.get_global_id``/``get_local_id`` of its dimension,
its induction variable) and not on ``k``, and some other index on ``k`` and not on the id,
through pure ops only (a row-major panel); no index may depend on the outer dimension. Only
with known sizes (as in the local-size variants ``xmux.compile`` builds per launch size): the
work-item loop's trip count ``ls0`` and the outer loop's (at least 2: the panel must be
reused) are constants, and the ``k`` loop steps by 1. The buffer is a static
``memref.alloca`` of at most ``pack_bytes`` (all panels of a nest together); when ``k``'s trip
count is not a constant, the nest is versioned: ``scf.if`` the panel fits, the packed copy,
else the original nest.

Options: ``pack_bytes`` (default ``PACK_BYTES``, 0 turns the pass off).

Not in the default pipeline (add it after ``work-item-unroll-and-jam``): whether the copy per
work-group pays depends on the host. Naive matmul 1024² on one Zen 4 core, 16x16 groups
(R = 8: each panel read by 2 row blocks): 75 GFLOP/s without it, 44 with it (2048²: 46
against 42: the copy's strided reads are latency-bound, where the unpacked nest overlaps the
same misses with its arithmetic); on one core of an Emerald Rapids Xeon: 20 without, 43 with
(2048²: 27 against 43; 16 cores at 2048²: 299 against 592 GFLOP/s; bench/RESULTS.md). So a
local-size variant's tuner (``runtime/tuning.py``) times a *packed twin* of the variant
beside its other builds and keeps the faster on the host at hand: ``twin_pipeline`` is the
variant's pipeline with this pass after ``work-item-unroll-and-jam``, for kernels where it
packs something (``pack_panels`` counts the nests; the twin's lowering stops where it is 0). What
a BLAS does instead is pack a panel once for all the groups that read it (every group of a
column), which needs a buffer that outlives a group (the entry hook's, per slice) and a band
schedule that keeps a thread on one column; that is the next step, not this pass.

Expects: the output of ``work-item-loops`` (and ``work-item-loop-interchange``,
``work-item-unroll-and-jam``). Guarantees: the same results for race-free kernels (the same
values are loaded; no arithmetic changes); work-item loops stay marked.

Before (R = 2 rows jammed, ls0 = 16)::

    scf.for %y = %c0 to %c16 step %c2 {
      mux.set_local_id 1, %y : index
      ...
      scf.for %k = %c0 to %n step %c1 {
        scf.for %x = %c0 to %c16 step %c1 {
          mux.set_local_id 0, %x : index
          %col = mux.get_global_id 0 : index
          %b = memref.load %B[%k, %col] : memref<?x?xf32>
          ...
        } {mux.work_item_loop}
      }
    }

After::

    %P = memref.alloca() {alignment = 64 : i64} : memref<4096x16xf32>
    %fits = arith.cmpi sle, %trips, %c4096 : index
    scf.if %fits {
      scf.for %k = %c0 to %n step %c1 {
        scf.for %x = %c0 to %c16 step %c1 {
          mux.set_local_id 0, %x : index
          %col = mux.get_global_id 0 : index
          %v = memref.load %B[%k, %col] : memref<?x?xf32>
          memref.store %v, %P[%k, %x] : memref<4096x16xf32>
        } {mux.work_item_loop}
      }
      scf.for %y = ... { ... %b = memref.load %P[%k, %x] : memref<4096x16xf32> ... }
    } else {
      scf.for %y = ... { ... the original nest ... }
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs, mux
from xmux.transforms.uniformity import VARYING_QUERIES, is_inside, is_pure, work_item_loop_header
from xmux.transforms.work_item_loop_vectorize_hints import constant_index, static_trip_count

#: bytes of stack for the panels of one nest (the thread running a slice has 8 MiB; the
#: entry hook's local memory may take 1 MiB of it): 256 KiB keeps a 16-wide f32 panel of
#: up to 4096 rows, which fits the L2 of the CPUs xmux runs on
PACK_BYTES = 256 * 1024
#: a ``k`` loop with a constant trip count below this is not worth a copy of its panel
MIN_TRIPS = 32

_LOADS = (memref.LoadOp, vector.LoadOp, llvm.LoadOp)
_STORES = (memref.StoreOp, vector.StoreOp, llvm.StoreOp)
_ALLOCAS = (memref.AllocaOp, llvm.AllocaOp)
#: what a panel index may depend on: the ``k`` loop's variable, the work-item's id
_K, _X = "k", "x"


def _private(ref: SSAValue) -> bool:
    """A store target the kernel allocated itself (a work-item's accumulator array)."""
    return isinstance(ref.owner, _ALLOCAS)


def _writes_nothing_shared(ops: list[Operation]) -> bool:
    """Only loads, pure ops, structured control flow, id headers and stores to the kernel's
    own allocations in ``ops`` (walked): nothing another work-item could read."""
    for top in ops:
        for o in top.walk():
            if isinstance(o, _LOADS) or is_pure(o) or isinstance(o, mux.SetLocalIdOp):
                continue
            if isinstance(o, (scf.ForOp, scf.IfOp, scf.YieldOp)):
                continue
            if isinstance(o, _STORES) and _private(o.operands[1]):
                continue
            return False
    return True


@dataclass
class _Panel:
    """One panel load ``load`` in work-item loop ``wi`` (dimension ``dim``, ``ls`` items) of
    the uniform loop ``k_loop``."""

    load: memref.LoadOp
    wi: scf.ForOp
    dim: int
    ls: int
    elem_bytes: int


@dataclass
class _Nest:
    """A work-item loop ``outer`` whose ``k_loop`` reads ``panels``."""

    outer: scf.ForOp
    k_loop: scf.ForOp
    panels: list[_Panel] = field(default_factory=list)


class _Deps:
    """What a value inside ``outer`` depends on: a subset of {k, x}, or None when it cannot
    be recomputed in front of the nest (a load, a loop-carried value, a query of another
    dimension)."""

    def __init__(self, outer: scf.ForOp, k_loop: scf.ForOp, wi: scf.ForOp | None, dim: int):
        self.outer, self.k_loop, self.wi, self.dim = outer, k_loop, wi, dim
        self._memo: dict[SSAValue, frozenset[str] | None] = {}

    def __call__(self, v: SSAValue) -> frozenset[str] | None:
        if v in self._memo:
            return self._memo[v]
        self._memo[v] = None  # a cycle is not recomputable
        self._memo[v] = r = self._compute(v)
        return r

    def _compute(self, v: SSAValue) -> frozenset[str] | None:
        if v is self.k_loop.body.block.args[0]:
            return frozenset({_K})
        if self.wi is not None and v is self.wi.body.block.args[0]:
            return frozenset({_X})
        if not is_inside(v, self.outer):
            return frozenset()
        op = v.owner
        if isinstance(v, BlockArgument) or not isinstance(op, Operation) or not is_pure(op):
            return None
        if isinstance(op, VARYING_QUERIES):
            inside_wi = self.wi is not None and is_inside(v, self.wi)
            if isinstance(op, mux.DimQueryOp) and op.dim.value.data == self.dim and inside_wi:
                return frozenset({_X})
            return None
        out: frozenset[str] = frozenset()
        for o in op.operands:
            d = self(o)
            if d is None:
                return None
            out |= d
        return out


def _elem_bytes(t: MemRefType) -> int | None:
    e = t.element_type
    if isinstance(e, (IntegerType, AnyFloat)):
        width = e.width.data if isinstance(e, IntegerType) else e.bitwidth
        return width // 8 if width % 8 == 0 and width >= 8 else None
    return None


def _panel(load: Operation, nest: _Nest, wi: scf.ForOp, dim: int, ls: int,
           args: set[SSAValue]) -> _Panel | None:
    if not isinstance(load, memref.LoadOp) or load.memref not in args:
        return None
    t = load.memref.type
    if not isinstance(t, MemRefType) or len(load.indices) < 2:
        return None
    nbytes = _elem_bytes(t)
    if nbytes is None:
        return None
    deps = _Deps(nest.outer, nest.k_loop, wi, dim)
    found = [deps(i) for i in load.indices]
    if any(d is None for d in found):
        return None
    if found[-1] != {_X} or not any(d == {_K} for d in found[:-1]):
        return None
    if any(_X in d for d in found[:-1]):  # type: ignore[operator]
        return None
    return _Panel(load, wi, dim, ls, nbytes)


def _nests(kernel: func.FuncOp) -> list[_Nest]:
    """The packable nests of ``kernel``'s body (its top-level outer work-item loops)."""
    args = set(kernel.body.block.args)
    out: list[_Nest] = []
    for outer in kernel.body.block.ops:
        if not isinstance(outer, scf.ForOp) or not work_item_loop_header(outer):
            continue
        trips = static_trip_count(outer)
        if trips is None or trips < 2:
            continue
        before: list[Operation] = []
        for k_loop in outer.body.block.ops:
            if not isinstance(k_loop, scf.ForOp) or work_item_loop_header(k_loop):
                before.append(k_loop)
                continue
            nest = _Nest(outer, k_loop)
            _collect(nest, args)
            k_trips = static_trip_count(k_loop)
            if (nest.panels and constant_index(k_loop.step) == 1
                    and (k_trips is None or k_trips >= MIN_TRIPS)
                    and _writes_nothing_shared([*before, k_loop])
                    and _bounds_recomputable(nest)):
                out.append(nest)
            before.append(k_loop)
    return out


def _collect(nest: _Nest, args: set[SSAValue]) -> None:
    for wi in nest.k_loop.body.block.ops:
        if not isinstance(wi, scf.ForOp):
            continue
        header = work_item_loop_header(wi)
        if len(header) != 1 or constant_index(wi.lb) != 0 or constant_index(wi.step) != 1:
            continue
        ls = constant_index(wi.ub)
        if ls is None or ls < 1:
            continue
        dim = header[0].dim.value.data  # type: ignore[attr-defined]
        for load in wi.body.block.ops:
            p = _panel(load, nest, wi, dim, ls, args)
            if p is not None:
                nest.panels.append(p)


def _bounds_recomputable(nest: _Nest) -> bool:
    """Whether ``k``'s bounds can be recomputed in front of the nest."""
    deps = _Deps(nest.outer, nest.k_loop, None, -1)
    return all(deps(v) == frozenset() for v in (nest.k_loop.lb, nest.k_loop.ub))


class _Cloner:
    """Recomputes pure values of the nest at another place (``k`` and ``x`` mapped)."""

    def __init__(self, outer: scf.ForOp, block: Block) -> None:
        self.outer = outer
        self.block = block
        self.map: dict[SSAValue, SSAValue] = {}

    def __call__(self, v: SSAValue) -> SSAValue:
        if v in self.map:
            return self.map[v]
        if not is_inside(v, self.outer):
            return v
        op = v.owner
        assert isinstance(op, Operation)
        for o in op.operands:
            self(o)
        new = op.clone(value_mapper=dict(self.map))
        self.block.add_op(new)
        for old, res in zip(op.results, new.results, strict=True):
            self.map[old] = res
        return self.map[v]


def _pack(nest: _Nest, budget: int, lanes: int) -> bool:
    """Pack ``nest``'s panels (``lanes``: elements of a vector register, the copy's width)."""
    outer, k_loop = nest.outer, nest.k_loop
    kernel = outer.parent_op()
    assert isinstance(kernel, func.FuncOp)
    per_k = sum(p.ls * p.elem_bytes for p in nest.panels)
    cap = budget // per_k
    k_trips = static_trip_count(k_loop)
    if k_trips is not None:
        cap = min(cap, max(k_trips, 1))
    if cap < MIN_TRIPS and (k_trips is None or cap < k_trips):
        return False
    # buffers at the top of the entry block: static allocas, once per kernel call
    entry = kernel.body.block
    first = entry.first_op
    bufs: list[SSAValue] = []
    for p in nest.panels:
        t = MemRefType(p.load.memref.type.element_type, [cap, p.ls])  # type: ignore[attr-defined]
        alloca = memref.AllocaOp.get(t.element_type, 64, t.shape)
        Rewriter.insert_op(alloca, InsertPoint.before(first))  # type: ignore[arg-type]
        bufs.append(alloca.memref)
    # the bounds of k and the guard, in front of the nest
    pre = Block()
    bounds = _Cloner(outer, pre)
    lb, ub = bounds(k_loop.lb), bounds(k_loop.ub)
    guarded = k_trips is None or k_trips > cap
    copy_block = Block() if guarded else pre
    _emit_copy(nest, lb, ub, bufs, copy_block, lanes)
    ops = list(pre.ops)
    for o in ops:
        o.detach()
    Rewriter.insert_op(ops, InsertPoint.before(outer))
    if not guarded:
        _use_panels(nest.panels, bufs, k_loop)
        return True
    trips = arith.SubiOp(ub, lb)
    c_cap = arith.ConstantOp.from_int_and_width(cap, IndexType())
    fits = arith.CmpiOp(trips, c_cap, "sle")
    mapping: dict[SSAValue, SSAValue] = {}
    packed = outer.clone(value_mapper=mapping)
    k_new = mapping[k_loop.body.block.args[0]].owner.parent_op()  # type: ignore[union-attr]
    assert isinstance(k_new, scf.ForOp)
    panels = [_Panel(mapping[p.load.res].owner, p.wi, p.dim, p.ls, p.elem_bytes)  # type: ignore[arg-type]
              for p in nest.panels]
    _use_panels(panels, bufs, k_new)
    copy_ops = list(copy_block.ops)
    for o in copy_ops:
        o.detach()
    then = Block([*copy_ops, packed, scf.YieldOp()])
    orig = Block()
    guard = scf.IfOp(fits.result, [], [then], [orig])
    Rewriter.insert_op([trips, c_cap, fits, guard], InsertPoint.before(outer))
    outer.detach()
    orig.add_ops([outer, scf.YieldOp()])
    return True


def _emit_copy(nest: _Nest, lb: SSAValue, ub: SSAValue, bufs: list[SSAValue],
               block: Block, lanes: int) -> None:
    """``for k in [lb, ub): for x in [0, ls): P[k - lb][x] = M[indices(k, x)]`` per panel."""
    c0, c1 = (arith.ConstantOp.from_int_and_width(v, IndexType()) for v in (0, 1))
    k_body = Block(arg_types=[IndexType()])
    k = k_body.args[0]
    rel = arith.SubiOp(k, lb)
    k_body.add_op(rel)
    for p, buf in zip(nest.panels, bufs, strict=True):
        c_ls = arith.ConstantOp.from_int_and_width(p.ls, IndexType())
        x_body = Block(arg_types=[IndexType()])
        x = x_body.args[0]
        x_body.add_op(mux.SetLocalIdOp(p.dim, x))
        clone = _Cloner(nest.outer, x_body)
        clone.map[nest.k_loop.body.block.args[0]] = k
        clone.map[p.wi.body.block.args[0]] = x
        idx = [clone(i) for i in p.load.indices]
        value = memref.LoadOp.get(p.load.memref, idx)
        x_body.add_ops([value, memref.StoreOp.get(value.res, buf, [rel.result, x]),
                        scf.YieldOp()])
        x_loop = scf.ForOp(c0.result, c_ls.result, c1.result, [], x_body)
        attrs.mark_work_item_loop(x_loop)
        # without a hint LLVM unrolls the short copy loop fully and then vectorizes k with
        # scatters behind a stride-1 version check that real arrays never pass
        width = 1
        while width * 2 <= min(p.ls, lanes):
            width *= 2
        if width >= 2:
            attrs.set_loop_vectorize_width(x_loop, width)
        k_body.add_ops([c_ls, x_loop])
    k_body.add_op(scf.YieldOp())
    block.add_ops([c0, c1, scf.ForOp(lb, ub, c1.result, [], k_body)])


def _use_panels(panels: list[_Panel], bufs: list[SSAValue], k_loop: scf.ForOp) -> None:
    """The nest's panel loads read the buffers: ``P[k - lb][x]``."""
    rel = arith.SubiOp(k_loop.body.block.args[0], k_loop.lb)
    Rewriter.insert_op(rel, InsertPoint.at_start(k_loop.body.block))
    for p, buf in zip(panels, bufs, strict=True):
        wi = p.load.parent_op()
        assert isinstance(wi, scf.ForOp)
        new = memref.LoadOp.get(buf, [rel.result, wi.body.block.args[0]])
        Rewriter.replace_op(p.load, new)


@dataclass(frozen=True)
class PackGroupPanels(ModulePass):
    """Copy a work-group's strided panel of an argument into a contiguous stack buffer."""

    name = "pack-group-panels"

    #: bytes of the panels of one nest at most; 0 turns the pass off
    pack_bytes: int = PACK_BYTES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not isinstance(self.pack_bytes, int) or self.pack_bytes < 0:
            raise XmuxError(
                f"{self.name}: pack_bytes must be a non-negative integer, got {self.pack_bytes!r}"
            )
        if self.pack_bytes == 0:
            return
        pack_panels(op, self.pack_bytes)


def pack_panels(module: ModuleOp, pack_bytes: int = PACK_BYTES) -> int:
    """Pack the panels of every packable nest of ``module``'s kernels; the number of nests
    packed (0: the module is unchanged)."""
    target = attrs.get_target(module)
    lanes = target.vector_floats if target.vector_bits.data else 16
    return sum(_pack(nest, pack_bytes, lanes)
               for kernel in attrs.entry_points(module) for nest in _nests(kernel))


class NothingToPack(Exception):
    """The packed twin of a variant would be the variant itself: its lowering stops."""


def twin_pipeline(pipeline: Sequence[ModulePass], module: ModuleOp
                  ) -> list[ModulePass] | None:
    """``pipeline`` with ``pack-group-panels`` after ``work-item-unroll-and-jam``, for a
    kernel with a loop holding a load (what the pass could pack); None otherwise. Per work-
    group packing wins on some hosts and loses on others (its docstring: 75 -> 44 GFLOP/s on
    Zen 4, 20 -> 43 on an Emerald Rapids Xeon, bench/RESULTS.md), so the tuner measures it."""
    names = [p.name for p in pipeline]
    if "work-item-unroll-and-jam" not in names or "pack-group-panels" in names:
        return None
    if not any(isinstance(op, scf.ForOp) and any(isinstance(o, memref.LoadOp)
                                                 for o in op.walk())
               for op in module.walk()):
        return None

    class PackOrStop(PackGroupPanels):
        """The pass, stopping the twin's lowering where it packs nothing (a class of this
        function's: the registry finds one class per pass name in the module)."""

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            if not pack_panels(op, self.pack_bytes):
                raise NothingToPack

    at = names.index("work-item-unroll-and-jam") + 1
    return [*pipeline[:at], PackOrStop(), *pipeline[at:]]

