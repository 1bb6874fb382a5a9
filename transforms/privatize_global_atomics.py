"""privatize-global-atomics: a per-thread-slice copy of arrays that a kernel only updates
with result-less atomics of one kind (the OpenMP reduction idea applied to atomics).

A kernel such as a histogram, ``memref.atomic_rmw addi %one, %bins[%b]``, spends its time on
``lock``ed updates and, on several threads, on the counters' cache lines travelling between
cores. Where the updates are all of one commutative and associative kind and nothing reads
the array during the launch, each thread slice (add-entry-hook: the work-groups one call of
the entry hook runs, on one thread) can update a copy of its own, starting from the kind's
identity, and add its copy into the array at the slice's end with one relaxed atomic per
element that changed. The pass does the compile-time half; add-entry-hook the run-time half.

**Legality** (checked here, on the kernel as the CPU pipeline has it after define-mux-builtins:
callees that reach barriers inlined, work-item loops built). A kernel memref argument is
privatized when

- it is global memory (not memory space 3) with an integer element type of 8, 16, 32 or 64
  bits;
- every use of it is the memref operand of a ``memref.atomic_rmw`` whose result is unused
  (or only yielded by ``scf.if``s whose results are unused: the checking mode's guards),
  apart from ``memref.dim``s (its sizes: the copy's descriptor keeps them),
  all of one kind in ``addi``, ``ori``, ``andi``, ``maxs``, ``maxu``, ``mins``, ``minu`` (each
  commutative and associative on wrapping integers, with an identity, and an
  ``llvm.atomicrmw`` operation for the flush): no load, store, view, cast, call or other op
  sees it, so no value computed in the kernel depends on the array's contents;
- the kernel has no argument through which the array could be reached otherwise (only
  memrefs, integers, index, floats and vectors: no ``!llvm.ptr``), and the module has no
  mutable global memory (a host could pass a global as the argument that the kernel also
  reaches by name).

Then the final contents are the initial ones combined with every update, in any order and
grouping; the slices' partial results are such a grouping. Because nothing in the kernel reads
the array, no fence or barrier can make an intermediate value observable: a barrier orders
this work-group's accesses, a fence orders memory for an observer, and the only observers of
the array are the atomics themselves and the host after the launch (which the runtime's
join orders after every flush). Two arguments that are the same buffer, or overlap, would
break this (a load through the other argument, or two kinds on one array): the entry hook
checks at run time that no other memref argument's extent overlaps a privatized one, as
well as the copy's size (``MAX_PRIVATE_BYTES``) and that the slice has at least as many
work-items as the copy has elements; otherwise the slice runs the original kernel.

**What the pass does**: for each entry point with privatizable arguments it adds a clone,
``@"<k>.mux-privatized"`` (a ``sub_kernel``), whose atomics on those arguments carry the
unit attribute ``mux.slice_private``: the lowering (``lowering/to_llvm/memref_atomics.py``)
makes them plain updates inside work-item loops, left out of the loops' access groups, as it
does for local memory. The original kernel is left unchanged. add-entry-hook finds the clone
by name and gives it a wrapper and the slice-level copy, initialisation and flush.

Before::

    func.func @k(%d: memref<?xi8>, %bins: memref<256xi32>, ...)
        attributes {mux.kernel = "entry_point", ...} {
      ...
      %old = memref.atomic_rmw addi %one, %bins[%b] : (i32, memref<256xi32>) -> i32
    }

After::

    func.func @k(...) { ... unchanged ... }
    func.func @"k.mux-privatized"(%d: memref<?xi8>, %bins: memref<256xi32>, ...)
        attributes {mux.kernel = "sub_kernel", ...} {
      ...
      %old = memref.atomic_rmw addi %one, %bins[%b] {mux.slice_private}
          : (i32, memref<256xi32>) -> i32
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    VectorType,
)
from xdsl.ir import Attribute, BlockArgument, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs
from xmux.dialects.memref_atomic import ATOMIC_KINDS, SLICE_PRIVATE
from xmux.transforms.add_kernel_wrapper import kernel_arg_types
from xmux.transforms.replace_local_module_scope_variables import is_local_memref

PRIVATIZED_SUFFIX = ".mux-privatized"
#: the most bytes of slice-local copies (all of a kernel's together, on the slice's stack);
#: beyond it the slice runs the original kernel
MAX_PRIVATE_BYTES = 64 * 1024
#: privatizable kind → the ``llvm.atomicrmw`` operation of the flush
FLUSH_OPS = {
    "addi": "add",
    "ori": "or",
    "andi": "and",
    "maxs": "max",
    "maxu": "umax",
    "mins": "min",
    "minu": "umin",
}
_WIDTHS = (8, 16, 32, 64)


def identity(kind: str, width: int) -> int:
    """The kind's identity on ``width``-bit integers (signed form, as IntegerAttr takes it)."""
    if kind in ("addi", "ori", "maxu"):
        return 0
    if kind in ("andi", "minu"):
        return -1
    if kind == "maxs":
        return -(1 << (width - 1))
    assert kind == "mins", kind
    return (1 << (width - 1)) - 1


def _unused(v: SSAValue) -> bool:
    """No op reads ``v``: no uses, or only ``scf.yield``s of ``scf.if``s whose results are
    unused (checking mode puts the atomic under a bounds check that yields its old value)."""
    for use in v.uses:
        op = use.operation
        parent = op.parent_op()
        if not (isinstance(op, scf.YieldOp) and isinstance(parent, scf.IfOp)
                and _unused(parent.results[use.index])):
            return False
    return True


def _sole_atomic_kind(arg: BlockArgument) -> str | None:
    """The one kind of result-less atomics that are the only uses of ``arg``, else None."""
    t = arg.type
    if not isinstance(t, MemRefType) or is_local_memref(t):
        return None
    et = t.element_type
    if not isinstance(et, IntegerType) or et.width.data not in _WIDTHS:
        return None
    kinds: set[str] = set()
    for use in arg.uses:
        op = use.operation
        if isinstance(op, memref.DimOp):
            continue  # its size: the copy's descriptor keeps it
        if not isinstance(op, memref.AtomicRMWOp) or op.memref is not arg or not _unused(op.result):
            return None
        kinds.add(ATOMIC_KINDS.get(op.kind.value.data, "?"))
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    return kind if kind in FLUSH_OPS else None


def _plain_argument(t: Attribute) -> bool:
    """An argument that cannot point into another argument's buffer."""
    return isinstance(t, (MemRefType, IntegerType, IndexType, AnyFloat, VectorType))


def privatizable_args(kernel: func.FuncOp) -> dict[int, str]:
    """Argument index → atomic kind of the kernel's privatizable arguments (see the module
    docstring; the module-wide condition on globals is the pass's)."""
    if not kernel.body.blocks:
        return {}
    types = kernel_arg_types(kernel)
    if not all(_plain_argument(t) for t in types):
        return {}
    args = kernel.body.blocks[0].args[: len(types)]
    found = {i: _sole_atomic_kind(a) for i, a in enumerate(args)}
    return {i: k for i, k in found.items() if k is not None}


def _has_mutable_global_memory(module: ModuleOp) -> bool:
    for op in module.walk():
        if isinstance(op, memref.GlobalOp):
            if op.constant is None and not is_local_memref(op.type):
                return True
        elif isinstance(op, llvm.GlobalOp) and op.constant is None:
            return True
    return False


@dataclass(frozen=True)
class PrivatizeGlobalAtomics(ModulePass):
    """Add ``<k>.mux-privatized``, a copy of the kernel with its privatizable atomics marked.

    The mark is ``mux.slice_private``; add-entry-hook runs that copy of the kernel on
    per-slice copies of the arrays the atomics update."""

    name = "privatize-global-atomics"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if _has_mutable_global_memory(op):
            return
        symbols = {f.sym_name.data for f in op.ops if isinstance(f, func.FuncOp)}
        for kernel in attrs.entry_points(op):
            name = kernel.sym_name.data + PRIVATIZED_SUFFIX
            args = privatizable_args(kernel)
            if not args or name in symbols:
                continue
            variant = kernel.clone()
            variant.sym_name = StringAttr(name)
            attrs.set_kernel(variant, False)
            block_args = variant.body.blocks[0].args
            for i in args:
                for use in block_args[i].uses:
                    if isinstance(use.operation, memref.AtomicRMWOp):
                        use.operation.attributes[SLICE_PRIVATE] = UnitAttr()
            Rewriter.insert_op(variant, InsertPoint.after(kernel))


__all__ = [
    "FLUSH_OPS",
    "MAX_PRIVATE_BYTES",
    "PRIVATIZED_SUFFIX",
    "PrivatizeGlobalAtomics",
    "identity",
    "privatizable_args",
]
