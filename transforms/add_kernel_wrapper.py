"""add-kernel-wrapper: give each entry-point kernel a packed-argument wrapper.

For every entry point ``@k(args..., %wi, %wg, %sched)`` (after define-mux-builtins) the pass
adds ``@"k.mux-kernel-wrapper"(%packed, %wi, %wg, %sched)``, all ``!llvm.ptr``. The wrapper
loads each kernel argument from the packed-argument struct that ``%packed`` points to, converts
it to the kernel's argument type and calls ``@k``. The wrapper becomes the entry point
(``mux.base_name = "k"``, ``mux.orig_fn = @k``, the kernel attributes copied over) and ``@k``
becomes a ``sub_kernel``.

Packed struct layout (the ABI; ``runtime/abi.py`` mirrors it with ctypes): an ``!llvm.struct``
of the *lowered* argument types in order, natural C alignment:

- ``memref<...xT>`` of rank R → MLIR's descriptor
  ``!llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>`` (allocated, aligned,
  offset, sizes, strides; counted in elements), rank 0 → ``!llvm.struct<(ptr, ptr, i64)>``;
  the same for every layout and memory space (host: all address spaces are address space 0);
- ``index`` → ``i64``; ``i1`` → ``i8`` (0 or 1); other integers, floats, vectors of them and
  ``!llvm.ptr`` as they are.

The wrapper converts a loaded descriptor to the memref with ``builtin.unrealized_conversion_cast``
(convert-to-llvm turns the memref back into the same descriptor and the two casts cancel),
``i8`` to ``i1`` with ``arith.trunci`` and ``i64`` to ``index`` with ``arith.index_cast``.

Expects: entry points marked ``mux.kernel = "entry_point"`` returning nothing; with
``mux.scheduling_params`` the kernel's last three arguments are the scheduling pointers and are
passed through. Guarantees: exactly one entry point per original kernel, the wrapper.

Before::

    func.func @k(%a: memref<?xf32>, %n: index, %wi: !llvm.ptr, %wg: !llvm.ptr, %s: !llvm.ptr)
        attributes {mux.kernel = "entry_point", mux.scheduling_params}

After::

    func.func @k(...) attributes {mux.kernel = "sub_kernel", mux.scheduling_params}
    func.func @"k.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi: !llvm.ptr, %wg: !llvm.ptr,
                                      %s: !llvm.ptr)
        attributes {mux.base_name = "k", mux.kernel = "entry_point", mux.orig_fn = @k, ...} {
      %0 = llvm.getelementptr inbounds %packed[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(
          struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64)>
      %1 = llvm.load %0 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, ...)>
      %2 = builtin.unrealized_conversion_cast %1 : !llvm.struct<(...)> to memref<?xf32>
      %3 = llvm.getelementptr inbounds %packed[0, 1] : ...
      %4 = llvm.load %3 : !llvm.ptr -> i64
      %5 = arith.index_cast %4 : i64 to index
      func.call @k(%2, %5, %wi, %wg, %s) : (...) -> ()
      func.return
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    Signedness,
    UnrealizedConversionCastOp,
    VectorType,
    i1,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError, XmuxError
from xmux.dialects import attrs, llvmx

WRAPPER_SUFFIX = ".mux-kernel-wrapper"
PTR = llvm.LLVMPointerType()
NUM_SCHEDULING_PARAMS = 3


# ---------------------------------------------------------------------------------------
# The packed-argument layout (shared with runtime/abi.py and the lowering)
# ---------------------------------------------------------------------------------------


def descriptor_type(memref_type: MemRefType) -> llvm.LLVMStructType:
    """MLIR's ranked memref descriptor: (allocated, aligned, offset, sizes[R], strides[R])."""
    return llvmx.descriptor_type(memref_type.get_num_dims())


def _is_storable_scalar(t: Attribute) -> bool:
    return (isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS) or isinstance(
        t, AnyFloat
    )


def lowered_arg_type(t: Attribute) -> Attribute:
    """The type a kernel argument of type ``t`` has in the packed-argument struct."""
    if isinstance(t, MemRefType):
        return descriptor_type(t)
    if isinstance(t, IndexType):
        return i64
    if t == i1:
        return i8
    if _is_storable_scalar(t) or isinstance(t, llvm.LLVMPointerType):
        return t
    if isinstance(t, VectorType) and _is_storable_scalar(t.element_type) and t.element_type != i1:
        return t
    raise NotSupportedError(f"kernel argument type {t} cannot be passed in the packed arguments")


def packed_struct_type(arg_types: Sequence[Attribute]) -> llvm.LLVMStructType:
    """The packed-argument struct for kernel arguments of ``arg_types`` (in order)."""
    return llvm.LLVMStructType.from_type_list([lowered_arg_type(t) for t in arg_types])


def kernel_arg_types(fn: func.FuncOp) -> tuple[Attribute, ...]:
    """The user-visible argument types of a kernel (without the scheduling pointers)."""
    inputs = tuple(fn.function_type.inputs.data)
    if attrs.has_scheduling_params(fn):
        return inputs[: len(inputs) - NUM_SCHEDULING_PARAMS]
    return inputs


def copy_kernel_attrs(dst: Operation, src: Operation) -> None:
    """Copy the launch-relevant kernel attributes (sizes, order, local memory, the launch
    facts of ``attrs.copy_launch_facts``)."""
    attrs.set_reqd_work_group_size(dst, attrs.get_reqd_work_group_size(src))
    attrs.set_max_work_dim(dst, attrs.get_max_work_dim(src))
    if attrs.WORK_ITEM_ORDER in src.attributes:
        attrs.set_work_item_order(dst, attrs.get_work_item_order(src))
    if attrs.LOCAL_MEM_USAGE in src.attributes:
        attrs.set_local_mem_usage(dst, attrs.get_local_mem_usage(src))
    attrs.set_reqd_sub_group_size(dst, attrs.get_reqd_sub_group_size(src))
    attrs.set_cluster_dim(dst, attrs.get_cluster_dim(src))
    attrs.copy_launch_facts(dst, src)


@dataclass
class _Emitter:
    """Appends ops to a block (a tiny builder)."""

    block: Block

    def __call__(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]


def _load_arg(emit: _Emitter, packed: SSAValue, struct: llvm.LLVMStructType, index: int,
              arg_type: Attribute) -> SSAValue:
    stored = struct.types.data[index]
    ptr = emit(llvm.GEPOp(packed, [0, index], struct, inbounds=True))
    value = emit(llvm.LoadOp(ptr, stored))
    if isinstance(arg_type, MemRefType):
        return emit(UnrealizedConversionCastOp.get([value], [arg_type]))
    if isinstance(arg_type, IndexType):
        return emit(arith.IndexCastOp(value, arg_type))
    if arg_type == i1:
        return emit(arith.TruncIOp(value, i1))
    return value


def build_wrapper(kernel: func.FuncOp) -> func.FuncOp:
    name = kernel.sym_name.data
    if kernel.function_type.outputs.data:
        raise XmuxError(f"kernel '{name}' must not return values")
    arg_types = kernel_arg_types(kernel)
    try:
        struct = packed_struct_type(arg_types)
    except NotSupportedError as e:
        raise NotSupportedError(f"kernel '{name}': {e}") from None

    block = Block(arg_types=[PTR] * 4)
    packed, wi, wg, sched = block.args
    for v, hint in zip(block.args, ("packed", "wi_info", "wg_info", "sched_info"), strict=True):
        v.name_hint = hint
    emit = _Emitter(block)
    call_args = [_load_arg(emit, packed, struct, i, t) for i, t in enumerate(arg_types)]
    if attrs.has_scheduling_params(kernel):
        call_args += [wi, wg, sched]
    emit(func.CallOp(name, call_args, []))
    emit(func.ReturnOp())

    wrapper = func.FuncOp(name + WRAPPER_SUFFIX, ([PTR] * 4, []), Region(block))
    attrs.set_kernel(wrapper, True)
    attrs.set_base_name(wrapper, attrs.get_base_name(kernel))
    attrs.set_orig_fn(wrapper, name)
    attrs.set_scheduling_params(wrapper)
    copy_kernel_attrs(wrapper, kernel)
    return wrapper


def _is_generated(fn: func.FuncOp) -> bool:
    name = fn.sym_name.data
    return name.endswith(WRAPPER_SUFFIX) or name.endswith(".mux-entry-hook")


@dataclass(frozen=True)
class AddKernelWrapper(ModulePass):
    """Wrap each entry-point kernel in a function taking the packed-argument struct."""

    name = "add-kernel-wrapper"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in attrs.entry_points(op):
            if _is_generated(kernel):
                continue  # already wrapped
            wrapper = build_wrapper(kernel)
            Rewriter.insert_op(wrapper, InsertPoint.after(kernel))
            attrs.set_kernel(kernel, False)
