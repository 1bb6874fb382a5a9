"""math → llvm intrinsics, or libm calls where LLVM has no intrinsic.

``llvm.call_intrinsic`` with mangled names (``llvm.sqrt.f32``, ``llvm.sqrt.v4f32``) for
sqrt/exp/exp2/log/log2/log10/sin/cos/fabs/floor/ceil/trunc/round/roundeven/pow/powi/copysign/
abs/ctlz/cttz/ctpop, ``llvm.intr.fma`` for fma, ``rsqrt`` as ``1 / sqrt``, and calls of libm
(``tanhf``/``tanh``, ``erff``, ``atan2f``, ...; declared as external ``llvm.func``) for the rest,
lane by lane on vectors and through f32 for f16.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    VectorType,
    f32,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xmux.lowering.to_llvm.arith import fastmath
from xmux.lowering.to_llvm.core import FunctionLowerer, Handler
from xmux.lowering.to_llvm.types import intrinsic_suffix, scalar_of


def _call_intr(name: str, extra_false: bool = False, overload_args: int = 1) -> Handler:
    """``llvm.<name>.<overloads>(args[, false])``, fast-math flags kept.

    Mangled ``llvm.call_intrinsic`` rather than xDSL's ``llvm.intr.*`` ops: their translation
    declares one unmangled function per name, which breaks when a module uses an intrinsic on
    two types (f32 and vector<4xf32>).
    """

    def lower(lw: FunctionLowerer, op: Operation) -> None:
        args = lw.get_all(op.operands)
        suffix = ".".join(intrinsic_suffix(a.type) for a in args[:overload_args])
        if extra_false:
            args.append(lw.const(0, i1))
        res = lw.intrinsic(f"llvm.{name}.{suffix}", args, args[0].type, fastmath(op))
        assert res is not None
        lw.set(op.results[0], res)

    return lower


def lower_fma(lw: FunctionLowerer, op: Operation) -> None:
    a, b, c = lw.get_all(op.operands)
    lw.set(op.results[0], lw.emit_value(llvm.FMAOp(a, b, c)))


def _splat(lw: FunctionLowerer, value: float, t: Attribute) -> SSAValue:
    if isinstance(t, VectorType):
        dense = DenseIntOrFPElementsAttr.from_list(t, [value])  # type: ignore[arg-type]
        return lw.emit_value(llvm.ConstantOp(dense, t))
    return lw.fconst(value, t)


def lower_rsqrt(lw: FunctionLowerer, op: Operation) -> None:
    x = lw.get(op.operands[0])
    root = lw.intrinsic(f"llvm.sqrt.{intrinsic_suffix(x.type)}", [x], x.type, fastmath(op))
    assert root is not None
    lw.set(op.results[0], lw.emit_value(llvm.FDivOp(_splat(lw, 1.0, x.type), root, fastmath(op))))


def libm_call(lw: FunctionLowerer, base: str, args: list[SSAValue]) -> SSAValue:
    """Call libm's ``base`` (f64 name) on scalar floats of one type."""
    t = args[0].type
    if isinstance(t, Float16Type):
        wide = [lw.emit_value(llvm.FPExtOp(a, f32)) for a in args]
        return lw.emit_value(llvm.FPTruncOp(libm_call(lw, base, wide), t))
    if isinstance(t, Float32Type):
        name = base + "f"
    elif isinstance(t, Float64Type):
        name = base
    else:
        raise ValueError(f"no libm function {base} for {t}")
    lw.mod.declare(name, [t] * len(args), t)
    res = lw.call(name, args, t)
    assert res is not None
    return res


def _libm(base: str) -> Handler:
    def lower(lw: FunctionLowerer, op: Operation) -> None:
        args = lw.get_all(op.operands)
        t = args[0].type
        if not isinstance(scalar_of(t), (Float16Type, Float32Type, Float64Type)):
            raise lw.error(op, f"no libm lowering for {t}")
        scalar: Callable[[list[SSAValue]], SSAValue] = lambda s: libm_call(lw, base, s)  # noqa: E731
        with lw.untagged():  # libm calls touch no kernel memory
            if isinstance(t, VectorType):
                res = lw.map_lanes(t, args, scalar)
            else:
                res = scalar(args)
        lw.set(op.results[0], res)

    return lower


def _is_float(t: Attribute) -> bool:
    return isinstance(scalar_of(t), AnyFloat)


HANDLERS: dict[str, Handler] = {
    "math.absf": _call_intr("fabs"),
    "math.ceil": _call_intr("ceil"),
    "math.floor": _call_intr("floor"),
    "math.sqrt": _call_intr("sqrt"),
    "math.exp": _call_intr("exp"),
    "math.exp2": _call_intr("exp2"),
    "math.log": _call_intr("log"),
    "math.log2": _call_intr("log2"),
    "math.sin": _call_intr("sin"),
    "math.cos": _call_intr("cos"),
    "math.powf": _call_intr("pow"),
    "math.copysign": _call_intr("copysign"),
    "math.fma": lower_fma,
    "math.rsqrt": lower_rsqrt,
    "math.log10": _call_intr("log10"),
    "math.round": _call_intr("round"),
    "math.roundeven": _call_intr("roundeven"),
    "math.trunc": _call_intr("trunc"),
    "math.fpowi": _call_intr("powi", overload_args=2),
    "math.absi": _call_intr("abs", extra_false=True),
    "math.ctlz": _call_intr("ctlz", extra_false=True),
    "math.cttz": _call_intr("cttz", extra_false=True),
    "math.ctpop": _call_intr("ctpop"),
    **{
        f"math.{name}": _libm(name)
        for name in (
            "tanh",
            "erf",
            "erfc",
            "atan",
            "atan2",
            "tan",
            "asin",
            "acos",
            "sinh",
            "cosh",
            "asinh",
            "acosh",
            "atanh",
            "cbrt",
            "expm1",
            "log1p",
        )
    },
}
