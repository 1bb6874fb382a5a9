"""index dialect → llvm (index is i64).

xDSL 0.74 ships no ``index`` dialect, so these ops arrive unregistered (generic syntax, with
``--allow-unregistered-dialect``): handlers are keyed by op name and read operands, results and
the ``value``/``pred`` attributes generically.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i1, i64
from xdsl.ir import Attribute, Operation

from xmux.dialects import llvm as llvm_ext
from xmux.lowering.to_llvm import arith as arith_lowering
from xmux.lowering.to_llvm.core import FunctionLowerer, Handler

_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def _attr(op: Operation, key: str) -> Attribute | None:
    return op.properties.get(key) or op.attributes.get(key)


def _predicate(lw: FunctionLowerer, op: Operation) -> str:
    attr = _attr(op, "pred")
    if isinstance(attr, IntegerAttr):
        return _PREDICATES[attr.value.data]
    # #index<cmp_predicate slt> (unregistered attribute) or a string
    inner = getattr(attr, "value", attr)
    text = inner.data if isinstance(inner, StringAttr) else str(inner)
    words = [w for w in text.replace(">", " ").replace("<", " ").split() if w in _PREDICATES]
    if not words:
        raise lw.error(op, f"cannot read the comparison predicate {attr}")
    return words[-1]


def lower_constant(lw: FunctionLowerer, op: Operation) -> None:
    value = _attr(op, "value")
    if isinstance(value, IntegerAttr) and value.type == i1:
        lw.set(op.results[0], lw.const(int(bool(value.value.data)), i1))
    elif isinstance(value, IntegerAttr):
        lw.set(op.results[0], lw.const(value.value.data, i64))
    else:
        raise lw.error(op, f"expected an integer 'value' attribute, got {value}")


def lower_cmp(lw: FunctionLowerer, op: Operation) -> None:
    a, b = lw.get_all(op.operands)
    pred = IntegerAttr(llvm.ICmpPredicateFlag(_predicate(lw, op)).to_int(), i64)
    lw.set(op.results[0], lw.emit_value(llvm.ICmpOp(a, b, pred)))


def lower_sizeof(lw: FunctionLowerer, op: Operation) -> None:
    lw.set(op.results[0], lw.const(8))


def _binary(cls: type[Operation]) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        a, b = lw.get_all(op.operands)
        lw.set(op.results[0], lw.emit_value(cls(a, b)))  # type: ignore[call-arg]

    return lower


HANDLERS: dict[str, Handler] = {
    "index.constant": lower_constant,
    "index.bool.constant": lower_constant,
    "index.add": _binary(llvm_ext.AddOp),
    "index.sub": _binary(llvm_ext.SubOp),
    "index.mul": _binary(llvm_ext.MulOp),
    "index.divs": _binary(llvm.SDivOp),
    "index.divu": _binary(llvm.UDivOp),
    "index.rems": _binary(llvm.SRemOp),
    "index.remu": _binary(llvm.URemOp),
    "index.shl": _binary(llvm_ext.ShlOp),
    "index.shrs": _binary(llvm.AShrOp),
    "index.shru": _binary(llvm.LShrOp),
    "index.and": _binary(llvm.AndOp),
    "index.or": _binary(llvm.OrOp),
    "index.xor": _binary(llvm.XOrOp),
    "index.maxs": arith_lowering.HANDLERS["arith.maxsi"],
    "index.maxu": arith_lowering.HANDLERS["arith.maxui"],
    "index.mins": arith_lowering.HANDLERS["arith.minsi"],
    "index.minu": arith_lowering.HANDLERS["arith.minui"],
    "index.ceildivs": arith_lowering.lower_ceildivsi,
    "index.ceildivu": arith_lowering.lower_ceildivui,
    "index.floordivs": arith_lowering.lower_floordivsi,
    "index.cmp": lower_cmp,
    "index.casts": arith_lowering.HANDLERS["arith.index_cast"],
    "index.castu": arith_lowering.HANDLERS["arith.index_castui"],
    "index.sizeof": lower_sizeof,
}
