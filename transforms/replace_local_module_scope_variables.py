"""replace-local-module-scope-variables: work-group local globals → one per-group allocation.

A ``memref.global`` in memory space 3 (``memref<16x16xf32, 3>``, OpenCL ``__local``) holds
one value per *work-group*. On the host every work-group function call runs one group, so the
pass turns all such globals into fields of one struct that each entry-point kernel ``alloca``s
at the top of its body (outside the work-item loops made by work-item-loops, hence once per
group and private to the thread running it).

- Layout: the globals in module order, each field an ``!llvm.array<N x T>`` (``index`` as i64,
  ``i1`` as i8) at an offset aligned to max(16, element alignment, the global's ``alignment``)
  so vector loads stay aligned; explicit ``!llvm.array<P x i8>`` padding fields make LLVM's
  natural layout equal to these offsets. The alloca is aligned to the largest field alignment.
- Each ``memref.get_global @g`` in a function is replaced by a view built once at the top of
  the function: a pointer to the field (``llvm.getelementptr``) put into a memref descriptor
  (``llvm.insertvalue``: allocated = aligned = field, offset, static sizes and strides) and
  ``builtin.unrealized_conversion_cast`` to the global's memref type. The type keeps memory
  space 3, so users (loads, subviews, calls) need no retyping; convert-to-llvm maps every memref
  memory space to LLVM address space 0 on the host, so the cast folds away.
- Helper functions (not entry points) that use a local global, directly or through calls, get
  the struct pointer as an extra trailing ``!llvm.ptr`` argument, and every ``func.call`` to them
  passes it on (transitively, recursion included). define-mux-builtins, which runs next, appends
  its scheduling pointers after it.
- Each entry point that allocates gets ``mux.local_mem_usage`` increased by the struct size.
- The local globals are erased. A local global with an initial value is an error (work-group
  local memory is uninitialised); so is a dynamic shape or a dynamic strided layout.

A struct over ``HEAP_THRESHOLD`` bytes (256 KiB) comes from the heap instead: the kernel calls
``aligned_alloc`` at its top and ``free`` before each return (a 16 MiB local array on a
worker's stack overflowed it and killed the process).

Guard space: the allocation (stack or heap) has ``guard_bytes`` on each side of the struct
(its size, between ``MIN_GUARD`` and ``MAX_GUARD``): an out-of-bounds access a little past a
local array, undefined without the checking mode, then writes into the guard rather than into
the work-item loops' state or the runtime's data beside it (``tile[lid + 2]`` of a 16-element
tile made the next launch spin forever). The worst outcome is wrong data in the user's own
local arrays.

All local globals share one struct (a helper's field offsets must be the same whichever kernel
calls it), so a kernel allocates the whole struct even when it uses only some fields.

Before::

    memref.global "private" @tile : memref<16x16xf32, 3> = uninitialized
    func.func @k(...) attributes {mux.kernel = "entry_point"} {
      scf.for ... {
        %t = memref.get_global @tile : memref<16x16xf32, 3>
        memref.store %v, %t[%i, %j] : memref<16x16xf32, 3>
      }
    }

After::

    func.func @k(...) attributes {mux.kernel = "entry_point", mux.local_mem_usage = 1024 : i64} {
      %c1 = arith.constant 1 : i64
      %guarded = llvm.alloca %c1 x !llvm.array<3072 x i8> {alignment = 16 : i64}
      %locals = llvm.getelementptr inbounds %guarded[1024] : (!llvm.ptr) -> !llvm.ptr, i8
      %p = llvm.getelementptr inbounds %locals[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<...>
      ... llvm.mlir.undef / llvm.insertvalue building the descriptor ...
      %tile = builtin.unrealized_conversion_cast %d : !llvm.struct<(...)> to memref<16x16xf32, 3>
      scf.for ... {
        memref.store %v, %tile[%i, %j] : memref<16x16xf32, 3>
      }
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnitAttr,
    UnrealizedConversionCastOp,
    VectorType,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError, XmuxError
from xmux.dialects import attrs
from xmux.transforms.add_kernel_wrapper import PTR, descriptor_type

LOCAL_MEMORY_SPACE = 3
MIN_FIELD_ALIGN = 16


def is_local_memref(t: Attribute) -> bool:
    space = t.memory_space if isinstance(t, MemRefType) else None
    return isinstance(space, IntegerAttr) and space.value.data == LOCAL_MEMORY_SPACE


def _pow2_ceil(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def element_storage(t: Attribute) -> tuple[Attribute, int, int]:
    """(LLVM element type, size in bytes, alignment) of a memref element type in memory."""
    if isinstance(t, IndexType):
        return i64, 8, 8
    if isinstance(t, IntegerType):
        size = _pow2_ceil(max(1, (t.width.data + 7) // 8))
        return (i8 if t.width.data == 1 else IntegerType(t.width.data)), size, size
    if isinstance(t, AnyFloat):
        size = _pow2_ceil(t.bitwidth // 8)
        return t, size, size
    if isinstance(t, VectorType) and t.get_num_dims() == 1:
        et = t.element_type
        if isinstance(et, (IntegerType, AnyFloat)) and not (
            isinstance(et, IntegerType) and et.width.data == 1
        ):
            ebits = et.width.data if isinstance(et, IntegerType) else et.bitwidth
            bits = t.get_shape()[0] * ebits
            size = _pow2_ceil((bits + 7) // 8)
            return t, size, size
    raise NotSupportedError(f"element type {t} is not supported in work-group local memory")


@dataclass
class _Field:
    glob: memref.GlobalOp
    index: int  # struct field index
    offset: int  # bytes
    size: int  # bytes


@dataclass
class _Layout:
    struct: llvm.LLVMStructType
    fields: dict[str, _Field]
    size: int
    align: int


def _layout(globals_: list[memref.GlobalOp]) -> _Layout:
    types: list[Attribute] = []
    fields: dict[str, _Field] = {}
    offset = 0
    max_align = MIN_FIELD_ALIGN
    for g in globals_:
        name = g.sym_name.data
        mt = g.type
        where = f"work-group local global @{name} ({mt})"
        if not isinstance(g.initial_value, UnitAttr):
            raise XmuxError(f"{where} has an initial value; local memory cannot be initialized")
        if any(d < 0 for d in mt.get_shape()):
            raise NotSupportedError(f"{where} must have a static shape")
        strides, off = mt.get_strides(), mt.get_offset()
        if strides is None or off is None or any(s is None or s < 0 for s in strides):
            raise NotSupportedError(f"{where} must have an identity or static strided layout")
        try:
            elem, esize, ealign = element_storage(mt.element_type)
        except NotSupportedError as e:
            raise NotSupportedError(f"{where}: {e}") from None
        shape = mt.get_shape()
        # elements spanned: last addressable element + 1 (identity layout: the product)
        extent = 0 if 0 in shape else off + 1 + sum(
            (n - 1) * s for n, s in zip(shape, strides, strict=True)  # type: ignore[operator]
        )
        align = max(MIN_FIELD_ALIGN, ealign, g.alignment.value.data if g.alignment else 1)
        pad = -offset % align
        if pad:
            types.append(llvm.LLVMArrayType(IntAttr(pad), i8))
            offset += pad
        fields[name] = _Field(g, len(types), offset, extent * esize)
        types.append(llvm.LLVMArrayType(IntAttr(extent), elem))
        offset += extent * esize
        max_align = max(max_align, align)
    size = offset + (-offset % max_align)
    return _Layout(llvm.LLVMStructType.from_type_list(types), fields, size, max_align)


def _parent_func(op: Operation) -> func.FuncOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    if parent is None:
        raise XmuxError(
            f"{op.name} of work-group local memory is only supported inside func.func functions"
        )
    return parent


def _build_view(
    ops: list[Operation],
    consts: dict[int, SSAValue],
    lds: SSAValue,
    layout: _Layout,
    field: _Field,
    hint: str,
) -> SSAValue:
    """Ops that make a memref (the global's type) viewing ``field`` of the struct at ``lds``."""
    mt = field.glob.type
    desc_t = descriptor_type(mt)

    def add(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    def const(v: int) -> SSAValue:
        if v not in consts:
            consts[v] = add(llvm.ConstantOp(IntegerAttr(v, i64), i64))
        return consts[v]

    def insert(d: SSAValue, v: SSAValue, *pos: int) -> SSAValue:
        return add(llvm.InsertValueOp(DenseArrayBase.from_list(i64, list(pos)), d, v))

    ptr = add(llvm.GEPOp(lds, [0, field.index], layout.struct, inbounds=True))
    d = add(llvm.UndefOp(desc_t))
    d = insert(d, ptr, 0)
    d = insert(d, ptr, 1)
    d = insert(d, const(mt.get_offset() or 0), 2)
    for i, n in enumerate(mt.get_shape()):
        d = insert(d, const(n), 3, i)
    for i, s in enumerate(mt.get_strides() or ()):
        d = insert(d, const(s), 4, i)  # type: ignore[arg-type]
    view = add(UnrealizedConversionCastOp.get([d], [mt]))
    view.name_hint = hint
    return view


#: structs larger than this (bytes) are allocated on the heap, not the worker's stack
HEAP_THRESHOLD = 256 * 1024
_ALLOC, _FREE = "aligned_alloc", "free"
#: guard space on each side of the struct, at most this many bytes (and at least
#: ``MIN_GUARD``): an access a little past a local array (``tile[lid + 2]`` of a 16-element
#: tile, undefined without checks) lands in the guard, not in the work-item loops' counters
#: or the runtime's control data beside it on the worker's stack, which it corrupted into a
#: launch that never returned
MAX_GUARD = 64 * 1024
MIN_GUARD = 256


def guard_bytes(size: int, align: int) -> int:
    """Bytes of guard space on each side of a local struct of ``size`` bytes: the struct's
    size, within ``MIN_GUARD``..``MAX_GUARD``, a multiple of ``align``."""
    guard = min(max(size, MIN_GUARD), MAX_GUARD)
    return (guard + align - 1) // align * align


def _declare_heap_functions(module: ModuleOp) -> None:
    have = {f.sym_name.data for f in module.ops if isinstance(f, func.FuncOp)}
    decls = [func.FuncOp.external(_ALLOC, [i64, i64], [PTR])] if _ALLOC not in have else []
    if _FREE not in have:
        decls.append(func.FuncOp.external(_FREE, [PTR], []))
    for d in decls:
        module.body.block.add_op(d)


def _heap_struct(f: func.FuncOp, size: int, align: int) -> SSAValue:
    """``aligned_alloc(align, guard + size rounded up to align + guard)`` at the top of
    ``f``, ``free`` before each of its returns; the pointer past the first guard."""
    rounded = (size + align - 1) // align * align
    guard = guard_bytes(size, align)
    c_align = arith.ConstantOp(IntegerAttr(align, i64))
    c_size = arith.ConstantOp(IntegerAttr(rounded + 2 * guard, i64))
    call = func.CallOp(_ALLOC, [c_align.result, c_size.result], [PTR])
    call.res[0].name_hint = "local_guarded"
    inside = llvm.GEPOp(call.res[0], [guard], i8, inbounds=True)
    inside.result.name_hint = "local_mem"
    Rewriter.insert_op([c_align, c_size, call, inside], InsertPoint.at_start(_entry(f)))
    for ret in [o for o in f.walk() if isinstance(o, func.ReturnOp)]:
        Rewriter.insert_op(func.CallOp(_FREE, [call.res[0]], []), InsertPoint.before(ret))
    return inside.result


def _stack_struct(f: func.FuncOp, size: int, align: int) -> SSAValue:
    """An ``llvm.alloca`` of guard + size + guard bytes at the top of ``f``; the pointer
    past the first guard."""
    guard = guard_bytes(size, align)
    one = arith.ConstantOp(IntegerAttr(1, i64))
    bytes_t = llvm.LLVMArrayType(IntAttr(size + 2 * guard), i8)
    alloca = llvm.AllocaOp(one, bytes_t, alignment=align)
    alloca.res.name_hint = "local_guarded"
    inside = llvm.GEPOp(alloca.res, [guard], i8, inbounds=True)
    inside.result.name_hint = "local_mem"
    Rewriter.insert_op([one, alloca, inside], InsertPoint.at_start(_entry(f)))
    return inside.result


def _entry(f: func.FuncOp) -> Block:
    """The entry block (an outlined CFG body, ``@<k>.mux-wi-body``, has several blocks)."""
    entry = f.body.blocks.first
    assert entry is not None
    return entry


def _callee(op: Operation) -> str | None:
    if isinstance(op, func.CallOp):
        return op.callee.root_reference.data
    return None


@dataclass(frozen=True)
class ReplaceLocalModuleScopeVariables(ModulePass):
    """Replace work-group local ``memref.global``s with one per-work-group ``llvm.alloca``."""

    name = "replace-local-module-scope-variables"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        local_globals = [
            g for g in op.ops if isinstance(g, memref.GlobalOp) and is_local_memref(g.type)
        ]
        if not local_globals:
            return
        layout = _layout(local_globals)
        funcs = attrs.functions(op)

        # direct uses per function
        uses: dict[str, list[memref.GetGlobalOp]] = {}
        for gg in op.walk():
            if isinstance(gg, memref.GetGlobalOp):
                name = gg.name_.root_reference.data
                if name in layout.fields:
                    uses.setdefault(_parent_func(gg).sym_name.data, []).append(gg)

        # helpers needing the struct pointer: direct users and, transitively, their callers
        calls: dict[str, list[func.CallOp]] = {
            n: [c for c in f.walk() if isinstance(c, func.CallOp)] for n, f in funcs.items()
        }
        needs = {n for n in uses if not attrs.is_entry_point(funcs[n])}
        changed = True
        while changed:
            changed = False
            for n, cs in calls.items():
                if n in needs or attrs.is_entry_point(funcs[n]):
                    continue
                if any(_callee(c) in needs for c in cs):
                    needs.add(n)
                    changed = True
        allocating = [
            n
            for n, f in funcs.items()
            if attrs.is_entry_point(f)
            and (n in uses or any(_callee(c) in needs for c in calls[n]))
        ]
        struct_ptr: dict[str, SSAValue] = {}
        if allocating and layout.size > HEAP_THRESHOLD:
            _declare_heap_functions(op)
        for n in allocating:
            f = funcs[n]
            block = _entry(f)
            if layout.size > HEAP_THRESHOLD:
                struct_ptr[n] = _heap_struct(f, layout.size, layout.align)
                attrs.set_local_mem_usage(f, attrs.get_local_mem_usage(f) + layout.size)
                continue
            struct_ptr[n] = _stack_struct(f, layout.size, layout.align)
            attrs.set_local_mem_usage(f, attrs.get_local_mem_usage(f) + layout.size)
        for n in needs:
            f = funcs[n]
            block = _entry(f)
            arg = block.insert_arg(PTR, len(block.args))
            arg.name_hint = "local_mem"
            inputs = [*f.function_type.inputs.data, PTR]
            f.function_type = FunctionType.from_lists(inputs, f.function_type.outputs.data)
            if f.arg_attrs is not None:
                f.arg_attrs = ArrayAttr([*f.arg_attrs.data, DictionaryAttr({})])
            struct_ptr[n] = arg

        # views at the top of each using function, then the uses
        for n, ggs in uses.items():
            lds = struct_ptr[n]
            views: dict[str, SSAValue] = {}
            consts: dict[int, SSAValue] = {}
            ops: list[Operation] = []
            for gg in ggs:
                gname = gg.name_.root_reference.data
                if gname not in views:
                    field = layout.fields[gname]
                    views[gname] = _build_view(ops, consts, lds, layout, field, gname)
            point = (
                InsertPoint.after(lds.op)
                if isinstance(lds, OpResult)
                else InsertPoint.at_start(_entry(funcs[n]))
            )
            Rewriter.insert_op(ops, point)
            for gg in ggs:
                gg.memref.replace_all_uses_with(views[gg.name_.root_reference.data])
                Rewriter.erase_op(gg)

        # pass the pointer on at call sites
        for n, cs in calls.items():
            for c in cs:
                if _callee(c) in needs:
                    # n is in `needs` or allocating by construction, so it has the pointer
                    new = func.CallOp(
                        c.callee, [*c.arguments, struct_ptr[n]], list(c.result_types)
                    )
                    new.attributes.update(c.attributes)
                    Rewriter.replace_op(c, new)

        for g in local_globals:
            Rewriter.erase_op(g)
