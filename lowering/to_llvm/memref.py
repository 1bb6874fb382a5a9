"""memref → llvm on MLIR's descriptors (see descriptor.py and types.py).

- load/store: ``inbounds`` GEP at aligned + offset + Σ idx·stride (static strides/offset from
  the type are constants).
- alloc/dealloc: ``malloc``/``free`` (over-allocated and rounded up with an ``alignment``);
  alloca: ``llvm.alloca`` (static ones at the top of the entry block, where SROA sees them).
  A failed alloc never hands on a bad pointer (the mutation fuzzer's ``memref.alloc(%n)`` with
  %n = 2^62 segfaulted): a negative dynamic size or a byte count above 2^63-1 (checked on the
  operands, so the ``nsw`` product is never used once it could wrap) makes the request
  SIZE_MAX, and a NULL from ``malloc`` branches to a cold block that calls
  ``xmux_alloc_failed(message, bytes, overflowed, rank, size0, size1, size2)`` (the message
  names the op, its result, the function and the location) and then returns from the
  function (zero results). How the program stops is the runtime's business
  (``runtime/host_symbols.py``): under ``xmux-run`` host code runs inside a ``_setjmp``
  trampoline and ``xmux_alloc_failed`` is a small native function that records the error and
  ``_longjmp``s back to it, so @main stops at the failed alloc whatever the call depth, with
  no Python frame skipped; elsewhere (kernel code, whose launch then raises through
  ``runtime/checks.py``) the error is recorded and the return path runs. Why not a Python
  exception or a thread: an exception cannot unwind JIT frames, and @main must stay on the
  calling thread (Ctrl-C cancels launches from the main thread: ``runtime/interrupt.py``).
  A static shape too large for 64 bits is a compile-time error. NVPTX device code (a
  module lowered with ``shared_memory``) keeps the plain ``malloc``: it has no host hook.
- views: subview (static/dynamic, rank-reducing), reinterpret_cast, view, cast (ranked and to/from
  unranked through a stack copy of the descriptor), collapse/expand_shape, extract_strided_metadata.
- copy: ``llvm.memcpy`` for identity layouts, an element loop otherwise.
- global/get_global: ``llvm.mlir.global`` (flat array) and ``llvm.mlir.addressof``; work-group
  local globals (memory space 3) must have been replaced by an earlier pass.
- atomic_rmw: in memref_atomics.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, llvm, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    TensorType,
    UnrankedMemRefType,
    i1,
    i64,
)
from xdsl.ir import Operation, SSAValue

from xmux.abi.errors import NotSupportedError, XmuxError
from xmux.dialects import llvm as llvm_ext
from xmux.dialects import llvmx
from xmux.lowering.to_llvm.core import FunctionLowerer, Handler
from xmux.lowering.to_llvm.descriptor import (
    Index,
    MemRefDescriptor,
    add,
    as_value,
    contiguous_strides,
    mul,
)
from xmux.lowering.to_llvm.types import (
    PTR,
    UNRANKED_DESCRIPTOR,
    alignment_of,
    convert_type,
    descriptor_type,
    element_type,
    is_dynamic,
    memref_strides,
    scalar_bytes,
)

LOCAL_MEMORY_SPACE = 3


def _mtype(v: SSAValue) -> MemRefType:
    assert isinstance(v.type, MemRefType)
    return v.type


def _derive(lw: FunctionLowerer, src: SSAValue, result: SSAValue) -> None:
    """A view of a work-item-private buffer is private too."""
    if src in lw.private:
        lw.private.add(result)


def _mixed(lw: FunctionLowerer, static: DenseArrayBase, dynamic: Sequence[SSAValue]) -> list[Index]:
    it = iter(lw.get_all(dynamic))
    return [next(it) if v == DYNAMIC_INDEX else v for v in static.get_values()]


def elem_bytes(lw: FunctionLowerer, mtype: MemRefType) -> Index:
    """Size of one element: static when known, else the ``gep null[1]`` idiom."""
    n = scalar_bytes(mtype.get_element_type())
    if n is not None:
        return n
    null = lw.emit_value(llvm.ZeroOp.create(result_types=[PTR]))
    end = lw.emit_value(llvm.GEPOp(null, [1], element_type(mtype)))
    return lw.emit_value(llvm.PtrToIntOp(end, i64))


# -- access ----------------------------------------------------------------------------------


def element_address(lw: FunctionLowerer, ref: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    return MemRefDescriptor.of(lw, ref).element_ptr(lw.get_all(indices))


def lower_load(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.LoadOp)
    ptr = element_address(lw, op.memref, op.indices)
    with lw.untagged(op.memref in lw.private):
        lw.set(op.res, lw.emit_value(llvm.LoadOp(ptr, convert_type(op.res.type))))


def lower_store(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.StoreOp)
    ptr = element_address(lw, op.memref, op.indices)
    with lw.untagged(op.memref in lw.private):
        lw.emit(llvm.StoreOp(lw.get(op.value), ptr))


# -- allocation ------------------------------------------------------------------------------


def _alloc_sizes(lw: FunctionLowerer, op: Operation, mtype: MemRefType) -> list[Index]:
    if not isinstance(mtype.layout, NoneAttr):
        raise lw.error(op, f"allocating {mtype} with a non-identity layout is not supported")
    it = iter(lw.get_all(op.operands))
    return [next(it) if is_dynamic(d) else d for d in mtype.get_shape()]


def _alignment(op: Operation) -> int | None:
    a = op.properties.get("alignment") or op.attributes.get("alignment")
    return a.value.data if isinstance(a, IntegerAttr) else None


def _numel(lw: FunctionLowerer, sizes: Sequence[Index]) -> Index:
    n: Index = 1
    for s in sizes:
        n = mul(lw, n, s)
    return n


#: the largest byte count an alloc asks for (malloc's sizes are below PTRDIFF_MAX)
_MAX_BYTES = (1 << 63) - 1
ALLOC_FAILED_FN = "xmux_alloc_failed"


def _icmp(lw: FunctionLowerer, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    flag = IntegerAttr(llvm.ICmpPredicateFlag(pred).to_int(), i64)
    return lw.emit_value(llvm.ICmpOp(a, b, flag))


def _either(lw: FunctionLowerer, a: SSAValue | None, b: SSAValue) -> SSAValue:
    """``a || b`` as ``select a, true, b``: poison in ``b`` (a wrapped ``nsw`` product
    compared) does not leak once ``a`` is true, as it would through ``or``."""
    if a is None:
        return b
    return lw.emit_value(llvm.SelectOp(a, lw.const(1, i1), b))


def _exceeds(lw: FunctionLowerer, acc: Index, factor: Index) -> SSAValue | None:
    """Whether ``acc · factor`` (both in [0, 2^63)) exceeds ``_MAX_BYTES``; None when it
    cannot."""
    if isinstance(acc, int) and isinstance(factor, int):
        return None  # static: checked when the shape is known (lower_alloc)
    if isinstance(factor, SSAValue) and isinstance(acc, int):
        acc, factor = factor, acc
    assert isinstance(acc, SSAValue)
    if isinstance(factor, int):
        if factor <= 1:
            return None
        return _icmp(lw, "ugt", acc, lw.const(_MAX_BYTES // factor))
    # both dynamic: factor ≠ 0 && acc > MAX / factor (the divisor kept non-zero)
    zero = lw.const(0)
    nonzero = _icmp(lw, "ne", factor, zero)
    divisor = lw.emit_value(llvm.SelectOp(nonzero, factor, lw.const(1)))
    bound = lw.emit_value(llvm.UDivOp(lw.const(_MAX_BYTES), divisor))
    over = _icmp(lw, "ugt", acc, bound)
    return lw.emit_value(llvm.SelectOp(nonzero, over, lw.const(0, i1)))


def _where(op: Operation) -> str:
    loc = getattr(op, "location", None)
    if isinstance(loc, FileLineColLoc):
        return f" at {loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return ""


def _alloc_message(lw: FunctionLowerer, op: memref.AllocOp) -> str:
    hint = op.memref.name_hint
    result = f" of %{hint}" if hint else ""
    return f"'memref.alloc'{result} in @{lw.func_name}{_where(op)}: {op.memref.type}"


def _return_early(lw: FunctionLowerer) -> None:
    """``llvm.return`` from the function being lowered, with zero results."""
    fn = lw.region.parent
    out = fn.function_type.output if isinstance(fn, llvm.FuncOp) else llvm.LLVMVoidType()
    if isinstance(out, llvm.LLVMVoidType):
        lw.emit(llvm.ReturnOp())
    else:
        lw.emit(llvm.ReturnOp(lw.emit_value(llvm.ZeroOp.create(result_types=[out]))))


def lower_alloc(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.AllocOp)
    mtype = op.memref.type
    sizes = _alloc_sizes(lw, op, mtype)
    if lw.mod.shared_memory:  # NVPTX device code: no host hook to call (module docstring)
        _lower_device_alloc(lw, op, mtype, sizes)
        return
    esize = elem_bytes(lw, mtype)
    align = _alignment(op)
    static = [s for s in sizes if isinstance(s, int)]
    total = 1
    for s in static:
        total *= s
    if isinstance(esize, int) and total * esize + (align or 1) - 1 > _MAX_BYTES:
        raise lw.error(op, f"{mtype} needs {total * esize} bytes, more than 2^63-1")
    # why each check: a negative size or a wrapped product would malloc too little (or
    # nothing) and the stores after it write anywhere
    bad: SSAValue | None = None
    for s in sizes:
        if isinstance(s, SSAValue):
            bad = _either(lw, bad, _icmp(lw, "slt", s, lw.const(0)))
    numel: Index = 1
    for s in sizes:
        if (over := _exceeds(lw, numel, s)) is not None:
            bad = _either(lw, bad, over)
        numel = mul(lw, numel, s)
    if (over := _exceeds(lw, numel, esize)) is not None:
        bad = _either(lw, bad, over)
    nbytes = mul(lw, numel, esize)
    if align:
        if not isinstance(nbytes, int):
            limit = lw.const(_MAX_BYTES - (align - 1))
            bad = _either(lw, bad, _icmp(lw, "ugt", nbytes, limit))
        nbytes = add(lw, nbytes, align - 1)
    request = as_value(lw, nbytes)
    if bad is not None:  # SIZE_MAX: malloc fails, and the failure path reports it
        request = lw.emit_value(llvm.SelectOp(bad, lw.const(-1), request))
    malloc = lw.mod.declare("malloc", [i64], PTR)
    allocated = lw.call(malloc, [request], PTR)
    assert allocated is not None
    address = lw.emit_value(llvm.PtrToIntOp(allocated, i64))  # (icmp takes no !llvm.ptr here)
    failed = _icmp(lw, "eq", address, lw.const(0))
    if not (isinstance(nbytes, int) and nbytes > 0):
        # malloc(0) may give NULL: only a non-empty request failed
        failed = lw.emit_value(
            llvm.AndOp(failed, _icmp(lw, "ne", request, lw.const(0)))
        )
    fail_block, ok_block = lw.new_block(), lw.new_block()
    lw.emit(llvm.CondBrOp(failed, fail_block, [], ok_block, []))
    lw.start(fail_block)
    hook = lw.mod.declare(ALLOC_FAILED_FN, [PTR] + [i64] * 6, None)
    msg = lw.emit_value(llvm.AddressOfOp(lw.mod.string_global(_alloc_message(lw, op)), PTR))
    overflowed = lw.const(0) if bad is None else lw.emit_value(llvm.ZExtOp(bad, i64))
    reported = [as_value(lw, s) for s in sizes[:3]] + [lw.const(-1)] * (3 - min(3, len(sizes)))
    lw.call(hook, [msg, request, overflowed, lw.const(len(sizes)), *reported], None)
    _return_early(lw)
    lw.start(ok_block)
    _finish_alloc(lw, op, mtype, sizes, allocated, align)


def _lower_device_alloc(
    lw: FunctionLowerer, op: memref.AllocOp, mtype: MemRefType, sizes: list[Index]
) -> None:
    nbytes = mul(lw, _numel(lw, sizes), elem_bytes(lw, mtype))
    align = _alignment(op)
    if align:
        nbytes = add(lw, nbytes, align - 1)
    malloc = lw.mod.declare("malloc", [i64], PTR)
    allocated = lw.call(malloc, [as_value(lw, nbytes)], PTR)
    assert allocated is not None
    _finish_alloc(lw, op, mtype, sizes, allocated, align)


def _finish_alloc(
    lw: FunctionLowerer, op: memref.AllocOp, mtype: MemRefType, sizes: list[Index],
    allocated: SSAValue, align: int | None,
) -> None:
    aligned = allocated
    if align:
        as_int = lw.emit_value(llvm.PtrToIntOp(allocated, i64))
        bumped = lw.emit_value(llvm_ext.AddOp(as_int, lw.const(align - 1)))
        rounded = lw.emit_value(llvm.AndOp(bumped, lw.const(-align)))
        aligned = lw.emit_value(llvm.IntToPtrOp(rounded))
    desc = MemRefDescriptor.build(
        lw, mtype, allocated, aligned, 0, sizes, contiguous_strides(lw, sizes)
    )
    lw.set(op.memref, desc)


def lower_alloca(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.AllocaOp)
    mtype = op.memref.type
    sizes = _alloc_sizes(lw, op, mtype)
    count = _numel(lw, sizes)
    align = _alignment(op) or max(16, alignment_of(mtype.get_element_type()))
    elem = element_type(mtype)
    if isinstance(count, int):
        ptr = lw.entry_alloca(elem, count, align)
    else:
        ptr = lw.emit_value(llvm.AllocaOp(count, elem, alignment=align))
    desc = MemRefDescriptor.build(lw, mtype, ptr, ptr, 0, sizes, contiguous_strides(lw, sizes))
    lw.set(op.memref, desc)
    if lw.groups:
        lw.private.add(op.memref)


#: ops whose result views their source's memory (dealloc frees the source's allocation)
_VIEWS = ("memref.cast", "memref.subview", "memref.reinterpret_cast", "memref.view",
          "memref.collapse_shape", "memref.expand_shape", "memref.memory_space_cast")


def _check_freeable(lw: FunctionLowerer, op: memref.DeallocOp) -> None:
    """``free`` of stack or global memory aborts the process (glibc: ``free(): invalid
    size``): a dealloc of what a ``memref.alloca`` / ``memref.get_global`` made is the
    user's error, named here (the mutation fuzzer's alloc → alloca)."""
    v = op.memref
    while isinstance(v.owner, Operation) and v.owner.name in _VIEWS and v.owner.operands:
        v = v.owner.operands[0]
    root = v.owner
    if isinstance(root, Operation) and root.name in ("memref.alloca", "memref.get_global"):
        what = "stack memory, released when the function returns" if (
            root.name == "memref.alloca") else "a global, never freed"
        raise XmuxError(f"convert-to-llvm: 'memref.dealloc' in @{lw.func_name} frees the "
                        f"memref of a '{root.name}' ({what}): only memref.alloc memory "
                        "can be deallocated")


def lower_dealloc(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.DeallocOp)
    _check_freeable(lw, op)
    if isinstance(op.memref.type, UnrankedMemRefType):
        ptr = _unranked_ptr(lw, lw.get(op.memref))
        with lw.untagged():
            allocated = lw.emit_value(llvm.LoadOp(ptr, PTR))
    else:
        allocated = MemRefDescriptor.of(lw, op.memref).allocated()
    free = lw.mod.declare("free", [PTR], None)
    lw.call(free, [allocated], None)


# -- queries -----------------------------------------------------------------------------


def _constant_index(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _unranked_ptr(lw: FunctionLowerer, u: SSAValue) -> SSAValue:
    return lw.emit_value(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), u, PTR))


def lower_dim(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.DimOp)
    idx = _constant_index(op.index)
    if isinstance(op.source.type, MemRefType):
        desc = MemRefDescriptor.of(lw, op.source)
        if idx is not None:
            if not 0 <= idx < desc.rank:
                raise lw.error(op, f"dimension {idx} out of range for {op.source.type}")
            lw.set(op.result, as_value(lw, desc.size(idx)))
            return
        # dynamic dimension: spill the sizes array and index it
        arr_t = llvm.LLVMArrayType(desc.rank, i64)
        slot = lw.entry_alloca(arr_t)
        sizes = lw.emit_value(
            llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [3]), desc.value, arr_t)
        )
        with lw.untagged():
            lw.emit(llvm.StoreOp(sizes, slot))
            addr = lw.emit_value(
                llvm.GEPOp.from_mixed_indices(slot, [0, lw.get(op.index)], arr_t, inbounds=True)
            )
            lw.set(op.result, lw.emit_value(llvm.LoadOp(addr, i64)))
        return
    # unranked: sizes start after (allocated, aligned, offset) in the pointed-to descriptor
    base = _unranked_ptr(lw, lw.get(op.source))
    pos = add(lw, 3, lw.get(op.index) if idx is None else idx)
    addr = lw.emit_value(llvm.GEPOp.from_mixed_indices(base, [as_value(lw, pos)], i64))
    with lw.untagged():
        lw.set(op.result, lw.emit_value(llvm.LoadOp(addr, i64)))


def lower_rank(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.RankOp)
    lw.set(op.rank, lw.const(_mtype(op.source).get_num_dims()))


def lower_extract_aligned_pointer(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.ExtractAlignedPointerAsIndexOp)
    ptr = MemRefDescriptor.of(lw, op.source).aligned()
    lw.set(op.aligned_pointer, lw.emit_value(llvm.PtrToIntOp(ptr, i64)))


def lower_extract_strided_metadata(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.ExtractStridedMetaDataOp)
    desc = MemRefDescriptor.of(lw, op.source)
    base = MemRefDescriptor.build(
        lw, op.base_buffer.type, desc.allocated(), desc.aligned(), 0, [], []
    )
    lw.set(op.base_buffer, base)
    _derive(lw, op.source, op.base_buffer)
    lw.set(op.offset, as_value(lw, desc.offset()))
    for r, s in zip(op.sizes, desc.sizes(), strict=True):
        lw.set(r, as_value(lw, s))
    for r, s in zip(op.strides, desc.strides(), strict=True):
        lw.set(r, as_value(lw, s))


# -- views and casts ---------------------------------------------------------------------


def _identity(lw: FunctionLowerer, op: Operation) -> None:
    lw.set(op.results[0], lw.get(op.operands[0]))
    _derive(lw, op.operands[0], op.results[0])


def lower_assume_alignment(lw: FunctionLowerer, op: Operation) -> None:
    """A promise only (LLVM 19's form has no result; LLVM 20's forwards its operand)."""
    if op.results:
        _identity(lw, op)


def lower_cast(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.CastOp)
    src, dst = op.source.type, op.dest.type
    value = lw.get(op.source)
    _derive(lw, op.source, op.dest)
    if isinstance(src, MemRefType) and isinstance(dst, MemRefType):
        lw.set(op.dest, value)  # same descriptor layout; only static knowledge changes
    elif isinstance(src, MemRefType):
        # to unranked: (rank, pointer to a stack copy of the descriptor)
        slot = lw.entry_alloca(value.type)
        with lw.untagged():
            lw.emit(llvm.StoreOp(value, slot))
        u = lw.emit_value(llvm.UndefOp(UNRANKED_DESCRIPTOR))
        u = lw.emit_value(
            llvm.InsertValueOp(DenseArrayBase.from_list(i64, [0]), u, lw.const(src.get_num_dims()))
        )
        u = lw.emit_value(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [1]), u, slot))
        lw.set(op.dest, u)
    elif isinstance(dst, MemRefType):
        ptr = _unranked_ptr(lw, value)
        with lw.untagged():
            lw.set(op.dest, lw.emit_value(llvm.LoadOp(ptr, descriptor_type(dst.get_num_dims()))))
    else:
        lw.set(op.dest, value)


def _kept_dims(src_rank: int, sizes: Sequence[Index], result: MemRefType) -> list[int]:
    """Source dims kept by a (possibly rank-reducing) subview; dropped dims have size 1.

    Which unit dim is dropped does not matter for addressing (its index is always 0).
    """
    rshape = result.get_shape()
    kept: list[int] = []
    for i in range(src_rank):
        need, left = len(rshape) - len(kept), src_rank - i
        if need == left or not (isinstance(sizes[i], int) and sizes[i] == 1):
            kept.append(i)
    if len(kept) != len(rshape):
        raise NotSupportedError(f"convert-to-llvm: cannot match subview sizes to {result}")
    return kept


def lower_subview(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.SubviewOp)
    src = MemRefDescriptor.of(lw, op.source)
    rtype = op.result.type
    offsets = _mixed(lw, op.static_offsets, op.offsets)
    sizes = _mixed(lw, op.static_sizes, op.sizes)
    strides = _mixed(lw, op.static_strides, op.strides)
    rstrides, roffset = memref_strides(rtype)
    offset: Index
    if roffset is not None:
        offset = roffset
    else:
        offset = src.offset()
        for i, o in enumerate(offsets):
            offset = add(lw, offset, mul(lw, o, src.stride(i)))
    new_sizes: list[Index] = []
    new_strides: list[Index] = []
    for j, i in enumerate(_kept_dims(src.rank, sizes, rtype)):
        rs = rtype.get_shape()[j]
        new_sizes.append(sizes[i] if is_dynamic(rs) else rs)
        st = rstrides[j]
        new_strides.append(mul(lw, src.stride(i), strides[i]) if st is None else st)
    desc = MemRefDescriptor.build(
        lw, rtype, src.allocated(), src.aligned(), offset, new_sizes, new_strides
    )
    lw.set(op.result, desc)
    _derive(lw, op.source, op.result)


def lower_reinterpret_cast(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.ReinterpretCastOp)
    src = MemRefDescriptor.of(lw, op.source)
    offsets = _mixed(lw, op.static_offsets, op.offsets)
    desc = MemRefDescriptor.build(
        lw,
        op.result.type,
        src.allocated(),
        src.aligned(),
        offsets[0],
        _mixed(lw, op.static_sizes, op.sizes),
        _mixed(lw, op.static_strides, op.strides),
    )
    lw.set(op.result, desc)
    _derive(lw, op.source, op.result)


def lower_view(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.ViewOp)
    src = MemRefDescriptor.of(lw, op.source)
    rtype = op.result.type
    if not isinstance(rtype.layout, NoneAttr):
        raise lw.error(op, f"views with a non-identity layout ({rtype}) are not supported")
    base = src.element_ptr([])  # source offset included
    aligned = lw.emit_value(
        llvm.GEPOp.from_mixed_indices(base, [lw.get(op.byte_shift)], IntegerType(8))
    )
    it = iter(lw.get_all(op.sizes))
    sizes: list[Index] = [next(it) if is_dynamic(d) else d for d in rtype.get_shape()]
    desc = MemRefDescriptor.build(
        lw, rtype, src.allocated(), aligned, 0, sizes, contiguous_strides(lw, sizes)
    )
    lw.set(op.result, desc)
    _derive(lw, op.source, op.result)


def _groups(op: Operation) -> list[list[int]]:
    reassoc = op.properties["reassociation"]
    assert isinstance(reassoc, ArrayAttr)
    return [[e.value.data for e in g.data] for g in reassoc.data]  # type: ignore[attr-defined]


def lower_collapse_shape(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.CollapseShapeOp)
    src = MemRefDescriptor.of(lw, op.src)
    rtype = op.result.type
    sizes: list[Index] = []
    strides: list[Index] = []
    for j, group in enumerate(_groups(op)):
        rs = rtype.get_shape()[j]
        sizes.append(_numel(lw, [src.size(i) for i in group]) if is_dynamic(rs) else rs)
        # innermost dim of the group gives the stride (groups are contiguous)
        strides.append(src.stride(group[-1]) if group else 1)
    desc = MemRefDescriptor.build(
        lw, rtype, src.allocated(), src.aligned(), src.offset(), sizes, strides
    )
    lw.set(op.result, desc)
    _derive(lw, op.src, op.result)


def lower_expand_shape(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.ExpandShapeOp)
    src = MemRefDescriptor.of(lw, op.src)
    rtype = op.result.type
    out_sizes = _mixed(lw, op.static_output_shape, op.output_shape)
    strides: list[Index] = [0] * len(out_sizes)
    for d, group in enumerate(_groups(op)):
        running = src.stride(d)
        for i in reversed(group):
            strides[i] = running
            running = mul(lw, running, out_sizes[i])
    desc = MemRefDescriptor.build(
        lw, rtype, src.allocated(), src.aligned(), src.offset(), out_sizes, strides
    )
    lw.set(op.result, desc)
    _derive(lw, op.src, op.result)


# -- copy ------------------------------------------------------------------------------------


def lower_copy(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.CopyOp)
    src = MemRefDescriptor.of(lw, op.source)
    dst = MemRefDescriptor.of(lw, op.destination)
    untag = op.source in lw.private or op.destination in lw.private
    if isinstance(src.type.layout, NoneAttr) and isinstance(dst.type.layout, NoneAttr):
        nbytes = mul(lw, _numel(lw, src.sizes()), elem_bytes(lw, src.type))
        with lw.untagged(untag):
            lw.intrinsic(
                "llvm.memcpy.p0.p0.i64",
                [dst.aligned(), src.aligned(), as_value(lw, nbytes), lw.const(0, i1)],
                None,
            )
        return
    elem = element_type(src.type)
    sizes = [as_value(lw, s) for s in src.sizes()]
    zero, one = lw.const(0), lw.const(1)
    ivs: list[SSAValue] = []

    def nest(d: int) -> None:
        if d == src.rank:
            with lw.untagged(untag):
                v = lw.emit_value(llvm.LoadOp(src.element_ptr(ivs), elem))
                lw.emit(llvm.StoreOp(v, dst.element_ptr(ivs)))
            return

        def body(iv: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            ivs.append(iv)
            nest(d + 1)
            ivs.pop()
            return []

        lw.build_loop(zero, sizes[d], one, [], body)

    nest(0)


# -- globals ---------------------------------------------------------------------------------


def _memory_space(mtype: MemRefType) -> int:
    ms = mtype.memory_space
    if isinstance(ms, IntegerAttr):
        return ms.value.data
    return 0


def lower_global(op: memref.GlobalOp, shared_memory: bool = False) -> llvm.GlobalOp:
    """``memref.global`` → ``llvm.mlir.global`` holding a flat array of the elements; with
    ``shared_memory``, one in memory space 3 → an uninitialized address-space-3 global (a
    GPU's shared memory: no initial value)."""
    mtype = op.type
    name = op.sym_name.data
    if shared_memory and _memory_space(mtype) == LOCAL_MEMORY_SPACE:
        if not mtype.has_static_shape():
            raise NotSupportedError(f"convert-to-llvm: memref.global @{name} needs a static shape")
        if isinstance(op.initial_value, DenseIntOrFPElementsAttr):
            raise NotSupportedError(
                f"convert-to-llvm: memref.global @{name} is work-group local memory with an "
                "initial value: shared memory cannot be initialized"
            )
        count = 1
        for d in mtype.get_shape():
            count *= d
        return llvm.GlobalOp(
            llvm.LLVMArrayType(count, element_type(mtype)),
            name,
            "internal",
            addr_space=LOCAL_MEMORY_SPACE,
            alignment=op.alignment.value.data if op.alignment is not None else None,
        )
    if _memory_space(mtype) == LOCAL_MEMORY_SPACE:
        raise NotSupportedError(
            f"convert-to-llvm: memref.global @{name} is in work-group local memory (memory "
            "space 3); replace-local-module-scope-variables must run before lowering"
        )
    if not mtype.has_static_shape():
        raise NotSupportedError(f"convert-to-llvm: memref.global @{name} needs a static shape")
    count = 1
    for d in mtype.get_shape():
        count *= d
    elem = element_type(mtype)
    arr = llvm.LLVMArrayType(count, elem)
    init = op.initial_value
    values: list = [0] * count
    if isinstance(init, DenseIntOrFPElementsAttr):
        values = list(init.get_values())
        if len(values) == 1 and count != 1:
            values *= count
    if isinstance(elem, AnyFloat):
        values = [float(v) for v in values]
    elif elem == i1:
        values = [1 if v else 0 for v in values]
    value = DenseIntOrFPElementsAttr.from_list(TensorType(elem, [count]), values)  # type: ignore[arg-type]
    private = op.sym_visibility.data == "private"
    return llvm.GlobalOp(
        arr,
        name,
        "internal" if private else "external",
        constant=op.constant is not None,
        value=value,
        alignment=op.alignment.value.data if op.alignment is not None else None,
    )


def lower_get_global(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.GetGlobalOp)
    mtype = op.memref.type
    shared = _memory_space(mtype) == LOCAL_MEMORY_SPACE and lw.mod.shared_memory
    if _memory_space(mtype) == LOCAL_MEMORY_SPACE and not shared:
        raise lw.error(
            op,
            f"@{op.name_.root_reference.data} is work-group local memory (memory space 3); "
            "replace-local-module-scope-variables must run before lowering",
        )
    if shared:  # an address-space-3 global, reached through a generic pointer
        shared_ptr = llvm.LLVMPointerType(IntAttr(LOCAL_MEMORY_SPACE))
        addr = lw.emit_value(llvm.AddressOfOp(op.name_.root_reference, shared_ptr))
        addr = lw.emit_value(llvmx.AddrSpaceCastOp(addr, PTR))
    else:
        addr = lw.emit_value(llvm.AddressOfOp(op.name_.root_reference, PTR))
    strides, offset = memref_strides(mtype)
    if offset is None or any(s is None for s in strides):
        raise lw.error(op, f"{mtype} needs a static layout")
    desc = MemRefDescriptor.build(
        lw,
        mtype,
        addr,
        addr,
        offset,
        list(mtype.get_shape()),
        [s for s in strides if s is not None],
    )
    lw.set(op.memref, desc)


def lower_alloca_scope(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, memref.AllocaScopeOp)
    term = lw.lower_ops(op.scope.block)
    if term is None:
        raise lw.error(op, "region without a terminator")
    lw.set_results(op, lw.get_all(term.operands))


def lower_unrealized_cast(lw: FunctionLowerer, op: Operation) -> None:
    """Casts between memrefs and their descriptors (earlier passes build views with llvm ops)."""
    for src, res in zip(op.operands, op.results, strict=True):
        value = lw.get(src)
        target = convert_type(res.type)
        if value.type == target:
            lw.set(res, value)
        elif (
            isinstance(value.type, llvm.LLVMPointerType)
            and isinstance(res.type, MemRefType)
            and res.type.has_static_shape()
            and isinstance(res.type.layout, NoneAttr)
        ):
            shape = list(res.type.get_shape())
            lw.set(
                res,
                MemRefDescriptor.build(
                    lw, res.type, value, value, 0, shape, contiguous_strides(lw, shape)
                ),
            )
        else:
            raise lw.error(op, f"cannot reconcile a cast from {src.type} to {res.type}")


HANDLERS: dict[str, Handler] = {
    "memref.load": lower_load,
    "memref.store": lower_store,
    "memref.alloc": lower_alloc,
    "memref.alloca": lower_alloca,
    "memref.dealloc": lower_dealloc,
    "memref.dim": lower_dim,
    "memref.rank": lower_rank,
    "memref.cast": lower_cast,
    "memref.memory_space_cast": _identity,
    "memref.assume_alignment": lower_assume_alignment,
    "memref.subview": lower_subview,
    "memref.reinterpret_cast": lower_reinterpret_cast,
    "memref.view": lower_view,
    "memref.collapse_shape": lower_collapse_shape,
    "memref.expand_shape": lower_expand_shape,
    "memref.extract_strided_metadata": lower_extract_strided_metadata,
    "memref.extract_aligned_pointer_as_index": lower_extract_aligned_pointer,
    "memref.copy": lower_copy,
    "memref.get_global": lower_get_global,
    "memref.alloca_scope": lower_alloca_scope,
    "builtin.unrealized_conversion_cast": lower_unrealized_cast,
}
