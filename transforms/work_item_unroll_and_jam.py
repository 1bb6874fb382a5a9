"""work-item-unroll-and-jam: run R work-items of an outer work-item dimension together.

The CPU form of thread coarsening. After ``work-item-loop-interchange`` the naive matmul is a
loop over the rows ``y`` of the work-group holding the uniform ``k`` loop, and inside it the
work-item loop over the columns ``x`` that LLVM vectorizes. Each ``k`` iteration loads
``B[k, col]`` for one row only, and the row's accumulators form one dependence chain (an add
per ``k``): the loop runs at the latency of that chain, not at the machine's FMA throughput.

This pass unrolls such an outer work-item loop by R and jams the copies: the new loop steps
``y`` by R and its body runs work-items ``y .. y+R-1`` (the *replicas*) together. Loops whose
bounds are the same for every replica (the ``k`` loop, the ``x`` work-item loops inside it)
are fused into one loop carrying the iteration arguments of all R replicas, ``scf.if``s with
a condition the same for all of them likewise; side-effect-free ops and loads whose operands
are the same for every replica (``col``, ``B[k, col]``: R copies of the load would run one
right after the other) are emitted once; everything else is emitted once per replica, in
each replica's program order. So each load shared along ``y`` feeds R multiply-adds, and the
R accumulators are R independent chains; with a known local size LLVM keeps them in
registers across ``k``. A remainder loop runs the last ``ls mod R`` work-items as before
(none when the local size is known and a multiple of R). The loop over blocks starts with
``set_local_id d`` of its first replica (it is still a work-item loop level) and is hinted
not to be vectorized (that would gather and scatter across blocks).

A short uniform loop (constant trip count up to ``SMALL_TRIP_COUNT``) inside a jammed
work-item loop (the tiled matmul's 16-step product) is unrolled here: LLVM would unroll one
copy before vectorizing the work-item loop around it, but not R of them, and then could not
vectorize that loop. The work-item loop then gets a vectorization hint (which also keeps
LLVM from unrolling it; ``work-item-loop-vectorize-hints``' conditions).

Work-item ids: each replica's queries of dimension ``d`` read the id that ``set_local_id d``
set, so a ``set_local_id d, y+r`` is emitted in front of the first op of replica r that may
read it (a varying query of ``d``, a call, any ``mux`` op that is not a uniform query) since
the id was last set for another replica.

Private storage: an allocation above the loop that only the loop uses (the interchange's
per-work-item accumulator arrays, indexed by ``x`` only and reused for every ``y``; a private
array work-item-loops hoisted to the kernel entry) gets one copy per replica. A per-work-item
array also used elsewhere (work-item-loops' storage across barrier regions) has one slot per
work-item of the group, so the replicas already use distinct slots. Any other allocation
used from outside makes the pass leave the loop alone.

Legality: without barriers, the work-items of a group are unordered and every replica keeps
its own program order, so the jammed order is one of the kernel's executions (the argument of
``work-item-loop-interchange``). Loops holding a barrier are left alone (after
work-item-loops none does), and so are loops holding an atomic or a fence: work-items may
wait for each other through memory (OpenACC's gang lock spins until the holder unlocks),
which runs when they run one after the other but can hang in step.

Which loops (cost model): an outer work-item loop (its body starts with ``set_local_id d``,
and it holds a marked work-item loop) whose nest queries an id that varies along ``d`` (its
work-items differ) and has a *hot* load whose address is the same for every work-item of
``d`` (hot: inside both a uniform loop, an ``scf.for`` that is no work-item loop, and a
work-item loop), and no control flow that differs between the replicas (an ``scf.if`` whose
condition varies along ``d``, a data-dependent ``scf.while``, inside the inner work-item
loops): each replica keeps its own
copy of it, and LLVM, which if-converted one copy to vectorize the work-item loop around it,
gave up on R of them (a bounds-checked 3x3 convolution ran 1.7x slower jammed on an AVX2
host); a given ``factor`` jams such loops too. The innermost such loop of a nest is jammed.
R: ``factor`` when given;
else, with a known inner local size (``mux.reqd_work_group_size``, as in the local-size
variants ``xmux.compile`` builds per launch size), the most replicas up to
``MAX_AUTO_FACTOR`` whose accumulators (R x inner size x accumulators per work-item: the
iteration arguments of uniform loops in work-item loops, the private arrays stored in
uniform loops) fit ``acc_budget`` floats of vector registers; ``DEFAULT_FACTOR`` when they
would not fit anyway (then the gain is the shared loads) or the size is unknown; R x the
trips of an unrolled short loop at most ``MAX_UNROLLED_STEPS``. At most the dimension's
known size, preferring a divisor of it close to R.

Options: ``factor`` = 0 (default: the cost model), 1 (off) or R >= 2 (jam R wherever a loop
qualifies); ``acc_budget`` (default 0: the module's ``#xmux.target``'s
``accumulator_floats``, 128 floats with AVX-512's 32 registers, 64 with AVX2's 16).

Expects: the output of ``work-item-loops`` (and ``work-item-loop-interchange``).
Guarantees: the same results for race-free kernels; work-item loops stay marked.

Before (after the interchange; R = 2)::

    scf.for %y = %c0 to %ls1 step %c1 {
      mux.set_local_id 1, %y : index
      %row = mux.get_global_id 1 : index
      scf.for %k = %c0 to %n step %c1 {
        scf.for %x = %c0 to %ls0 step %c1 {
          mux.set_local_id 0, %x : index
          %a = memref.load %A[%row, %k] : memref<?x?xf32>
          %col = mux.get_global_id 0 : index
          %b = memref.load %B[%k, %col] : memref<?x?xf32>
          ...
        } {mux.work_item_loop}
      }
    }

After::

    scf.for %y = %c0 to %main step %c2 {
      mux.set_local_id 1, %y : index
      %y1 = arith.addi %y, %c1 : index
      %row = mux.get_global_id 1 : index
      mux.set_local_id 1, %y1 : index
      %row1 = mux.get_global_id 1 : index
      scf.for %k = %c0 to %n step %c1 {
        scf.for %x = %c0 to %ls0 step %c1 {
          mux.set_local_id 0, %x : index
          %a = memref.load %A[%row, %k] : memref<?x?xf32>
          %a1 = memref.load %A[%row1, %k] : memref<?x?xf32>
          %col = mux.get_global_id 0 : index
          %b = memref.load %B[%k, %col] : memref<?x?xf32>     // once for both rows
          %p = arith.mulf %a, %b : f32
          %p1 = arith.mulf %a1, %b : f32
          ...
        } {mux.work_item_loop}
      }
    } {xmux.loop_vectorize_width = 1 : i64}
    scf.for %y = %main to %ls1 step %c1 { ... the original body ... }   // remainder
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf, vector
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs, mux
from xmux.transforms.uniformity import VARYING_QUERIES, is_inside, is_pure, work_item_loop_header
from xmux.transforms.work_item_loop_vectorize_hints import (
    constant_index,
    static_trip_count,
    vectorizable,
)

#: R when accumulators stay in memory anyway (unknown or large inner local size): the
#: gain is each shared load feeding R work-items
DEFAULT_FACTOR = 4
#: most R the cost model picks
MAX_AUTO_FACTOR = 8
#: largest factor accepted
MAX_FACTOR = 16
#: a jammed loop with a constant trip count up to this and no work-item loop inside is
#: unrolled fully here (as LLVM would unroll it alone, but not R copies of it), so that the
#: work-item loop around it stays LLVM's innermost loop, which it vectorizes
SMALL_TRIP_COUNT = 16
#: ... unless the unrolled body would have more ops than this
MAX_UNROLLED_OPS = 4096
#: the cost model's R keeps R x (trips of such a loop) at most this (compile time: the tiled
#: matmul's 16-step product at R = 8 took 0.2 s in xDSL, at R = 4 as fast a kernel)
MAX_UNROLLED_STEPS = 64
#: vectorization hint of a work-item loop holding such an unrolled loop: 16 lanes (one
#: 512-bit vector of f32, two 256-bit ones)
VECTOR_WIDTH = 16

_LOADS = (memref.LoadOp, vector.LoadOp, llvm.LoadOp)
_ALLOCAS = (memref.AllocaOp, llvm.AllocaOp)




def _varies_with_dim(op: Operation, dim: int) -> bool:
    """A work-item query whose result differs between the work-items of dimension ``dim``."""
    if not isinstance(op, VARYING_QUERIES):
        return False
    if isinstance(op, mux.DimQueryOp):
        return op.dim.value.data == dim
    return True  # linear ids and sub-group queries depend on every dimension


def _reads_local_id(op: Operation, dim: int) -> bool:
    """``op`` (or an op nested in it) may read the local id of ``dim``: a varying query of
    it, a call, or a mux op other than a query that does not vary along ``dim``."""
    for o in op.walk():
        if isinstance(o, mux.WorkItemQuery):
            if _varies_with_dim(o, dim):
                return True
        elif isinstance(o, (func.CallOp, llvm.CallOp)) or o.dialect_name() == "mux":
            return True
    return False


class _Shape:
    """Which values of an outer work-item loop ``loop`` (dimension ``dim``) differ between
    its work-items; ``private`` are allocations above it that each replica gets a copy of."""

    def __init__(self, loop: scf.ForOp, dim: int, private: dict[SSAValue, None]) -> None:
        self.loop = loop
        self.dim = dim
        self.private = private
        self._memo: dict[SSAValue, bool] = {}

    def varies(self, v: SSAValue) -> bool:
        if v in self.private:
            return True
        if not is_inside(v, self.loop):
            return False
        if v in self._memo:
            return self._memo[v]
        self._memo[v] = True  # cycles through loop-carried values: conservatively varying
        owner = v.owner
        result = True
        if isinstance(v, BlockArgument):
            parent = v.block.parent_op()
            if isinstance(parent, scf.ForOp) and parent is not self.loop and v.index == 0:
                result = any(self.varies(b) for b in (parent.lb, parent.ub, parent.step))
        elif isinstance(owner, Operation) and is_pure(owner):
            result = _varies_with_dim(owner, self.dim) or any(
                self.varies(o) for o in owner.operands
            )
        self._memo[v] = result
        return result


def _enclosing(op: Operation, stop: Operation) -> list[scf.ForOp]:
    loops: list[scf.ForOp] = []
    cur = op.parent_op()
    while cur is not None and cur is not stop:
        if isinstance(cur, scf.ForOp):
            loops.append(cur)
        cur = cur.parent_op()
    return loops


@dataclass
class _Profile:
    """What the cost model knows of an outer work-item loop's nest."""

    shared: bool = False  # a hot load whose address is the same for every replica
    used: bool = False  # the nest queries an id that varies along the dimension
    accumulators: int = 0  # per work-item: iteration arguments and arrays of hot loops
    inner_dim: int | None = None  # the dimension of the work-item loops inside
    short_trips: int = 0  # most trips of a short loop in a work-item loop (unrolled)
    branches: bool = False  # control flow that differs between replicas (kept R times)


def _profile(shape: _Shape) -> _Profile:
    """Hot loads are those inside both a uniform loop (an ``scf.for`` that is no work-item
    loop) and a work-item loop of the nest: they run many times per work-item."""
    prof = _Profile()
    stored: set[SSAValue] = set()
    for op in shape.loop.walk():
        if _varies_with_dim(op, shape.dim):
            prof.used = True
        if isinstance(op, scf.ForOp) and attrs.is_work_item_loop(op):
            header = work_item_loop_header(op)
            if header and prof.inner_dim is None:
                prof.inner_dim = header[-1].dim.value.data  # type: ignore[attr-defined]
        loops = _enclosing(op, shape.loop)
        in_uniform = any(not work_item_loop_header(lp) for lp in loops)
        if isinstance(op, scf.ForOp) and not work_item_loop_header(op) and any(
            attrs.is_work_item_loop(lp) for lp in loops
        ):
            prof.accumulators += len(op.iter_args)  # a uniform loop in a work-item loop
            trips = static_trip_count(op)
            if trips is not None and trips <= SMALL_TRIP_COUNT:
                prof.short_trips = max(prof.short_trips, trips)
        in_work_items = any(attrs.is_work_item_loop(lp) for lp in loops)
        if in_work_items and (
            (isinstance(op, scf.IfOp) and shape.varies(op.cond))
            or isinstance(op, (scf.WhileOp, scf.IndexSwitchOp))
        ):
            prof.branches = True  # in the loops LLVM vectorizes: one copy per replica
        if isinstance(op, (memref.StoreOp, vector.StoreOp)) and in_uniform:
            if op.operands[1] in shape.private:
                stored.add(op.operands[1])
        if (isinstance(op, _LOADS) and in_uniform and in_work_items
                and not any(shape.varies(o) for o in op.operands)):
            prof.shared = True
    prof.accumulators = max(prof.accumulators + len(stored), 1)
    return prof


def _private_allocations(loop: scf.ForOp) -> dict[SSAValue, None] | None:
    """Allocations above ``loop`` used in it that need a copy per replica; None when one
    may not be copied (used elsewhere and not one slot per work-item)."""
    private: dict[SSAValue, None] = {}  # ordered: the copies are emitted in this order
    for op in loop.walk():
        for v in op.operands:
            owner = v.owner
            if not isinstance(owner, _ALLOCAS) or is_inside(v, loop) or v in private:
                continue
            if all(_op_inside(use.operation, loop) for use in v.uses):
                private[v] = None
            elif not attrs.is_per_work_item(owner):
                return None
    return private


def _op_inside(op: Operation, loop: Operation) -> bool:
    cur = op.parent_op()
    while cur is not None:
        if cur is loop:
            return True
        cur = cur.parent_op()
    return False


def _synchronizes(op: Operation) -> bool:
    """An atomic or a fence: work-items may wait for each other through memory (OpenACC's
    gang lock spins on a cmpxchg until the holder's unlock), which running them one after
    the other allows and running them in step may not."""
    if isinstance(op, mux.MemBarrierOp) or op.name in ("llvm.fence", "llvm.cmpxchg"):
        return True
    if "atomic" in op.name:
        return True
    ordering = op.properties.get("ordering")  # an atomic llvm.load / llvm.store
    return isinstance(ordering, IntegerAttr) and ordering.value.data != 0


def _candidate(loop: scf.ForOp) -> int | None:
    """The dimension of an outer work-item loop that may be jammed, else None."""
    if attrs.is_work_item_loop(loop) or loop.iter_args or constant_index(loop.step) != 1:
        return None
    header = work_item_loop_header(loop)
    if len(header) != 1:
        return None
    dim = header[0].dim.value.data  # type: ignore[attr-defined]
    inner = False
    for op in loop.walk():
        if isinstance(op, (mux.WorkGroupBarrierOp, mux.SubGroupBarrierOp)) or _synchronizes(op):
            return None
        if isinstance(op, mux.SetLocalIdOp) and op is not header[0] and op.dim.value.data == dim:
            return None
        if isinstance(op, scf.ForOp) and attrs.is_work_item_loop(op):
            inner = True
    return dim if inner else None


def _pick_factor(factor: int, prof: _Profile, reqd: tuple[int, int, int] | None,
                 dim: int, budget: int) -> int:
    """R: ``factor`` if given, else the most replicas whose accumulators (of a known inner
    local size) fit ``budget`` floats of vector registers, at most ``MAX_AUTO_FACTOR``;
    ``DEFAULT_FACTOR`` where they cannot be kept in registers anyway (an unknown or large
    inner size: then the gain is the shared loads). At most the dimension's known size,
    preferring a divisor of it close to R (no remainder loop)."""
    r = factor
    if not r:
        inner = reqd[prof.inner_dim] if reqd is not None and prof.inner_dim is not None else None
        per_replica = None if inner is None else inner * prof.accumulators
        if per_replica is None or 2 * per_replica > budget:
            r = DEFAULT_FACTOR
        else:
            r = 2
            while 2 * r <= MAX_AUTO_FACTOR and 2 * r * per_replica <= budget:
                r *= 2
        if prof.short_trips:  # R copies of a short loop are unrolled: bound the code size
            r = max(2, min(r, MAX_UNROLLED_STEPS // prof.short_trips))
    if reqd is None:
        return r
    size = reqd[dim]
    r = min(r, size)
    for d in range(r, max(r // 2, 1), -1):
        if size % d == 0:
            return d
    return r


class _Jammer:
    """Emits the body of an outer work-item loop for R replicas (``ys``: their ids)."""

    def __init__(self, dim: int, ys: Sequence[SSAValue], maps: list[dict[SSAValue, SSAValue]]):
        self.dim = dim
        self.ys = ys
        self.maps = maps
        self.r = len(ys)
        self.unrolled = 0  # loops unrolled so far

    def _get(self, r: int, v: SSAValue) -> SSAValue:
        return self.maps[r].get(v, v)

    def _same(self, vals: Sequence[SSAValue]) -> bool:
        return all(all(self._get(r, v) is self._get(0, v) for r in range(1, self.r))
                   for v in vals)

    def _once(self, op: Operation) -> bool:
        """Emitted once for all replicas: the same for each of them. That includes a load
        from the same address: its R copies would run one right after the other."""
        if isinstance(op, mux.SetLocalIdOp):
            return op.dim.value.data != self.dim and self._same(op.operands)
        if isinstance(op, (memref.LoadOp, vector.LoadOp)):
            return self._same(op.operands)
        return (is_pure(op) and not _varies_with_dim(op, self.dim)
                and self._same(op.operands))

    def emit(self, ops: Sequence[Operation], block: Block, current: int | None = None) -> None:
        """Emit ``ops`` for every replica at the end of ``block``; ``current``: the replica
        whose id the last ``set_local_id`` of the dimension set, if known."""
        for op in ops:
            if self._once(op):
                clone = op.clone(value_mapper=self.maps[0])
                block.add_op(clone)
                for r in range(self.r):
                    for old, new in zip(op.results, clone.results, strict=True):
                        self.maps[r][old] = new
            elif isinstance(op, scf.ForOp) and self._same([op.lb, op.ub, op.step]):
                trips = self._small_trip_count(op)
                if trips is not None:
                    self._unroll_for(op, trips, block)
                else:
                    self._jam_for(op, block)
                current = None
            elif isinstance(op, scf.IfOp) and self._same([op.cond]):
                self._jam_if(op, block)
                current = None
            else:
                needs_id = _reads_local_id(op, self.dim)
                for r in range(self.r):
                    if needs_id and current != r:
                        block.add_op(mux.SetLocalIdOp(self.dim, self.ys[r]))
                        current = r
                    clone = op.clone(value_mapper=self.maps[r])
                    block.add_op(clone)
                    for old, new in zip(op.results, clone.results, strict=True):
                        self.maps[r][old] = new

    def _body(self, src: Block, dst: Block) -> None:
        term = src.last_op
        assert term is not None
        self.emit([o for o in src.ops if o is not term], dst)
        yielded = [self._get(r, v) for r in range(self.r) for v in term.operands]
        dst.add_op(type(term)(*yielded) if yielded else type(term)())

    def _small_trip_count(self, op: scf.ForOp) -> int | None:
        """The trip count of a loop to unroll fully, else None."""
        if attrs.is_work_item_loop(op) or work_item_loop_header(op):
            return None
        trips = static_trip_count(op)
        if trips is None or trips > SMALL_TRIP_COUNT:
            return None
        size = 0
        for o in op.walk():
            if isinstance(o, scf.ForOp) and attrs.is_work_item_loop(o):
                return None
            size += 1
        return trips if trips * size * self.r <= MAX_UNROLLED_OPS else None

    def _unroll_for(self, op: scf.ForOp, trips: int, block: Block) -> None:
        self.unrolled += 1
        lb, step = constant_index(op.lb), constant_index(op.step)
        assert lb is not None and step is not None
        src = op.body.block
        term = src.last_op
        assert term is not None
        values = [[self._get(r, v) for v in op.iter_args] for r in range(self.r)]
        for i in range(trips):
            iv = _index(lb + i * step)
            iv.result.name_hint = src.args[0].name_hint
            block.add_op(iv)
            for r in range(self.r):
                self.maps[r][src.args[0]] = iv.result
                for arg, v in zip(src.args[1:], values[r], strict=True):
                    self.maps[r][arg] = v
            self.emit([o for o in src.ops if o is not term], block)
            values = [[self._get(r, v) for v in term.operands] for r in range(self.r)]
        for r in range(self.r):
            for res, v in zip(op.results, values[r], strict=True):
                self.maps[r][res] = v

    def _jam_for(self, op: scf.ForOp, block: Block) -> None:
        n = len(op.iter_args)
        inits = [self._get(r, v) for r in range(self.r) for v in op.iter_args]
        src = op.body.block
        body = Block(arg_types=[src.args[0].type, *(a.type for a in inits)])
        body.args[0].name_hint = src.args[0].name_hint
        for r in range(self.r):
            self.maps[r][src.args[0]] = body.args[0]
            for i in range(n):
                self.maps[r][src.args[1 + i]] = body.args[1 + r * n + i]
        unrolled = self.unrolled
        self._body(src, body)
        new = scf.ForOp(self._get(0, op.lb), self._get(0, op.ub), self._get(0, op.step),
                        inits, body)
        new.attributes.update(op.attributes)
        if (self.unrolled > unrolled and attrs.is_work_item_loop(op)
                and attrs.get_loop_vectorize_width(op) is None
                and vectorizable(new)):
            # the unrolled loop leaves a body LLVM would unroll fully and then not vectorize
            # (the SLP vectorizer does not pack R x trips independent chains well): ask for
            # the loop vectorizer, which turns off LLVM's unrolling of this loop
            attrs.set_loop_vectorize_width(new, VECTOR_WIDTH)
        block.add_op(new)
        for r in range(self.r):
            for i, res in enumerate(op.results):
                self.maps[r][res] = new.results[r * n + i]

    def _jam_if(self, op: scf.IfOp, block: Block) -> None:
        n = len(op.results)
        regions: list[Region] = []
        for src in (op.true_region, op.false_region):
            if not src.blocks:
                regions.append(Region())
                continue
            dst = Block()
            self._body(src.block, dst)
            regions.append(Region(dst))
        types = [res.type for _ in range(self.r) for res in op.results]
        new = scf.IfOp(self._get(0, op.cond), types, regions[0],
                       regions[1] if regions[1].blocks else None)
        new.attributes.update(op.attributes)
        block.add_op(new)
        for r in range(self.r):
            for i, res in enumerate(op.results):
                self.maps[r][res] = new.results[r * n + i]


def _index(value: int) -> arith.ConstantOp:
    return arith.ConstantOp.from_int_and_width(value, IndexType())


def unroll_and_jam(loop: scf.ForOp, dim: int, factor: int,
                   private: dict[SSAValue, None]) -> scf.ForOp:
    """Replace ``loop`` by a main loop running ``factor`` work-items per iteration and a
    remainder loop (``loop`` itself, dropped when it never runs); returns the main loop."""
    before = InsertPoint.before(loop)
    lb, ub = loop.lb, loop.ub
    clb, cub = constant_index(lb), constant_index(ub)
    c_r = _index(factor)
    setup: list[Operation] = [c_r]
    if clb is not None and cub is not None:
        main_op = _index(clb + max(cub - clb, 0) // factor * factor)
        setup.append(main_op)
        remainder = (cub - clb) % factor != 0 and cub > clb
    else:
        span = arith.SubiOp(ub, lb)
        blocks = arith.DivSIOp(span.result, c_r.result)
        whole = arith.MuliOp(blocks.result, c_r.result)
        main_op = arith.AddiOp(lb, whole.result)
        setup += [span, blocks, whole, main_op]
        remainder = True
    main = main_op.results[0]
    Rewriter.insert_op(setup, before)

    # one copy of each private allocation per replica (replica 0 keeps the original)
    maps: list[dict[SSAValue, SSAValue]] = [{} for _ in range(factor)]
    for v in private:
        last = v.owner
        assert isinstance(last, Operation)
        for r in range(1, factor):
            copy = last.clone()
            Rewriter.insert_op(copy, InsertPoint.after(last))
            maps[r][v] = copy.results[0]
            last = copy

    src = loop.body.block
    body = Block(arg_types=[IndexType()])
    yb = body.args[0]
    yb.name_hint = src.args[0].name_hint
    # the first replica's id, set first: the block loop keeps a work-item loop's header
    body.add_op(mux.SetLocalIdOp(dim, yb))
    ys: list[SSAValue] = [yb]
    for r in range(1, factor):
        c = _index(r)
        add = arith.AddiOp(yb, c.result)
        body.add_ops([c, add])
        ys.append(add.result)
    for r in range(factor):
        maps[r][src.args[0]] = ys[r]
    header = work_item_loop_header(loop)
    jammer = _Jammer(dim, ys, maps)
    jammer.emit([o for o in src.ops if o not in header and o is not src.last_op], body, 0)
    body.add_op(scf.YieldOp())
    new = scf.ForOp(lb, main, c_r.result, [], body)
    new.attributes.update(loop.attributes)
    # vectorizing the loop over blocks of R work-items would gather and scatter
    attrs.set_loop_vectorize_width(new, 1)
    Rewriter.insert_op(new, before)
    if remainder:
        loop.operands[0] = main
    else:
        Rewriter.erase_op(loop)
    return new


def _jam_kernel(kernel: func.FuncOp, factor: int, budget: int) -> None:
    reqd = attrs.get_reqd_work_group_size(kernel)
    chosen: list[tuple[scf.ForOp, int, dict[SSAValue, None], int]] = []
    for loop in [o for o in kernel.walk() if isinstance(o, scf.ForOp)]:
        dim = _candidate(loop)
        if dim is None or (reqd is not None and reqd[dim] < 2):
            continue
        private = _private_allocations(loop)
        if private is None:
            continue
        prof = _profile(_Shape(loop, dim, private))
        if not (prof.shared and prof.used) or (factor == 0 and prof.branches):
            continue
        r = _pick_factor(factor, prof, reqd, dim, budget)
        if r < 2:
            continue
        # the innermost qualifying loop of a nest: drop the ancestors chosen before it
        chosen = [c for c in chosen if not _op_inside(loop, c[0])]
        chosen.append((loop, dim, private, r))
    for loop, dim, private, r in chosen:
        unroll_and_jam(loop, dim, r, private)


@dataclass(frozen=True)
class WorkItemUnrollAndJam(ModulePass):
    """Unroll an outer work-item loop by R and jam the copies, running R work-items together."""

    name = "work-item-unroll-and-jam"

    #: 0: the cost model's factor; 1: off; R >= 2: jam R work-items
    factor: int = 0
    #: floats of vector registers the cost model may fill with accumulators (R x inner
    #: local size x accumulators per work-item): 128 suits 32 registers (AVX-512), 64 16 of
    #: 256 bits (AVX2); 0: the module's target decides (``#xmux.target``'s
    #: ``accumulator_floats``)
    acc_budget: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not isinstance(self.factor, int) or not 0 <= self.factor <= MAX_FACTOR:
            raise XmuxError(
                f"{self.name}: factor must be 0 (cost model), 1 (off) or 2..{MAX_FACTOR}, "
                f"got {self.factor!r}"
            )
        if self.factor == 1:
            return
        for kernel in attrs.entry_points(op):
            budget = self.acc_budget or attrs.get_target(op).accumulator_floats
            _jam_kernel(kernel, self.factor, budget)
