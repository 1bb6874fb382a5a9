"""div-to-mul: ``x / c`` → ``x * (1/c)`` for a float constant ``c`` whose reciprocal is exact
(a power of two), so that the result does not change. The RewritePattern style: one local
rewrite, applied by xDSL's ``PatternRewriteWalker``.

Before / after::

    %c = arith.constant 4.000000e+00 : f32
    %q = arith.divf %x, %c : f32
    // ==>
    %r = arith.constant 2.500000e-01 : f32
    %q = arith.mulf %x, %r : f32
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)


def exact_reciprocal(c: float) -> float | None:
    """1/c when it is exact in binary floating point (c = ±2^k), else None."""
    if c == 0 or not math.isfinite(c):
        return None
    mantissa, _ = math.frexp(c)
    return 1.0 / c if abs(mantissa) == 0.5 else None


class DivByPowerOfTwo(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.DivfOp, rewriter: PatternRewriter) -> None:
        const = op.rhs.owner
        if not isinstance(const, arith.ConstantOp) or not isinstance(const.value, FloatAttr):
            return
        r = exact_reciprocal(const.value.value.data)
        if r is None:
            return
        recip = arith.ConstantOp(FloatAttr(r, const.value.type))
        rewriter.replace_op(op, [recip, arith.MulfOp(op.lhs, recip.result, op.fastmath)])


@dataclass(frozen=True)
class DivToMul(ModulePass):
    name = "div-to-mul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(DivByPowerOfTwo()).rewrite_module(op)
