"""hoist-uniform-loads: read work-group-invariant memory once per work-item loop, not per item.

A kernel that reads coefficients or parameters from a buffer (``memref.load %w[%c3]``) does so
in every work-item. After ``work-item-loops`` those loads sit in the work-item loop's body, and
LLVM's LICM cannot move them out: a store of the kernel (to ``%out``) might alias the buffer.
The vectorized loop then loads and broadcasts every coefficient on every iteration (the bench's
conv3x3 with its 9 coefficients in a buffer: 0.49 ms, 0.40 ms with them hoisted).

OpenCL's memory model has the missing fact: a store of one work-item and an access of another
to the same location without a barrier between them are a data race, and a racy kernel's
result is undefined. So a load whose address is the same for every work-item of the loop, and
that comes before anything that may write memory in the work-item's own program order, reads
the same value in every work-item of a race-free kernel: reading it once, in front of the
loop, is one of the kernel's executions. (PoCL's and OCK's uniformity analyses make the same
use of the rule for their work-item loops.) The pass moves such loads, and the uniform pure
ops that compute their operands, in front of the innermost work-item loop, then out of the
enclosing work-item loops of the nest while the same holds there. A load under control flow,
from a private allocation of the body, at an address that depends on the work-item, or after
a store, an atomic, a call or a fence in the body stays where it is.

Expects: the output of ``work-item-loops`` (bodies between barriers are ``mux.work_item_loop``
loops). Guarantees: the same results for race-free kernels; a hoisted load runs once per
execution of the loop nest (every work-item ran it unconditionally, so it cannot fault where
the kernel would not).

Before::

    scf.for %x = %c0 to %ls0 step %c1 {
      mux.set_local_id 0, %x : index
      %i = mux.get_global_id 0 : index
      %c3 = arith.constant 3 : index
      %w3 = memref.load %w[%c3] : memref<9xf32>
      %v = memref.load %in[%i] : memref<?xf32>
      %r = arith.mulf %v, %w3 : f32
      memref.store %r, %out[%i] : memref<?xf32>
    } {mux.work_item_loop}

After::

    %c3 = arith.constant 3 : index
    %w3 = memref.load %w[%c3] : memref<9xf32>
    scf.for %x = %c0 to %ls0 step %c1 {
      mux.set_local_id 0, %x : index
      %i = mux.get_global_id 0 : index
      %v = memref.load %in[%i] : memref<?xf32>
      %r = arith.mulf %v, %w3 : f32
      memref.store %r, %out[%i] : memref<?xf32>
    } {mux.work_item_loop}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm, memref, scf, vector
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, is_side_effect_free

from xmux.dialects import attrs, mux
from xmux.transforms.uniformity import is_inside, is_uniform_pure, work_item_loop_header

#: ops that read memory and write none
_READS = (memref.LoadOp, llvm.LoadOp, vector.LoadOp, vector.MaskedLoadOp)


def may_write(op: Operation) -> bool:
    """Whether ``op`` (or an op nested in it) may write memory or order memory accesses:
    anything but reads, work-item queries and side-effect-free ops."""
    for o in op.walk():
        if isinstance(o, (*_READS, mux.WorkItemQuery, mux.SetLocalIdOp)):
            continue
        if o.regions or o.has_trait(IsTerminator) or is_side_effect_free(o):
            continue
        return True
    return False


def _invariant(v: SSAValue, loop: scf.ForOp, moving: set[Operation]) -> bool:
    return not is_inside(v, loop) or v.owner in moving


def _hoist_from(loop: scf.ForOp) -> list[Operation]:
    """Move the hoistable loads of ``loop``'s body (with the pure ops they need) in front of
    it; returns the loads moved."""
    moving: set[Operation] = set()
    loads: list[Operation] = []
    for op in loop.body.block.ops:
        if isinstance(op, memref.LoadOp):
            if not all(_invariant(v, loop, moving) for v in op.operands):
                continue
            moving.add(op)
            loads.append(op)
        elif may_write(op):
            break  # later loads may read what this op (or another work-item) wrote
        elif is_uniform_pure(op) and not op.regions and all(
            _invariant(v, loop, moving) for v in op.operands
        ):
            moving.add(op)
    if not loads:
        return []
    # only the pure ops the loads need move with them
    needed: set[Operation] = set()
    work = list(loads)
    while work:
        op = work.pop()
        if op in needed:
            continue
        needed.add(op)
        work.extend(v.owner for v in op.operands if isinstance(v.owner, Operation)
                    and v.owner in moving)
    for op in [o for o in loop.body.block.ops if o in needed]:
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(loop))
    return loads


def _work_item_loop_nests(kernel: Operation) -> list[scf.ForOp]:
    """Work-item loops that hold no other work-item loop, innermost dimension first."""
    loops = [o for o in kernel.walk() if isinstance(o, scf.ForOp) and attrs.is_work_item_loop(o)]
    return [
        lp for lp in loops
        if not any(isinstance(o, scf.ForOp) and o is not lp and attrs.is_work_item_loop(o)
                   for o in lp.walk())
    ]


def _is_work_item_loop_nest_level(loop: scf.ForOp) -> bool:
    """A loop of ``work-item-loops``' nests: marked, or setting a local id at the top of its
    body (the outer dimensions' loops)."""
    return attrs.is_work_item_loop(loop) or bool(work_item_loop_header(loop))


@dataclass(frozen=True)
class HoistUniformLoads(ModulePass):
    """Hoist loads of work-group-invariant memory out of the work-item loops."""

    name = "hoist-uniform-loads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in attrs.entry_points(op):
            for loop in _work_item_loop_nests(kernel):
                level: Operation | None = loop
                while (
                    isinstance(level, scf.ForOp)
                    and _is_work_item_loop_nest_level(level)
                    and _hoist_from(level)
                ):
                    level = level.parent_op()
