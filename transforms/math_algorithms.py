"""The f64 algorithms of ``expand-math`` (transforms/expand_math.py, whose docstring
describes them and their accuracy): constants computed once with Python's decimal, the
builder ``_B`` that writes arith/math ops, and one function per math function building its
branch-free expansion from f64 values."""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from functools import cache

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

V = SSAValue

# ----------------------------------------------------------------------------------------
# Constants, computed once with Python's decimal (no transcribed digits beyond pi's).

_PI_DIGITS = "3.14159265358979323846264338327950288419716939937510582097494459230781640628"


def _hi(d: Decimal, bits: int) -> float:
    """``d`` rounded to ``bits`` significant bits (products with it stay exact)."""
    m, e = pymath.frexp(float(d))
    return pymath.ldexp(round(m * (1 << bits)), e - bits)


def _lo(d: Decimal, hi: float) -> float:
    return float(d - Decimal(hi))


def _atan_dec(x: Decimal) -> Decimal:
    """atan of a small Decimal by its Taylor series (|x| <= 2/3)."""
    s, term, k = x, x, 1
    while True:
        term *= -x * x
        k += 2
        t = term / k
        if abs(t) < Decimal(10) ** -60:
            return s
        s += t


def _pi_long(digits: int) -> Decimal:
    """pi to ``digits`` digits (Machin's formula)."""

    def acot(n: int) -> Decimal:
        x = Decimal(1) / n
        s, term, k = x, x, 1
        eps = Decimal(10) ** -(digits + 5)
        while True:
            term *= -x * x
            k += 2
            t = term / k
            if abs(t) < eps:
                return s
            s += t

    return 4 * (4 * acot(5) - acot(239))


@dataclass(frozen=True)
class _Constants:
    ln2_hi: float
    ln2_lo: float
    ln2: float
    ln2_lo53: float
    inv_ln2: float
    ivln2_hi: float
    ivln2_lo: float
    ivln10_hi: float
    ivln10_lo: float
    log10_2_hi: float
    log10_2_lo: float
    pio2_1: float
    pio2_2: float
    pio2_3: float
    pio2_3t: float
    pio2_hi: float
    pio2_lo: float
    pio4_hi: float
    pio4_lo: float
    pi_hi: float
    pi_lo: float
    two_over_pi: float
    atan_half: tuple[float, float]
    atan_1p5: tuple[float, float]
    two_over_pi_chunks: tuple[int, ...]
    c0: tuple[float, float]  # 2/sqrt(pi)
    inv_sqrt_pi: float
    erf_taylor: tuple[float, ...]
    erfc_centers: tuple[float, ...]
    erfc_g: tuple[tuple[float, ...], ...]  # Taylor coefficients of exp(x^2) erfc(x)
    log_table: tuple[tuple[float, float], ...]  # log(1 + j/64), hi and lo


@cache
def _k() -> _Constants:
    with localcontext() as ctx:
        ctx.prec = 60
        ln2 = Decimal(2).ln()
        ln10 = Decimal(10).ln()
        pi = Decimal(_PI_DIGITS)
        pio2 = pi / 2
        p1 = _hi(pio2, 33)
        p2 = _hi(pio2 - Decimal(p1), 33)
        p3 = _hi(pio2 - Decimal(p1) - Decimal(p2), 33)
        p3t = float(pio2 - Decimal(p1) - Decimal(p2) - Decimal(p3))
        ln2_hi = _hi(ln2, 32)
        ln2_53 = float(ln2)
        ivln2_hi, ivln10_hi = _hi(1 / ln2, 32), _hi(1 / ln10, 32)
        log10_2 = ln2 / ln10
        log10_2_hi = _hi(log10_2, 40)
        ah = _atan_dec(Decimal("0.5"))
        a15 = pio2 - _atan_dec(Decimal(2) / 3)
        sqrtpi = pi.sqrt()
        c0 = 2 / sqrtpi
        c0_hi = float(c0)
        erf_taylor = []
        fact = Decimal(1)
        for n in range(1, 22):
            fact *= n
            erf_taylor.append(float(c0 * (-1) ** n / (fact * (2 * n + 1))))
        centers = (1.25, 1.75, 2.25, 2.75)
        gs = tuple(_erfc_g(Decimal(c), c0, 26) for c in centers)
        table = []
        for j in range(65):
            v = (1 + Decimal(j) / 64).ln()
            table.append((float(v), _lo(v, float(v))))
    with localcontext() as ctx:
        ctx.prec = 420
        twoopi = 2 / _pi_long(410)
        chunks = tuple(int(twoopi * (1 << (24 * (i + 1)))) % (1 << 24) for i in range(52))
    return _Constants(
        ln2_hi=ln2_hi, ln2_lo=_lo(ln2, ln2_hi), ln2=ln2_53, ln2_lo53=_lo(ln2, ln2_53),
        inv_ln2=float(1 / ln2), ivln2_hi=ivln2_hi, ivln2_lo=_lo(1 / ln2, ivln2_hi),
        ivln10_hi=ivln10_hi, ivln10_lo=_lo(1 / ln10, ivln10_hi),
        log10_2_hi=log10_2_hi, log10_2_lo=_lo(log10_2, log10_2_hi),
        pio2_1=p1, pio2_2=p2, pio2_3=p3, pio2_3t=p3t,
        pio2_hi=float(pio2), pio2_lo=_lo(pio2, float(pio2)),
        pio4_hi=float(pio2 / 2), pio4_lo=_lo(pio2 / 2, float(pio2 / 2)),
        pi_hi=float(pi), pi_lo=_lo(pi, float(pi)), two_over_pi=float(1 / pio2),
        atan_half=(float(ah), _lo(ah, float(ah))), atan_1p5=(float(a15), _lo(a15, float(a15))),
        two_over_pi_chunks=chunks, c0=(c0_hi, _lo(c0, c0_hi)), inv_sqrt_pi=float(1 / sqrtpi),
        erf_taylor=tuple(erf_taylor), erfc_centers=centers, erfc_g=gs,
        log_table=tuple(table),
    )


def _erfc_g(c: Decimal, c0: Decimal, degree: int) -> tuple[float, ...]:
    """Taylor coefficients at ``c`` of g(x) = exp(x^2) erfc(x), from g' = 2x g - 2/sqrt(pi)."""
    with localcontext() as ctx:
        ctx.prec = 80
        s, term, n = Decimal(0), c, 0  # erf(c) = c0 * sum (-1)^n c^(2n+1) / (n! (2n+1))
        while True:
            t = term / (2 * n + 1)
            if abs(t) < Decimal(10) ** -70:
                break
            s += t
            n += 1
            term *= -c * c / n
        a = [(c * c).exp() * (1 - c0 * s)]
        prev = Decimal(0)
        for k in range(degree):
            nxt = (2 * c * a[k] + 2 * prev - (c0 if k == 0 else 0)) / (k + 1)
            prev = a[k]
            a.append(nxt)
        return tuple(float(v) for v in a)


def _fact(n: int) -> int:
    return pymath.factorial(n)


_EXPM1_C = tuple(1.0 / _fact(k) for k in range(2, 16))  # p(r) with expm1(r) = r + r^2 p(r)
_EXPM1_WIDE = tuple(1.0 / _fact(k) for k in range(2, 20))  # the same for |r| <= ln 2
_LOG_C = tuple(2.0 / (2 * k + 1) for k in range(1, 13))
_ATAN_C = tuple((-1.0) ** (k + 1) / (2 * k + 1) for k in range(1, 25))  # t - t^3 (1/3 - ...)
_SIN_C = tuple((-1.0) ** k / _fact(2 * k + 1) for k in range(1, 11))
_ATANH_C = tuple(1.0 / (2 * k + 1) for k in range(1, 29))
_ASINH_C = tuple((-1) ** k * _fact(2 * k) / (4**k * _fact(k) ** 2 * (2 * k + 1))
                 for k in range(1, 29))
_SINH_C = tuple(1.0 / _fact(2 * k + 1) for k in range(1, 12))
_COS_C = tuple((-1.0) ** k / _fact(2 * k) for k in range(2, 11))
_TANH_SMALL = 1.0  # below: tanh's Taylor series (ratio (2a/pi)^2 <= 0.41 per term)


@cache
def _bernoulli_series() -> tuple[float, ...]:
    """2^2n (2^2n - 1) B_2n / (2n)! for n = 2..47: tanh(a) = a + a z (c_2 + c_3 z + ...) with
    z = a^2; tan's coefficients are their absolute values."""
    from fractions import Fraction

    bern = [Fraction(1)]
    for m in range(1, 95):
        bern.append(-sum(pymath.comb(m + 1, k) * bern[k] for k in range(m)) / (m + 1))
    return tuple(float(4**n * (4**n - 1) * bern[2 * n] / _fact(2 * n)) for n in range(2, 48))


_LOG1P_TAIL = tuple((-1.0) ** (k + 1) / k for k in range(3, 13))  # g^3/3 - g^4/4 ...

_INF = float("inf")
_NAN = float("nan")
_MANT = (1 << 52) - 1
_TINY = 2.0**-1022

# ----------------------------------------------------------------------------------------
# The builder: scalar ops in front of the op being rewritten.


class _B:
    """Scalar f64/i64/i1 values (vectors are split into lanes first: xDSL 0.74's
    ``arith.cmpf``/``sitofp`` take no vectors)."""

    f: Attribute = f64
    i: Attribute = i64
    b: Attribute = i1

    def __init__(self, rw: PatternRewriter):
        self.rw = rw
        self._consts: dict[tuple[str, object], V] = {}

    def emit(self, op: Operation) -> V:
        self.rw.insert(op)
        return op.results[0]

    def c(self, v: float) -> V:
        key = ("f", repr(v) if v == v else "nan")
        if key not in self._consts:
            self._consts[key] = self.emit(arith.ConstantOp(FloatAttr(v, f64)))
        return self._consts[key]

    def ci(self, v: int, t: Attribute = i64) -> V:
        key = (f"i{t}", v)
        if key not in self._consts:
            self._consts[key] = self.emit(arith.ConstantOp(IntegerAttr(v, t)))
        return self._consts[key]

    def _v(self, x: V | float) -> V:
        return self.c(x) if isinstance(x, float | int) else x

    # floating point
    def add(self, a: V | float, b: V | float) -> V:
        return self.emit(arith.AddfOp(self._v(a), self._v(b)))

    def sub(self, a: V | float, b: V | float) -> V:
        return self.emit(arith.SubfOp(self._v(a), self._v(b)))

    def mul(self, a: V | float, b: V | float) -> V:
        return self.emit(arith.MulfOp(self._v(a), self._v(b)))

    def div(self, a: V | float, b: V | float) -> V:
        return self.emit(arith.DivfOp(self._v(a), self._v(b)))

    def neg(self, a: V) -> V:
        return self.emit(arith.NegfOp(a))

    def fma(self, a: V | float, b: V | float, c: V | float) -> V:
        return self.emit(math.FmaOp(self._v(a), self._v(b), self._v(c)))

    def abs(self, a: V) -> V:
        return self.emit(math.AbsFOp(a))

    def sqrt(self, a: V) -> V:
        return self.emit(math.SqrtOp(a))

    def floor(self, a: V) -> V:
        return self.emit(math.FloorOp(a))

    def rint(self, a: V) -> V:
        return self.emit(math.RoundEvenOp(a))

    def copysign(self, a: V, b: V) -> V:
        return self.emit(math.CopySignOp(a, b))

    def horner(self, x: V, coeffs: Sequence[float]) -> V:
        p = self.c(coeffs[-1])
        for co in reversed(coeffs[:-1]):
            p = self.fma(p, x, co)
        return p

    _FPRED = {"oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6, "uno": 14, "une": 13}

    def cmp(self, pred: str, a: V | float, b: V | float) -> V:
        return self.emit(arith.CmpfOp.create(
            operands=[self._v(a), self._v(b)], result_types=[self.b],
            properties={"predicate": IntegerAttr(self._FPRED[pred], i64),
                        "fastmath": arith.FastMathFlagsAttr("none")}))

    def lt(self, a: V | float, b: V | float) -> V:
        return self.cmp("olt", a, b)

    def le(self, a: V | float, b: V | float) -> V:
        return self.cmp("ole", a, b)

    def gt(self, a: V | float, b: V | float) -> V:
        return self.cmp("ogt", a, b)

    def ge(self, a: V | float, b: V | float) -> V:
        return self.cmp("oge", a, b)

    def eq(self, a: V | float, b: V | float) -> V:
        return self.cmp("oeq", a, b)

    def isnan(self, a: V) -> V:
        return self.cmp("uno", a, a)

    def sel(self, cond: V, a: V | float, b: V | float) -> V:
        return self.emit(arith.SelectOp(cond, self._v(a), self._v(b)))

    def both(self, a: V, b: V) -> V:
        return self.emit(arith.AndIOp(a, b))

    def either(self, a: V, b: V) -> V:
        return self.emit(arith.OrIOp(a, b))

    def negate(self, a: V) -> V:
        return self.emit(arith.XOrIOp(a, self.ci(1, i1)))

    # integers (i64)
    def bits(self, x: V) -> V:
        return self.emit(arith.BitcastOp(x, self.i))

    def from_bits(self, x: V) -> V:
        return self.emit(arith.BitcastOp(x, self.f))

    def _iv(self, x: V | int) -> V:
        return self.ci(x) if isinstance(x, int) else x

    def iadd(self, a: V | int, b: V | int) -> V:
        return self.emit(arith.AddiOp(self._iv(a), self._iv(b)))

    def isub(self, a: V | int, b: V | int) -> V:
        return self.emit(arith.SubiOp(self._iv(a), self._iv(b)))

    def imul(self, a: V | int, b: V | int) -> V:
        return self.emit(arith.MuliOp(self._iv(a), self._iv(b)))

    def iand(self, a: V | int, b: V | int) -> V:
        return self.emit(arith.AndIOp(self._iv(a), self._iv(b)))

    def ior(self, a: V | int, b: V | int) -> V:
        return self.emit(arith.OrIOp(self._iv(a), self._iv(b)))

    def shl(self, a: V | int, b: V | int) -> V:
        return self.emit(arith.ShLIOp(self._iv(a), self._iv(b)))

    def ashr(self, a: V | int, b: V | int) -> V:
        return self.emit(arith.ShRSIOp(self._iv(a), self._iv(b)))

    def idiv(self, a: V | int, b: V | int) -> V:
        return self.emit(arith.DivSIOp(self._iv(a), self._iv(b)))

    _IPRED = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5}

    def icmp(self, pred: str, a: V | int, b: V | int) -> V:
        return self.emit(arith.CmpiOp.create(
            operands=[self._iv(a), self._iv(b)], result_types=[self.b],
            properties={"predicate": IntegerAttr(self._IPRED[pred], i64)}))

    def isel(self, cond: V, a: V | int, b: V | int) -> V:
        return self.emit(arith.SelectOp(cond, self._iv(a), self._iv(b)))

    def f2i(self, x: V) -> V:
        return self.emit(arith.FPToSIOp.create(operands=[x], result_types=[self.i]))

    def i2f(self, x: V) -> V:
        return self.emit(arith.SIToFPOp.create(operands=[x], result_types=[self.f]))

    # compound
    def two_sum(self, a: V, b: V) -> tuple[V, V]:
        s = self.add(a, b)
        bb = self.sub(s, a)
        err = self.add(self.sub(a, self.sub(s, bb)), self.sub(b, bb))
        return s, err

    def fast_two_sum(self, a: V, b: V) -> tuple[V, V]:
        s = self.add(a, b)
        return s, self.sub(b, self.sub(s, a))

    def pow2(self, k: V) -> V:
        """2^k for an i64 k in [-1022, 1023]."""
        return self.from_bits(self.shl(self.iadd(k, 1023), 52))

    def clamp(self, x: V, lo: float, hi: float) -> V:
        x = self.sel(self.isnan(x), 0.0, x)
        x = self.sel(self.gt(x, hi), hi, x)
        return self.sel(self.lt(x, lo), lo, x)


# ----------------------------------------------------------------------------------------
# f64 algorithms on scalars.


def _reduce_ln2(b: _B, x: V, xlo: V | None = None) -> tuple[V, V, V]:
    """k, hi, lo with x + xlo = k ln2 + (hi - lo), |hi| <= ~ln2/2; hi exact."""
    k = _k()
    n = b.rint(b.mul(x, k.inv_ln2))
    hi = b.fma(b.neg(n), k.ln2_hi, x)  # n * ln2_hi is exact (32-bit ln2_hi)
    lo = b.mul(n, k.ln2_lo)
    if xlo is not None:
        lo = b.sub(lo, xlo)
    return n, hi, lo


def _expm1_reduced(b: _B, hi: V, lo: V, coeffs: Sequence[float] = _EXPM1_C) -> V:
    """expm1(hi - lo) for |hi - lo| <= 0.35 (ln 2 with ``_EXPM1_WIDE``): the polynomial on
    r = hi - lo rounded, and the rounding error c of r as expm1(r + c) = e + c (1 + e)."""
    r, c = b.two_sum(hi, b.neg(lo))
    e = b.fma(r, b.mul(r, b.horner(r, coeffs)), r)
    return b.fma(c, b.add(e, 1.0), e)


def _scale(b: _B, y: V, n: V) -> V:
    """y * 2^n for an integral f64 n in [-2000, 2000], rounded once."""
    ki = b.f2i(n)
    k1 = b.ashr(ki, 1)
    k2 = b.isub(ki, k1)
    return b.mul(b.mul(y, b.pow2(k1)), b.pow2(k2))


def exp(b: _B, x: V, xlo: V | None = None, factor: V | None = None) -> V:
    """exp(x + xlo) (* factor, rounded once with the scaling)."""
    xs = b.clamp(x, -760.0, 720.0)
    n, hi, lo = _reduce_ln2(b, xs, xlo)
    y = b.add(_expm1_reduced(b, hi, lo), 1.0)
    if factor is not None:
        y = b.mul(y, factor)
    return b.sel(b.isnan(x), x, _scale(b, y, n))


def exp2(b: _B, x: V) -> V:
    k = _k()
    xs = b.clamp(x, -1100.0, 1100.0)
    n = b.rint(xs)
    r = b.sub(xs, n)
    hi = b.mul(r, k.ln2)
    lo = b.neg(b.add(b.fma(r, k.ln2, b.neg(hi)), b.mul(r, k.ln2_lo53)))
    y = b.add(_expm1_reduced(b, hi, lo), 1.0)
    return b.sel(b.isnan(x), x, _scale(b, y, n))


def expm1(b: _B, x: V) -> V:
    """No reduction below ln 2: 2^k - 1 + 2^k expm1(r) with k = +-1 and expm1(r) of the
    other sign cancels (x = 0.35: 1 - 2 * 0.29), doubling expm1(r)'s error."""
    xs = b.clamp(x, -60.0, 720.0)
    n, hi, lo = _reduce_ln2(b, xs)
    near = b.lt(b.abs(xs), _k().ln2)
    n = b.sel(near, 0.0, n)
    hi = b.sel(near, xs, hi)
    lo = b.sel(near, 0.0, lo)
    e = _expm1_reduced(b, hi, lo, _EXPM1_WIDE)
    big = b.gt(n, 56.0)
    two = b.pow2(b.f2i(b.sel(big, 0.0, n)))
    small = b.add(b.sub(two, 1.0), b.mul(two, e))
    res = b.sel(big, _scale(b, b.add(e, 1.0), n), small)
    res = b.sel(b.lt(b.abs(x), 2.0**-54), x, res)
    return b.sel(b.isnan(x), x, res)


@dataclass
class _LogParts:
    e: V
    f: V
    s: V
    r: V
    hfsq: V


def _log_parts(b: _B, x: V) -> _LogParts:
    """x = 2^e (1 + f), 1 + f in [sqrt(2)/2, sqrt(2)), s = f / (2 + f), and fdlibm's R."""
    sub = b.lt(x, _TINY)
    xs = b.sel(sub, b.mul(x, 2.0**54), x)
    bias = b.sel(sub, 54.0, 0.0)
    bits = b.bits(xs)
    ei = b.isub(b.ashr(bits, 52), 1023)
    m = b.from_bits(b.ior(b.iand(bits, _MANT), 1023 << 52))
    big = b.gt(m, pymath.sqrt(2.0))
    m = b.sel(big, b.mul(m, 0.5), m)
    e = b.sub(b.add(b.i2f(ei), b.sel(big, 1.0, 0.0)), bias)
    f = b.sub(m, 1.0)
    s = b.div(f, b.add(f, 2.0))
    z = b.mul(s, s)
    r = b.mul(z, b.horner(z, _LOG_C))
    hfsq = b.mul(b.mul(f, 0.5), f)
    return _LogParts(e, f, s, r, hfsq)


def _log_specials(b: _B, x: V, res: V) -> V:
    res = b.sel(b.eq(x, _INF), _INF, res)
    res = b.sel(b.eq(x, 0.0), -_INF, res)
    res = b.sel(b.lt(x, 0.0), _NAN, res)
    return b.sel(b.isnan(x), x, res)


def _positive(b: _B, x: V) -> V:
    """x where it is finite and > 0, else 1 (inputs the special cases replace)."""
    ok = b.both(b.gt(x, 0.0), b.lt(x, _INF))
    return b.sel(ok, x, 1.0)


def log(b: _B, x: V) -> V:
    k = _k()
    p = _log_parts(b, _positive(b, x))
    t = b.fma(p.s, b.add(p.hfsq, p.r), b.mul(p.e, k.ln2_lo))
    res = b.sub(b.mul(p.e, k.ln2_hi), b.sub(b.sub(p.hfsq, t), p.f))
    return _log_specials(b, x, res)


def _log_hilo(b: _B, p: _LogParts) -> tuple[V, V]:
    """log(1 + f) = hi + lo with hi of 21 bits (fdlibm's e_log2.c)."""
    hi = b.sub(p.f, p.hfsq)
    hi = b.from_bits(b.iand(b.bits(hi), -(1 << 32)))
    lo = b.add(b.sub(b.sub(p.f, hi), p.hfsq), b.mul(p.s, b.add(p.hfsq, p.r)))
    return hi, lo


def log2(b: _B, x: V) -> V:
    k = _k()
    p = _log_parts(b, _positive(b, x))
    hi, lo = _log_hilo(b, p)
    val_hi = b.mul(hi, k.ivln2_hi)
    val_lo = b.add(b.mul(b.add(lo, hi), k.ivln2_lo), b.mul(lo, k.ivln2_hi))
    w = b.add(p.e, val_hi)
    val_lo = b.add(val_lo, b.add(b.sub(p.e, w), val_hi))
    return _log_specials(b, x, b.add(val_lo, w))


def log10(b: _B, x: V) -> V:
    k = _k()
    p = _log_parts(b, _positive(b, x))
    hi, lo = _log_hilo(b, p)
    val_hi = b.mul(hi, k.ivln10_hi)
    y2 = b.mul(p.e, k.log10_2_hi)
    val_lo = b.add(b.add(b.mul(p.e, k.log10_2_lo), b.mul(b.add(lo, hi), k.ivln10_lo)),
                   b.mul(lo, k.ivln10_hi))
    w = b.add(y2, val_hi)
    val_lo = b.add(val_lo, b.add(b.sub(y2, w), val_hi))
    return _log_specials(b, x, b.add(val_lo, w))


def log1p(b: _B, x: V) -> V:
    k = _k()
    one = b.c(1.0)
    u, err = b.two_sum(one, x)
    ok = b.both(b.gt(u, 0.0), b.lt(u, _INF))
    us = b.sel(ok, u, 1.0)
    c = b.div(b.sel(ok, err, 0.0), us)
    p = _log_parts(b, us)
    t = b.fma(p.s, b.add(p.hfsq, p.r), b.fma(p.e, k.ln2_lo, c))
    res = b.sub(b.mul(p.e, k.ln2_hi), b.sub(b.sub(p.hfsq, t), p.f))
    res = b.sel(b.eq(x, _INF), _INF, res)
    res = b.sel(b.eq(x, -1.0), -_INF, res)
    res = b.sel(b.lt(x, -1.0), _NAN, res)
    res = b.sel(b.lt(b.abs(x), 2.0**-54), x, res)
    return b.sel(b.isnan(x), x, res)


# --- sin, cos, tan -----------------------------------------------------------------------

_PH_CHUNKS = 9  # 24-bit chunks of 2/pi per Payne-Hanek reduction (216 bits)


def _payne_hanek(b: _B, a: V, max_exp: int) -> tuple[V, V, V]:
    """n, r_hi, r_lo with a = n pi/2 + r (mod 2 pi), for finite a >= 2^20."""
    k = _k()
    bits = b.bits(a)
    q = b.isub(b.ashr(bits, 52), 1023 + 52)
    mant = b.ior(b.iand(bits, _MANT), 1 << 52)
    # first chunk i0 whose terms are not multiples of 4: floor((q - 2) / 24), at least 0
    i0 = b.isub(b.idiv(b.iadd(q, 46), 24), 2)
    i0 = b.isel(b.icmp("slt", i0, 0), 0, i0)
    s = b.isub(b.isub(q, b.imul(i0, 24)), 24)
    mh = b.i2f(b.ashr(mant, 26))
    ml = b.i2f(b.iand(mant, (1 << 26) - 1))
    n_tables = max(1, (max_exp - 52 + 46) // 24 - 2 + 1)
    picks = [b.icmp("eq", i0, t) for t in range(1, n_tables)]
    chunks = k.two_over_pi_chunks
    terms: list[V] = []
    for j in range(_PH_CHUNKS):
        cj = b.c(float(chunks[j]))
        for t in range(1, n_tables):
            cj = b.sel(picks[t - 1], float(chunks[t + j]), cj)
        for part, shift in ((mh, 26), (ml, 0)):
            scale = b.pow2(b.iadd(s, shift - 24 * j))
            term = b.mul(b.mul(part, cj), scale)  # exact: < 2^51 times a power of 2
            terms.append(b.sub(term, b.mul(b.floor(b.mul(term, 0.125)), 8.0)))
    acc, err = terms[0], b.c(0.0)
    for term in terms[1:]:
        acc, e = b.two_sum(acc, term)
        err = b.add(err, e)
    acc = b.sub(acc, b.mul(b.floor(b.mul(acc, 0.125)), 8.0))
    n = b.rint(acc)
    fh, fl = b.fast_two_sum(b.sub(acc, n), err)
    rh = b.mul(fh, k.pio2_hi)
    rl = b.add(b.fma(fh, k.pio2_hi, b.neg(rh)), b.fma(fh, k.pio2_lo, b.mul(fl, k.pio2_hi)))
    rh, rl = b.fast_two_sum(rh, rl)
    return n, rh, rl


def _rem_pio2(b: _B, x: V, max_exp: int) -> tuple[V, V, V]:
    """quadrant (i64, any integer: use & 3), r_hi, r_lo with x = n pi/2 + r_hi + r_lo."""
    k = _k()
    ax = b.abs(x)
    medium = b.lt(ax, 2.0**20)
    xm = b.sel(medium, x, 0.0)
    n = b.rint(b.mul(xm, k.two_over_pi))
    t = b.fma(b.neg(n), k.pio2_1, xm)
    r1, e1 = b.two_sum(t, b.neg(b.mul(n, k.pio2_2)))
    r2, e2 = b.two_sum(r1, b.neg(b.mul(n, k.pio2_3)))
    rh, rl = b.fast_two_sum(r2, b.sub(b.add(e1, e2), b.mul(n, k.pio2_3t)))
    ni = b.f2i(n)
    if max_exp >= 20:
        large_ok = b.both(b.negate(medium), b.lt(ax, _INF))
        al = b.sel(large_ok, ax, 2.0**20)
        ln, lh, ll = _payne_hanek(b, al, max_exp)
        neg = b.lt(x, 0.0)
        lh = b.sel(neg, b.neg(lh), lh)
        ll = b.sel(neg, b.neg(ll), ll)
        lni = b.f2i(ln)
        lni = b.isel(neg, b.isub(0, lni), lni)
        rh = b.sel(medium, rh, lh)
        rl = b.sel(medium, rl, ll)
        ni = b.isel(medium, ni, lni)
    return b.iand(ni, 3), rh, rl


def _sin_k(b: _B, hi: V, lo: V) -> V:
    z = b.mul(hi, hi)
    v = b.mul(z, hi)
    corr = b.fma(b.mul(lo, -0.5), z, lo)
    return b.add(hi, b.fma(v, b.horner(z, _SIN_C), corr))


def _cos_k(b: _B, hi: V, lo: V) -> V:
    z = b.mul(hi, hi)
    ze = b.fma(hi, hi, b.neg(z))
    hz = b.mul(z, 0.5)
    w = b.sub(1.0, hz)
    tail = b.sub(b.mul(b.mul(z, z), b.horner(z, _COS_C)), b.fma(hi, lo, b.mul(ze, 0.5)))
    return b.add(w, b.add(b.sub(b.sub(1.0, w), hz), tail))


_TAN_TERMS = 30  # |r| <= pi/4: each term of tan's series a quarter of the one before


def _tan_k(b: _B, hi: V, lo: V, odd: V) -> V:
    """tan(hi + lo) by its Taylor series as a double-double t; -1/t where ``odd``, with one
    Newton step on the double-double (sin/cos divided: 2 ulps)."""
    z = b.mul(hi, hi)
    coeffs = [abs(c) for c in _bernoulli_series()[:_TAN_TERMS]]
    p = b.mul(b.mul(hi, z), b.horner(z, coeffs))
    th, tl = b.fast_two_sum(hi, b.fma(lo, z, b.add(p, lo)))  # tan' = 1 + tan^2 ~ 1 + z
    q = b.div(1.0, th)
    e = b.sub(b.fma(b.neg(q), th, 1.0), b.mul(q, tl))  # 1 - q (th + tl)
    cot = b.fma(q, e, q)
    return b.sel(odd, b.neg(cot), b.add(th, tl))


def _trig(b: _B, x: V, max_exp: int, which: str) -> V:
    q, hi, lo = _rem_pio2(b, x, max_exp)
    if which == "tan":
        res = _tan_k(b, hi, lo, b.icmp("eq", b.iand(q, 1), 1))
        res = b.sel(b.lt(b.abs(x), 2.0**-27), x, res)
        return b.sel(b.lt(b.abs(x), _INF), res, b.sub(x, x))
    s = _sin_k(b, hi, lo)
    c = _cos_k(b, hi, lo)
    quad = [b.icmp("eq", q, i) for i in range(4)]
    if which == "sin":
        res = b.sel(quad[0], s, b.sel(quad[1], c, b.sel(quad[2], b.neg(s), b.neg(c))))
        res = b.sel(b.lt(b.abs(x), 2.0**-27), x, res)
    else:
        res = b.sel(quad[0], c, b.sel(quad[1], b.neg(s), b.sel(quad[2], b.neg(c), s)))
    return b.sel(b.lt(b.abs(x), _INF), res, b.sub(x, x))


# --- atan, atan2, asin, acos -------------------------------------------------------------


def _atan_pos(b: _B, a: V, negated: V | None = None) -> V:
    """atan(a) for a >= 0 (or nan), fdlibm's breakpoints; pi - atan(a) where ``negated``."""
    k = _k()
    cs = [b.ge(a, t) for t in (7 / 16, 11 / 16, 19 / 16, 39 / 16)]
    num, den = a, b.c(1.0)
    cases = (
        (b.sub(b.mul(a, 2.0), 1.0), b.add(a, 2.0)),
        (b.sub(a, 1.0), b.add(a, 1.0)),
        (b.sub(a, 1.5), b.fma(a, 1.5, 1.0)),
        (b.c(-1.0), a),
    )
    bases = (k.atan_half, (k.pio4_hi, k.pio4_lo), k.atan_1p5, (k.pio2_hi, k.pio2_lo))
    base_hi, base_lo = b.c(0.0), b.c(0.0)
    for cond, (nu, de), (bh, bl) in zip(cs, cases, bases, strict=True):
        num, den = b.sel(cond, nu, num), b.sel(cond, de, den)
        base_hi, base_lo = b.sel(cond, bh, base_hi), b.sel(cond, bl, base_lo)
    t = b.div(num, den)
    z = b.mul(t, t)
    q = b.mul(b.mul(t, z), b.horner(z, _ATAN_C))
    res = b.sub(base_hi, b.sub(b.sub(q, base_lo), t))
    if negated is None:
        return res
    # pi - base in double-double, then pi - atan(a) = (pi - base) - t + q
    bh, bl = b.two_sum(b.c(k.pi_hi), b.neg(base_hi))
    bl = b.add(bl, b.sub(k.pi_lo, base_lo))
    return b.sel(negated, b.sub(bh, b.sub(b.sub(t, q), bl)), res)


def atan(b: _B, x: V) -> V:
    res = b.copysign(_atan_pos(b, b.abs(x)), x)
    return b.sel(b.lt(b.abs(x), 2.0**-27), x, res)


def atan2(b: _B, y: V, x: V) -> V:
    ax, ay = b.abs(x), b.abs(y)
    t = b.div(ay, ax)
    t = b.sel(b.both(b.eq(ax, _INF), b.eq(ay, _INF)), 1.0, t)
    t = b.sel(b.eq(ay, 0.0), 0.0, t)
    r = b.copysign(_atan_pos(b, t, b.icmp("slt", b.bits(x), 0)), y)
    return b.sel(b.either(b.isnan(x), b.isnan(y)), b.add(x, y), r)


def _asin_tail(b: _B, s: V) -> V:
    """asin(s) - s for |s| <= 1/2: the Taylor series' s^3 (1/6 + 3/40 s^2 + ...)."""
    z = b.mul(s, s)
    return b.mul(b.mul(s, z), b.horner(z, [abs(c) for c in _ASINH_C]))


def _asin_half(b: _B, a: V) -> tuple[V, V]:
    """s, t with 2 asin(sqrt((1 - a) / 2)) = 2 s + t for a in [1/2, 1] (fdlibm's reduction:
    1 - a and the halving are exact, the square root's rounding is carried in t)."""
    z = b.mul(b.sub(1.0, a), 0.5)
    s = b.sqrt(z)
    s_lo = b.sel(b.gt(s, 0.0), b.div(b.fma(b.neg(s), s, z), b.add(s, s)), 0.0)
    # asin(s + s_lo) = s + tail(s) + s_lo / sqrt(1 - s^2), the last ~ s_lo (1 + z / 2)
    t = b.add(_asin_tail(b, s), b.fma(b.mul(s_lo, z), 0.5, s_lo))
    return s, b.add(t, t)


def asin(b: _B, x: V) -> V:
    k = _k()
    a = b.abs(x)
    small = b.add(a, _asin_tail(b, b.sel(b.lt(a, 0.5), a, 0.0)))
    s, t = _asin_half(b, b.sel(b.lt(a, 0.5), 0.5, a))
    h, e = b.two_sum(b.c(k.pio2_hi), b.neg(b.add(s, s)))  # pi/2 - 2 s exactly: h + e
    big = b.add(h, b.sub(e, b.sub(t, k.pio2_lo)))
    res = b.copysign(b.sel(b.lt(a, 0.5), small, big), x)
    return b.sel(b.either(b.lt(a, 2.0**-27), b.isnan(x)), x, b.sel(b.gt(a, 1.0), _NAN, res))


def acos(b: _B, x: V) -> V:
    k = _k()
    a = b.abs(x)
    xm = b.sel(b.lt(a, 0.5), x, 0.0)
    mid = b.sub(k.pio2_hi, b.sub(xm, b.sub(k.pio2_lo, _asin_tail(b, xm))))
    s, t = _asin_half(b, b.sel(b.lt(a, 0.5), 0.5, a))
    pos = b.add(b.add(s, s), t)
    neg = b.sub(k.pi_hi, b.sub(pos, k.pi_lo))
    res = b.sel(b.lt(a, 0.5), mid, b.sel(b.lt(x, 0.0), neg, pos))
    return b.sel(b.isnan(x), x, b.sel(b.gt(a, 1.0), _NAN, res))


# --- hyperbolic ----------------------------------------------------------------------------


def sinh(b: _B, x: V) -> V:
    a = b.abs(x)
    huge = b.ge(a, 709.0)
    e = expm1(b, b.sel(huge, b.mul(a, 0.5), a))
    w = b.add(e, 1.0)  # exp(a), or exp(a / 2) where huge
    res = b.mul(b.add(e, b.div(e, w)), 0.5)
    z = b.mul(a, a)  # below 1: the Taylor series (fdlibm's expm1 formula rounds 2 ulps off)
    series = b.fma(b.mul(a, z), b.horner(z, _SINH_C), a)
    res = b.sel(b.lt(a, 1.0), series, res)
    res = b.sel(b.ge(a, 22.0), b.mul(w, 0.5), res)
    res = b.sel(huge, b.mul(b.mul(w, 0.5), w), res)
    res = b.copysign(res, x)
    return b.sel(b.lt(a, 2.0**-28), x, res)


def cosh(b: _B, x: V) -> V:
    a = b.abs(x)
    huge = b.ge(a, 709.0)
    e = expm1(b, b.sel(huge, b.mul(a, 0.5), a))
    t, tl = b.two_sum(b.c(1.0), e)  # exp(a) = t + tl: the rounding of 1 + e kept
    res = b.add(1.0, b.div(b.mul(e, e), b.add(t, t)))
    mid = b.add(b.mul(t, 0.5), b.fma(tl, 0.5, b.div(0.5, t)))
    res = b.sel(b.ge(a, 0.5 * _k().ln2), mid, res)
    res = b.sel(b.ge(a, 22.0), b.mul(t, 0.5), res)
    return b.sel(huge, b.mul(b.mul(t, 0.5), t), res)


def tanh(b: _B, x: V) -> V:
    a = b.abs(x)
    big = b.ge(a, 1.0)
    ac = b.sel(b.gt(a, 22.0), 22.0, a)
    t = expm1(b, b.sel(big, b.mul(ac, 2.0), b.mul(ac, -2.0)))
    res = b.sel(big, b.sub(1.0, b.div(2.0, b.add(t, 2.0))), b.div(b.neg(t), b.add(t, 2.0)))
    small = b.sel(b.lt(a, _TANH_SMALL), a, 0.0)
    z = b.mul(small, small)
    series = b.fma(b.mul(small, z), b.horner(z, _bernoulli_series()), small)
    res = b.copysign(b.sel(b.lt(a, _TANH_SMALL), series, res), x)
    return b.sel(b.lt(a, 2.0**-55), x, res)


def asinh(b: _B, x: V) -> V:
    a = b.abs(x)
    huge = b.gt(a, 2.0**28)
    big_arg = b.add(b.mul(a, 2.0), b.div(1.0, b.add(b.sqrt(b.fma(a, a, 1.0)), a)))
    lg = log(b, b.sel(huge, a, big_arg))
    lg = b.sel(huge, b.add(lg, _k().ln2), lg)
    t = b.mul(a, a)
    small = log1p(b, b.add(a, b.div(t, b.add(1.0, b.sqrt(b.add(t, 1.0))))))
    res = b.sel(b.gt(a, 2.0), lg, small)
    series = b.fma(b.mul(a, t), b.horner(t, _ASINH_C), a)  # below 1/2 (log1p: 2 ulps)
    res = b.copysign(b.sel(b.lt(a, 0.5), series, res), x)
    return b.sel(b.lt(a, 2.0**-28), x, res)


def acosh(b: _B, x: V) -> V:
    huge = b.gt(x, 2.0**28)
    big_arg = b.sub(b.mul(x, 2.0), b.div(1.0, b.add(x, b.sqrt(b.fma(x, x, -1.0)))))
    lg = log(b, b.sel(huge, x, big_arg))
    lg = b.sel(huge, b.add(lg, _k().ln2), lg)
    t = b.sub(x, 1.0)
    small = log1p(b, b.add(t, b.sqrt(b.fma(t, t, b.mul(t, 2.0)))))
    res = b.sel(b.gt(x, 2.0), lg, small)
    return b.sel(b.lt(x, 1.0), _NAN, res)


def atanh(b: _B, x: V) -> V:
    a = b.abs(x)
    big = b.mul(log1p(b, b.div(b.add(a, a), b.sub(1.0, a))), 0.5)
    z = b.mul(a, a)  # below 1/2: the Taylor series (fdlibm's log1p formula: 2 ulps)
    series = b.fma(b.mul(a, z), b.horner(z, _ATANH_C), a)
    res = b.sel(b.lt(a, 0.5), series, big)
    res = b.copysign(res, x)
    res = b.sel(b.lt(a, 2.0**-28), x, res)
    return b.sel(b.gt(a, 1.0), _NAN, res)


# --- erf, erfc -----------------------------------------------------------------------------

_ERFC_CF_TERMS = 50


def _erf_small(b: _B, x: V) -> tuple[V, V]:
    """erf(x) = p + rest for |x| < 1, p = c0_hi x rounded (rest includes its error)."""
    k = _k()
    z = b.mul(x, x)
    p = b.mul(x, k.c0[0])
    pe = b.fma(x, k.c0[0], b.neg(p))
    rest = b.fma(x, b.fma(z, b.horner(z, k.erf_taylor), k.c0[1]), pe)
    return p, rest


def _erfc_pos(b: _B, a: V) -> V:
    """erfc(a) for a >= 1 (or nan): exp(-a^2) times a Taylor series or the continued fraction."""
    k = _k()
    a = b.sel(b.gt(a, 28.0), 28.0, a)
    # g(a) = exp(a^2) erfc(a): Taylor around the nearest center below 3
    picks = [b.ge(a, c - 0.25) for c in k.erfc_centers[1:]]
    center = b.c(k.erfc_centers[0])
    for cond, c in zip(picks, k.erfc_centers[1:], strict=True):
        center = b.sel(cond, c, center)
    coeffs = []
    for d in range(len(k.erfc_g[0])):
        co = b.c(k.erfc_g[0][d])
        for cond, g in zip(picks, k.erfc_g[1:], strict=True):
            co = b.sel(cond, g[d], co)
        coeffs.append(co)
    h = b.sub(a, center)
    g = coeffs[-1]
    for co in reversed(coeffs[:-1]):
        g = b.fma(g, h, co)
    # from 3: erfc(a) = exp(-a^2) / sqrt(pi) / (a + 1/2 / (a + 1 / (a + 3/2 / (a + ...))))
    t = a
    for n in range(_ERFC_CF_TERMS, 0, -1):
        t = b.add(a, b.div(n * 0.5, t))
    g = b.sel(b.ge(a, 3.0), b.div(k.inv_sqrt_pi, t), g)
    sq = b.mul(a, a)
    sqe = b.fma(a, a, b.neg(sq))
    return exp(b, b.neg(sq), b.neg(sqe), g)


def erf(b: _B, x: V) -> V:
    a = b.abs(x)
    p, rest = _erf_small(b, b.sel(b.lt(a, 1.0), x, 0.0))
    small = b.add(p, rest)
    large = b.copysign(b.sub(1.0, _erfc_pos(b, b.sel(b.lt(a, 1.0), 1.0, a))), x)
    res = b.sel(b.lt(a, 1.0), small, large)
    return b.sel(b.isnan(x), x, res)


def erfc(b: _B, x: V) -> V:
    a = b.abs(x)
    p, rest = _erf_small(b, b.sel(b.lt(a, 1.0), x, 0.0))
    small = b.sub(b.sub(1.0, p), rest)
    tail = _erfc_pos(b, b.sel(b.lt(a, 1.0), 1.0, a))
    large = b.sel(b.lt(x, 0.0), b.sub(2.0, tail), tail)
    res = b.sel(b.lt(a, 1.0), small, large)
    return b.sel(b.isnan(x), x, res)


# --- cbrt, rsqrt ---------------------------------------------------------------------------


def cbrt(b: _B, x: V) -> V:
    a = b.abs(x)
    sub = b.lt(a, _TINY)
    big = b.gt(a, 2.0**900)  # t^3 below must not overflow
    s = b.sel(sub, b.mul(a, 2.0**54), b.sel(big, b.mul(a, 2.0**-900), a))
    s = b.sel(b.both(b.gt(s, 0.0), b.lt(s, _INF)), s, 1.0)
    t = b.from_bits(b.iadd(b.idiv(b.bits(s), 3), 0x2A9F7893782DA1CE))
    for _ in range(5):  # Newton: t -= (t - s / t^2) / 3
        t = b.sub(t, b.div(b.sub(t, b.div(s, b.mul(t, t))), 3.0))
    p = b.mul(t, t)
    pe = b.fma(t, t, b.neg(p))
    q = b.mul(p, t)
    qe = b.fma(p, t, b.neg(q))
    r = b.sub(b.sub(b.sub(s, q), qe), b.mul(pe, t))
    t = b.add(t, b.div(r, b.mul(p, 3.0)))
    res = b.copysign(b.sel(sub, b.mul(t, 2.0**-18), b.sel(big, b.mul(t, 2.0**300), t)), x)
    special = b.either(b.either(b.eq(a, 0.0), b.eq(a, _INF)), b.isnan(x))
    return b.sel(special, x, res)


def rsqrt(b: _B, x: V) -> V:
    return b.div(1.0, b.sqrt(x))


# --- powf ----------------------------------------------------------------------------------


def _log_dd(b: _B, a: V) -> tuple[V, V]:
    """log(a) = hi + lo to ~2^-66 relative, for finite a > 0: a = 2^e c_j (1 + g), c_j =
    1 + j/64 with log(c_j) from a table, log1p(g) by its series with g in double-double."""
    k = _k()
    sub = b.lt(a, _TINY)
    xs = b.sel(sub, b.mul(a, 2.0**54), a)
    bits = b.bits(xs)
    e = b.sub(b.i2f(b.isub(b.ashr(bits, 52), 1023)), b.sel(sub, 54.0, 0.0))
    m = b.from_bits(b.ior(b.iand(bits, _MANT), 1023 << 52))
    jf = b.rint(b.mul(b.sub(m, 1.0), 64.0))
    cj = b.fma(jf, 1.0 / 64, 1.0)
    d = b.sub(m, cj)
    g = b.div(d, cj)
    gl = b.div(b.fma(b.neg(g), cj, d), cj)
    ji = b.f2i(jf)
    lh, ll = b.c(k.log_table[0][0]), b.c(k.log_table[0][1])
    for j in range(1, 65):
        pick = b.icmp("eq", ji, j)
        lh = b.sel(pick, k.log_table[j][0], lh)
        ll = b.sel(pick, k.log_table[j][1], ll)
    p = b.mul(g, g)
    pe = b.fma(g, g, b.neg(p))
    tail = b.mul(b.mul(g, p), b.horner(g, _LOG1P_TAIL))
    s, e1 = b.two_sum(b.mul(e, k.ln2_hi), lh)
    s, e2 = b.two_sum(s, g)
    s, e3 = b.two_sum(s, b.mul(p, -0.5))
    small = b.add(b.add(e1, e2), e3)
    small = b.add(small, b.fma(e, k.ln2_lo, ll))
    small = b.add(small, b.sub(b.sub(gl, b.mul(pe, 0.5)), b.mul(g, gl)))
    small = b.add(small, tail)
    return b.fast_two_sum(s, small)


def powf(b: _B, x: V, y: V) -> V:
    ax = b.abs(x)
    lh, ll = _log_dd(b, _positive(b, ax))
    p = b.mul(y, lh)
    pe = b.fma(y, ll, b.fma(y, lh, b.neg(p)))
    ok = b.both(b.lt(b.abs(p), 750.0), b.negate(b.isnan(p)))
    ps = b.sel(ok, p, b.sel(b.gt(p, 0.0), 750.0, -750.0))
    pe = b.sel(ok, pe, 0.0)
    n, hi, lo = _reduce_ln2(b, ps, pe)
    mag = _scale(b, b.add(_expm1_reduced(b, hi, lo), 1.0), n)
    ylt0 = b.lt(y, 0.0)
    mag = b.sel(b.eq(ax, 0.0), b.sel(ylt0, _INF, 0.0), mag)
    mag = b.sel(b.eq(ax, _INF), b.sel(ylt0, 0.0, _INF), mag)
    below, above = b.lt(ax, 1.0), b.gt(ax, 1.0)
    mag = b.sel(b.eq(y, _INF), b.sel(below, 0.0, b.sel(above, _INF, 1.0)), mag)
    mag = b.sel(b.eq(y, -_INF), b.sel(below, _INF, b.sel(above, 0.0, 1.0)), mag)
    yint = b.eq(b.floor(y), y)
    half = b.mul(y, 0.5)
    yodd = b.both(yint, b.cmp("one", b.floor(half), half))
    xneg = b.icmp("slt", b.bits(x), 0)
    res = b.sel(b.both(xneg, yodd), b.neg(mag), mag)
    finite_neg = b.both(b.lt(x, 0.0), b.gt(x, -_INF))
    res = b.sel(b.both(finite_neg, b.negate(yint)), _NAN, res)
    res = b.sel(b.either(b.isnan(x), b.isnan(y)), b.add(x, y), res)
    res = b.sel(b.eq(y, 0.0), 1.0, res)
    return b.sel(b.eq(x, 1.0), 1.0, res)


# ----------------------------------------------------------------------------------------
# The pattern

_Unary = Callable[[_B, V], V]
_UNARY: dict[str, _Unary] = {
    "math.exp": exp,
    "math.exp2": exp2,
    "math.expm1": expm1,
    "math.log": log,
    "math.log2": log2,
    "math.log10": log10,
    "math.log1p": log1p,
    "math.atan": atan,
    "math.asin": asin,
    "math.acos": acos,
    "math.sinh": sinh,
    "math.cosh": cosh,
    "math.tanh": tanh,
    "math.asinh": asinh,
    "math.acosh": acosh,
    "math.atanh": atanh,
    "math.erf": erf,
    "math.erfc": erfc,
    "math.cbrt": cbrt,
}
