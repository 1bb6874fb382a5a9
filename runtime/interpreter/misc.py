"""The rest of what kernels contain before scheduling: the ``llvm`` ops OpenACC
expansion leaves (pointers into memrefs, atomics, locks), specialization-constant markers
(their default value or the ``spec_constants=`` value), ``vector`` and ``complex`` ops."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import complex as cplx
from xdsl.dialects import llvm, ub, vector
from xdsl.dialects.builtin import VectorType
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Attribute

from xmux.abi.errors import NotSupportedError
from xmux.dialects import llvmx, spec
from xmux.dialects.vector_ops import ShapeCastOp
from xmux.runtime.interpreter.arith import _lanes, maxnumf, minnumf
from xmux.runtime.interpreter.math import fma
from xmux.runtime.interpreter.memory import MemRef, atomic_combine, resolve_address
from xmux.runtime.interpreter.values import (
    COMPLEX_DTYPES,
    attr_value,
    from_python,
    int_width,
    storage_dtype,
    to_signed,
    vector_dtype,
)

_RMW = {"xchg": "assign", "add": "addi", "and": "andi", "or": "ori", "xor": "xori",
        "max": "maxs", "min": "mins", "umax": "maxu", "umin": "minu", "fadd": "addf",
        "fmax": "maxnumf", "fmin": "minnumf"}


def _ptr_access(interp, addr: int, t: Attribute) -> tuple[MemRef, int]:
    """A one-element view of the memory at fake address ``addr`` as type ``t``."""
    alloc, off = resolve_address(addr, interp)
    dtype = storage_dtype(t)
    m = MemRef(alloc, dtype, off, 0, (1,), (1,), int_width(t) is not None)
    return m, 0


def from_spec_value(v: Any, t: Attribute) -> Any:
    """A decoded specialization-constant value (runtime/spec_constants.decode) as an
    interpreter value of type ``t``."""
    if isinstance(t, llvm.LLVMStructType):
        return tuple(from_spec_value(x, ft) for x, ft in zip(v, t.types.data, strict=True))
    if isinstance(t, llvm.LLVMArrayType):
        return tuple(from_spec_value(x, t.type) for x in v)
    if isinstance(t, VectorType):
        return np.asarray(v).astype(vector_dtype(t.element_type)).reshape(t.get_shape())
    if int_width(t) is not None:
        return int(v) & ((1 << int_width(t)) - 1)  # type: ignore[operator]
    return from_python(v, t)


def llvm_layout(t: Attribute) -> tuple[int, int]:
    """(size, alignment) in bytes of an LLVM type on the host (natural C layout)."""
    if isinstance(t, llvm.LLVMStructType):
        off, align = 0, 1
        for ft in t.types.data:
            s, a = llvm_layout(ft)
            off = -(-off // a) * a + s
            align = max(align, a)
        return -(-off // align) * align, align
    if isinstance(t, llvm.LLVMArrayType):
        s, a = llvm_layout(t.type)
        return s * t.size.data, a
    if isinstance(t, llvm.LLVMPointerType):
        return 8, 8
    if isinstance(t, VectorType):
        s, _ = llvm_layout(t.element_type)
        n = s * int(np.prod(t.get_shape()))
        return n, 1 << max(0, (n - 1).bit_length())
    size = storage_dtype(t).itemsize
    return size, size


def llvm_leaves(t: Attribute, base: int = 0):
    """(byte offset, scalar type, path) of every scalar of an aggregate LLVM type."""
    if isinstance(t, llvm.LLVMStructType):
        off = 0
        for i, ft in enumerate(t.types.data):
            s, a = llvm_layout(ft)
            off = -(-off // a) * a
            for o, st, path in llvm_leaves(ft, base + off):
                yield o, st, (i, *path)
            off += s
    elif isinstance(t, llvm.LLVMArrayType):
        s, _ = llvm_layout(t.type)
        for i in range(t.size.data):
            for o, st, path in llvm_leaves(t.type, base + i * s):
                yield o, st, (i, *path)
    else:
        yield base, t, ()


def _gep_offset(t: Attribute, indices: list[int]) -> int:
    """Byte offset of ``getelementptr t, ptr, i0, i1, ...``."""
    size, _ = llvm_layout(t)
    off = indices[0] * size
    for i in indices[1:]:
        if isinstance(t, llvm.LLVMStructType):
            off += next(o for o, _, path in llvm_leaves(t) if path[:1] == (i,)) \
                if i < len(t.types.data) else 0
            t = t.types.data[i]
        elif isinstance(t, llvm.LLVMArrayType):
            t = t.type
            off += i * llvm_layout(t)[0]
        else:
            raise NotSupportedError(f"llvm.getelementptr into {t}")
    return off


class MiscFunctions(InterpreterFunctions):
    @impl(llvm.ConstantOp)
    def run_llvm_constant(self, interp, op, args):
        return (attr_value(op.value, op.result.type),)

    @impl(llvm.AllocaOp)
    def run_llvm_alloca(self, interp, op, args):
        from xmux.runtime.interpreter.memory import Allocation

        size, _ = llvm_layout(op.elem_type)
        alloc = Allocation.new(size * args[0], "a private llvm.alloca buffer")
        interp.keep.append(alloc)  # fake addresses do not keep buffers alive
        return (alloc.address,)

    @impl(llvm.GEPOp)
    def run_gep(self, interp, op, args):
        ptr, *dyn = args
        idx, k = [], 0
        for c in op.rawConstantIndices.get_values():
            if c == llvm.GEP_USE_SSA_VAL:
                w = int_width(op.ssa_indices[k].type)
                idx.append(to_signed(dyn[k], w))  # type: ignore[arg-type]
                k += 1
            else:
                idx.append(c)
        return (ptr + _gep_offset(op.elem_type, idx),)

    # -- llvm pointers and atomics --------------------------------------------------------
    @impl(llvm.IntToPtrOp)
    def run_inttoptr(self, interp, op, args):
        return (args[0],)

    @impl(llvm.AddressOfOp)
    def run_addressof(self, interp, op: llvm.AddressOfOp, args):
        return (interp.llvm_global_address(op.global_name.string_value()),)

    @impl(llvm.LoadOp)
    def run_llvm_load(self, interp, op, args):
        from xmux.runtime.interpreter.memory import load

        t = op.results[0].type
        atomic = op.ordering.value.data != 0
        if isinstance(t, llvm.LLVMStructType | llvm.LLVMArrayType):
            vals = {}
            for off, st, path in llvm_leaves(t):
                m, i = _ptr_access(interp, args[0] + off, st)
                vals[path] = load(m, (i,), interp, atomic=atomic)
            return (_assemble(t, vals, ()),)
        m, i = _ptr_access(interp, args[0], t)
        return (load(m, (i,), interp, atomic=atomic),)

    @impl(llvm.StoreOp)
    def run_llvm_store(self, interp, op, args):
        from xmux.runtime.interpreter.memory import store

        t = op.value.type
        atomic = op.ordering is not None and op.ordering.value.data != 0
        if isinstance(t, llvm.LLVMStructType | llvm.LLVMArrayType):
            for off, st, path in llvm_leaves(t):
                v = args[0]
                for p in path:
                    v = v[p]
                m, i = _ptr_access(interp, args[1] + off, st)
                store(m, (i,), v, interp, atomic=atomic)
            return ()
        m, i = _ptr_access(interp, args[1], t)
        store(m, (i,), args[0], interp, atomic=atomic)
        return ()

    @impl(llvm.MaskedStoreOp)
    def run_llvm_masked_store(self, interp, op, args):
        from xmux.runtime.interpreter.memory import store

        value, ptr, mask = args
        elem = op.value.type.element_type
        size = llvm_layout(elem)[0]
        for k, on in enumerate(mask):
            if on:  # masked-off lanes are not accessed
                m, i = _ptr_access(interp, ptr + k * size, elem)
                store(m, (i,), value[k], interp)
        return ()

    @impl(llvmx.AtomicRMWOp)
    def run_atomicrmw(self, interp, op, args):
        from xmux.runtime.interpreter.memory import load, store

        ptr, val = args
        name = llvmx.ATOMIC_BIN_OPS[op.bin_op.value.data]
        t = op.val.type
        m, i = _ptr_access(interp, ptr, t)
        old = load(m, (i,), interp, atomic=True)
        if name == "sub":
            new = (old - val) & ((1 << int_width(t)) - 1)  # type: ignore[operator]
        elif name == "fsub":
            new = old - val
        elif name in _RMW:
            new = atomic_combine(_RMW[name], old, val, int_width(t))
        else:
            raise NotSupportedError(f"llvm.atomicrmw {name} at {interp.where()}")
        store(m, (i,), new, interp, atomic=True)
        return (old,)

    @impl(llvmx.AtomicCmpXchgOp)
    def run_cmpxchg(self, interp, op, args):
        from xmux.runtime.interpreter.memory import load, store

        ptr, expected, new = args
        m, i = _ptr_access(interp, ptr, op.val.type)
        old = load(m, (i,), interp, atomic=True)
        ok = int(old == expected)
        if ok:
            store(m, (i,), new, interp, atomic=True)
        return ((old, ok),)

    @impl(llvmx.FenceOp)
    def run_fence(self, interp, op, args):
        return ()

    @impl(llvm.ExtractValueOp)
    def run_extractvalue(self, interp, op: llvm.ExtractValueOp, args):
        v = args[0]
        for p in op.position.get_values():
            v = v[p]
        return (v,)

    @impl(llvm.InsertValueOp)
    def run_insertvalue(self, interp, op: llvm.InsertValueOp, args):
        def put(c: Any, path: tuple[int, ...], x: Any) -> Any:
            items = list(c)
            items[path[0]] = x if len(path) == 1 else put(items[path[0]], path[1:], x)
            return tuple(items)

        return (put(args[0], tuple(op.position.get_values()), args[1]),)

    # -- specialization constants ----------------------------------------------------------
    @impl(spec.GetScalarOp)
    def run_get_scalar(self, interp, op, args):
        return (interp.spec_value(op),)

    @impl(spec.GetCompositeOp)
    def run_get_composite(self, interp, op, args):
        return (interp.spec_value(op),)

    # -- vector ----------------------------------------------------------------------------
    @impl(vector.LoadOp)
    def run_vector_load(self, interp, op: vector.LoadOp, args):
        from xmux.runtime.interpreter.memory import load

        m, *idx = args
        t = op.result.type
        n = t.get_shape()[-1]
        lanes = [load(m, (*idx[:-1], idx[-1] + k), interp) for k in range(n)]
        return (np.array(lanes, dtype=vector_dtype(t.element_type)).reshape(t.get_shape()),)

    @impl(vector.StoreOp)
    def run_vector_store(self, interp, op: vector.StoreOp, args):
        from xmux.runtime.interpreter.memory import store

        v, m, *idx = args
        for k, x in enumerate(np.ravel(v)):
            store(m, (*idx[:-1], idx[-1] + k), int(x) if m.is_int else x, interp)
        return ()

    @impl(vector.MaskedLoadOp)
    def run_masked_load(self, interp, op, args):
        from xmux.runtime.interpreter.memory import load

        m, *rest = args
        idx, mask, passthru = rest[:-2], rest[-2], rest[-1]
        out = passthru.copy()
        for k in range(out.shape[0]):
            if mask[k]:  # masked-off lanes are not accessed (no bounds check)
                out[k] = load(m, (*idx[:-1], idx[-1] + k), interp)
        return (out,)

    @impl(vector.MaskedStoreOp)
    def run_masked_store(self, interp, op, args):
        from xmux.runtime.interpreter.memory import store

        m, *rest = args
        idx, mask, v = rest[:-2], rest[-2], rest[-1]
        for k in range(v.shape[0]):
            if mask[k]:
                x = v[k]
                store(m, (*idx[:-1], idx[-1] + k), int(x) if m.is_int else x, interp)
        return ()

    @impl(vector.CreateMaskOp)
    def run_create_mask(self, interp, op, args):
        n = op.results[0].type.get_shape()[0]
        if len(args) != 1:
            raise NotSupportedError(f"vector.create_mask of rank {len(args)} at {interp.where()}")
        bound = to_signed(args[0], 64)
        return (np.arange(n) < bound,)

    @impl(vector.ShuffleOp)
    def run_shuffle(self, interp, op, args):
        a, b = args
        both = np.concatenate([np.ravel(a), np.ravel(b)])
        return (both[[int(m) for m in op.mask.get_values()]].copy(),)

    @impl(vector.BitcastOp)
    def run_vector_bitcast(self, interp, op, args):
        t = op.results[0].type
        return (np.ascontiguousarray(args[0]).view(vector_dtype(t.element_type))
                .reshape(t.get_shape()).copy(),)

    @impl(vector.BroadcastOp)
    def run_broadcast(self, interp, op: vector.BroadcastOp, args):
        t = op.vector.type
        return (np.full(t.get_shape(), args[0], dtype=vector_dtype(t.element_type)),)

    @impl(vector.ExtractOp)
    def run_vector_extract(self, interp, op: vector.ExtractOp, args):
        v, *dyn = args
        it = iter(dyn)
        pos = tuple(next(it) if p < 0 else p for p in op.static_position.get_values())
        x = v[pos]
        if isinstance(x, np.ndarray):
            return (x.copy(),)
        return (int(x) if int_width(op.result.type) is not None else x,)

    @impl(vector.InsertOp)
    def run_vector_insert(self, interp, op: vector.InsertOp, args):
        src, dest, *dyn = args
        it = iter(dyn)
        pos = tuple(next(it) if p < 0 else p for p in op.static_position.get_values())
        out = dest.copy()
        out[pos] = src
        return (out,)

    @impl(vector.FMAOp)
    def run_vector_fma(self, interp, op, args):
        return (_lanes(fma, args, op.results[0].type),)

    @impl(vector.ReductionOp)
    def run_reduction(self, interp, op: vector.ReductionOp, args):
        v = args[0]
        kind = str(op.kind.data.value if hasattr(op.kind.data, "value") else op.kind.data)
        t = op.dest.type
        w = int_width(t)
        lanes = [int(x) if w is not None else x for x in np.ravel(v)]
        if len(args) > 1:
            lanes = [args[1], *lanes]
        fns = {
            "add": lambda a, b: (a + b) & ((1 << w) - 1) if w else a + b,
            "mul": lambda a, b: (a * b) & ((1 << w) - 1) if w else a * b,
            "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
            "minui": min, "maxui": max,
            "minsi": lambda a, b: a if to_signed(a, w) <= to_signed(b, w) else b,
            "maxsi": lambda a, b: a if to_signed(a, w) >= to_signed(b, w) else b,
            "minnumf": minnumf, "maxnumf": maxnumf,
        }
        fn = fns.get(kind)
        if fn is None:
            raise NotSupportedError(f"vector.reduction <{kind}> at {interp.where()}")
        acc = lanes[0]
        for x in lanes[1:]:
            acc = fn(acc, x)
        return (acc,)

    @impl(ShapeCastOp)
    def run_shape_cast(self, interp, op, args):
        return (np.reshape(args[0], op.results[0].type.get_shape()).copy(),)

    @impl(ub.PoisonOp)
    def run_poison(self, interp, op, args):
        # a value the program must not observe: any value is right; zero, as the lowering
        # (lowering/to_llvm/vector.py), so that the CPU and the interpreter agree
        t = op.results[0].type
        if isinstance(t, VectorType):
            return (np.zeros(t.get_shape(), dtype=vector_dtype(t.element_type)),)
        return (from_python(0, t),)

    # -- complex ---------------------------------------------------------------------------
    @impl(cplx.ConstantOp)
    def run_complex_constant(self, interp, op, args):
        t = op.results[0].type
        re, im = (a.value.data for a in op.value.data)
        return (COMPLEX_DTYPES[type(t.element_type)](complex(re, im)),)

    @impl(cplx.CreateOp)
    def run_complex_create(self, interp, op, args):
        t = op.results[0].type
        return (_make_complex(np.dtype(COMPLEX_DTYPES[type(t.element_type)]), *args),)

    @impl(cplx.ReOp)
    def run_complex_re(self, interp, op, args):
        return (args[0].real,)

    @impl(cplx.ImOp)
    def run_complex_im(self, interp, op, args):
        return (args[0].imag,)

    @impl(cplx.AddOp)
    def run_complex_add(self, interp, op, args):
        return (args[0] + args[1],)

    @impl(cplx.SubOp)
    def run_complex_sub(self, interp, op, args):
        return (args[0] - args[1],)

    @impl(cplx.MulOp)
    def run_complex_mul(self, interp, op, args):
        x, y = args
        a, b, c, d = x.real, x.imag, y.real, y.imag
        return (_make_complex(x.dtype, a * c - b * d, a * d + b * c),)

    @impl(cplx.EqualOp)
    def run_complex_eq(self, interp, op, args):
        x, y = args
        return (int(bool(x.real == y.real) and bool(x.imag == y.imag)),)

    @impl(cplx.NotEqualOp)
    def run_complex_neq(self, interp, op, args):
        x, y = args
        return (int(bool(x.real != y.real) or bool(x.imag != y.imag)),)


def _assemble(t: Attribute, vals: dict, path: tuple[int, ...]) -> Any:
    if isinstance(t, llvm.LLVMStructType):
        return tuple(_assemble(ft, vals, (*path, i)) for i, ft in enumerate(t.types.data))
    if isinstance(t, llvm.LLVMArrayType):
        return tuple(_assemble(t.type, vals, (*path, i)) for i in range(t.size.data))
    return vals[path]


def _make_complex(dtype: np.dtype, re: Any, im: Any) -> Any:
    """A complex scalar from its parts (numpy scalars are immutable: through an array)."""
    arr = np.zeros((), dtype=dtype)
    arr.real, arr.imag = re, im
    return arr[()]


register_impls(MiscFunctions)
