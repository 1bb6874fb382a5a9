"""``lower-affine-upstream``: the affine dialect -> scf / arith / memref / vector, with the
semantics of upstream MLIR's ``--lower-affine``.

xDSL's own ``lower-affine`` differs from upstream's where clients notice (issue 31): ``mod``
is ``arith.remsi`` (negative for a negative dividend; upstream's is never negative),
``affine.load`` / ``affine.store`` / ``affine.for`` drop their symbol and bound operands,
and ``affine.min`` / ``max`` / ``if`` / ``parallel`` / ``vector_load`` / ``vector_store``
are not lowered. This pass expands every affine expression as upstream's
``AffineApplyExpander`` does, semi-affine ones included (xDSL's expressions with a
symbolic right-hand side: ``dialects/xdsl_compat.py`` ``affine_semi_affine_exprs``):

- ``a mod b``: ``r = remsi a, b``; ``r < 0 ? r + b : r`` (``b > 0``: never negative);
- ``a floordiv b``: ``a < 0 ? -1 - ((-1 - a) divsi b) : a divsi b`` (rounds to -inf for
  ``b > 0``);
- ``a ceildiv b``: ``a <= 0 ? -((0 - a) divsi b) : ((a - 1) divsi b) + 1``;
- a constant divisor or modulus that is not positive is an error naming the op, the map and
  the location (upstream's "division by non-positive value is not supported"); a symbolic one
  is expanded by the same formulas, as upstream does.

``affine.apply`` becomes its expansion; ``affine.min`` / ``max`` a chain of ``arith.minsi``
/ ``maxsi``; ``affine.for`` an ``scf.for`` from the max of its lower-bound map to the min of
its upper-bound map; ``affine.if`` an ``scf.if`` on the conjunction of its set's constraints
(``e >= 0`` / ``e == 0``; an empty set is true); ``affine.parallel`` an ``scf.parallel`` (a
reduction becomes an ``scf.reduce`` region starting from the kind's identity, as upstream);
``affine.load`` / ``store`` / ``vector_load`` / ``vector_store`` their memref / vector ops at
the map's results; ``affine.yield`` the enclosing op's terminator. New ops carry the location
of the affine op they come from. Any other affine op is an error naming it and its location.

Runs first in the kernel pipelines and the interpreter's front end (a no-op without affine
ops), so kernels and host code written with affine need no option. xDSL's ``lower-affine``
keeps its name and behaviour; ``xmux-opt -p lower-affine`` is xDSL's.

Expects: affine ops anywhere. Guarantees: no affine op is left.

Before::

    %j = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%i)[%n]

After::

    %r = arith.remsi %i, %n : index
    %c0 = arith.constant 0 : index
    %neg = arith.cmpi slt, %r, %c0 : index
    %adj = arith.addi %r, %n : index
    %j = arith.select %neg, %adj, %r : index
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, memref, scf, vector
from xdsl.dialects.builtin import (
    AffineMapAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.abi.lazy_import import has_dialect_ops

_K = AffineBinaryOpKind


def _where(op: Operation) -> str:
    """`` at loc(...)`` where the op has a location, and `` in @f`` (its function)."""
    loc = op.location
    text = str(loc) if loc is not None else ""
    where = f" at {text}" if text and "unknown" not in text else ""
    f = op.parent_op()
    while f is not None and not isinstance(getattr(f, "sym_name", None), StringAttr):
        f = f.parent_op()
    return where + (f" in @{f.sym_name.data}" if f is not None else "")  # type: ignore[attr-defined]


class _Builder:
    """Ops inserted before ``anchor``, each with its location."""

    def __init__(self, anchor: Operation) -> None:
        self.anchor = anchor

    def add(self, op: Operation) -> Operation:
        op.location = self.anchor.location
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.add(op).results[0]

    def index(self, v: int) -> SSAValue:
        return self.value(arith.ConstantOp(IntegerAttr(v, IndexType())))

    def cmpi(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.CmpiOp(a, b, pred))

    def select(self, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.SelectOp(c, a, b))


@dataclass
class _Expander:
    """Upstream's AffineApplyExpander: one affine expression as arith ops on index."""

    b: _Builder
    dims: Sequence[SSAValue]
    symbols: Sequence[SSAValue]
    what: str  # the map, for errors

    def __call__(self, e: AffineExpr) -> SSAValue:
        b = self.b
        match e:
            case AffineConstantExpr():
                return b.index(e.value)
            case AffineDimExpr():
                return self.dims[e.position]
            case AffineSymExpr():
                return self.symbols[e.position]
            case AffineBinaryOpExpr():
                return self._binary(e)
        raise NotSupportedError(f"lower-affine-upstream: unexpected affine expression {e}")

    def _binary(self, e: AffineBinaryOpExpr) -> SSAValue:
        b = self.b
        if e.kind in (_K.Mod, _K.FloorDiv, _K.CeilDiv) and isinstance(e.rhs, AffineConstantExpr) \
                and e.rhs.value <= 0:
            what = "modulo" if e.kind == _K.Mod else "division"
            raise NotSupportedError(
                f"'{b.anchor.name}'{_where(b.anchor)}: {what} by the non-positive value "
                f"{e.rhs.value} in {self.what} is not supported (as upstream's lower-affine)")
        lhs, rhs = self(e.lhs), self(e.rhs)
        if e.kind == _K.Add:
            return b.value(arith.AddiOp(lhs, rhs))
        if e.kind == _K.Mul:
            return b.value(arith.MuliOp(lhs, rhs))
        if e.kind == _K.Mod:
            rem = b.value(arith.RemSIOp(lhs, rhs))
            negative = b.cmpi("slt", rem, b.index(0))
            return b.select(negative, b.value(arith.AddiOp(rem, rhs)), rem)
        if e.kind == _K.FloorDiv:
            none = b.index(-1)
            negative = b.cmpi("slt", lhs, b.index(0))
            dividend = b.select(negative, b.value(arith.SubiOp(none, lhs)), lhs)
            q = b.value(arith.DivSIOp(dividend, rhs))
            return b.select(negative, b.value(arith.SubiOp(none, q)), q)
        zero, one = b.index(0), b.index(1)  # ceildiv
        non_positive = b.cmpi("sle", lhs, zero)
        dividend = b.select(non_positive, b.value(arith.SubiOp(zero, lhs)),
                            b.value(arith.SubiOp(lhs, one)))
        q = b.value(arith.DivSIOp(dividend, rhs))
        return b.select(non_positive, b.value(arith.SubiOp(zero, q)),
                        b.value(arith.AddiOp(q, one)))


def expand_map(b: _Builder, m: AffineMap, operands: Sequence[SSAValue]) -> list[SSAValue]:
    """The results of ``m`` applied to ``operands`` (its dims, then its symbols)."""
    ex = _Expander(b, operands[: m.num_dims], operands[m.num_dims:], f"affine_map<{m}>")
    return [ex(e) for e in m.results]


def _reduce(b: _Builder, values: list[SSAValue], maximum: bool) -> SSAValue:
    acc = values[0]
    for v in values[1:]:
        acc = b.value(arith.MaxSIOp(acc, v) if maximum else arith.MinSIOp(acc, v))
    return acc


def _access_indices(b: _Builder, m: AffineMapAttr | None, operands: Sequence[SSAValue],
                    ) -> list[SSAValue]:
    return list(operands) if m is None else expand_map(b, m.data, operands)


def _move_body(region: Region) -> Region:
    new = Region()
    region.move_blocks(new)
    return new


def _replace_terminator(block: Block, make: type[Operation] | None) -> None:
    """The block's ``affine.yield`` -> ``make(*its operands)`` (None: dropped)."""
    last = block.last_op
    if isinstance(last, affine.YieldOp):
        if make is not None:
            new = make(*last.arguments)
            new.location = last.location
            Rewriter.insert_op(new, InsertPoint.before(last))
        last.detach()
        last.erase()


# -- reductions of affine.parallel: upstream's arith::getIdentityValue / getReductionOp ------

_INT_REDUCTIONS = {"addi": arith.AddiOp, "muli": arith.MuliOp, "maxs": arith.MaxSIOp,
                   "mins": arith.MinSIOp, "maxu": arith.MaxUIOp, "minu": arith.MinUIOp,
                   "andi": arith.AndIOp, "ori": arith.OrIOp}
_FLOAT_REDUCTIONS = {"addf": arith.AddfOp, "mulf": arith.MulfOp,
                     "maximumf": arith.MaximumfOp, "minimumf": arith.MinimumfOp,
                     "maxnumf": arith.MaxnumfOp, "minnumf": arith.MinnumfOp}


def _identity(kind: str, t: Attribute) -> Attribute | None:
    if kind in _FLOAT_REDUCTIONS:
        inf = float("inf")
        v = {"addf": 0.0, "mulf": 1.0, "maximumf": -inf, "minimumf": inf,
             "maxnumf": float("nan"), "minnumf": float("nan")}[kind]
        return FloatAttr(v, t)  # type: ignore[arg-type]
    width = t.width.data if isinstance(t, IntegerType) else 64
    v = {"addi": 0, "muli": 1, "maxs": -(1 << (width - 1)), "mins": (1 << (width - 1)) - 1,
         "maxu": 0, "minu": -1, "andi": -1, "ori": 0}.get(kind)
    return None if v is None else IntegerAttr(v, t)


def _reduction_region(kind: str, t: Attribute) -> Region:
    block = Block(arg_types=[t, t])
    cls = _INT_REDUCTIONS.get(kind) or _FLOAT_REDUCTIONS[kind]
    op = cls(block.args[0], block.args[1])
    block.add_ops([op, scf.ReduceReturnOp(op.results[0])])
    return Region(block)


class _Lowering:
    def op(self, op: Operation) -> None:
        b = _Builder(op)
        if isinstance(op, affine.ApplyOp):
            (v,) = expand_map(b, op.map.data, op.mapOperands)
            self._replace(op, [v])
        elif isinstance(op, affine.MinOp):
            self._replace(op, [_reduce(b, expand_map(b, op.map.data, op.operands), False)])
        elif op.name == "affine.max":  # dialects/affine_ops.py (xDSL has none)
            self._replace(op, [_reduce(b, expand_map(b, op.map.data, op.operands), True)])
        elif isinstance(op, affine.LoadOp):
            idx = _access_indices(b, op.map, op.indices)
            self._replace(op, [b.value(memref.LoadOp.get(op.memref, idx))])
        elif isinstance(op, affine.StoreOp):
            idx = _access_indices(b, op.map, op.indices)
            b.add(memref.StoreOp.get(op.value, op.memref, idx))
            self._replace(op, [])
        elif isinstance(op, affine.VectorLoadOp):
            idx = _access_indices(b, op.map, op.indices)
            self._replace(op, [b.value(vector.LoadOp(op.memref, idx, op.result.type))])
        elif isinstance(op, affine.VectorStoreOp):
            idx = _access_indices(b, op.map, op.indices)
            b.add(vector.StoreOp(op.value, op.memref, idx))
            self._replace(op, [])
        elif isinstance(op, affine.ForOp):
            self._for(b, op)
        elif isinstance(op, affine.IfOp):
            self._if(b, op)
        elif isinstance(op, affine.ParallelOp):
            self._parallel(b, op)
        else:
            raise NotSupportedError(
                f"'{op.name}'{_where(op)}: no lowering of this affine op (lower-affine-upstream "
                "lowers affine.apply/min/max/for/if/parallel/load/store/vector_load/"
                "vector_store/yield)")

    @staticmethod
    def _replace(op: Operation, values: Sequence[SSAValue]) -> None:
        for r, v in zip(op.results, values, strict=True):
            r.replace_all_uses_with(v)
        op.detach()
        op.erase()

    def _for(self, b: _Builder, op: affine.ForOp) -> None:
        lb = _reduce(b, expand_map(b, op.lowerBoundMap.data, op.lowerBoundOperands), True)
        ub = _reduce(b, expand_map(b, op.upperBoundMap.data, op.upperBoundOperands), False)
        step = b.index(op.step.value.data)
        body = _move_body(op.body)
        _replace_terminator(body.blocks[0], scf.YieldOp)
        new = b.add(scf.ForOp(lb, ub, step, list(op.inits), body))
        self._replace(op, new.results)

    def _if(self, b: _Builder, op: affine.IfOp) -> None:
        s = op.condition.data
        ex = _Expander(b, op.args[: s.num_dims], op.args[s.num_dims:], f"affine_set<{s}>")
        cond: SSAValue | None = None
        for c in s.constraints:
            pred = {">=": "sge", "<=": "sle", "==": "eq"}[c.kind.value]
            one = b.cmpi(pred, ex(c.lhs), ex(c.rhs))
            cond = one if cond is None else b.value(arith.AndIOp(cond, one))
        if cond is None:  # no constraint: always true
            cond = b.value(arith.ConstantOp(IntegerAttr(1, i1)))
        then, other = _move_body(op.then_region), _move_body(op.else_region)
        for r in (then, other):
            if r.blocks:
                _replace_terminator(r.blocks[0], scf.YieldOp)
                if r.blocks[0].last_op is None or not isinstance(r.blocks[0].last_op,
                                                                 scf.YieldOp):
                    r.blocks[0].add_op(scf.YieldOp())
        new = b.add(scf.IfOp(cond, list(op.result_types), then, other if other.blocks else None))
        self._replace(op, new.results)

    def _parallel(self, b: _Builder, op: affine.ParallelOp) -> None:
        lb_map, ub_map = op.lowerBoundsMap.data, op.upperBoundsMap.data
        n_lb = lb_map.num_dims + lb_map.num_symbols
        n_ub = ub_map.num_dims + ub_map.num_symbols
        operands = list(op.map_operands)
        lbs_all = expand_map(b, lb_map, operands[:n_lb])
        ubs_all = expand_map(b, ub_map, operands[n_lb:n_lb + n_ub])

        def grouped(values: list[SSAValue], groups: object, maximum: bool) -> list[SSAValue]:
            out, at = [], 0
            for n in groups.get_values():  # type: ignore[attr-defined]
                out.append(_reduce(b, values[at:at + n], maximum))
                at += n
            return out

        lbs = grouped(lbs_all, op.lowerBoundsGroups, True)
        ubs = grouped(ubs_all, op.upperBoundsGroups, False)
        steps = [b.index(s.value.data) for s in op.steps.data]
        kinds = [k.data if isinstance(k, StringAttr) else str(k) for k in op.reductions.data]
        inits: list[SSAValue] = []
        for kind, t in zip(kinds, op.result_types, strict=True):
            ident = _identity(kind, t) if (kind in _INT_REDUCTIONS or
                                           kind in _FLOAT_REDUCTIONS) else None
            if ident is None:
                raise NotSupportedError(f"'{op.name}'{_where(op)}: reduction '{kind}' of {t} "
                                        "has no lowering")
            inits.append(b.value(arith.ConstantOp(ident, t)))
        body = _move_body(op.body)
        block = body.blocks[0]
        last = block.last_op
        yielded = list(last.arguments) if isinstance(last, affine.YieldOp) else []
        if isinstance(last, affine.YieldOp):
            last.detach()
            last.erase()
        regions = [_reduction_region(k, t) for k, t in zip(kinds, op.result_types, strict=True)]
        reduce = scf.ReduceOp(yielded, regions)
        reduce.location = op.location
        block.add_op(reduce)
        new = b.add(scf.ParallelOp(lbs, ubs, steps, body, inits))
        self._replace(op, new.results)


@dataclass(frozen=True)
class LowerAffineUpstream(ModulePass):
    """Lower the affine dialect to scf / arith / memref / vector as upstream's lower-affine."""

    name = "lower-affine-upstream"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not has_dialect_ops(op, "affine"):
            return
        lowering = _Lowering()
        # outer ops first: a region moves to its scf op whole, and its inner ops follow
        for o in [o for o in op.walk() if o.dialect_name() == "affine"]:
            if not isinstance(o, affine.YieldOp):  # replaced with their parent's op
                lowering.op(o)
        for o in op.walk():
            if o.dialect_name() == "affine":  # a yield outside for / if / parallel
                raise NotSupportedError(f"'{o.name}'{_where(o)}: not inside an affine op")
