"""math.* as the compiled path computes it: exact where LLVM is exact (sqrt, fma, rounding,
copysign, bit counts, powi's multiply loop); the transcendental functions call the C
library's ``expf``/``exp``… through ctypes, as the JIT-compiled code does (numpy's own
implementations differ from libm by 1-2 ulp); f16 computes in f32 and rounds, as LLVM
promotes it. Without a C math library numpy's are used."""

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
    try:
        d = float(exact)  # one rounding to f64
    except OverflowError:  # rounds beyond f64's range: IEEE's overflow to ±inf
        d = float("inf") if exact > 0 else float("-inf")
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


def _libm():
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("m")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:  # pragma: no cover - no C math library
        return None


_LIBM = _libm()


def _c_function(base: str, fallback: Callable[..., Any], arity: int = 1) -> Callable[..., Any]:
    """libm's ``base``/``basef`` on numpy scalars of f64/f32 (f16 through f32)."""
    import ctypes

    if _LIBM is None:
        return fallback
    fns = {}
    for suffix, ct, dt in (("f", ctypes.c_float, np.float32), ("", ctypes.c_double, np.float64)):
        try:
            f = getattr(_LIBM, base + suffix)
        except AttributeError:  # pragma: no cover
            return fallback
        f.restype, f.argtypes = ct, [ct] * arity
        fns[dt] = f

    def call(*xs: Any) -> Any:
        if isinstance(xs[0], np.ndarray):  # lane by lane, as LLVM scalarizes the calls
            lanes = [call(*(np.ravel(x)[i] for x in xs)) for i in range(xs[0].size)]
            return np.array(lanes, dtype=xs[0].dtype).reshape(xs[0].shape)
        t = xs[0].dtype.type
        if t is np.float64:
            return np.float64(fns[np.float64](*(float(x) for x in xs)))
        r = np.float32(fns[np.float32](*(float(x) for x in xs)))
        return r if t is np.float32 else t(r)

    return call


_UNARY: dict[type[Operation], Callable[[Any], Any]] = {
    math.AbsFOp: np.abs,
    math.CeilOp: np.ceil,
    math.FloorOp: np.floor,
    math.TruncOp: np.trunc,
    math.RoundEvenOp: np.rint,
    math.RoundOp: _round_half_away,
    math.SqrtOp: np.sqrt,
    math.RsqrtOp: lambda x: x.dtype.type(1) / np.sqrt(x),
    math.ExpOp: _c_function("exp", np.exp),
    math.Exp2Op: _c_function("exp2", np.exp2),
    math.ExpM1Op: _c_function("expm1", np.expm1),
    math.LogOp: _c_function("log", np.log),
    math.Log2Op: _c_function("log2", np.log2),
    math.Log10Op: _c_function("log10", np.log10),
    math.Log1pOp: _c_function("log1p", np.log1p),
    math.SinOp: _c_function("sin", np.sin),
    math.CosOp: _c_function("cos", np.cos),
    math.TanOp: _c_function("tan", np.tan),
    math.AsinOp: _c_function("asin", np.arcsin),
    math.AcosOp: _c_function("acos", np.arccos),
    math.AtanOp: _c_function("atan", np.arctan),
    math.SinhOp: _c_function("sinh", np.sinh),
    math.CoshOp: _c_function("cosh", np.cosh),
    math.TanhOp: _c_function("tanh", np.tanh),
    math.AsinhOp: _c_function("asinh", np.arcsinh),
    math.AcoshOp: _c_function("acosh", np.arccosh),
    math.AtanhOp: _c_function("atanh", np.arctanh),
    math.CbrtOp: _c_function("cbrt", np.cbrt),
}
_BINARY: dict[type[Operation], Callable[[Any, Any], Any]] = {
    math.PowFOp: _c_function("pow", np.power, 2),
    math.CopySignOp: np.copysign,
    math.Atan2Op: _c_function("atan2", np.arctan2, 2),
}


def _erf(x: Any) -> Any:
    import math as pymath

    return x.dtype.type(pymath.erf(float(x)))


def _erfc(x: Any) -> Any:
    import math as pymath

    return x.dtype.type(pymath.erfc(float(x)))


_UNARY[math.ErfOp] = _c_function("erf", _erf)


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

    @impl(math.IPowIOp)
    def run_ipowi(self, interp, op, args):
        """The power modulo 2^w; a negative exponent gives 0 unless the base is 1 or -1
        (upstream's results, expand-math's loop)."""
        w = width_of(op)
        a, n = to_signed(args[0], w), to_signed(args[1], w)
        if n >= 0:
            r = pow(a, n, 1 << w)
        else:
            r = 1 if a == 1 else ((-1 if n & 1 else 1) if a == -1 else 0)
        return (r & ((1 << w) - 1),)


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
