"""math.* as the compiled path computes it: exact where LLVM is exact (sqrt, fma, rounding,
copysign, bit counts, powi's multiply loop), numpy's implementation at the type's width for
the transcendental functions (libm and numpy may differ in the last ulp: compare those with
a tolerance)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from xdsl.dialects import math
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation

from xmux.runtime.interpreter.arith import _lanes, width_of
from xmux.runtime.interpreter.values import to_signed


def _round_half_away(x: Any) -> Any:
    t = np.trunc(x)
    if abs(x - t) >= 0.5:
        t = t + np.copysign(x.dtype.type(1), x)
    return x.dtype.type(t)


def fma(a: Any, b: Any, c: Any) -> Any:
    """a·b + c with one rounding."""
    t = a.dtype.type
    if not (np.isfinite(a) and np.isfinite(b) and np.isfinite(c)):
        return t(np.float64(a) * np.float64(b) + np.float64(c))
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:
        return t(np.float64(a) * np.float64(b) + np.float64(c))  # sign of zero as IEEE
    d = float(exact)  # one rounding to f64
    if t is np.float64:
        return np.float64(d)
    with np.errstate(over="ignore"):
        f = t(d)
    if np.isfinite(f) and float(f) != d:
        # d may sit exactly between two neighbours of the narrow type: round from exact
        g = np.nextafter(f, t(np.inf) if d > float(f) else t(-np.inf))
        mid = (Fraction(float(f)) + Fraction(float(g))) / 2
        if Fraction(d) == mid and exact != mid:
            f = g if (exact > mid) == (float(g) > float(f)) else f
    return f


def powi(a: Any, n: int) -> Any:
    """compiler-rt's ``__powi*f2``: repeated squaring in the type, reciprocal for n < 0."""
    one = a.dtype.type(1)
    r, recip, b = one, n < 0, abs(n)
    while True:
        if b & 1:
            r = r * a
        b //= 2
        if b == 0:
            break
        a = a * a
    return one / r if recip else r


_UNARY: dict[type[Operation], Callable[[Any], Any]] = {
    math.AbsFOp: np.abs,
    math.CeilOp: np.ceil,
    math.FloorOp: np.floor,
    math.TruncOp: np.trunc,
    math.RoundEvenOp: np.rint,
    math.RoundOp: _round_half_away,
    math.SqrtOp: np.sqrt,
    math.RsqrtOp: lambda x: x.dtype.type(1) / np.sqrt(x),
    math.ExpOp: np.exp,
    math.Exp2Op: np.exp2,
    math.ExpM1Op: np.expm1,
    math.LogOp: np.log,
    math.Log2Op: np.log2,
    math.Log10Op: np.log10,
    math.Log1pOp: np.log1p,
    math.SinOp: np.sin,
    math.CosOp: np.cos,
    math.TanOp: np.tan,
    math.AsinOp: np.arcsin,
    math.AcosOp: np.arccos,
    math.AtanOp: np.arctan,
    math.SinhOp: np.sinh,
    math.CoshOp: np.cosh,
    math.TanhOp: np.tanh,
    math.AsinhOp: np.arcsinh,
    math.AcoshOp: np.arccosh,
    math.AtanhOp: np.arctanh,
    math.CbrtOp: np.cbrt,
}
_BINARY: dict[type[Operation], Callable[[Any, Any], Any]] = {
    math.PowFOp: np.power,
    math.CopySignOp: np.copysign,
    math.Atan2Op: np.arctan2,
}


def _erf(x: Any) -> Any:
    import math as pymath

    return x.dtype.type(pymath.erf(float(x)))


def _erfc(x: Any) -> Any:
    import math as pymath

    return x.dtype.type(pymath.erfc(float(x)))


_UNARY[math.ErfOp] = _erf


class MathFunctions(InterpreterFunctions):
    """math.* (tables above; ``register_impls`` below)."""

    @impl(math.FmaOp)
    def run_fma(self, interp, op, args):
        if isinstance(args[0], np.ndarray):
            return (_lanes(fma, args, op.results[0].type),)
        return (fma(*args),)

    @impl(math.FPowIOp)
    def run_fpowi(self, interp, op, args):
        a, n = args
        w = width_of(op, op.operands[1].type)
        return (powi(a, to_signed(n, w)),)

    @impl(math.AbsIOp)
    def run_absi(self, interp, op, args):
        w = width_of(op)
        return (abs(to_signed(args[0], w)) & ((1 << w) - 1),)

    @impl(math.CountLeadingZerosOp)
    def run_ctlz(self, interp, op, args):
        return (width_of(op) - args[0].bit_length(),)

    @impl(math.CountTrailingZerosOp)
    def run_cttz(self, interp, op, args):
        x = args[0]
        return ((x & -x).bit_length() - 1 if x else width_of(op),)

    @impl(math.CtPopOp)
    def run_ctpop(self, interp, op, args):
        return (bin(args[0]).count("1"),)


def _unary(cls: type[Operation], fn: Callable[[Any], Any]):
    def run(self, interp, op, args):
        (x,) = args
        if isinstance(x, np.ndarray):
            return (fn(x).astype(x.dtype),)
        return (x.dtype.type(fn(x)),)

    return impl(cls)(run)


def _binary(cls: type[Operation], fn: Callable[[Any, Any], Any]):
    def run(self, interp, op, args):
        a, b = args
        if isinstance(a, np.ndarray):
            return (fn(a, b).astype(a.dtype),)
        return (a.dtype.type(fn(a, b)),)

    return impl(cls)(run)


for _cls, _fn in _UNARY.items():
    setattr(MathFunctions, "run_" + _cls.name.replace(".", "_"), _unary(_cls, _fn))
for _cls, _bfn in _BINARY.items():
    setattr(MathFunctions, "run_" + _cls.name.replace(".", "_"), _binary(_cls, _bfn))
if hasattr(math, "ErfcOp"):
    MathFunctions.run_math_erfc = _unary(math.ErfcOp, _erfc)
register_impls(MathFunctions)
