"""vector (1-D) → llvm, as MLIR's vector-to-llvm.

load/store are ``llvm.load``/``llvm.store`` of the vector type at the element's address, aligned
as the memref element (numpy arrays are only element-aligned); maskedload/maskedstore the
``llvm.masked.*`` intrinsics; broadcast/splat ``insertelement`` + zero-mask ``shufflevector``;
extract/insert ``llvm.extractelement`` / ``llvm.insertelement``; reductions the
``llvm.vector.reduce.*`` intrinsics (combined with the accumulator when given).
"""

from __future__ import annotations

from xdsl.dialects import llvm, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xmux.dialects import llvm as llvm_ext
from xmux.dialects import llvmx
from xmux.lowering.to_llvm.arith import fastmath
from xmux.lowering.to_llvm.core import FunctionLowerer, Handler
from xmux.lowering.to_llvm.memref import element_address
from xmux.lowering.to_llvm.types import alignment_of, convert_type, intrinsic_suffix


def _vtype(lw: FunctionLowerer, op: Operation, t: Attribute) -> VectorType:
    ct = convert_type(t)
    if not isinstance(ct, VectorType):
        raise lw.error(op, f"expected a 1-D vector, got {t}")
    return ct


def _mem_alignment(ref: SSAValue) -> int:
    return alignment_of(ref.type.get_element_type())  # type: ignore[attr-defined]


def lower_load(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, vector.LoadOp)
    vt = _vtype(lw, op, op.result.type)
    ptr = element_address(lw, op.base, op.indices)
    with lw.untagged(op.base in lw.private):
        load = llvm.LoadOp(ptr, vt, alignment=_mem_alignment(op.base))
        lw.set(op.result, lw.emit_value(load))


def lower_store(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, vector.StoreOp)
    ptr = element_address(lw, op.base, op.indices)
    with lw.untagged(op.base in lw.private):
        lw.emit(llvm.StoreOp(lw.get(op.vector), ptr, alignment=_mem_alignment(op.base)))


def lower_maskedload(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, vector.MaskedLoadOp)
    vt = _vtype(lw, op, op.result.type)
    ptr = element_address(lw, op.base, op.indices)
    align = lw.const(_mem_alignment(op.base), i32)
    with lw.untagged(op.base in lw.private):
        res = lw.intrinsic(
            f"llvm.masked.load.{intrinsic_suffix(vt)}.p0",
            [ptr, align, lw.get(op.mask), lw.get(op.pass_thru)],
            vt,
        )
    assert res is not None
    lw.set(op.result, res)


def lower_maskedstore(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, vector.MaskedStoreOp)
    value = lw.get(op.value_to_store)
    ptr = element_address(lw, op.base, op.indices)
    align = lw.const(_mem_alignment(op.base), i32)
    with lw.untagged(op.base in lw.private):
        lw.intrinsic(
            f"llvm.masked.store.{intrinsic_suffix(value.type)}.p0",
            [value, ptr, align, lw.get(op.mask)],
            None,
        )


def splat(lw: FunctionLowerer, scalar: SSAValue, vt: VectorType) -> SSAValue:
    undef = lw.emit_value(llvm.UndefOp(vt))
    first = lw.emit_value(llvm.InsertElementOp(undef, scalar, lw.const(0, i32)))
    mask = DenseArrayBase.from_list(i32, [0] * vt.get_shape()[0])
    return lw.emit_value(llvm.ShuffleVectorOp(first, undef, mask, vt))


def lower_broadcast(lw: FunctionLowerer, op: Operation) -> None:
    vt = _vtype(lw, op, op.results[0].type)
    src = lw.get(op.operands[0])
    if src.type == vt:
        lw.set(op.results[0], src)
        return
    if isinstance(src.type, VectorType):
        if src.type.get_shape() != (1,):
            raise lw.error(op, f"cannot broadcast {src.type} to {vt}")
        mask = DenseArrayBase.from_list(i32, [0] * vt.get_shape()[0])
        lw.set(op.results[0], lw.emit_value(llvm.ShuffleVectorOp(src, src, mask, vt)))
        return
    lw.set(op.results[0], splat(lw, src, vt))


def _position(lw: FunctionLowerer, op: Operation) -> SSAValue:
    static = list(op.properties["static_position"].get_values())  # type: ignore[attr-defined]
    if len(static) != 1:
        raise lw.error(op, "only single positions in 1-D vectors are supported")
    if static[0] == DYNAMIC_INDEX:
        return lw.get(op.operands[-1])
    return lw.const(static[0])


def lower_extract(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, vector.ExtractOp)
    if isinstance(op.result.type, VectorType):
        raise lw.error(op, "extracting sub-vectors (n-D vectors) is not supported")
    pos = _position(lw, op)
    lw.set(op.result, lw.emit_value(llvmx.ExtractElementOp(lw.get(op.vector), pos)))


def lower_insert(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, vector.InsertOp)
    if isinstance(op.source.type, VectorType):
        raise lw.error(op, "inserting sub-vectors (n-D vectors) is not supported")
    pos = _position(lw, op)
    res = llvm.InsertElementOp(lw.get(op.dest), lw.get(op.source), pos)
    lw.set(op.result, lw.emit_value(res))


def lower_extractelement(lw: FunctionLowerer, op: Operation) -> None:
    """Upstream's older ``vector.extractelement %v[%i : index]`` (generic form)."""
    args = lw.get_all(op.operands)
    pos = args[1] if len(args) > 1 else lw.const(0)
    lw.set(op.results[0], lw.emit_value(llvmx.ExtractElementOp(args[0], pos)))


def lower_insertelement(lw: FunctionLowerer, op: Operation) -> None:
    args = lw.get_all(op.operands)
    pos = args[2] if len(args) > 2 else lw.const(0)
    lw.set(op.results[0], lw.emit_value(llvm.InsertElementOp(args[1], args[0], pos)))


def lower_fma(lw: FunctionLowerer, op: Operation) -> None:
    a, b, c = lw.get_all(op.operands)
    lw.set(op.results[0], lw.emit_value(llvm.FMAOp(a, b, c)))


def lower_shuffle(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, vector.ShuffleOp)
    vt = _vtype(lw, op, op.result.type)
    mask = DenseArrayBase.from_list(i32, [int(m) for m in op.mask.get_values()])
    res = llvm.ShuffleVectorOp(lw.get(op.v1), lw.get(op.v2), mask, vt)
    lw.set(op.result, lw.emit_value(res))


def lower_bitcast(lw: FunctionLowerer, op: Operation) -> None:
    src = lw.get(op.operands[0])
    lw.set(op.results[0], lw.emit_value(llvm.BitcastOp(src, convert_type(op.results[0].type))))


def lower_create_mask(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, vector.CreateMaskOp)
    vt = _vtype(lw, op, op.mask_vector.type)
    n = vt.get_shape()[0]
    if len(op.mask_dim_sizes) != 1:
        raise lw.error(op, "only 1-D masks are supported")
    idx_t = VectorType(i64, [n])
    steps = lw.emit_value(
        llvm.ConstantOp(DenseIntOrFPElementsAttr.from_list(idx_t, list(range(n))), idx_t)
    )
    bound = splat(lw, lw.get(op.mask_dim_sizes[0]), idx_t)
    pred = IntegerAttr(llvm.ICmpPredicateFlag.SLT.to_int(), i64)
    lw.set(op.mask_vector, lw.emit_value(llvm.ICmpOp(steps, bound, pred)))


_INT_REDUCE = {
    "add": "add",
    "mul": "mul",
    "and": "and",
    "or": "or",
    "xor": "xor",
    "minsi": "smin",
    "maxsi": "smax",
    "minui": "umin",
    "maxui": "umax",
}
_FLOAT_REDUCE = {
    "minnumf": "fmin",
    "maxnumf": "fmax",
    "minimumf": "fminimum",
    "maximumf": "fmaximum",
}
_INT_COMBINE = {
    "add": llvm_ext.AddOp,
    "mul": llvm_ext.MulOp,
    "and": llvm.AndOp,
    "or": llvm.OrOp,
    "xor": llvm.XOrOp,
}
_FLOAT_COMBINE = {
    "minnumf": "minnum",
    "maxnumf": "maxnum",
    "minimumf": "minimum",
    "maximumf": "maximum",
}


def lower_reduction(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, vector.ReductionOp)
    kind = op.kind.data.value
    v = lw.get(op.vector)
    vt = _vtype(lw, op, v.type)
    elem = vt.element_type
    acc = lw.get(op.acc) if op.acc is not None else None
    sfx = intrinsic_suffix(vt)
    if isinstance(elem, AnyFloat) and kind in ("add", "mul"):
        # ordered unless the op allows reassociation (fast-math flags are kept)
        start = acc if acc is not None else lw.fconst(-0.0 if kind == "add" else 1.0, elem)
        name = f"llvm.vector.reduce.f{kind}.{sfx}"
        res = lw.intrinsic(name, [start, v], elem, fastmath(op))
        assert res is not None
        lw.set(op.dest, res)
        return
    if isinstance(elem, IntegerType) and kind in _INT_REDUCE:
        res = lw.intrinsic(f"llvm.vector.reduce.{_INT_REDUCE[kind]}.{sfx}", [v], elem)
        assert res is not None
        if acc is not None:
            if kind in _INT_COMBINE:
                res = lw.emit_value(_INT_COMBINE[kind](acc, res))
            else:
                name = f"llvm.{_INT_REDUCE[kind]}.{intrinsic_suffix(elem)}"
                res = lw.intrinsic(name, [acc, res], elem)
        assert res is not None
        lw.set(op.dest, res)
        return
    if isinstance(elem, AnyFloat) and kind in _FLOAT_REDUCE:
        res = lw.intrinsic(f"llvm.vector.reduce.{_FLOAT_REDUCE[kind]}.{sfx}", [v], elem)
        assert res is not None
        if acc is not None:
            name = f"llvm.{_FLOAT_COMBINE[kind]}.{intrinsic_suffix(elem)}"
            res = lw.intrinsic(name, [acc, res], elem)
        assert res is not None
        lw.set(op.dest, res)
        return
    raise lw.error(op, f"reduction <{kind}> over {vt} is not supported")


def lower_poison(lw: FunctionLowerer, op: Operation) -> None:
    """``ub.poison`` (what vectorization and canonicalization leave for unused lanes) as a
    zero constant: xDSL 0.74 has no ``llvm.mlir.poison`` (and its ``llvm.mlir.zero`` takes
    pointers only); any value refines poison, and a zero keeps the CPU, the GPU and the
    interpreter (also zero) alike."""
    t = convert_type(op.results[0].type)
    if isinstance(t, VectorType):
        zero = 0.0 if isinstance(t.element_type, AnyFloat) else 0
        attr = DenseIntOrFPElementsAttr.from_list(t, [zero] * t.get_shape()[0])
        res = lw.emit_value(llvm.ConstantOp(attr, t))
    elif isinstance(t, AnyFloat):
        res = lw.fconst(0.0, t)
    elif isinstance(t, IntegerType):
        res = lw.const(0, t)
    elif isinstance(t, llvm.LLVMPointerType):
        res = lw.emit_value(llvm.ZeroOp.create(result_types=[t]))
    else:  # aggregates (a memref's descriptor): no zero constant; undef refines poison too
        res = lw.emit_value(llvm.UndefOp(t))
    lw.set(op.results[0], res)


def lower_unreachable(lw: FunctionLowerer, op: Operation) -> None:
    """``ub.unreachable`` (a terminator: reaching it is undefined) as ``llvm.unreachable``."""
    lw.emit(llvm.UnreachableOp())


HANDLERS: dict[str, Handler] = {
    "ub.poison": lower_poison,
    "ub.unreachable": lower_unreachable,
    "vector.load": lower_load,
    "vector.store": lower_store,
    "vector.maskedload": lower_maskedload,
    "vector.maskedstore": lower_maskedstore,
    "vector.broadcast": lower_broadcast,
    "vector.splat": lower_broadcast,
    "vector.extract": lower_extract,
    "vector.insert": lower_insert,
    "vector.extractelement": lower_extractelement,
    "vector.insertelement": lower_insertelement,
    "vector.fma": lower_fma,
    "vector.shuffle": lower_shuffle,
    "vector.bitcast": lower_bitcast,
    "vector.create_mask": lower_create_mask,
    "vector.reduction": lower_reduction,
}
