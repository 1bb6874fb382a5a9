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

The fission itself is ``transforms/wi_loops.Fission`` (the machinery that splits
work-item loops at barriers), with the chosen uniform loop as the one lifted op: an implicit
barrier at the start and the end of each of its iterations (PoCL's implicit loop barriers).

The innermost work-item loop spans one dimension: the local and global ids of the dimensions
of the work-item loops around it are fixed inside it, so a loop whose bounds depend on them
(an OpenACC worker's chunk: its trip count depends on the local y id) is uniform there and is
interchanged inside the enclosing loops of the nest (``Fission``'s ``uniform_dims``).

Legality: without barriers, work-items of a group are unordered; fission keeps each
work-item's own program order, so every interleaving it produces is allowed. The pass skips
kernels whose work-item loop uses a private allocation hoisted above the loops (work-items
would share it once interleaved), loops whose bounds depend on the work-item, loops with a
small constant trip count (LLVM unrolls those and vectorizes the work-item loop directly),
and iteration arguments that are not scalars. Before it, uniform side-effect-free ops are
hoisted out of the work-item loop, so bounds computed in the body count as uniform.

A work-item loop of work-item-loops' vector schedule (``vector-width=W``) is handled too: in
the main part its header is ``x = xb + xi`` + ``set_local_id``; the new loops repeat that
header and keep the loop's vectorization hint, and the arrays are indexed by ``x``.

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

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, mux
from xmux.transforms.uniformity import is_inside, work_item_loop_header
from xmux.transforms.wi_loops import Fission, Nest, NestFactory, Unstructured, storable

#: loops with at most this many iterations (constant bounds) are left to LLVM's unroller
SMALL_TRIP_COUNT = 16
#: nesting limit for interchanging loops inside interchanged loops
MAX_DEPTH = 3


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


def _uses_outer_alloca(loop: scf.ForOp) -> bool:
    """A private allocation above the loop that work-items would share once interleaved
    (per-work-item storage of barrier regions is indexed by work-item: not shared)."""
    for op in loop.walk():
        for v in op.operands:
            owner = v.owner
            if (
                isinstance(owner, (memref.AllocaOp, llvm.AllocaOp))
                and not attrs.is_per_work_item(owner)
                and not is_inside(v, loop)
            ):
                return True
    return False


class _LoopNests(NestFactory):
    """Copies of one work-item loop (same bounds and header) as the nests of a fission;
    arrays sized by the enqueued local size of its dimension, allocated at the kernel entry."""

    def __init__(self, kernel: func.FuncOp, wi_loop: scf.ForOp, header: list[Operation]):
        self.wi = wi_loop
        self.header = header
        dim = header[-1].dim.value.data  # type: ignore[attr-defined]
        reqd = attrs.get_reqd_work_group_size(kernel)
        op: Operation
        if reqd is not None:
            op = arith.ConstantOp.from_int_and_width(reqd[dim], IndexType())
        else:
            op = mux.GetEnqueuedLocalSizeOp(dim, IndexType())
        Rewriter.insert_op(op, InsertPoint.at_start(kernel.body.blocks[0]))
        self.anchor = op
        self.size = op.results[0]
        self._zero: SSAValue | None = None

    def insert_storage(self, ops: Sequence[Operation]) -> None:
        Rewriter.insert_op(ops, InsertPoint.after(self.anchor))
        self.anchor = ops[-1]

    def new_array(self, element: Attribute) -> SSAValue:
        arr = super().new_array(element)
        attrs.mark_per_work_item(arr.owner)  # type: ignore[arg-type]
        return arr

    def group_size(self) -> SSAValue:
        return self.size

    def zero(self) -> SSAValue:
        if self._zero is None:
            c = arith.ConstantOp.from_int_and_width(0, IndexType())
            self.insert_storage([c])
            self._zero = c.result
        return self._zero

    def open_nest(self, ip: InsertPoint) -> Nest:
        from xdsl.ir import Block

        body = Block(arg_types=[IndexType()])
        iv = body.args[0]
        iv.name_hint = self.wi.body.block.args[0].name_hint
        mapping: dict[SSAValue, SSAValue] = {self.wi.body.block.args[0]: iv}
        for h in self.header:
            body.add_op(h.clone(value_mapper=mapping))
        yield_op = scf.YieldOp()
        body.add_op(yield_op)
        loop = scf.ForOp(self.wi.lb, self.wi.ub, self.wi.step, [], body)
        attrs.mark_work_item_loop(loop)
        attrs.set_loop_vectorize_width(loop, attrs.get_loop_vectorize_width(self.wi))
        Rewriter.insert_op(loop, ip)
        # the work-item index: the induction variable, or xb + xi in a vector-width block
        wi = self.header[-1].value  # type: ignore[attr-defined]
        lin = mapping.get(wi, wi)
        return Nest(loop, InsertPoint.before(yield_op), lambda: lin, lin)


def _candidates(wi_loop: scf.ForOp) -> list[scf.ForOp]:
    return [
        op
        for op in wi_loop.body.block.ops
        if isinstance(op, scf.ForOp)
        and not _small_trip_count(op)
        and all(storable(a.type) for a in op.iter_args)
    ]


def _outer_dims(wi_loop: scf.ForOp) -> set[int]:
    """Dimensions of the work-item loops around ``wi_loop``: their ids are fixed inside it."""
    dims: set[int] = set()
    parent = wi_loop.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            for h in work_item_loop_header(parent)[-1:]:
                dims.add(h.dim.value.data)  # type: ignore[attr-defined]
        parent = parent.parent_op()
    return dims


def interchange(kernel: func.FuncOp, wi_loop: scf.ForOp, depth: int = 0) -> None:
    if depth >= MAX_DEPTH or _uses_outer_alloca(wi_loop):
        return
    block = wi_loop.body.block
    header = work_item_loop_header(wi_loop)
    if not header:
        return
    wi = header[-1].value  # type: ignore[attr-defined]
    ops = [op for op in block.ops if op not in header and op is not block.last_op]
    for cand in _candidates(wi_loop):
        fission = Fission(block, ops, [cand], wi_args=[wi], uniform_dims=_outer_dims(wi_loop))
        try:
            fission.analyze()
        except Unstructured:
            continue  # bounds that vary per work-item
        fission.emit(_LoopNests(kernel, wi_loop, header), InsertPoint.after(wi_loop))
        Rewriter.erase_op(wi_loop, safe_erase=False)
        for loop in fission.wi_loops:
            assert isinstance(loop, scf.ForOp)
            interchange(kernel, loop, depth + 1)
        return


@dataclass(frozen=True)
class WorkItemLoopInterchange(ModulePass):
    """Move uniform loops out of the innermost work-item loop by loop fission."""

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
