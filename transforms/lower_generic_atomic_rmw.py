"""lower-generic-atomic-rmw: ``memref.generic_atomic_rmw`` as a compare-and-swap loop.

Upstream MLIR's read-modify-write with a body (``dialects/memref_atomic.py``) has no single
machine atomic: as upstream's own lowering does, the element is read, the body computes the new
value from it, and a ``cmpxchg`` stores that value only if the element still holds what was
read; otherwise the loop runs the body again on the value the ``cmpxchg`` saw. The op's result
is the element's value before the successful swap. The same loop as ``convert-acc-to-oacc``
builds for an ``acc.atomic.update`` it cannot map to one ``atomicrmw``
(``transforms/openacc/atomics.py``), on the element's address computed from the memref's
strided metadata.

Expects: element types of 8 to 64 bits (integers, index, f16/f32/f64; i1 travels as i8).
Guarantees: no ``memref.generic_atomic_rmw`` left; each update atomic with respect to the
other atomics on the element and relaxed (``monotonic``, as ``memref.atomic_rmw``: it orders no
other memory; docs/architecture.md, *Atomics*). Runs before work-item-loops (a kernel stage);
a module without the op is unchanged.

Before::

    %old = memref.generic_atomic_rmw %m[%i] : memref<?xi32> {
    ^bb0(%cur: i32):
      %new = arith.muli %cur, %c3 : i32
      memref.atomic_yield %new : i32
    }

After (in outline)::

    %base, %off, %size, %stride = memref.extract_strided_metadata %m : ...
    %p = llvm.getelementptr (inttoptr (aligned pointer of %m)) [%off + %i * %stride] : i32
    %start = llvm.load %p : !llvm.ptr -> i32
    %old, %new = scf.while (%cur = %start) : (i32) -> (i32, i32) {
      %new = arith.muli %cur, %c3 : i32
      %pair = cmpxchg %p, %cur, %new monotonic monotonic : i32
      ...                      // continue while the swap failed, on the value it saw
    } do { ... }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, llvm, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, i64
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.lazy_import import lazy_module
from xmux.dialects.memref_atomic import AtomicYieldOp, GenericAtomicRMWOp
from xmux.transforms.lower_work_group_collectives import Ops

# the cmpxchg loop of acc.atomic.update, imported for modules that need it (with the acc dialect)
atomics = lazy_module("xmux.transforms.openacc.atomics")


def _element_pointer(b: Ops, op: GenericAtomicRMWOp, where: str) -> SSAValue:
    """The address of ``memref[indices]``: aligned pointer + offset + sum(index * stride)."""
    t = op.memref.type
    assert isinstance(t, MemRefType)
    meta = memref.ExtractStridedMetaDataOp(op.memref)
    b(meta)
    linear = meta.offset
    for idx, stride in zip(op.indices, meta.strides, strict=True):
        linear = b(arith.AddiOp(linear, b(arith.MuliOp(idx, stride))))
    base = b(memref.ExtractAlignedPointerAsIndexOp.get(op.memref))
    ptr = b(llvm.IntToPtrOp(b(arith.IndexCastOp(base, i64))))
    it = atomics._bits(t.element_type, where)  # noqa: SLF001
    return b(llvm.GEPOp(ptr, [llvm.GEP_USE_SSA_VAL], it,
                        ssa_indices=[b(arith.IndexCastOp(linear, i64))]))


def lower(op: GenericAtomicRMWOp) -> None:
    lw = atomics._Lowerer(op)  # noqa: SLF001
    b = Ops()
    ptr = _element_pointer(b, op, lw.where)
    block = op.body.block
    y = block.last_op
    assert isinstance(y, AtomicYieldOp)
    body = [o for o in block.ops if o is not y]
    old, _ = lw._cas_loop(b, ptr, op.result.type, block, body, y.result,  # noqa: SLF001
                          ordering="monotonic")
    Rewriter.insert_op(b.ops, InsertPoint.before(op))
    op.result.replace_all_uses_with(old)
    Rewriter.erase_op(op)


@dataclass(frozen=True)
class LowerGenericAtomicRMW(ModulePass):
    """Lower ``memref.generic_atomic_rmw`` to a cmpxchg loop around its body."""

    name = "lower-generic-atomic-rmw"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for rmw in [o for o in op.walk() if isinstance(o, GenericAtomicRMWOp)]:
            lower(rmw)
