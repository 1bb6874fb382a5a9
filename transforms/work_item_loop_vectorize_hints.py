"""work-item-loop-vectorize-hints: vectorize short work-item loops instead of unrolling them.

With a known local size (``mux.reqd_work_group_size``, or the local-size variant that
``xmux.compile`` builds once a kernel is launched again with one size) an innermost
work-item loop has a constant trip count, 16 in a 16 x 16 work-group. LLVM's full unroller
runs before its loop vectorizer and unrolls such a short loop into 16 scalar copies; the
SLP vectorizer then often cannot pack them (a copy's store may alias the next copy's load,
which the loop's ``llvm.loop.parallel_accesses`` said it does not), and the loop vectorizer
goes on to the enclosing work-item loop, vectorizing across rows with gathers and scatters.
The tiled matmul's tile copy (``As[ly][lx] = A[row][t + lx]``) ran that way: 16 scalar loads
and stores per row, a third of the kernel's time.

This pass gives such a loop a vectorization hint of W = min(one vector register of f32 on the
module's target (16 with 512-bit registers, 8 with 256), trip count rounded down to a
power of two) work-items (``xmux.loop_vectorize_width``; lowered to
``llvm.loop.vectorize.width`` with unrolling off): LLVM vectorizes it across work-items as it
does a long one.

Which loops: marked work-item loops (``mux.work_item_loop``) without a hint yet, with a
body LLVM can vectorize without runtime checks (straight-line, loads and stores at uniform
or unit-stride addresses: LLVM prints a "loop not vectorized" warning for a hinted loop it
cannot vectorize), a constant trip count from 4 to ``MAX_TRIP_COUNT``, and
whose parent is not a uniform loop: a
work-item loop right inside a uniform ``scf.for`` (the naive matmul's after
``work-item-loop-interchange``) is better unrolled fully, since then LLVM keeps the values
it carries across the uniform loop in registers. Such a loop of *unknown* trip count (the
generic code, built before any launch gave a local size) cannot be unrolled: it gets one
vector register of f32 as its hint, where LLVM's cost model picked 4 lanes on an AVX2 host
(the naive matmul's generic code at 512² on 2 Zen 3 threads: 14.5 → 9.3 ms).

Expects: the output of ``work-item-loops``. Guarantees: the same IR with hints added.

Before / after::

    scf.for %x = %c0 to %c16 step %c1 {
      ...
    } {mux.work_item_loop}
    // ==>
    scf.for %x = %c0 to %c16 step %c1 {
      ...
    } {mux.work_item_loop, xmux.loop_vectorize_width = 16 : i64}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xmux.dialects import attrs, mux
from xmux.transforms.uniformity import (
    VARYING_QUERIES,
    is_inside,
    is_pure,
    work_item_loop_header,
)

#: longest trip count hinted (LLVM's full unroller leaves longer loops to the vectorizer)
MAX_TRIP_COUNT = 32
#: widest hint on a target without SIMD registers to read (one 512-bit vector of f32); a
#: target's own is one of its vector registers of f32 (``#xmux.target``'s ``vector_floats``)
MAX_WIDTH = 16


def constant_index(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value.type, IndexType):
        return op.value.value.data  # type: ignore[union-attr]
    return None


def static_trip_count(loop: scf.ForOp) -> int | None:
    lb, ub, step = (constant_index(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(ub - lb + step - 1, 0) // step


_CASTS = (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp)


class _Strides:
    """Addresses in the body of a work-item loop of dimension ``dim``: uniform (the same for
    every iteration) or unit-stride (its work-item index plus a uniform value)."""

    def __init__(self, loop: scf.ForOp, dim: int) -> None:
        self.loop = loop
        self.dim = dim
        self.iv = loop.body.block.args[0]
        header = work_item_loop_header(loop)
        self.index = header[-1].value  # type: ignore[attr-defined]

    def uniform(self, v: SSAValue) -> bool:
        if not is_inside(v, self.loop):
            return True
        op = v.owner
        if not isinstance(op, Operation) or not is_pure(op) or op.parent_op() is not self.loop:
            return False
        if isinstance(op, VARYING_QUERIES) and (
            not isinstance(op, mux.DimQueryOp) or op.dim.value.data == self.dim
        ):
            return False
        return all(self.uniform(o) for o in op.operands)

    def unit(self, v: SSAValue) -> bool:
        if v is self.iv or v is self.index:
            return True
        op = v.owner
        if isinstance(op, (mux.GetLocalIdOp, mux.GetGlobalIdOp)):
            return op.dim.value.data == self.dim
        if isinstance(op, _CASTS):
            return self.unit(op.operands[0])
        if isinstance(op, arith.AddiOp):
            return (self.unit(op.lhs) and self.uniform(op.rhs)) or (
                self.unit(op.rhs) and self.uniform(op.lhs))
        if isinstance(op, arith.SubiOp):
            return self.unit(op.lhs) and self.uniform(op.rhs)
        return False


def vectorizable(loop: scf.ForOp) -> bool:
    """Whether LLVM can vectorize the work-item loop ``loop`` without runtime checks: a
    straight-line body (no region, no call) whose memory accesses are loads and stores at
    uniform or unit-stride addresses. (A hinted loop that LLVM cannot vectorize gets a "loop
    not vectorized" warning on stderr.)"""
    header = work_item_loop_header(loop)
    if not header:
        return False
    strides = _Strides(loop, header[-1].dim.value.data)  # type: ignore[attr-defined]
    for op in loop.body.block.ops:
        if op.regions or isinstance(op, (func.CallOp, llvm.CallOp)):
            return False
        if isinstance(op, (memref.LoadOp, memref.StoreOp)):
            indices = list(op.indices)
            if not strides.uniform(op.memref) or not all(
                strides.uniform(i) for i in indices[:-1]
            ):
                return False
            if indices and not (strides.uniform(indices[-1]) or strides.unit(indices[-1])):
                return False
        elif not (is_pure(op) or isinstance(op, mux.SetLocalIdOp)
                  or op is loop.body.block.last_op):
            return False
    return True


def hint_width(loop: scf.ForOp, max_width: int = MAX_WIDTH) -> int | None:
    """The width to hint for ``loop`` (at most ``max_width``), or None to leave it alone."""
    if not attrs.is_work_item_loop(loop) or attrs.get_loop_vectorize_width(loop) is not None:
        return None
    if not vectorizable(loop):
        return None
    trips = static_trip_count(loop)
    parent = loop.parent_op()
    in_uniform_loop = (isinstance(parent, scf.ForOp) and not attrs.is_work_item_loop(parent)
                       and not work_item_loop_header(parent))
    if trips is None:
        # the generic code (no local size yet) of an interchanged loop: LLVM's cost model
        # vectorizes the naive matmul's 4 lanes wide on an AVX2 host (the loop loads and
        # stores four rows of accumulators per k); one register's worth ran 1.55x faster
        return max_width if in_uniform_loop else None
    if not 4 <= trips <= MAX_TRIP_COUNT or in_uniform_loop:
        return None
    width = 1
    while width * 2 <= min(trips, max_width):
        width *= 2
    return width


@dataclass(frozen=True)
class WorkItemLoopVectorizeHints(ModulePass):
    """Give short work-item loops a vectorization width hint, so LLVM does not unroll them."""

    name = "work-item-loop-vectorize-hints"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = attrs.get_target(op)
        max_width = target.vector_floats if target.vector_bits.data else MAX_WIDTH
        for kernel in attrs.entry_points(op):
            for loop in kernel.walk():
                if isinstance(loop, scf.ForOp):
                    width = hint_width(loop, max_width)
                    if width is not None:
                        attrs.set_loop_vectorize_width(loop, width)
