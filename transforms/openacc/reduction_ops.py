"""Reduction arithmetic of ``expand-oacc-reductions``: the operators' identities
(``init_val``), OP on scalars and on values split into parts (complex, promoted i8/i16), and
the atomics and spin locks that update a RESULT object."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith, complex, llvm, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue

from xmux.abi.errors import NotSupportedError
from xmux.dialects import llvmx, oacc
from xmux.dialects.oacc import ReductionKind
from xmux.transforms.lower_work_group_collectives import Ops

R = ReductionKind


# ---------------------------------------------------------------------------------------
# Values: init_val, the operators, promotion and complex parts
# ---------------------------------------------------------------------------------------


def _int_const(b: Ops, value: int, t: Attribute) -> SSAValue:
    if t == i1:
        value = -1 if value else 0
    return b(arith.ConstantOp(IntegerAttr(value, t)))  # type: ignore[arg-type]


def _float_const(b: Ops, value: float, t: Attribute) -> SSAValue:
    return b(arith.ConstantOp(FloatAttr(value, t)))  # type: ignore[arg-type]


def init_value(kind: ReductionKind, t: Attribute) -> int | float | tuple[float, float]:
    """The reference's ``init_val<T>(OP)``: the operator's identity for type ``t``."""
    if isinstance(t, ComplexType):
        return (1.0, 0.0) if kind == R.MUL else (0.0, 0.0)
    if isinstance(t, AnyFloat):
        return {R.ADD: 0.0, R.MUL: 1.0, R.MAX: -math.inf, R.MIN: math.inf, R.LAND: 1.0, R.LOR: 0.0}[
            kind
        ]
    assert isinstance(t, IntegerType)
    w = t.width.data
    if w == 1:
        return int(kind in (R.AND, R.LAND, R.MUL, R.UMIN, R.EQV))
    return {
        R.ADD: 0,
        R.MUL: 1,
        R.MAX: -(1 << (w - 1)),
        R.MIN: (1 << (w - 1)) - 1,
        R.UMAX: 0,
        R.UMIN: -1,  # all ones
        R.AND: -1,
        R.OR: 0,
        R.XOR: 0,
        R.LAND: 1,
        R.LOR: 0,
        R.EQV: 1,
        R.NEQV: 0,
    }[kind]


def init_val(b: Ops, kind: ReductionKind, t: Attribute) -> SSAValue:
    v = init_value(kind, t)
    if isinstance(t, ComplexType):
        assert isinstance(v, tuple)
        return b(complex.ConstantOp.from_floats(v, t.element_type))  # type: ignore[arg-type]
    if isinstance(t, AnyFloat):
        return _float_const(b, float(v), t)  # type: ignore[arg-type]
    return _int_const(b, int(v), t)  # type: ignore[arg-type]


def _truth(b: Ops, v: SSAValue) -> SSAValue:
    if v.type == i1:
        return v
    if isinstance(v.type, AnyFloat):
        return b(arith.CmpfOp(v, _float_const(b, 0.0, v.type), "une"))
    return b(arith.CmpiOp(v, _int_const(b, 0, v.type), "ne"))


def _from_truth(b: Ops, bit: SSAValue, t: Attribute) -> SSAValue:
    if t == i1:
        return bit
    if isinstance(t, AnyFloat):
        return b(arith.SelectOp(bit, _float_const(b, 1.0, t), _float_const(b, 0.0, t)))
    return b(arith.SelectOp(bit, _int_const(b, 1, t), _int_const(b, 0, t)))


_INT_OPS: dict[ReductionKind, type[Operation]] = {
    R.ADD: arith.AddiOp,
    R.MUL: arith.MuliOp,
    R.MAX: arith.MaxSIOp,
    R.MIN: arith.MinSIOp,
    R.UMAX: arith.MaxUIOp,
    R.UMIN: arith.MinUIOp,
    R.AND: arith.AndIOp,
    R.OR: arith.OrIOp,
    R.XOR: arith.XOrIOp,
}
_FLOAT_OPS: dict[ReductionKind, type[Operation]] = {
    R.ADD: arith.AddfOp,
    R.MUL: arith.MulfOp,
    R.MAX: arith.MaxnumfOp,
    R.MIN: arith.MinnumfOp,
}


def combine_scalar(b: Ops, kind: ReductionKind, x: SSAValue, y: SSAValue) -> SSAValue:
    """``x OP y`` for an integer, i1 or float type (land/lor give 0 or 1)."""
    if kind in (R.LAND, R.LOR):
        op = arith.AndIOp if kind == R.LAND else arith.OrIOp
        return _from_truth(b, b(op(_truth(b, x), _truth(b, y))), x.type)
    if kind in (R.EQV, R.NEQV):
        pred = "eq" if kind == R.EQV else "ne"
        return _from_truth(b, b(arith.CmpiOp(_truth(b, x), _truth(b, y), pred)), x.type)
    table = _FLOAT_OPS if isinstance(x.type, AnyFloat) else _INT_OPS
    return b(table[kind](x, y))  # type: ignore[call-arg]


def combine_parts(
    b: Ops, kind: ReductionKind, t: Attribute, xs: Sequence[SSAValue], ys: Sequence[SSAValue]
) -> list[SSAValue]:
    """OP on values given as parts (see ``parts``): complex mul needs both parts at once."""
    if isinstance(t, ComplexType) and kind == R.MUL:
        (a, c), (d, e) = xs, ys  # (a + ci)(d + ei) = (ad - ce) + (ae + cd)i
        re = b(arith.SubfOp(b(arith.MulfOp(a, d)), b(arith.MulfOp(c, e))))
        im = b(arith.AddfOp(b(arith.MulfOp(a, e)), b(arith.MulfOp(c, d))))
        return [re, im]
    return [combine_scalar(b, kind, x, y) for x, y in zip(xs, ys, strict=True)]


def storage_type(t: Attribute) -> Attribute:
    """The element type a buffer holds for one part of a ``t`` value (i8/i16 → i32)."""
    if isinstance(t, ComplexType):
        return t.element_type
    if isinstance(t, IntegerType) and t.width.data in (8, 16):
        return i32
    return t


def num_parts(t: Attribute) -> int:
    return 2 if isinstance(t, ComplexType) else 1


def split_complex(b: Ops, v: SSAValue) -> list[SSAValue]:
    t = v.type
    assert isinstance(t, ComplexType)
    return [
        b(cls.create(operands=[v], result_types=[t.element_type]))
        for cls in (complex.ReOp, complex.ImOp)
    ]


def parts(b: Ops, v: SSAValue) -> list[SSAValue]:
    """``v`` as storage-type parts: (re, im) for complex, promoted for i8/i16."""
    t = v.type
    if isinstance(t, ComplexType):
        return split_complex(b, v)
    s = storage_type(t)
    return [v] if s == t else [b(arith.ExtSIOp(v, s))]


def from_parts(b: Ops, vs: Sequence[SSAValue], t: Attribute) -> SSAValue:
    if isinstance(t, ComplexType):
        return b(complex.CreateOp(vs[0], vs[1], t))
    return vs[0] if vs[0].type == t else b(arith.TruncIOp(vs[0], t))


def raw_parts(b: Ops, v: SSAValue) -> list[SSAValue]:
    """Parts without promotion (the RESULT object's own type)."""
    if isinstance(v.type, ComplexType):
        return split_complex(b, v)
    return [v]


def raw_from_parts(b: Ops, vs: Sequence[SSAValue], t: Attribute) -> SSAValue:
    if isinstance(t, ComplexType):
        return b(complex.CreateOp(vs[0], vs[1], t))
    return vs[0]


# ---------------------------------------------------------------------------------------
# A reduction's identity, combine and atomic: the kind's, or its recipe's
# ---------------------------------------------------------------------------------------

#: The atomicrmw operation of a recipe whose combiner is one of these ops on its arguments.
_RECIPE_RMW: dict[type[Operation], str] = {
    arith.AddiOp: "add", arith.MaxSIOp: "max", arith.MinSIOp: "min", arith.MaxUIOp: "umax",
    arith.MinUIOp: "umin", arith.AndIOp: "and", arith.OrIOp: "or", arith.XOrIOp: "xor",
    arith.AddfOp: "fadd", arith.MaxnumfOp: "fmax", arith.MinnumfOp: "fmin",
    complex.AddOp: "fadd",
}


def _inline(b: Ops, region: Region, args: Sequence[SSAValue]) -> SSAValue:
    """Clone the ops of an ``oacc.reduction_recipe`` region at ``b``; its yielded value."""
    mapper: dict[SSAValue, SSAValue] = dict(zip(region.block.args, args, strict=True))
    for o in region.block.ops:
        if isinstance(o, oacc.YieldOp):
            return mapper.get(o.arguments[0], o.arguments[0])
        c = o.clone(value_mapper=mapper)
        b(c)
        for r, nr in zip(o.results, c.results, strict=True):
            mapper[r] = nr
    raise AssertionError("recipe region without oacc.yield")


class Reducer:
    """What a reduction builtin combines with: its kind's identity and operator, or those of
    the ``oacc.reduction_recipe`` it names (cloned where they are needed)."""

    def __init__(self, kind: ReductionKind, recipe: oacc.ReductionRecipeOp | None) -> None:
        self.kind = kind
        self.recipe = recipe

    def identity(self, b: Ops, t: Attribute) -> SSAValue:
        if self.recipe is None:
            return init_val(b, self.kind, t)
        return _inline(b, self.recipe.init, [])

    def combine(self, b: Ops, t: Attribute, xs: Sequence[SSAValue], ys: Sequence[SSAValue],
                ) -> list[SSAValue]:
        """OP on values given as parts (buffer parts, see ``parts``, or ``raw_parts``)."""
        if self.recipe is None:
            return combine_parts(b, self.kind, t, xs, ys)
        promoted = not isinstance(t, ComplexType) and xs[0].type != t
        x, y = from_parts(b, xs, t), from_parts(b, ys, t)
        r = _inline(b, self.recipe.combiner, [x, y])
        return parts(b, r) if promoted else raw_parts(b, r)

    def atomic(self, t: Attribute) -> str | None:
        """The ``atomicrmw`` doing ``*p = *p OP v`` for ``t``; None: the lock path."""
        if self.recipe is None:
            return atomic_bin_op(self.kind, t)
        ops = list(self.recipe.combiner.block.ops)
        if len(ops) != 2 or not isinstance(ops[1], oacc.YieldOp):
            return None
        op = ops[0]
        if (set(op.operands) != set(self.recipe.combiner.block.args) or len(op.operands) != 2
                or ops[1].arguments[0] is not op.results[0]):
            return None
        rmw = _RECIPE_RMW.get(type(op))
        if isinstance(t, IntegerType) and t.width.data == 1 and rmw not in ("and", "or", "xor"):
            return None
        return rmw


# ---------------------------------------------------------------------------------------
# Atomics and locks
# ---------------------------------------------------------------------------------------

_INT_RMW = {R.ADD: "add", R.MAX: "max", R.MIN: "min", R.UMAX: "umax", R.UMIN: "umin",
            R.AND: "and", R.OR: "or", R.XOR: "xor"}
_BOOL_RMW = {R.AND: "and", R.OR: "or", R.XOR: "xor", R.LAND: "and", R.LOR: "or",
             R.UMAX: "or", R.UMIN: "and", R.NEQV: "xor"}
_FLOAT_RMW = {R.ADD: "fadd", R.MAX: "fmax", R.MIN: "fmin"}


def atomic_bin_op(kind: ReductionKind, t: Attribute) -> str | None:
    """The ``atomicrmw`` operation doing ``*p = *p OP v`` for ``t``, None if there is none."""
    if isinstance(t, ComplexType):
        return "fadd" if kind == R.ADD else None
    if isinstance(t, AnyFloat):
        return _FLOAT_RMW.get(kind)
    assert isinstance(t, IntegerType)
    return (_BOOL_RMW if t.width.data == 1 else _INT_RMW).get(kind)


def memref_pointer(b: Ops, m: SSAValue, where: str) -> SSAValue:
    """An ``!llvm.ptr`` to element 0 of a rank-0 (or static-offset) memref."""
    t = m.type
    assert isinstance(t, MemRefType)
    offset = 0
    if not isinstance(t.layout, NoneAttr):
        off = t.get_offset() if isinstance(t.layout, StridedLayoutAttr) else None
        if not isinstance(off, int) or off < 0:
            raise NotSupportedError(
                f"expand-oacc-reductions: {where}: result pointer {t} needs an identity or "
                "static-offset layout"
            )
        offset = off
    p = b(memref.ExtractAlignedPointerAsIndexOp.get(m))
    ptr = b(llvm.IntToPtrOp(b(arith.IndexCastOp(p, i64))))
    if offset:
        elem = t.element_type
        if isinstance(elem, ComplexType):  # in units of parts
            elem, offset = elem.element_type, 2 * offset
        ptr = b(llvm.GEPOp(ptr, [offset], i8 if elem == i1 else elem))
    return ptr


def spin_lock(b: Ops, lock: SSAValue, scope: str | None) -> None:
    """The reference's ptx_lock: cmpxchg 0 → 1 until it succeeds, then an acquire fence."""
    before = Ops()
    zero, one = (
        before(arith.ConstantOp(IntegerAttr(0, i32))),
        before(arith.ConstantOp(IntegerAttr(1, i32))),
    )
    pair = before(llvmx.AtomicCmpXchgOp(lock, zero, one, "acquire", "monotonic", syncscope=scope))
    ok = before(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), pair, i1))
    again = before(arith.XOrIOp(ok, before(arith.ConstantOp(IntegerAttr(-1, i1)))))
    before(scf.ConditionOp(again))
    b(scf.WhileOp([], [], before.ops, [scf.YieldOp()]))
    b(llvmx.FenceOp("acquire", scope))


def spin_unlock(b: Ops, lock: SSAValue, scope: str | None) -> None:
    """The reference's ptx_unlock: a release fence, then the lock word back to 0."""
    b(llvmx.FenceOp("release", scope))
    zero = b(arith.ConstantOp(IntegerAttr(0, i32)))
    b(llvmx.AtomicRMWOp("xchg", lock, zero, "release", syncscope=scope))
