"""work-item-loop-interchange: move uniform loops out of the innermost work-item loop.

After ``work-item-loops`` a kernel like the naive matmul is a work-item loop whose body holds a
long, uniform ``scf.for`` (its bounds are the same for every work-item) carrying a scalar
reduction. LLVM vectorizes only innermost loops, so the work-item loop around it stays scalar.
This pass interchanges the two by loop fission (as PoCL's and OCK's work-item loops do around
barriers): the work-item loop is split into a prologue loop, the uniform loop with a fresh
work-item loop inside it, and an epilogue loop. Values that cross the split are either
re-computed in the loop that needs them (cheap, side-effect-free chains: casts, integer
arithmetic, work-item queries — "barrier tidying") or kept in per-work-item arrays
(``memref.alloca`` sized by the enqueued local size at the kernel's entry), as are the loop's
iteration arguments. The new inner work-item loop is marked ``mux.work_item_loop`` so its
accesses carry ``llvm.loop.parallel_accesses`` and LLVM vectorizes across work-items.

Legality: without barriers, work-items of a group are unordered; fission keeps each
work-item's own program order, so every interleaving it produces is allowed. The pass skips
kernels whose work-item loop uses a private allocation hoisted above the loops (work-items
would share it once interleaved), loops whose bounds depend on the work-item, loops with a
small constant trip count (LLVM unrolls those and vectorizes the work-item loop directly),
and iteration arguments that are not scalars. Before it, uniform side-effect-free ops are
hoisted out of the work-item loop, so bounds computed in the body count as uniform.

Expects: the output of ``work-item-loops`` (barrier-free). Guarantees: same semantics;
every innermost work-item loop is still marked.

Before::

    scf.for %x = %c0 to %ls0 step %c1 {
      mux.set_local_id 0, %x : index
      %col = mux.get_global_id 0 : index
      %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) { ... }
      memref.store %acc, %c[%row, %col] : memref<?x?xf32>
    } {mux.work_item_loop}

After::

    %acc_arr = memref.alloca(%els0) : memref<?xf32>
    scf.for %x = %c0 to %ls0 step %c1 {            // prologue: initial values
      mux.set_local_id 0, %x : index
      memref.store %zero, %acc_arr[%x] : memref<?xf32>
    } {mux.work_item_loop}
    scf.for %k = %c0 to %n step %c1 {              // the uniform loop, now outside
      scf.for %x = %c0 to %ls0 step %c1 {
        mux.set_local_id 0, %x : index
        %col = mux.get_global_id 0 : index        // re-computed, not stored
        %s = memref.load %acc_arr[%x] : memref<?xf32>
        ...
        memref.store %next, %acc_arr[%x] : memref<?xf32>
      } {mux.work_item_loop}
    }
    scf.for %x = %c0 to %ls0 step %c1 {            // epilogue
      mux.set_local_id 0, %x : index
      %col = mux.get_global_id 0 : index
      %acc = memref.load %acc_arr[%x] : memref<?xf32>
      memref.store %acc, %c[%row, %col] : memref<?x?xf32>
    } {mux.work_item_loop}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, IndexType, IntegerType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, is_side_effect_free

from xmux.dialects import attrs, mux

#: loops with at most this many iterations (constant bounds) are left to LLVM's unroller
SMALL_TRIP_COUNT = 16
#: nesting limit for interchanging loops inside interchanged loops
MAX_DEPTH = 3

_UNIFORM_QUERIES = (
    mux.GetGlobalSizeOp,
    mux.GetLocalSizeOp,
    mux.GetEnqueuedLocalSizeOp,
    mux.GetGlobalOffsetOp,
    mux.GetNumGroupsOp,
    mux.GetGroupIdOp,
    mux.GetWorkDimOp,
)


def _is_pure(op: Operation) -> bool:
    if isinstance(op, mux.WorkItemQuery):
        return True
    if op.regions or op.has_trait(IsTerminator):
        return False
    if isinstance(op, (mux.SetLocalIdOp, memref.LoadOp, llvm.LoadOp)):
        return False
    return is_side_effect_free(op)


def _is_uniform_pure(op: Operation) -> bool:
    """Pure and the same for every work-item of the group, given uniform operands."""
    if isinstance(op, mux.WorkItemQuery):
        return isinstance(op, _UNIFORM_QUERIES)
    return _is_pure(op)


def _defined_inside(value: SSAValue, loop: Operation) -> bool:
    owner = value.owner
    op = owner.parent_op() if isinstance(owner, Block) else owner
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op()
    return False


def _hoist_uniform(loop: scf.ForOp) -> None:
    """Move uniform pure ops at the top level of ``loop``'s body above the loop."""
    for op in list(loop.body.block.ops):
        if _is_uniform_pure(op) and not any(_defined_inside(v, loop) for v in op.operands):
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(loop))


def _constant_index(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value.type, (IndexType, IntegerType)):
        return op.value.value.data  # type: ignore[union-attr]
    return None


def _small_trip_count(loop: scf.ForOp) -> bool:
    lb, ub, step = (_constant_index(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return False
    return (ub - lb + step - 1) // step <= SMALL_TRIP_COUNT


def _storable(t: Attribute) -> bool:
    return isinstance(t, (IndexType, IntegerType, AnyFloat))


def _uses_outer_alloca(loop: scf.ForOp) -> bool:
    for op in loop.walk():
        for v in op.operands:
            owner = v.owner
            if (
                isinstance(owner, (memref.AllocaOp, llvm.AllocaOp))
                and not _defined_inside(v, loop)
            ):
                return True
    return False


def _candidate(wi_loop: scf.ForOp) -> scf.ForOp | None:
    for op in wi_loop.body.block.ops:
        if not isinstance(op, scf.ForOp):
            continue
        if any(_defined_inside(v, wi_loop) for v in (op.lb, op.ub, op.step)):
            continue
        if _small_trip_count(op) or not all(_storable(a.type) for a in op.iter_args):
            continue
        return op
    return None


class _Split:
    """Rebuilds one work-item loop as prologue / uniform loop / epilogue."""

    def __init__(self, wi_loop: scf.ForOp, uniform: scf.ForOp, size: SSAValue) -> None:
        self.wi = wi_loop
        self.uniform = uniform
        self.size = size  # enqueued local size of the work-item dimension (array length)
        self.header = [
            op
            for op in wi_loop.body.block.ops
            if isinstance(op, mux.SetLocalIdOp) and op.value is wi_loop.body.block.args[0]
        ]
        self.arrays: dict[SSAValue, SSAValue] = {}

    # -- values crossing the split -------------------------------------------------------

    def _new_array(self, element: Attribute) -> SSAValue:
        alloca = memref.AllocaOp.get(
            element, alignment=64, shape=[DYNAMIC_INDEX], dynamic_sizes=[self.size]
        )
        Rewriter.insert_op(alloca, InsertPoint.after(self.size.owner))  # type: ignore[arg-type]
        return alloca.memref

    def _array(self, value: SSAValue) -> SSAValue:
        """The per-work-item array holding ``value`` across the split."""
        if value not in self.arrays:
            self.arrays[value] = self._new_array(value.type)
        return self.arrays[value]

    def _remat_chain(self, value: SSAValue, prologue: set[Operation]) -> list[Operation] | None:
        """Ops (in order) that recompute ``value`` from values outside the prologue."""
        chain: list[Operation] = []
        seen: set[Operation] = set()

        def visit(v: SSAValue) -> bool:
            op = v.owner
            if not isinstance(op, Operation) or op not in prologue:
                return not isinstance(op, Block) or op is not self.wi.body.block
            if op in seen:
                return True
            if not _is_pure(op) or len(chain) > 16:
                return False
            seen.add(op)
            if not all(visit(o) for o in op.operands):
                return False
            chain.append(op)
            return True

        return chain if visit(value) else None

    def _new_wi_loop(self, ip: InsertPoint) -> tuple[scf.ForOp, Block, dict[SSAValue, SSAValue]]:
        body = Block(arg_types=[IndexType()])
        iv = body.args[0]
        iv.name_hint = self.wi.body.block.args[0].name_hint
        mapping: dict[SSAValue, SSAValue] = {self.wi.body.block.args[0]: iv}
        for h in self.header:
            body.add_op(h.clone(value_mapper=mapping))
        body.add_op(scf.YieldOp())
        loop = scf.ForOp(self.wi.lb, self.wi.ub, self.wi.step, [], body)
        attrs.mark_work_item_loop(loop)
        Rewriter.insert_op(loop, ip)
        return loop, body, mapping

    def _import(
        self,
        values: list[SSAValue],
        prologue: set[Operation],
        body: Block,
        mapping: dict[SSAValue, SSAValue],
        stores: dict[SSAValue, None],
    ) -> None:
        """Make ``values`` (defined in the prologue) available in a new loop body."""
        ip = InsertPoint.before(body.last_op)  # type: ignore[arg-type]
        iv = body.args[0]
        for v in values:
            if v in mapping:
                continue
            chain = self._remat_chain(v, prologue)
            if chain is not None:
                for op in chain:
                    if op.results[0] in mapping:
                        continue
                    clone = op.clone(value_mapper=mapping)
                    Rewriter.insert_op(clone, ip)
                    for old, new in zip(op.results, clone.results, strict=True):
                        mapping[old] = new
                continue
            stores[v] = None
            load = memref.LoadOp.get(self._array(v), [iv])
            Rewriter.insert_op(load, ip)
            mapping[v] = load.res

    def run(self) -> tuple[scf.ForOp, scf.ForOp]:
        wi, uniform = self.wi, self.uniform
        block_ops = list(wi.body.block.ops)
        cut = block_ops.index(uniform)
        prologue_ops = [op for op in block_ops[:cut] if op not in self.header]
        epilogue_ops = [op for op in block_ops[cut + 1 :] if not isinstance(op, scf.YieldOp)]
        prologue = set(prologue_ops)

        def crossing(ops: list[Operation]) -> list[SSAValue]:
            out: dict[SSAValue, None] = {}
            for op in ops:
                for inner in op.walk():
                    for v in inner.operands:
                        if isinstance(v.owner, Operation) and v.owner in prologue:
                            out[v] = None
            return list(out)

        stores: dict[SSAValue, None] = {}
        # 1. the uniform loop with a work-item loop inside
        outer_body = Block(arg_types=[IndexType()])
        outer_body.add_op(scf.YieldOp())
        new_uniform = scf.ForOp(uniform.lb, uniform.ub, uniform.step, [], outer_body)
        Rewriter.insert_op(new_uniform, InsertPoint.after(wi))
        inner, inner_body, m_inner = self._new_wi_loop(InsertPoint.before(outer_body.last_op))
        m_inner[uniform.body.block.args[0]] = outer_body.args[0]
        iv = inner_body.args[0]
        ip = InsertPoint.before(inner_body.last_op)  # type: ignore[arg-type]
        acc_arrays: list[SSAValue] = []
        for arg, init in zip(uniform.body.block.args[1:], uniform.iter_args, strict=True):
            arr = self._new_array(init.type)
            acc_arrays.append(arr)
            load = memref.LoadOp.get(arr, [iv])
            Rewriter.insert_op(load, ip)
            m_inner[arg] = load.res
        self._import(crossing(list(uniform.body.block.ops)), prologue, inner_body, m_inner, stores)
        for op in uniform.body.block.ops:
            if isinstance(op, scf.YieldOp):
                for val, arr in zip(op.operands, acc_arrays, strict=True):
                    Rewriter.insert_op(memref.StoreOp.get(m_inner.get(val, val), arr, [iv]), ip)
                continue
            clone = op.clone(value_mapper=m_inner)
            Rewriter.insert_op(clone, ip)
            for old, new in zip(op.results, clone.results, strict=True):
                m_inner[old] = new

        # 2. the epilogue: results from the arrays, then the rest of the body
        epi, epi_body, m_epi = self._new_wi_loop(InsertPoint.after(new_uniform))
        eip = InsertPoint.before(epi_body.last_op)  # type: ignore[arg-type]
        for res, arr in zip(uniform.results, acc_arrays, strict=True):
            load = memref.LoadOp.get(arr, [epi_body.args[0]])
            Rewriter.insert_op(load, eip)
            m_epi[res] = load.res
        self._import(crossing(epilogue_ops), prologue, epi_body, m_epi, stores)
        for op in epilogue_ops:
            op.detach()
            Rewriter.insert_op(op, eip)
            for inner_op in op.walk():
                for i, v in enumerate(inner_op.operands):
                    if v in m_epi:
                        inner_op.operands[i] = m_epi[v]

        # 3. the prologue: the original loop keeps its ops, stores what crosses, inits
        pip = InsertPoint.before(uniform)
        piv = wi.body.block.args[0]
        for v in stores:
            Rewriter.insert_op(memref.StoreOp.get(v, self._array(v), [piv]), pip)
        for init, arr in zip(uniform.iter_args, acc_arrays, strict=True):
            Rewriter.insert_op(memref.StoreOp.get(init, arr, [piv]), pip)
        Rewriter.erase_op(uniform)
        return inner, epi


def _enqueued_size(kernel: func.FuncOp, wi_loop: scf.ForOp) -> SSAValue:
    """The array length for the loop's dimension, defined at the kernel's entry."""
    header = next(
        op
        for op in wi_loop.body.block.ops
        if isinstance(op, mux.SetLocalIdOp) and op.value is wi_loop.body.block.args[0]
    )
    dim = header.dim.value.data
    entry = kernel.body.blocks[0]
    reqd = attrs.get_reqd_work_group_size(kernel)
    op: Operation
    if reqd is not None:
        op = arith.ConstantOp.from_int_and_width(reqd[dim], IndexType())
    else:
        op = mux.GetEnqueuedLocalSizeOp(dim, IndexType())
    Rewriter.insert_op(op, InsertPoint.at_start(entry))
    return op.results[0]


def interchange(kernel: func.FuncOp, wi_loop: scf.ForOp, depth: int = 0) -> None:
    if depth >= MAX_DEPTH or _uses_outer_alloca(wi_loop):
        return
    _hoist_uniform(wi_loop)
    uniform = _candidate(wi_loop)
    if uniform is None:
        return
    inner, epilogue = _Split(wi_loop, uniform, _enqueued_size(kernel, wi_loop)).run()
    interchange(kernel, inner, depth + 1)
    interchange(kernel, epilogue, depth + 1)


@dataclass(frozen=True)
class WorkItemLoopInterchange(ModulePass):
    name = "work-item-loop-interchange"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in attrs.entry_points(op):
            loops = [
                o for o in kernel.walk() if isinstance(o, scf.ForOp) and attrs.is_work_item_loop(o)
            ]
            for loop in loops:
                if any(isinstance(o, (mux.WorkGroupBarrierOp, mux.SubGroupBarrierOp))
                       for o in loop.walk()):
                    continue
                interchange(kernel, loop)

