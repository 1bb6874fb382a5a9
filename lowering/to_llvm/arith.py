"""arith → llvm, on scalars and 1-D vectors (as MLIR's arith-to-llvm).

Min/max become ``llvm.call_intrinsic "llvm.smin.i32"``-style calls (mangled names):
smin/smax/umin/umax, ``maxnumf``/``minnumf`` → maxnum/minnum, ``maximumf``/``minimumf``
(NaN-propagating, -0 < +0) → maximum/minimum. ``ceildivsi`` / ``floordivsi`` / ``ceildivui``
are expanded with a division, a remainder and a correction. ``uitofp`` / ``fptosi`` /
``fptoui`` use the ops xDSL lacks (``dialects/llvmx.py``). ``addui_extended`` is an add and
an unsigned compare; ``mului_extended`` / ``mulsi_extended`` a multiplication at twice the
width (i64: i128), whose halves are truncated out.
Comparisons and selects with vector conditions are done lane by lane (xDSL's ``llvm.fcmp`` and
``llvm.select`` take scalars only). Fast-math flags are kept on float arithmetic and ``fneg``.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xmux.dialects import llvm as llvm_ext
from xmux.dialects import llvmx
from xmux.lowering.to_llvm.core import FunctionLowerer, Handler
from xmux.lowering.to_llvm.types import convert_type, intrinsic_suffix, scalar_of


def fastmath(op: Operation) -> llvm.FastMathAttr:
    fm = op.properties.get("fastmath")
    flags = tuple(fm.data) if isinstance(fm, arith.FastMathFlagsAttr) else ()
    return llvm.FastMathAttr(flags if flags else None)


def _overflow(op: Operation) -> llvm.OverflowAttr:
    ov = op.properties.get("overflowFlags")
    names = {f.value for f in ov.data} if isinstance(ov, arith.IntegerOverflowAttr) else set()
    return llvm.OverflowAttr(
        tuple(f for f in llvm.OverflowFlag if f.value in names) if names else None
    )


def _binary(lw: FunctionLowerer, op: Operation) -> tuple[SSAValue, SSAValue]:
    return lw.get(op.operands[0]), lw.get(op.operands[1])


def _int_bin(cls: type[Operation], with_overflow: bool = False) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        a, b = _binary(lw, op)
        new = cls(a, b, overflow=_overflow(op)) if with_overflow else cls(a, b)  # type: ignore[call-arg]
        lw.set(op.results[0], lw.emit_value(new))

    return lower


def _float_bin(cls: type[llvm.AbstractFloatArithOp]) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        a, b = _binary(lw, op)
        lw.set(op.results[0], lw.emit_value(cls(a, b, fastmath(op))))

    return lower


def _intrinsic_bin(name: str) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        a, b = _binary(lw, op)
        res = lw.intrinsic(f"llvm.{name}.{intrinsic_suffix(a.type)}", [a, b], a.type, fastmath(op))
        assert res is not None
        lw.set(op.results[0], res)

    return lower


def _cast(cls: Callable[[SSAValue, Attribute], Operation]) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        src = lw.get(op.operands[0])
        dst = convert_type(op.results[0].type)
        lw.set(op.results[0], src if src.type == dst else lw.emit_value(cls(src, dst)))

    return lower


def _width(t: Attribute) -> int:
    s = scalar_of(t)
    assert isinstance(s, IntegerType)
    return s.width.data


def _index_cast(zero_extend: bool) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        src = lw.get(op.operands[0])
        dst = convert_type(op.results[0].type)
        ws, wd = _width(src.type), _width(dst)
        if ws == wd:
            res = src
        elif ws > wd:
            res = lw.emit_value(llvm_ext.TruncOp(src, dst))
        elif zero_extend:
            res = lw.emit_value(llvm.ZExtOp(src, dst))
        else:
            res = lw.emit_value(llvm.SExtOp(src, dst))
        lw.set(op.results[0], res)

    return lower


# -- constants -----------------------------------------------------------------------------


def constant_value(lw: FunctionLowerer, op: Operation, value: Attribute, t: Attribute) -> SSAValue:
    """An ``llvm.mlir.constant`` of ``value`` (integer, float or dense vector) at type ``t``."""
    ct = convert_type(t)
    if isinstance(value, IntegerAttr):
        v = value.value.data
        if ct == i1:
            v = 1 if v else 0
        return lw.emit_value(llvm.ConstantOp(IntegerAttr(v, ct), ct))
    if isinstance(value, FloatAttr):
        return lw.emit_value(llvm.ConstantOp(value, ct))
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(ct, VectorType):
        values = list(value.get_values())
        if scalar_of(ct) == i1:
            values = [1 if v else 0 for v in values]
        if isinstance(value.get_element_type(), IndexType) or scalar_of(ct) == i1:
            value = DenseIntOrFPElementsAttr.from_list(ct, values)  # type: ignore[arg-type]
        return lw.emit_value(llvm.ConstantOp(value, ct))
    raise lw.error(op, f"constant {value} of type {t} has no llvm lowering")


def lower_constant(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, arith.ConstantOp)
    lw.set(op.result, constant_value(lw, op, op.value, op.result.type))


# -- comparisons and select ----------------------------------------------------------------


def lower_cmpi(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, arith.CmpiOp)
    a, b = _binary(lw, op)
    # arith's and llvm's integer predicates are numbered alike (eq, ne, slt, ..., uge).
    pred = IntegerAttr(op.predicate.value.data, i64)
    lw.set(op.result, lw.emit_value(llvm.ICmpOp(a, b, pred)))


def fcmp(lw: FunctionLowerer, a: SSAValue, b: SSAValue, pred: int) -> SSAValue:
    """Scalar float comparison; arith's and llvm's predicates are numbered alike."""
    if pred == 0:
        return lw.const(0, i1)
    if pred == 15:
        return lw.const(1, i1)
    return lw.emit_value(llvm.FCmpOp(a, b, IntegerAttr(pred, i64)))


def lower_cmpf(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, arith.CmpfOp)
    a, b = _binary(lw, op)
    pred = op.predicate.value.data
    if isinstance(a.type, VectorType):
        res_t = convert_type(op.result.type)
        res = lw.map_lanes(res_t, [a, b], lambda s: fcmp(lw, s[0], s[1], pred))
    else:
        res = fcmp(lw, a, b, pred)
    lw.set(op.result, res)


def select(lw: FunctionLowerer, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    if isinstance(c.type, VectorType):
        return lw.map_lanes(a.type, [c, a, b], lambda s: lw.emit_value(llvm.SelectOp(*s)))
    return lw.emit_value(llvm.SelectOp(c, a, b))


def lower_select(lw: FunctionLowerer, op: Operation) -> None:
    c, a, b = lw.get_all(op.operands)
    lw.set(op.results[0], select(lw, c, a, b))


# -- integer divisions ---------------------------------------------------------------------
#
# x86's div/idiv trap (SIGFPE, which would kill the user's process) on a zero divisor and on
# INT_MIN / -1; OpenCL leaves both results undefined, without a trap. Every integer division
# and remainder therefore divides by b' = (b | (b == 0)) + 2·(a == MIN && b == -1): 1 in
# both cases (a / 1 = a, the wrapped INT_MIN / -1; a % 1 = 0), b itself otherwise. LLVM
# folds the guard away for constant divisors; the checking mode reports these cases instead.


def _safe_divisor(lw: FunctionLowerer, a: SSAValue, b: SSAValue, signed: bool) -> SSAValue:
    t = b.type
    zero = _zero_like(lw, t)
    one = lw.emit_value(llvm.ZExtOp(_icmp(lw, "eq", b, zero), t))
    safe = lw.emit_value(llvm.OrOp(b, one))
    if not signed:
        return safe
    width = scalar_of(t).width.data if not isinstance(scalar_of(t), IndexType) else 64
    lowest = _zero_like(lw, t, -(1 << (width - 1)))
    minus_one = _zero_like(lw, t, -1)
    overflow = lw.emit_value(llvm.AndOp(_icmp(lw, "eq", a, lowest), _icmp(lw, "eq", b, minus_one)))
    two = lw.emit_value(llvm_ext.ShlOp(lw.emit_value(llvm.ZExtOp(overflow, t)), one_like(lw, t)))
    return lw.emit_value(llvm_ext.AddOp(safe, two))


def one_like(lw: FunctionLowerer, t: Attribute) -> SSAValue:
    return _zero_like(lw, t, 1)


def _int_div(cls: type[Operation], signed: bool) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        a, b = _binary(lw, op)
        lw.set(op.results[0], lw.emit_value(cls(a, _safe_divisor(lw, a, b, signed))))  # type: ignore[call-arg]

    return lower


# -- expanded integer divisions --------------------------------------------------------------


def _icmp(lw: FunctionLowerer, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    return lw.emit_value(llvm.ICmpOp(a, b, IntegerAttr(llvm.ICmpPredicateFlag(pred).to_int(), i64)))


def _zero_like(lw: FunctionLowerer, t: Attribute, value: int = 0) -> SSAValue:
    if isinstance(t, VectorType):
        dense = DenseIntOrFPElementsAttr.from_list(t, [value])  # type: ignore[arg-type]
        return lw.emit_value(llvm.ConstantOp(dense, t))
    return lw.const(value, t)


def _div_parts(lw: FunctionLowerer, op: Operation, signed: bool):
    a, b = _binary(lw, op)
    b = _safe_divisor(lw, a, b, signed)
    q = lw.emit_value(llvm.SDivOp(a, b) if signed else llvm.UDivOp(a, b))
    r = lw.emit_value(llvm.SRemOp(a, b) if signed else llvm.URemOp(a, b))
    zero = _zero_like(lw, a.type)
    inexact = _icmp(lw, "ne", r, zero)
    return a, b, q, r, zero, inexact


def lower_ceildivsi(lw: FunctionLowerer, op: Operation) -> None:
    # q + 1 when the remainder is non-zero and has the divisor's sign (quotient > 0).
    _, b, q, r, zero, inexact = _div_parts(lw, op, signed=True)
    same_sign = _icmp(lw, "sge", lw.emit_value(llvm.XOrOp(r, b)), zero)
    bump = lw.emit_value(llvm.AndOp(inexact, same_sign))
    lw.set(
        op.results[0], lw.emit_value(llvm_ext.AddOp(q, lw.emit_value(llvm.ZExtOp(bump, q.type))))
    )


def lower_floordivsi(lw: FunctionLowerer, op: Operation) -> None:
    # q - 1 when the remainder is non-zero and its sign differs from the divisor's.
    _, b, q, r, zero, inexact = _div_parts(lw, op, signed=True)
    diff_sign = _icmp(lw, "slt", lw.emit_value(llvm.XOrOp(r, b)), zero)
    bump = lw.emit_value(llvm.AndOp(inexact, diff_sign))
    lw.set(
        op.results[0], lw.emit_value(llvm_ext.SubOp(q, lw.emit_value(llvm.ZExtOp(bump, q.type))))
    )


def lower_ceildivui(lw: FunctionLowerer, op: Operation) -> None:
    _, _, q, _, _, inexact = _div_parts(lw, op, signed=False)
    lw.set(
        op.results[0], lw.emit_value(llvm_ext.AddOp(q, lw.emit_value(llvm.ZExtOp(inexact, q.type))))
    )


# -- extended arithmetic (as MLIR's ArithToLLVM) ---------------------------------------------


def lower_addui_extended(lw: FunctionLowerer, op: Operation) -> None:
    # the carry: the wrapped sum is below an operand exactly when the add overflowed
    a, b = _binary(lw, op)
    total = lw.emit_value(llvm_ext.AddOp(a, b))
    lw.set_results(op, [total, _icmp(lw, "ult", total, a)])


def _wide_type(t: Attribute, width: int) -> Attribute:
    wide = IntegerType(width)
    return VectorType(wide, t.get_shape()) if isinstance(t, VectorType) else wide


def _mul_extended(signed: bool) -> Handler:
    # both halves of the 2w-bit product: extend, multiply, shift the high half down, truncate
    # (i64 operands: i128, which LLVM legalizes on x86 (mul / imul) and NVPTX (mul.hi))
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        a, b = _binary(lw, op)
        w = _width(a.type)
        wide = _wide_type(a.type, 2 * w)
        ext = llvm.SExtOp if signed else llvm.ZExtOp
        product = lw.emit_value(
            llvm_ext.MulOp(lw.emit_value(ext(a, wide)), lw.emit_value(ext(b, wide))))
        high = lw.emit_value(llvm.LShrOp(product, _zero_like(lw, wide, w)))
        lw.set_results(op, [lw.emit_value(llvm_ext.TruncOp(product, a.type)),
                            lw.emit_value(llvm_ext.TruncOp(high, a.type))])

    return lower


def lower_negf(lw: FunctionLowerer, op: Operation) -> None:
    lw.set(op.results[0], lw.emit_value(llvm.FNegOp(lw.get(op.operands[0]), fastmath(op))))


HANDLERS: dict[str, Handler] = {
    "arith.constant": lower_constant,
    "arith.addi": _int_bin(llvm_ext.AddOp, with_overflow=True),
    "arith.subi": _int_bin(llvm_ext.SubOp, with_overflow=True),
    "arith.muli": _int_bin(llvm_ext.MulOp, with_overflow=True),
    "arith.shli": _int_bin(llvm_ext.ShlOp, with_overflow=True),
    "arith.divui": _int_div(llvm.UDivOp, signed=False),
    "arith.divsi": _int_div(llvm.SDivOp, signed=True),
    "arith.remui": _int_div(llvm.URemOp, signed=False),
    "arith.remsi": _int_div(llvm.SRemOp, signed=True),
    "arith.andi": _int_bin(llvm.AndOp),
    "arith.ori": _int_bin(llvm.OrOp),
    "arith.xori": _int_bin(llvm.XOrOp),
    "arith.shrui": _int_bin(llvm.LShrOp),
    "arith.shrsi": _int_bin(llvm.AShrOp),
    "arith.minsi": _intrinsic_bin("smin"),
    "arith.maxsi": _intrinsic_bin("smax"),
    "arith.minui": _intrinsic_bin("umin"),
    "arith.maxui": _intrinsic_bin("umax"),
    "arith.ceildivsi": lower_ceildivsi,
    "arith.floordivsi": lower_floordivsi,
    "arith.ceildivui": lower_ceildivui,
    "arith.addui_extended": lower_addui_extended,
    "arith.mului_extended": _mul_extended(signed=False),
    "arith.mulsi_extended": _mul_extended(signed=True),
    "arith.addf": _float_bin(llvm.FAddOp),
    "arith.subf": _float_bin(llvm.FSubOp),
    "arith.mulf": _float_bin(llvm.FMulOp),
    "arith.divf": _float_bin(llvm.FDivOp),
    "arith.remf": _float_bin(llvm.FRemOp),
    "arith.negf": lower_negf,
    "arith.maxnumf": _intrinsic_bin("maxnum"),
    "arith.minnumf": _intrinsic_bin("minnum"),
    "arith.maximumf": _intrinsic_bin("maximum"),
    "arith.minimumf": _intrinsic_bin("minimum"),
    "arith.cmpi": lower_cmpi,
    "arith.cmpf": lower_cmpf,
    "arith.select": lower_select,
    "arith.extui": _cast(llvm.ZExtOp),
    "arith.extsi": _cast(llvm.SExtOp),
    "arith.trunci": _cast(llvm_ext.TruncOp),
    "arith.extf": _cast(llvm.FPExtOp),
    "arith.truncf": _cast(llvm.FPTruncOp),
    "arith.sitofp": _cast(llvm.SIToFPOp),
    "arith.uitofp": _cast(llvmx.UIToFPOp),
    "arith.fptosi": _cast(llvmx.FPToSIOp),
    "arith.fptoui": _cast(llvmx.FPToUIOp),
    "arith.bitcast": _cast(llvm.BitcastOp),
    "arith.index_cast": _index_cast(zero_extend=False),
    "arith.index_castui": _index_cast(zero_extend=True),
}
