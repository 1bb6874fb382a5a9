"""``memref.atomic_rmw`` → llvm: relaxed atomics on shared memory, plain updates where a
single thread owns the memory.

Ordering. ``memref.atomic_rmw`` promises an indivisible read-modify-write and nothing about
other memory (upstream's documentation: "free from data races"); the languages that reach it
mean relaxed atomics: OpenCL 1.2's ``atomic_add``/``atomic_inc``/… (OpenCL C 2.0 gives
them ``memory_order_relaxed``), CUDA's ``atomicAdd`` (relaxed, device scope), the ``gpu``
dialect's kernels. So they become ``monotonic`` (C++ ``relaxed``), not upstream
MLIR's ``acq_rel``: ordering other memory is the job of ``mux.mem_barrier`` /
``mux.work_group_barrier`` (fences) or of ``llvm.atomicrmw`` / ``llvm.fence`` written with an
explicit ordering, which pass through unchanged. On x86 both orderings are the same ``lock``
instruction; ``acq_rel`` also keeps LLVM from moving or merging unrelated loads and stores
across every atomic (an acquire is a barrier to hoisting, a release to sinking).

Where one thread owns the memory the update needs no atomic at all. On the CPU target a
work-group runs on one thread, work-item after work-item (docs/architecture.md), so
work-group local memory (memory space 3; replace-local-module-scope-variables keeps the
space on its views) and buffers private to a work-item iteration (``lw.private``) get a plain
load, the operation and a store: a ``lock`` costs ~20 cycles, the plain update 1-2. Those
accesses are left out of the work-item loop's access group, so LLVM does not take updates of
different work-items to the same element for independent; hence only updates lowered inside
a work-item loop of the function at hand (see ``single_thread_memory``). On NVPTX
(``shared_memory``) local memory is a block's shared memory, updated by many threads: it
stays atomic. So do updates marked ``mux.slice_private`` (privatize-global-atomics: the
thread slice's own copy of a global array), under the same work-item-loop condition.

    %old = memref.atomic_rmw addi %v, %g[%i] : (i32, memref<?xi32>) -> i32
    %oldl = memref.atomic_rmw addi %v, %l[%i] : (i32, memref<256xi32, 3>) -> i32
  →
    %old = llvm.atomicrmw add %p, %v monotonic : !llvm.ptr, i32
    %x = llvm.load %q : !llvm.ptr -> i32
    %n = llvm.add %x, %v : i32
    llvm.store %n, %q : i32, !llvm.ptr

Kinds LLVM's ``atomicrmw`` lacks (mulf, muli, maximumf, minimumf) are a compare-and-swap
loop, relaxed too; its first read is an atomic (monotonic) load, so no read races.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import llvm, memref
from xdsl.dialects.builtin import AnyFloat, DenseArrayBase, IntegerType, MemRefType, i1, i64
from xdsl.ir import Attribute, Operation, SSAValue

from xmux.dialects import llvm as llvm_ext
from xmux.dialects import llvmx
from xmux.dialects.memref_atomic import ATOMIC_KINDS, ORDERING, SLICE_PRIVATE
from xmux.lowering.to_llvm.core import FunctionLowerer, Handler
from xmux.lowering.to_llvm.memref import LOCAL_MEMORY_SPACE, element_address
from xmux.lowering.to_llvm.types import alignment_of, intrinsic_suffix

#: kind → ``llvm.atomicrmw`` operation, where LLVM has one
RMW_OPS = {
    "addf": "fadd",
    "addi": "add",
    "assign": "xchg",
    "maxs": "max",
    "maxu": "umax",
    "mins": "min",
    "minu": "umin",
    "ori": "or",
    "andi": "and",
    "maxnumf": "fmax",
    "minnumf": "fmin",
}
#: kind → LLVM intrinsic (without its type suffix) computing the new value
_INTRINSICS = {
    "maximumf": "maximum",
    "minimumf": "minimum",
    "maxnumf": "maxnum",
    "minnumf": "minnum",
    "maxs": "smax",
    "maxu": "umax",
    "mins": "smin",
    "minu": "umin",
}

Combine = Callable[[FunctionLowerer, SSAValue, SSAValue], SSAValue]


def combine(kind: str) -> Combine:
    """``(lw, old, value) -> new`` for an atomic kind."""

    def run(lw: FunctionLowerer, a: SSAValue, b: SSAValue) -> SSAValue:
        if kind == "assign":
            return b
        if kind in _INTRINSICS:
            name = f"llvm.{_INTRINSICS[kind]}.{intrinsic_suffix(a.type)}"
            res = lw.intrinsic(name, [a, b], a.type)
            assert res is not None
            return res
        ops: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
            "addf": llvm.FAddOp,
            "mulf": llvm.FMulOp,
            "addi": llvm_ext.AddOp,
            "muli": llvm_ext.MulOp,
            "ori": llvm.OrOp,
            "andi": llvm.AndOp,
        }
        return lw.emit_value(ops[kind](a, b))

    return run


def atomic_update(
    lw: FunctionLowerer,
    ptr: SSAValue,
    value_type: Attribute,
    update: Callable[[SSAValue], SSAValue],
    ordering: str = ORDERING,
) -> SSAValue:
    """A cmpxchg loop applying ``update`` atomically; returns the old value."""
    int_t = value_type
    if isinstance(value_type, AnyFloat):
        int_t = IntegerType(value_type.bitwidth)
    first = llvm.LoadOp(ptr, value_type, alignment=alignment_of(value_type),
                        ordering=llvmx.ORDERING_VALUES["monotonic"])
    init = lw.emit_value(first)
    loop = lw.new_block([value_type])
    done = lw.new_block()
    lw.emit(llvm.BrOp(loop, init))
    lw.start(loop)
    old = loop.args[0]
    new = update(old)

    def as_int(v: SSAValue) -> SSAValue:
        return v if int_t == value_type else lw.emit_value(llvm.BitcastOp(v, int_t))

    pair = lw.emit_value(
        llvmx.AtomicCmpXchgOp(ptr, as_int(old), as_int(new), ordering, "monotonic")
    )
    seen = lw.emit_value(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [0]), pair, int_t))
    ok = lw.emit_value(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), pair, i1))
    if int_t != value_type:
        seen = lw.emit_value(llvm.BitcastOp(seen, value_type))
    lw.emit(llvm.CondBrOp(ok, done, [], loop, [seen]))
    lw.start(done)
    return old


def single_thread_memory(lw: FunctionLowerer, ref: SSAValue) -> bool:
    """Whether only the running thread can touch ``ref``'s elements during the update: a
    work-item's private buffer, or work-group local memory on the CPU target; and the update
    is lowered inside a work-item loop of this function. Elsewhere (a helper function) the
    plain accesses could not stay out of the loop's access group: LLVM's inliner gives the
    inlined accesses the call's groups, and the vectorizer would take the updates of
    different work-items for independent (a scatter losing counts), so they stay atomic."""
    if not lw.groups:
        return False
    if ref in lw.private:
        return True
    t = ref.type
    if lw.mod.shared_memory or not isinstance(t, MemRefType):
        return False
    space = t.memory_space
    return getattr(getattr(space, "value", None), "data", None) == LOCAL_MEMORY_SPACE


def lower_atomic_rmw(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.AtomicRMWOp)
    kind = ATOMIC_KINDS.get(op.kind.value.data)
    if kind is None:
        raise lw.error(op, f"unknown atomic kind {op.kind.value.data}")
    ptr = element_address(lw, op.memref, op.indices)
    value = lw.get(op.value)
    slice_private = SLICE_PRIVATE in op.attributes and lw.groups and not lw.mod.shared_memory
    if slice_private or single_thread_memory(lw, op.memref):
        with lw.untagged():
            res = lw.emit_value(llvm.LoadOp(ptr, value.type))
            lw.emit(llvm.StoreOp(combine(kind)(lw, res, value), ptr))
    elif kind in RMW_OPS:
        res = lw.emit_value(llvmx.AtomicRMWOp(RMW_OPS[kind], ptr, value, ORDERING))
    else:
        run = combine(kind)
        res = atomic_update(lw, ptr, value.type, lambda old: run(lw, old, value))
    lw.set(op.result, res)


HANDLERS: dict[str, Handler] = {"memref.atomic_rmw": lower_atomic_rmw}
