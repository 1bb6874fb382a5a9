"""add-kernel-wrapper-nvptx: give each entry-point kernel its PTX entry function.

The NVPTX form of add-kernel-wrapper. For every entry point ``@k(args..., %launch)``
(after define-mux-builtins-nvptx) the kernel becomes ``@"k.mux-kernel"`` (a ``sub_kernel``)
and a new ``@k`` takes the flattened parameters of ``abi/nvptx_abi.py``, rebuilds each
memref descriptor and the launch record from them and calls it. ``@k`` carries upstream's
``nvvm.kernel`` marker (emitted as a ``ptx_kernel`` function), ``mux.kernel =
"entry_point"``, ``mux.base_name = "k"`` and ``mux.orig_fn = @"k.mux-kernel"``.

- ``memref`` of rank R: ``!llvm.ptr`` (allocated = aligned pointer), ``i64`` offset, R
  sizes, R strides (the descriptor's fields; a static size is still passed, and is what the
  runtime checked); work-group local memory (memory space 3): an ``i64`` byte offset into
  ``@__xmux_dynamic_shared`` (``extern`` shared memory sized at launch) stands for the
  pointer;
- ``index`` → ``i64``; ``i1`` → ``i8`` (0 or 1); others as they are;
- the launch record: ``LAUNCH_FIELDS`` trailing ``i64`` parameters.

Read-only arguments (``abi/nvptx_variants.py``): the memref arguments the kernel only reads
(``arg_access.only_read``: no write, no escaping address, also in the functions it calls)
get ``llvm.noalias`` pointer parameters, which lets LLVM load them with ``ld.global.nc``.
That is sound only when no other argument overlaps them: if every memref argument is only
read, ``@k`` itself is marked; else ``@k`` stays generic and a second PTX entry
``@k__xmux_ro_<positions>`` (``nvvm.kernel``, not a ``mux.kernel`` entry point: the runtime
finds it by name) has the marks, and the runtime launches it only when the buffers of the
launch are disjoint. The kernel body then has two callers and is marked ``alwaysinline``
(``passthrough``), so both entries inline it as the lone entry did. No marks where the kernel
takes an ``!llvm.ptr`` or makes one from an integer (``llvm.inttoptr``) that is not a memref's
own address (an atomic's, whose memref is then not marked): memory reached that way is no
argument's. Option ``read-only-variants=false``: no marks, no variant.

Expects: define-mux-builtins-nvptx has run (entry points that need it end in ``%launch``).
Guarantees: one entry point per original kernel, named as it (plus, at most, its read-only
variant); nothing else changes.

Before::

    func.func @k(%a: memref<?xf32>, %launch: !llvm.array<16 x i64>)
        attributes {mux.kernel = "entry_point", mux.scheduling_params}

After::

    func.func @"k.mux-kernel"(...) attributes {mux.kernel = "sub_kernel", ...}
    func.func @k(%a: !llvm.ptr, %a_offset: i64, %a_size0: i64, %a_stride0: i64,
                 %launch0: i64, ..., %launch15: i64)
        attributes {mux.kernel = "entry_point", nvvm.kernel, mux.base_name = "k", ...} {
      %0 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
      %1 = llvm.insertvalue %a, %0[0] : ...
      ...
      %d = builtin.unrealized_conversion_cast %5 : !llvm.struct<(...)> to memref<?xf32>
      %l = llvm.mlir.undef : !llvm.array<16 x i64>
      ...
      func.call @"k.mux-kernel"(%d, %l16) : (memref<?xf32>, !llvm.array<16 x i64>) -> ()
      func.return
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    UnrealizedConversionCastOp,
    i1,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi import nvptx_abi as abi
from xmux.abi import nvptx_variants
from xmux.abi.errors import XmuxError
from xmux.dialects import attrs
from xmux.dialects.llvmx import NVVM_KERNEL
from xmux.transforms.add_kernel_wrapper import copy_kernel_attrs, descriptor_type
from xmux.transforms.arg_access import only_read
from xmux.transforms.define_mux_builtins_nvptx import LAUNCH_TYPE
from xmux.transforms.replace_local_module_scope_variables import is_local_memref

PASS = "add-kernel-wrapper-nvptx"
BODY_SUFFIX = ".mux-kernel"
PTR = llvm.LLVMPointerType()
SHARED_PTR = llvm.LLVMPointerType(IntAttr(3))
#: function attributes for LLVM, as upstream's func-to-llvm carries them (``passthrough``)
PASSTHROUGH = "passthrough"


def param_types(t: Attribute) -> list[Attribute]:
    """The PTX parameters standing for one kernel argument of type ``t``."""
    if isinstance(t, MemRefType):
        rank = len(t.shape)
        return [i64 if is_local_memref(t) else PTR, i64, *[i64] * (2 * rank)]
    if isinstance(t, IndexType):
        return [i64]
    if t == i1:
        return [i8]
    return [t]


@dataclass
class _Emitter:
    block: Block

    def __call__(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def insert(self, container: SSAValue, value: SSAValue, *position: int) -> SSAValue:
        return self(
            llvm.InsertValueOp(DenseArrayBase.from_list(i64, list(position)), container, value)
        )


def _shared_base(emit: _Emitter, module: ModuleOp) -> SSAValue:
    if abi.DYNAMIC_SHARED not in {
        o.sym_name.data for o in module.ops if isinstance(o, llvm.GlobalOp)
    }:
        module.body.block.add_op(
            llvm.GlobalOp(
                llvm.LLVMArrayType(IntAttr(0), i8),
                abi.DYNAMIC_SHARED,
                "external",
                addr_space=3,
                alignment=abi.LOCAL_ARG_ALIGN,
            )
        )
    from xmux.dialects import llvmx

    shared = emit(llvm.AddressOfOp(abi.DYNAMIC_SHARED, SHARED_PTR))
    return emit(llvmx.AddrSpaceCastOp(shared, PTR))


def _memref_arg(
    emit: _Emitter, module: ModuleOp, t: MemRefType, params: list[SSAValue]
) -> SSAValue:
    rank = len(t.shape)
    pointer = params[0]
    if is_local_memref(t):
        base = _shared_base(emit, module)
        pointer = emit(llvm.GEPOp(base, [llvm.GEP_USE_SSA_VAL], i8, ssa_indices=[pointer]))
    desc = emit(llvm.UndefOp(descriptor_type(t)))
    desc = emit.insert(desc, pointer, 0)
    desc = emit.insert(desc, pointer, 1)
    desc = emit.insert(desc, params[1], 2)
    for d in range(rank):
        desc = emit.insert(desc, params[2 + d], 3, d)
        desc = emit.insert(desc, params[2 + rank + d], 4, d)
    return emit(UnrealizedConversionCastOp.get([desc], [t]))


def build_entry(kernel: func.FuncOp, module: ModuleOp, name: str,
                noalias: frozenset[int] = frozenset(), symbol: str | None = None) -> func.FuncOp:
    """The entry ``@name`` calling ``kernel`` (already renamed ``name`` + BODY_SUFFIX);
    ``noalias``: the memref arguments whose pointer parameter is marked; ``symbol``: the
    entry's own name when it is a read-only variant (then not a ``mux.kernel`` entry)."""
    if kernel.function_type.outputs.data:
        raise XmuxError(f"{PASS}: kernel '{name}' must not return values")
    inputs = list(kernel.function_type.inputs.data)
    has_launch = attrs.has_scheduling_params(kernel)
    user_types = inputs[:-1] if has_launch else inputs
    block = Block()
    emit = _Emitter(block)
    call_args: list[SSAValue] = []
    marks: list[DictionaryAttr] = []
    for i, t in enumerate(user_types):
        hint = kernel.body.blocks.first.args[i].name_hint if kernel.body.blocks else None
        params = [block.insert_arg(p, len(block.args)) for p in param_types(t)]
        params[0].name_hint = hint
        marks += [DictionaryAttr({"llvm.noalias": UnitAttr()} if i in noalias else {})]
        marks += [DictionaryAttr({})] * (len(params) - 1)
        if isinstance(t, MemRefType):
            call_args.append(_memref_arg(emit, module, t, params))
        elif isinstance(t, IndexType):
            call_args.append(emit(arith.IndexCastOp(params[0], t)))
        elif t == i1:
            call_args.append(emit(arith.TruncIOp(params[0], i1)))
        else:
            call_args.append(params[0])
    launch_params = [block.insert_arg(i64, len(block.args)) for _ in range(abi.LAUNCH_FIELDS)]
    if has_launch:
        record = emit(llvm.UndefOp(LAUNCH_TYPE))
        for i, v in enumerate(launch_params):
            record = emit.insert(record, v, i)
        call_args.append(record)
    emit(func.CallOp(name + BODY_SUFFIX, call_args, []))
    emit(func.ReturnOp())

    marks += [DictionaryAttr({})] * (len(block.args) - len(marks))
    entry = func.FuncOp(symbol or name, ([a.type for a in block.args], []), Region(block),
                        arg_attrs=ArrayAttr(marks) if noalias else None)
    if symbol is None:
        attrs.set_kernel(entry, True)
    attrs.set_base_name(entry, attrs.get_base_name(kernel))
    attrs.set_orig_fn(entry, name + BODY_SUFFIX)
    copy_kernel_attrs(entry, kernel)
    entry.attributes[NVVM_KERNEL] = UnitAttr()
    return entry


def read_only_args(kernel: func.FuncOp, symbols: dict[str, func.FuncOp]) -> tuple[
        frozenset[int], bool]:
    """The positions of the (global) memref arguments ``kernel`` only reads, and whether
    those are all of its memref arguments; nothing where memory may be reached through a
    pointer that is no argument's (an ``!llvm.ptr`` argument, ``llvm.inttoptr``)."""
    from xmux.transforms.lower_work_group_collectives import reachable_functions

    if not kernel.body.blocks:
        return frozenset(), False
    inputs = kernel.function_type.inputs.data
    if any(isinstance(t, llvm.LLVMPointerType) for t in inputs):
        return frozenset(), False
    for name in reachable_functions(kernel, symbols):
        for o in symbols[name].walk():
            if isinstance(o, llvm.IntToPtrOp) and not _from_memref_address(o.operands[0]):
                return frozenset(), False
    args = kernel.body.blocks[0].args
    memrefs = [i for i, t in enumerate(inputs)
               if isinstance(t, MemRefType) and not is_local_memref(t)]
    marked = frozenset(i for i in memrefs if only_read(args[i], symbols))
    return marked, len(marked) == len(memrefs)


def _from_memref_address(v: SSAValue) -> bool:
    """``v`` is a memref's address (``extract_aligned_pointer_as_index``) plus integer
    arithmetic: an atomic's pointer (lower-generic-atomic-rmw, the OpenACC expansions). The
    memref is then not marked (``only_read`` refuses an escaping address), so the runtime's
    check covers its memory."""
    step = (arith.IndexCastOp, arith.AddiOp, arith.SubiOp, arith.MuliOp)
    seen = 0
    while seen < 64:
        seen += 1
        owner = v.owner
        if isinstance(owner, memref.ExtractAlignedPointerAsIndexOp):
            return True
        if not isinstance(owner, step):
            return False
        # follow the operand that carries the address (the other one is an offset)
        sources = [x for x in owner.operands if _may_carry_address(x)]
        if not sources:
            return False
        v = sources[0]
    return False


def _may_carry_address(v: SSAValue) -> bool:
    """Whether ``v`` may carry an address (not a constant, not a block argument)."""
    return isinstance(v.owner, Operation) and not isinstance(v.owner, arith.ConstantOp)


def _rename_calls(module: ModuleOp, old: str, new: str) -> None:
    for op in module.walk():
        if isinstance(op, func.CallOp) and op.callee.string_value() == old:
            replacement = func.CallOp(new, list(op.arguments), op.result_types)
            replacement.attributes.update(op.attributes)
            Rewriter.replace_op(op, replacement)


@dataclass(frozen=True)
class AddKernelWrapperNvptx(ModulePass):
    """Give each entry-point kernel a PTX entry taking the flattened parameters."""

    name = "add-kernel-wrapper-nvptx"

    #: the read-only marks and variants (module docstring)
    read_only_variants: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        symbols = attrs.functions(op)
        # the runtime takes an entry named like a variant for one: no variants if a user's is
        variants = self.read_only_variants and not any(
            nvptx_variants.SUFFIX in k.sym_name.data for k in attrs.entry_points(op))
        for kernel in attrs.entry_points(op):
            if NVVM_KERNEL in kernel.attributes:
                continue  # already wrapped
            name = kernel.sym_name.data
            marked, everyone = (read_only_args(kernel, symbols) if variants
                                else (frozenset(), False))
            variant = nvptx_variants.variant_name(name, sorted(marked))
            if marked and not everyone and variant in symbols:
                marked = frozenset()  # the name is taken: no variant
            attrs.set_base_name(kernel, attrs.get_base_name(kernel))  # before the rename
            _rename_calls(op, name, name + BODY_SUFFIX)
            kernel.sym_name = StringAttr(name + BODY_SUFFIX)
            entry = build_entry(kernel, op, name, marked if everyone else frozenset())
            Rewriter.insert_op(entry, InsertPoint.after(kernel))
            if marked and not everyone:
                other = build_entry(kernel, op, name, marked, symbol=variant)
                Rewriter.insert_op(other, InsertPoint.after(entry))
                kernel.attributes[PASSTHROUGH] = ArrayAttr([StringAttr("alwaysinline")])
            attrs.set_kernel(kernel, False)
