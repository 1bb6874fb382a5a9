"""complex → llvm: ``complex<T>`` is ``!llvm.struct<(T, T)>`` = (real, imaginary), the layout of
C's ``_Complex`` and numpy's complex64/complex128 (so ``memref<?xcomplex<f32>>`` arguments take
numpy complex arrays as they are; loads and stores go through the memref lowering).

- ``complex.constant`` / ``complex.create``: ``llvm.mlir.undef`` + two ``llvm.insertvalue``;
- ``complex.re`` / ``complex.im``: ``llvm.extractvalue`` 0 / 1;
- ``complex.add`` / ``complex.sub``: part by part; ``complex.mul``: (ac − bd) + (ad + bc)i
  (no special handling of infinities, as MLIR's default lowering with fastmath);
- ``complex.eq`` / ``complex.neq``: both parts compared (ordered equal / unordered not equal).

The complex functions (abs, div, exp, sqrt, pow, bitcast...) never get here: the pass
convert-complex-to-standard rewrites them into arith and math on the parts first.
"""

from __future__ import annotations

from xdsl.dialects import complex, llvm
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, i64
from xdsl.ir import Operation, SSAValue

from xmux.lowering.to_llvm.core import FunctionLowerer, Handler
from xmux.lowering.to_llvm.types import convert_type


def _pos(i: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [i])


def split(lw: FunctionLowerer, v: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(re, im) of a converted complex value."""
    t = v.type
    assert isinstance(t, llvm.LLVMStructType)
    e = t.types.data[0]
    return (
        lw.emit_value(llvm.ExtractValueOp(_pos(0), v, e)),
        lw.emit_value(llvm.ExtractValueOp(_pos(1), v, e)),
    )


def pack(lw: FunctionLowerer, t: llvm.LLVMStructType, re: SSAValue, im: SSAValue) -> SSAValue:
    v = lw.emit_value(llvm.UndefOp(t))
    v = lw.emit_value(llvm.InsertValueOp(_pos(0), v, re))
    return lw.emit_value(llvm.InsertValueOp(_pos(1), v, im))


def _struct(op: Operation) -> llvm.LLVMStructType:
    t = convert_type(op.results[0].type)
    assert isinstance(t, llvm.LLVMStructType)
    return t


def lower_constant(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, complex.ConstantOp)
    t = _struct(op)
    e = t.types.data[0]
    vals = []
    for a in op.value.data:
        if isinstance(a, FloatAttr):
            vals.append(lw.fconst(a.value.data, e))
        else:
            assert isinstance(a, IntegerAttr)
            vals.append(lw.const(a.value.data, e))
    lw.set(op.results[0], pack(lw, t, vals[0], vals[1]))


def lower_create(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, complex.CreateOp)
    lw.set(op.complex, pack(lw, _struct(op), lw.get(op.real), lw.get(op.imaginary)))


def _part(index: int) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        lw.set(op.results[0], split(lw, lw.get(op.operands[0]))[index])

    return lower


def _binary(lw: FunctionLowerer, op: Operation):
    a, b = split(lw, lw.get(op.operands[0])), split(lw, lw.get(op.operands[1]))
    return a, b, _struct(op)


def lower_add_sub(lw: FunctionLowerer, op: Operation) -> None:
    (a, b), (c, d), t = _binary(lw, op)
    cls = llvm.FAddOp if isinstance(op, complex.AddOp) else llvm.FSubOp
    re, im = lw.emit_value(cls(a, c)), lw.emit_value(cls(b, d))
    lw.set(op.results[0], pack(lw, t, re, im))


def lower_mul(lw: FunctionLowerer, op: Operation) -> None:
    (a, b), (c, d), t = _binary(lw, op)
    ac, bd = lw.emit_value(llvm.FMulOp(a, c)), lw.emit_value(llvm.FMulOp(b, d))
    ad, bc = lw.emit_value(llvm.FMulOp(a, d)), lw.emit_value(llvm.FMulOp(b, c))
    re, im = lw.emit_value(llvm.FSubOp(ac, bd)), lw.emit_value(llvm.FAddOp(ad, bc))
    lw.set(op.results[0], pack(lw, t, re, im))


def _compare(pred: int, combine: type[Operation]) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        (a, b), (c, d) = split(lw, lw.get(op.operands[0])), split(lw, lw.get(op.operands[1]))
        p = IntegerAttr(pred, i64)
        x = lw.emit_value(llvm.FCmpOp(a, c, p))
        y = lw.emit_value(llvm.FCmpOp(b, d, p))
        lw.set(op.results[0], lw.emit_value(combine(x, y)))  # type: ignore[call-arg]

    return lower


HANDLERS: dict[str, Handler] = {
    "complex.constant": lower_constant,
    "complex.create": lower_create,
    "complex.re": _part(0),
    "complex.im": _part(1),
    "complex.add": lower_add_sub,
    "complex.sub": lower_add_sub,
    "complex.mul": lower_mul,
    "complex.eq": _compare(1, llvm.AndOp),  # oeq
    "complex.neq": _compare(13, llvm.OrOp),  # une (xDSL's FCmpPredicateFlag order; 14 is uno)
}
