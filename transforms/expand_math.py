"""expand-math: the math dialect's functions as arith and exactly-rounded math ops (no libm).

A GPU has no C library, and LLVM's NVPTX backend selects no ``llvm.exp``/``llvm.sin``/``powi``
(libm calls: "no libcall available for fexp", aborts on ``sin``): every function PTX has no
exact instruction for is rewritten here, in front of ``convert-to-llvm``, into ``arith`` ops
and the math ops every target lowers exactly (``math.fma``, ``sqrt``, ``absf``, ``floor``,
``roundeven``, ``copysign``): exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tan, asin,
acos, atan, atan2, sinh, cosh, tanh, asinh, acosh, atanh, erf (and ``math.erfc`` where a
dialect defines it), cbrt, powf, fpowi, ipowi, and rsqrt on f32/f16. In llvm-dialect input
(modules clients hand over partly lowered), ``llvm.intr.exp``/``exp2``/``log``/``log2``/
``sin``/``cos``/``pow`` on a GPU target first become their math op (``LLVM_INTRINSICS``) and
are expanded the same way: one implementation per function (exp2 too, which NVPTX would
select as ``ex2.approx``); the exact intrinsics (sqrt, fma, fabs, floor...) stay.

The algorithms are target-independent; the pass reads the module's ``#xmux.target`` only to
know whether there is a C math library. Both pipelines run it before convert-to-llvm: on a
GPU target it expands every function above; on a CPU target (libm computes them) only
``math.ipowi``, which no libm function computes and which had no lowering. ``all=true``
expands every function whatever the target: the CPU then runs the GPU's code
(``tests/test_math_nvptx.py`` checks its results against the C library there).

Algorithms (in transforms/math_algorithms.py; branch-free: every path is computed and the
result selected, so the work-items of a warp never diverge):

- f64: Cody-Waite reduction by ln 2 and a degree-15 Taylor polynomial for exp/exp2/expm1;
  fdlibm's log with the atanh series (log2/log10 with fdlibm's exact hi*hi products); sin,
  cos and tan by pi/2 in three 33-bit pieces below 2^20 and by Payne-Hanek above (2/pi in
  24-bit chunks, exact products, double-double sum), then Taylor kernels on [-pi/4, pi/4]
  (tan's a double-double, -1/tan by a Newton step); atan with fdlibm's breakpoints and a
  degree-49 odd Taylor series; atan2 by quadrant; asin and acos by their Taylor series below
  1/2 and fdlibm's asin(sqrt((1 - |x|) / 2)) reduction above; hyperbolic functions from expm1 and
  log1p as fdlibm, but below 1 (tanh, sinh) or 1/2 (atanh, asinh) their Taylor series
  (tanh's from Bernoulli numbers), and expm1 unreduced below ln 2; erf by its
  Taylor series below 1, erfc by Taylor series of ``exp(x^2) erfc(x)`` around
  1.25/1.75/2.25/2.75 and by its continued fraction from 3, times ``exp(-x^2)`` with
  ``x^2`` kept exact; cbrt by Newton steps and one double-double
  correction; powf as ``exp(y log x)`` with a 65-entry table log in double-double.
- f32, f16, bf16: the f64 algorithm on the widened operands, rounded once (f16/bf16 on
  their own grid in f64 first, so the truncations through f32 are exact): the f64 result
  is within a few f64 ulps, so the narrow result is the correctly rounded one except where
  the exact value lies within ~2^-29 of its ulp from a rounding boundary. powf, whose
  exact results can be such boundaries (66049^1.5 = 16974593, a tie in f32), rounds its f64
  result to 50 bits first, which restores them.
- fpowi: compiler-rt's ``__powi*f2`` multiply loop in the operand's type (the CPU's result,
  bit for bit); ipowi: the same loop on integers, upstream's results for negative exponents
  (0 unless the base is 1 or -1).

Accuracy, measured against glibc (numpy/Python's math) over 200,000 inputs per op (edge
cases, random bit patterns, normal and log-uniform values; f16: all 65,536 inputs): f32
and f16 results are the correctly rounded ones (0 ulps from glibc's f64 result rounded,
where glibc's own f32 functions are up to 1 ulp off); f64 results are within 1 ulp of
glibc's for exp, exp2, log, log2, log10, log1p, sin, cos (Payne-Hanek up to 1e308 included),
expm1, tan, asin, acos, atan, atan2, sinh, cosh, tanh, atanh, erf, cbrt and powf; 2 ulps
for asinh and acosh. Special values (0, -0, inf, nan, subnormals, overflow,
underflow) follow C99 Annex F as libm does.

Vectors are rewritten lane by lane (``vector.extract``, the scalar op, ``vector.insert``):
xDSL 0.74's ``arith.cmpf``/``sitofp`` take no vector types.

Expects: math ops on f16/bf16/f32/f64 scalars or 1-D vectors (fpowi/ipowi: integer
exponents of any width). Guarantees: no math op of the list above remains; other math ops
(exact everywhere) are left for convert-to-llvm.

Before::

    %y = math.exp %x : f32

After (abridged)::

    %w = arith.extf %x : f32 to f64
    %k = math.roundeven %t : f64
    ...
    %p = math.fma %h, %q, %c : f64
    ...
    %y = arith.truncf %r : f64 to f32
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math, scf, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    f32,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xmux.dialects import attrs
from xmux.transforms.math_algorithms import (
    _B,
    _UNARY,
    V,
    _trig,
    atan2,
    powf,
    rsqrt,
)

_TRIG = {"math.sin": "sin", "math.cos": "cos", "math.tan": "tan"}
#: every op the pass rewrites (rsqrt only below f64: 1/sqrt rounds twice)
EXPANDED = frozenset((*_UNARY, *_TRIG, "math.atan2", "math.powf", "math.fpowi", "math.ipowi",
                      "math.rsqrt"))

_MAX_EXP = {Float16Type: 15, BFloat16Type: 127, Float32Type: 127, Float64Type: 1023}
_FLOATS = (Float16Type, BFloat16Type, Float32Type, Float64Type)


#: what a target with a C math library needs: no libm function computes ipowi
WITHOUT_LIBM = frozenset(("math.ipowi",))


def _wanted(op: Operation, libm: bool) -> bool:
    if op.name not in (WITHOUT_LIBM if libm else EXPANDED):
        return False
    t = op.results[0].type
    elem = t.element_type if isinstance(t, VectorType) else t
    if op.name == "math.ipowi":
        return isinstance(elem, IntegerType)
    if op.name == "math.rsqrt" and isinstance(elem, Float64Type):
        return False  # convert-to-llvm's 1 / sqrt (exact operations on every target)
    return isinstance(elem, _FLOATS)


@dataclass
class ExpandMathPattern(RewritePattern):
    libm: bool = False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not _wanted(op, self.libm):
            return
        if isinstance(op.results[0].type, VectorType):
            _split_lanes(rewriter, op)
            return
        elem = op.results[0].type
        if op.name in ("math.ipowi", "math.fpowi"):
            _powi(rewriter, op, integer=op.name == "math.ipowi")
            return
        b = _B(rewriter)
        args = [_widen(b, SSAValue.get(a), elem) for a in op.operands]
        name = op.name
        if name in _UNARY:
            res = _UNARY[name](b, args[0])
        elif name in _TRIG:
            res = _trig(b, args[0], _MAX_EXP[type(elem)], _TRIG[name])
        elif name == "math.atan2":
            res = atan2(b, args[0], args[1])
        elif name == "math.powf":
            res = powf(b, args[0], args[1])
        else:  # math.rsqrt
            res = rsqrt(b, args[0])
        rewriter.replace(op, [], [_narrow(b, res, elem, exact_cases=name == "math.powf")])


def _split_lanes(rw: PatternRewriter, op: Operation) -> None:
    """The op on each lane of its 1-D vectors, the lanes inserted into the result."""
    rtype = op.results[0].type
    assert isinstance(rtype, VectorType)
    if rtype.get_num_dims() != 1:
        return  # n-D vectors: left to convert-to-llvm, which names the op
    acc = SSAValue.get(op.operands[0])
    for lane in range(rtype.get_shape()[0]):
        lanes = []
        for operand in op.operands:
            t = operand.type
            assert isinstance(t, VectorType)
            ex = vector.ExtractOp(SSAValue.get(operand), [lane], t.element_type)
            rw.insert(ex)
            lanes.append(ex.result)
        scalar = type(op).create(operands=lanes, result_types=[rtype.element_type],
                                 properties=dict(op.properties),
                                 attributes=dict(op.attributes))
        rw.insert(scalar)
        ins = vector.InsertOp(scalar.results[0], acc, [lane], rtype)
        rw.insert(ins)
        acc = ins.result
    rw.replace(op, [], [acc])


def _widen(b: _B, v: V, elem: Attribute) -> V:
    if isinstance(elem, Float64Type):
        return v
    if not isinstance(elem, Float32Type):
        v = b.emit(arith.ExtFOp(v, f32))
    return b.emit(arith.ExtFOp(v, b.f))


#: significant bits and least normal exponent of the types narrowed through f32
_NARROW = {Float16Type: (11, -14), BFloat16Type: (8, -126)}


def _narrow(b: _B, v: V, elem: Attribute, exact_cases: bool = False) -> V:
    """The f64 result rounded once to ``elem``: f16/bf16 round on their own grid in f64
    first, so the two truncations are exact. ``exact_cases`` (powf, whose f64 result is
    within an ulp): first rounded to 50 bits, which restores exact results that are
    midpoints of the narrow type (66049^1.5 = 16974593, (169/2^16)^1.5 = 2197/2^24) and
    would otherwise round the wrong way half the time."""
    if isinstance(elem, Float64Type):
        return v
    if exact_cases:
        v = _round_bits(b, v, 50, -970)  # (tinier values: 0 in f32 anyway)
    if not isinstance(elem, Float32Type):
        v = _round_bits(b, v, *_NARROW[type(elem)])
    v = b.emit(arith.TruncFOp(v, f32))
    if not isinstance(elem, Float32Type):
        v = b.emit(arith.TruncFOp(v, elem))
    return v


def _round_bits(b: _B, v: V, bits: int, emin: int) -> V:
    """v rounded (to nearest even) to ``bits`` significant bits, to a multiple of
    2^(emin + 1 - bits) below 2^emin (rint of v / ulp, the ulp from v's exponent); emin >=
    bits - 1023 (the scale factors are normal numbers)."""
    e = b.isub(b.iand(b.ashr(b.bits(v), 52), 0x7FF), 1023)
    e = b.isel(b.icmp("slt", e, emin), emin, e)
    scaled = b.rint(b.mul(v, b.pow2(b.isub(bits - 1, e))))
    return b.mul(scaled, b.pow2(b.iadd(e, 1 - bits)))


def _powi(rw: PatternRewriter, op: Operation, integer: bool) -> None:
    """compiler-rt's __powi*f2 loop (fpowi) or its integer twin (ipowi), one iteration per bit
    of the exponent: r *= a where the bit is set, halve the exponent, square a."""
    base, expo = (SSAValue.get(o) for o in op.operands)
    narrow = base.type if isinstance(base.type, Float16Type | BFloat16Type) else None
    if narrow is not None:  # as LLVM promotes powi.f16: the loop in f32, one rounding
        wide = arith.ExtFOp(base, f32)
        rw.insert(wide)
        base = wide.result
    et = expo.type
    assert isinstance(et, IntegerType)
    width = et.width.data

    def const(value: float | int, t: Attribute) -> V:
        if isinstance(t, IntegerType | IndexType):
            attr: IntegerAttr | FloatAttr = IntegerAttr(int(value), t)
        else:
            attr = FloatAttr(float(value), t)  # type: ignore[arg-type]
        c = arith.ConstantOp(attr)
        rw.insert(c)
        return c.result

    bt = base.type
    one_b = const(1, bt)
    one_e, two_e, zero_e = const(1, et), const(2, et), const(0, et)
    lb, ub, st = (const(v, IndexType()) for v in (0, width, 1))
    block = Block(arg_types=[IndexType(), bt, bt, et])
    _, r, a, n = block.args
    cond_t = i1
    mul = arith.MuliOp if integer else arith.MulfOp
    bit = arith.AndIOp(n, one_e)
    is_set = arith.CmpiOp.create(operands=[bit.result, zero_e], result_types=[cond_t],
                                 properties={"predicate": IntegerAttr(1, i64)})
    ra = mul(r, a)
    r2 = arith.SelectOp(is_set.results[0], ra.result, r)
    n2 = arith.DivSIOp(n, two_e)
    a2 = mul(a, a)
    block.add_ops([bit, is_set, ra, r2, n2, a2, scf.YieldOp(r2, a2, n2)])
    loop = scf.ForOp(lb, ub, st, [one_b, base, expo], Region(block))
    rw.insert(loop)
    res = loop.results[0]
    neg = arith.CmpiOp.create(operands=[expo, zero_e], result_types=[cond_t],
                              properties={"predicate": IntegerAttr(2, i64)})  # slt
    rw.insert(neg)
    if integer:  # upstream: 1 for base 1, +-1 for base -1, else 0
        m1 = const(-1, bt)
        zero_b = const(0, bt)
        low = arith.AndIOp(expo, one_e)
        odd = arith.CmpiOp.create(operands=[low.result, zero_e], result_types=[cond_t],
                                  properties={"predicate": IntegerAttr(1, i64)})
        rw.insert(low)
        rw.insert(odd)
        is1 = arith.CmpiOp.create(operands=[base, one_b], result_types=[cond_t],
                                  properties={"predicate": IntegerAttr(0, i64)})
        ism1 = arith.CmpiOp.create(operands=[base, m1], result_types=[cond_t],
                                   properties={"predicate": IntegerAttr(0, i64)})
        sgn = arith.SelectOp(odd.results[0], m1, one_b)
        v1 = arith.SelectOp(ism1.results[0], sgn.result, zero_b)
        v2 = arith.SelectOp(is1.results[0], one_b, v1.result)
        fin = arith.SelectOp(neg.results[0], v2.result, res)
        for o in (is1, ism1, sgn, v1, v2, fin):
            rw.insert(o)
    else:
        inv = arith.DivfOp(one_b, res)
        fin = arith.SelectOp(neg.results[0], inv.result, res)
        rw.insert(inv)
        rw.insert(fin)
        if narrow is not None:
            fin = arith.TruncFOp(fin.result, narrow)
            rw.insert(fin)
    rw.replace(op, [], [fin.results[0]])


#: the llvm dialect's intrinsics (input clients hand over partly lowered) that PTX has no
#: exact instruction for: rewritten into their math op, which the pattern above expands
#: (one implementation per function). exp2 too: NVPTX selects ``ex2.approx`` for f32.
LLVM_INTRINSICS: dict[str, Callable[..., Operation]] = {
    "llvm.intr.exp": math.ExpOp,
    "llvm.intr.exp2": math.Exp2Op,
    "llvm.intr.log": math.LogOp,
    "llvm.intr.log2": math.Log2Op,
    "llvm.intr.sin": math.SinOp,
    "llvm.intr.cos": math.CosOp,
    "llvm.intr.pow": math.PowFOp,
}


class LlvmIntrinsicToMath(RewritePattern):
    """``llvm.intr.exp`` → ``math.exp`` etc. (fast-math flags dropped: the expansion is
    exact)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        make = LLVM_INTRINSICS.get(op.name)
        if make is not None:
            rewriter.replace(op, [make(*op.operands)])


@dataclass(frozen=True)
class ExpandMath(ModulePass):
    """Rewrite the math dialect's transcendental functions (and powi, cbrt, f32 rsqrt) into
    arith and exactly-rounded math ops where the module's target has no C math library (a
    GPU); on a CPU target only ``math.ipowi``.

    ``all``: every function whatever the target (the CPU runs the GPU's code: tests)."""

    name = "expand-math"

    all: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        libm = not (self.all or attrs.get_target(op).is_gpu)
        if not libm:
            PatternRewriteWalker(LlvmIntrinsicToMath()).rewrite_module(op)
        PatternRewriteWalker(ExpandMathPattern(libm)).rewrite_module(op)
