"""convert-complex-to-standard: the complex dialect's functions as arith and math on the parts.

As upstream MLIR's ``-convert-complex-to-standard``: each complex op below is rewritten into
``complex.re``/``complex.im`` of its operands, ``arith``/``math`` ops on the real and imaginary
parts, and a ``complex.create`` of the result (the formulas are upstream's, re-derived here):

- ``abs``: scaled hypot, ``max * sqrt(1 + (min/max)^2)`` (no overflow), NaN -> ``min``;
- ``angle``: ``atan2(im, re)``; ``conj``/``neg``: part by part;
- ``div``: Smith's algorithm (ratio of the smaller to the larger part of the divisor), then
  C99 Annex G's recovery of infinite and zero results where Smith's gives NaN + NaN i;
- ``exp``: ``e^x (cos y + i sin y)``; ``expm1``: ``expm1(x) cos y + cosm1(y)`` with cephes'
  cosm1 polynomial below pi/4; ``log``: ``log|z| + i atan2``; ``log1p``: scaled as abs;
- ``sin``/``cos``: ``e^y`` and ``e^-y`` halves times ``sin x``/``cos x``; ``tanh`` from
  ``expm1(±2x)``, ``cos y``, ``sin y`` with its limits at infinity; ``tan(z) = -i tanh(iz)``;
- ``sqrt``/``rsqrt``: ``|z|^(±1/2)`` (scaled) at half the angle, with the C99 special values;
- ``sign``: ``z / |z|`` (``z`` where it is zero); ``pow``: polar form with Kahan's cases
  (``0^c``, ``z^0``, ``1^w``, ``inf^c``); ``atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2))``;
- ``bitcast``: the parts' bits, real part in the low half (``complex<f32>`` <-> ``i64``/``f64``,
  the memory layout of numpy's complex64).

Fastmath flags parse and are ignored: the full formulas are always used (what upstream emits
without ``nnan``/``ninf``). ``add``, ``sub``, ``mul``, ``eq``, ``neq``, ``re``, ``im``,
``create`` and ``constant`` are left to convert-to-llvm (lowering/to_llvm/complex.py) and the
interpreter, which have them.

Expects: complex ops on ``complex<T>`` scalars of a float ``T`` (kernels take complex<f32> and
complex<f64>). Guarantees: none of the ops listed above remains; the math ops created are
expanded on GPU targets by expand-math, which runs after this pass. Constants, ``absf`` and
comparisons are made once per rewritten op (the formulas repeat them).

Before::

    %r = complex.exp %z : complex<f32>

After::

    %x = complex.re %z : complex<f32>
    %y = complex.im %z : complex<f32>
    %e = math.exp %x : f32
    %c = math.cos %y : f32
    %a = arith.mulf %e, %c : f32
    %s = math.sin %y : f32
    %b = arith.mulf %e, %s : f32
    %r = complex.create %a, %b : complex<f32>
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, complex, math
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

Parts = tuple[SSAValue, SSAValue]


class _B:
    """Builds arith/math ops on one float type in front of ``anchor``; constants, math ops and
    comparisons are made once per rewritten op (the formulas repeat |x|, inf, isinf...)."""

    def __init__(self, anchor: Operation, t: AnyFloat) -> None:
        self.anchor, self.t = anchor, t
        self.memo: dict[tuple[object, ...], SSAValue] = {}

    def _once(self, key: tuple[object, ...], make: Callable[[], Operation]) -> SSAValue:
        if key not in self.memo:
            self.memo[key] = self.add_op(make())
        return self.memo[key]

    def add_op(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.results[0]

    def c(self, v: float) -> SSAValue:
        return self._once(("c", repr(v)), lambda: arith.ConstantOp(FloatAttr(v, self.t)))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add_op(arith.AddfOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add_op(arith.SubfOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add_op(arith.MulfOp(a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add_op(arith.DivfOp(a, b))

    def neg(self, a: SSAValue) -> SSAValue:
        return self.add_op(arith.NegfOp(a))

    def m(self, cls: type[Operation], *args: SSAValue) -> SSAValue:
        return self._once((cls, *args), lambda: cls(*args))

    def cmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._once((pred, a, b), lambda: arith.CmpfOp(a, b, pred))

    def sel(self, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add_op(arith.SelectOp(c, a, b))

    def and_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add_op(arith.AndIOp(a, b))

    def or_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add_op(arith.OrIOp(a, b))

    def not_(self, a: SSAValue) -> SSAValue:
        true = self._once(("true",), lambda: arith.ConstantOp(IntegerAttr(1, IntegerType(1))))
        return self.add_op(arith.XOrIOp(a, true))

    def sel2(self, cond: SSAValue, a: Parts, b: Parts) -> Parts:
        return self.sel(cond, a[0], b[0]), self.sel(cond, a[1], b[1])

    def is_nan(self, a: SSAValue) -> SSAValue:
        return self.cmp("uno", a, a)

    def is_inf(self, a: SSAValue) -> SSAValue:
        return self.cmp("oeq", self.m(math.AbsFOp, a), self.c(float("inf")))

    def is_finite(self, a: SSAValue) -> SSAValue:
        return self.cmp("one", self.m(math.AbsFOp, a), self.c(float("inf")))

    def is_zero(self, a: SSAValue) -> SSAValue:
        return self.cmp("oeq", a, self.c(0.0))


# -- formulas on (re, im) ------------------------------------------------------------------


def _abs(b: _B, x: SSAValue, y: SSAValue, power: float = 1.0) -> SSAValue:
    """|z|, sqrt|z| (power 0.5) or 1/sqrt|z| (power -0.5) without overflow."""
    ax, ay = b.m(math.AbsFOp, x), b.m(math.AbsFOp, y)
    hi, lo = b.m(arith.MaximumfOp, ax, ay), b.m(arith.MinimumfOp, ax, ay)
    q = b.div(lo, hi)
    s = b.add(b.mul(q, q), b.c(1.0))  # 1 + (lo/hi)^2 in [1, 2]
    if power == 1.0:
        r = b.mul(hi, b.m(math.SqrtOp, s))
    elif power == 0.5:
        r = b.mul(b.m(math.SqrtOp, hi), b.m(math.PowFOp, s, b.c(0.25)))
    else:
        r = b.mul(b.m(math.RsqrtOp, hi), b.m(math.SqrtOp, b.m(math.RsqrtOp, s)))
        lo = b.m(math.RsqrtOp, lo)
    return b.sel(b.is_nan(r), lo, r)


def _conj(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    return x, b.neg(y)


def _neg(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    return b.neg(x), b.neg(y)


def _exp(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    e = b.m(math.ExpOp, x)
    return b.mul(e, b.m(math.CosOp, y)), b.mul(e, b.m(math.SinOp, y))


# cephes' cosm1 polynomial in x^2 (|x| < pi/4), highest degree first.
_COSM1 = (
    4.7377507964246204691685e-14,
    -1.1470284843425359765671e-11,
    2.0876754287081521758361e-9,
    -2.7557319214999787979814e-7,
    2.4801587301570552304991e-5,
    -1.3888888888888872993737e-3,
    4.1666666666666666609054e-2,
)


def _cosm1(b: _B, y: SSAValue) -> SSAValue:
    y2 = b.mul(y, y)
    p = b.c(_COSM1[0])
    for k in _COSM1[1:]:
        p = b.m(math.FmaOp, p, y2, b.c(k))
    small = b.add(b.mul(b.mul(y2, y2), p), b.mul(b.c(-0.5), y2))
    large = b.add(b.m(math.CosOp, y), b.c(-1.0))
    return b.sel(b.cmp("oge", y2, b.c(0.61685)), large, small)  # (pi/4)^2


def _expm1(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    em1 = b.m(math.ExpM1Op, x)
    cm1 = _cosm1(b, y)
    re = b.add(b.mul(em1, b.add(cm1, b.c(1.0))), cm1)
    im = b.mul(b.add(em1, b.c(1.0)), b.m(math.SinOp, y))
    return re, b.sel(b.is_zero(y), b.c(0.0), im)


def _log(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    return b.m(math.LogOp, _abs(b, x, y)), b.m(math.Atan2Op, y, x)


def _log1p(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    # log|1 + z| = log(hi) + log1p((lo/hi)^2) / 2 with hi - 1 computed exactly where it can be
    xp1 = b.add(x, b.c(1.0))
    axp1, ay = b.m(math.AbsFOp, xp1), b.m(math.AbsFOp, y)
    hi, lo = b.m(arith.MaximumfOp, axp1, ay), b.m(arith.MinimumfOp, axp1, ay)
    hm1 = b.sel(b.cmp("ogt", xp1, ay), x, b.sub(hi, b.c(1.0)))
    q = b.div(lo, hi)
    r = b.add(b.mul(b.c(0.5), b.m(math.Log1pOp, b.mul(q, q))), b.m(math.Log1pOp, hm1))
    return b.sel(b.is_nan(r), lo, r), b.m(math.Atan2Op, y, xp1)


def _trig(cos: bool) -> Callable[[_B, SSAValue, SSAValue], Parts]:
    def lower(b: _B, x: SSAValue, y: SSAValue) -> Parts:
        e = b.m(math.ExpOp, y)
        half_e, half_inv = b.mul(b.c(0.5), e), b.div(b.c(0.5), e)
        s, c = b.m(math.SinOp, x), b.m(math.CosOp, x)
        if cos:  # cos(x + iy) = cosh y cos x - i sinh y sin x
            return b.mul(b.add(half_inv, half_e), c), b.mul(b.sub(half_inv, half_e), s)
        return b.mul(b.add(half_e, half_inv), s), b.mul(b.sub(half_e, half_inv), c)

    return lower


def _tanh(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    # tanh(x + iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), in expm1 terms:
    # (e^2x - e^-2x + 4i cos y sin y) / (expm1(2x) + expm1(-2x) + 4 cos^2 y)
    inf, zero, m1, four = b.c(float("inf")), b.c(0.0), b.c(-1.0), b.c(4.0)
    two_x = b.add(x, x)
    ep, en = b.m(math.ExpM1Op, two_x), b.m(math.ExpM1Op, b.mul(m1, two_x))
    cy, sy = b.m(math.CosOp, y), b.m(math.SinOp, y)
    num_im = b.mul(four, b.mul(cy, sy))
    esum = b.add(ep, en)
    den = b.add(esum, b.mul(b.mul(cy, cy), four))
    re = b.sel(b.cmp("oeq", esum, inf), b.m(math.CopySignOp, m1, x), b.div(b.sub(ep, en), den))
    im = b.div(num_im, den)
    x_inf = b.is_inf(x)
    im_nan = b.is_nan(num_im)
    re = b.sel(b.and_(im_nan, b.not_(x_inf)), b.c(float("nan")), re)
    im = b.sel(b.or_(b.is_zero(y), b.and_(x_inf, im_nan)), zero, im)
    return re, im


def _tan(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    re, im = _tanh(b, b.mul(y, b.c(-1.0)), x)  # tan z = -i tanh(iz), iz = -y + ix
    return im, b.mul(re, b.c(-1.0))


def _sqrt(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    zero, inf = b.c(0.0), b.c(float("inf"))
    r = _abs(b, x, y, 0.5)
    half_arg = b.mul(b.m(math.Atan2Op, y, x), b.c(0.5))
    c, s = b.m(math.CosOp, half_arg), b.m(math.SinOp, half_arg)
    re = b.mul(r, c)
    im = b.sel(b.is_zero(s), zero, b.mul(r, s))  # not 0 * inf
    y_inf = b.is_inf(y)
    x_pinf, x_ninf = b.cmp("oeq", x, inf), b.cmp("oeq", x, b.c(float("-inf")))
    re = b.sel(b.and_(x_ninf, b.not_(y_inf)), zero, re)
    re = b.sel(b.or_(y_inf, x_pinf), inf, re)
    im = b.sel(b.is_nan(r), b.c(float("nan")), im)
    im = b.sel(b.or_(y_inf, x_ninf), b.m(math.CopySignOp, inf, y), im)
    z = b.is_zero(r)
    return b.sel(z, zero, re), b.sel(z, zero, im)


def _rsqrt(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    zero, inf = b.c(0.0), b.c(float("inf"))
    r = _abs(b, x, y, -0.5)
    half_arg = b.mul(b.m(math.Atan2Op, y, x), b.c(-0.5))
    re = b.mul(r, b.m(math.CosOp, half_arg))
    im = b.mul(r, b.m(math.SinOp, half_arg))
    to_zero = b.or_(b.and_(b.is_inf(y), b.is_nan(x)), b.is_inf(x))
    re = b.sel(to_zero, b.m(math.CopySignOp, zero, x), re)
    im = b.sel(to_zero, b.mul(b.c(-1.0), b.m(math.CopySignOp, zero, y)), im)
    z = b.and_(b.is_zero(x), b.is_zero(y))
    return b.sel(z, inf, re), b.sel(z, b.c(float("nan")), im)


def _sign(b: _B, x: SSAValue, y: SSAValue) -> Parts:
    a = _abs(b, x, y)
    z = b.and_(b.is_zero(x), b.is_zero(y))
    return b.sel(z, x, b.div(x, a)), b.sel(z, y, b.div(y, a))


def _mul(b: _B, p: Parts, q: Parts) -> Parts:
    (x, y), (u, v) = p, q
    return b.sub(b.mul(x, u), b.mul(y, v)), b.add(b.mul(y, u), b.mul(x, v))


def _div(b: _B, p: Parts, q: Parts) -> Parts:
    (x, y), (u, v) = p, q
    au, av = b.m(math.AbsFOp, u), b.m(math.AbsFOp, v)
    # |u| >= |v|: t = v/u, (x + y t + i(y - x t)) / (u + v t); else the mirror image
    t1 = b.div(v, u)
    d1 = b.add(u, b.mul(v, t1))
    re1, im1 = b.div(b.add(x, b.mul(y, t1)), d1), b.div(b.sub(y, b.mul(x, t1)), d1)
    t2 = b.div(u, v)
    d2 = b.add(v, b.mul(u, t2))
    re2, im2 = b.div(b.add(b.mul(x, t2), y), d2), b.div(b.sub(b.mul(y, t2), x), d2)
    re, im = b.sel2(b.cmp("oge", au, av), (re1, im1), (re2, im2))
    # C99 Annex G: where this is NaN + NaN i, infinities and zeros that are not NaN
    inf, zero, one = b.c(float("inf")), b.c(0.0), b.c(1.0)
    q_zero = b.and_(b.is_zero(u), b.is_zero(v))
    p_num = b.or_(b.not_(b.is_nan(x)), b.not_(b.is_nan(y)))
    sinf = b.m(math.CopySignOp, inf, u)
    case_zero = (b.mul(sinf, x), b.mul(sinf, y))
    p_inf = b.or_(b.is_inf(x), b.is_inf(y))
    q_fin = b.and_(b.is_finite(u), b.is_finite(v))

    def unit(a: SSAValue) -> SSAValue:
        return b.m(math.CopySignOp, b.sel(b.is_inf(a), one, zero), a)

    x1, y1 = unit(x), unit(y)
    case_pinf = (
        b.mul(inf, b.add(b.mul(x1, u), b.mul(y1, v))),
        b.mul(inf, b.sub(b.mul(y1, u), b.mul(x1, v))),
    )
    q_inf = b.or_(b.is_inf(u), b.is_inf(v))
    p_fin = b.and_(b.is_finite(x), b.is_finite(y))
    u1, v1 = unit(u), unit(v)
    case_qinf = (
        b.mul(zero, b.add(b.mul(x, u1), b.mul(y, v1))),
        b.mul(zero, b.sub(b.mul(y, u1), b.mul(x, v1))),
    )
    nan = b.and_(b.is_nan(re), b.is_nan(im))
    fixed = b.sel2(b.and_(q_inf, p_fin), case_qinf, (re, im))
    fixed = b.sel2(b.and_(p_inf, q_fin), case_pinf, fixed)
    fixed = b.sel2(b.and_(q_zero, p_num), case_zero, fixed)
    return b.sel2(nan, fixed, (re, im))


def _pow(b: _B, p: Parts, q: Parts) -> Parts:
    (x, y), (c, d) = p, q
    zero, one, inf = b.c(0.0), b.c(1.0), b.c(float("inf"))
    r = _abs(b, x, y)
    arg = b.m(math.Atan2Op, y, x)
    coeff = b.mul(b.m(math.PowFOp, r, c), b.m(math.ExpOp, b.mul(b.neg(d), arg)))
    q_ang = b.add(b.mul(c, arg), b.mul(d, b.m(math.LogOp, r)))
    res = (b.mul(coeff, b.m(math.CosOp, q_ang)), b.mul(coeff, b.m(math.SinOp, q_ang)))
    c0, d0, y0 = b.is_zero(c), b.is_zero(d), b.is_zero(y)
    one_c, zero_c, inf_c = (one, zero), (zero, zero), (inf, zero)
    # Kahan, "Branch cuts for complex elementary functions", section 10: 0^c, z^0, 1^w, inf^c
    zero_base = b.and_(b.and_(b.is_zero(r), d0), b.cmp("ole", zero, c))
    res = b.sel2(zero_base, b.sel2(c0, one_c, zero_c), res)
    res = b.sel2(b.and_(c0, d0), one_c, res)
    res = b.sel2(b.and_(b.cmp("oeq", x, one), y0), one_c, res)
    inf_base = b.and_(b.cmp("oeq", x, inf), y0)
    res = b.sel2(b.and_(inf_base, b.and_(d0, b.cmp("ogt", c, zero))), inf_c, res)
    return b.sel2(b.and_(inf_base, b.and_(d0, b.cmp("olt", c, zero))), zero_c, res)


def _atan2(b: _B, p: Parts, q: Parts) -> Parts:
    # atan2(p, q) = -i log((q + i p) / sqrt(q^2 + p^2)), complex ops as upstream composes them
    zero, one = b.c(0.0), b.c(1.0)
    s = _mul(b, q, q)
    t = _mul(b, p, p)
    root = _sqrt(b, b.add(s[0], t[0]), b.add(s[1], t[1]))
    ip = _mul(b, (zero, one), p)
    num = (b.add(q[0], ip[0]), b.add(q[1], ip[1]))
    lg = _log(b, *_div(b, num, root))
    return _mul(b, (zero, b.c(-1.0)), lg)


_UNARY: dict[str, Callable[[_B, SSAValue, SSAValue], Parts]] = {
    "complex.conj": _conj,
    "complex.neg": _neg,
    "complex.exp": _exp,
    "complex.expm1": _expm1,
    "complex.log": _log,
    "complex.log1p": _log1p,
    "complex.sin": _trig(cos=False),
    "complex.cos": _trig(cos=True),
    "complex.tan": _tan,
    "complex.tanh": _tanh,
    "complex.sqrt": _sqrt,
    "complex.rsqrt": _rsqrt,
    "complex.sign": _sign,
}
_BINARY: dict[str, Callable[[_B, Parts, Parts], Parts]] = {
    "complex.div": _div,
    "complex.pow": _pow,
    "complex.atan2": _atan2,
}
_REAL = {"complex.abs", "complex.angle"}


def _parts(op: Operation, v: SSAValue) -> Parts:
    re, im = complex.ReOp(v), complex.ImOp(v)
    Rewriter.insert_op([re, im], InsertPoint.before(op))
    return re.results[0], im.results[0]


def _int_bits(b: _B, v: SSAValue, t: Attribute) -> SSAValue:
    """The bits of ``v`` (complex: the real part's in the low half) as one integer."""
    if isinstance(t, IntegerType):
        return v
    if not isinstance(t, ComplexType):
        return b.add_op(arith.BitcastOp(v, IntegerType(t.bitwidth)))  # type: ignore[attr-defined]
    e = t.element_type
    w = e.bitwidth  # type: ignore[attr-defined]
    half, whole = IntegerType(w), IntegerType(2 * w)
    re, im = _parts(b.anchor, v)
    lo = b.add_op(arith.ExtUIOp(b.add_op(arith.BitcastOp(re, half)), whole))
    hi = b.add_op(arith.ExtUIOp(b.add_op(arith.BitcastOp(im, half)), whole))
    shift = b.add_op(arith.ConstantOp(IntegerAttr(w, whole)))
    return b.add_op(arith.OrIOp(lo, b.add_op(arith.ShLIOp(hi, shift))))


def _from_bits(b: _B, bits: SSAValue, t: Attribute) -> SSAValue:
    if isinstance(t, IntegerType):
        return bits
    if not isinstance(t, ComplexType):
        return b.add_op(arith.BitcastOp(bits, t))
    e = t.element_type
    w = e.bitwidth  # type: ignore[attr-defined]
    half, whole = IntegerType(w), IntegerType(2 * w)
    shift = b.add_op(arith.ConstantOp(IntegerAttr(w, whole)))
    lo = b.add_op(arith.BitcastOp(b.add_op(arith.TruncIOp(bits, half)), e))
    hi_bits = b.add_op(arith.TruncIOp(b.add_op(arith.ShRUIOp(bits, shift)), half))
    hi = b.add_op(arith.BitcastOp(hi_bits, e))
    return b.add_op(complex.CreateOp(lo, hi, t))


def _rewrite(op: Operation) -> None:
    name = op.name
    if name == "complex.bitcast":
        src, dst = op.operands[0].type, op.results[0].type
        if src == dst:
            op.results[0].replace_all_uses_with(op.operands[0])
        else:
            side = src if isinstance(src, ComplexType) else dst
            assert isinstance(side, ComplexType)  # the verifier's: one side is complex
            b = _B(op, side.element_type)  # type: ignore[arg-type]
            bits = _int_bits(b, op.operands[0], src)
            op.results[0].replace_all_uses_with(_from_bits(b, bits, dst))
        Rewriter.erase_op(op)
        return
    t = op.operands[0].type
    assert isinstance(t, ComplexType)
    b = _B(op, t.element_type)  # type: ignore[arg-type]
    if name in _REAL:
        x, y = _parts(op, op.operands[0])
        r = _abs(b, x, y) if name == "complex.abs" else b.m(math.Atan2Op, y, x)
        op.results[0].replace_all_uses_with(r)
        Rewriter.erase_op(op)
        return
    if name in _UNARY:
        re, im = _UNARY[name](b, *_parts(op, op.operands[0]))
    else:
        re, im = _BINARY[name](b, _parts(op, op.operands[0]), _parts(op, op.operands[1]))
    Rewriter.replace_op(op, complex.CreateOp(re, im, t))


_CONVERTED = {*_UNARY, *_BINARY, *_REAL, "complex.bitcast"}


@dataclass(frozen=True)
class ConvertComplexToStandard(ModulePass):
    """Rewrite the complex dialect's functions (abs, div, exp, log, sqrt, pow, trig, bitcast)
    into arith and math ops on the real and imaginary parts, with upstream's formulas."""

    name = "convert-complex-to-standard"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in [o for o in op.walk() if o.name in _CONVERTED]:
            _rewrite(o)
