"""Reduction recipes of ``convert-acc-to-oacc``: an ``acc.reduction.recipe`` (value form ``T``,
memref form ``memref<T>``, or an array ``memref<N x T>`` whose regions loop over the elements,
as upstream MLIR's tests write them) turned into the scalar ``oacc.reduction_recipe`` of its
element type, by evaluating its init and combiner regions symbolically: a memref the recipe
owns (its arguments, its allocations) holds one element value, loads and stores at ``[]`` or
at the indices of the enclosing element loops read and write it, every other op is cloned.
A recipe that does anything else (an op with other effects, an element value that depends on
the index, a read of memory it never wrote) is an error naming the recipe."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import acc, arith, complex, memref, scf
from xdsl.dialects.builtin import AnyFloat, ComplexType, FloatAttr, IntegerAttr, MemRefType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import is_side_effect_free

from xmux.dialects import oacc
from xmux.dialects.oacc import ReductionKind
from xmux.transforms.openacc.acc_common import err

R = ReductionKind


@dataclass
class ScalarRecipe:
    """A recipe's identity and combine on one element: ``init`` (no arguments) and
    ``combiner`` (two arguments), each yielding one value of ``elem`` with ``oacc.yield``."""

    elem: Attribute
    init: Region
    combiner: Region


class _Unavailable:
    """A value the element computation cannot use (why, for the error)."""

    def __init__(self, why: str) -> None:
        self.why = why


class _Evaluator:
    """Evaluates one recipe region into a block computing the element value."""

    def __init__(self, where: str, out: Block) -> None:
        self.where = where
        self.out = out
        self.vals: dict[SSAValue, SSAValue | _Unavailable] = {}
        #: the memrefs the recipe owns -> their element value (None: not written yet)
        self.slots: dict[SSAValue, SSAValue | None] = {}
        self.ivs: list[SSAValue] = []
        self.result: SSAValue | None = None

    def fail(self, what: str) -> Exception:
        return err(f"{self.where}: {what}; this recipe cannot be honoured")

    def get(self, v: SSAValue, use: str) -> SSAValue:
        m = self.vals.get(v)
        if m is None:
            raise self.fail(f"{use} uses a value defined outside the recipe")
        if isinstance(m, _Unavailable):
            raise self.fail(f"{use} uses {m.why}")
        return m

    def _element(self, op: memref.LoadOp | memref.StoreOp) -> SSAValue:
        ref = op.memref
        if ref not in self.slots:
            raise self.fail(f"'{op.name}' accesses memory the recipe does not own")
        idx = list(op.indices)
        if idx and idx != self.ivs[len(self.ivs) - len(idx):]:
            raise self.fail(f"'{op.name}' at indices other than the element loops' own")
        return ref

    def block(self, blk: Block) -> None:
        for op in blk.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        if isinstance(op, (acc.YieldOp, acc.TerminatorOp)):
            self._yield(op)
        elif isinstance(op, (memref.AllocaOp, memref.AllocOp)):
            self.slots[op.memref] = None
        elif isinstance(op, memref.StoreOp):
            self.slots[self._element(op)] = self.get(op.value, "the stored value")
        elif isinstance(op, memref.LoadOp):
            ref = self._element(op)
            cur = self.slots[ref]
            if cur is None:
                raise self.fail("a load reads an element the recipe never wrote")
            self.vals[op.res] = cur
        elif isinstance(op, memref.CopyOp) and op.source in self.slots:
            if op.destination not in self.slots:
                raise self.fail("'memref.copy' into memory the recipe does not own")
            self.slots[op.destination] = self.slots[op.source]
        elif isinstance(op, memref.DimOp):
            self.vals[op.result] = _Unavailable("the size of an array")
        elif isinstance(op, memref.DeallocOp):
            pass
        elif isinstance(op, scf.ForOp) and self._touches_slots(op):
            self._element_loop(op)
        else:
            self._clone(op)

    def _touches_slots(self, op: Operation) -> bool:
        return any(v in self.slots for o in op.walk() for v in o.operands)

    def _element_loop(self, op: scf.ForOp) -> None:
        """A loop over the elements: its body computes each element the same way."""
        lb, step = op.lb.owner, op.step.owner
        if not (
            isinstance(lb, arith.ConstantOp) and lb.value == IntegerAttr(0, lb.result.type)
            and isinstance(step, arith.ConstantOp)
            and step.value == IntegerAttr(1, step.result.type)
        ) or op.iter_args:
            raise self.fail("an element loop that is not 'scf.for' from 0 by 1 without "
                            "iteration arguments")
        iv = op.body.block.args[0]
        self.vals[iv] = _Unavailable("the element index (the element values must not "
                                     "depend on it)")
        self.ivs.append(iv)
        for inner in op.body.block.ops:
            if not isinstance(inner, scf.YieldOp):
                self.op(inner)
        self.ivs.pop()

    def _clone(self, op: Operation) -> None:
        if any(v in self.slots for o in op.walk() for v in o.operands):
            raise self.fail(f"'{op.name}' uses the recipe's memory")
        if not is_side_effect_free(op):
            raise self.fail(f"'{op.name}' has side effects")
        free = _free_values(op)
        missing = next((v for v in free if not isinstance(self.vals.get(v), SSAValue)), None)
        if missing is not None:
            why = self.vals.get(missing)
            reason = why.why if isinstance(why, _Unavailable) else "a value from outside"
            for r in op.results:
                self.vals[r] = _Unavailable(reason)
            return
        mapper = {v: self.vals[v] for v in free}
        c = op.clone(value_mapper=mapper)  # type: ignore[arg-type]
        self.out.add_op(c)
        for r, nr in zip(op.results, c.results, strict=True):
            self.vals[r] = nr

    def _yield(self, op: acc.YieldOp | acc.TerminatorOp) -> None:
        if self.ivs:
            raise self.fail(f"'{op.name}' inside an element loop")
        if isinstance(op, acc.TerminatorOp) or not op.arguments:
            # the combiner updated its first argument in place
            first = next(iter(self.slots), None)
            value = self.slots.get(first) if first is not None else None
            if value is None:
                raise self.fail("the region yields nothing")
            self.result = value
            return
        v = op.arguments[0]
        if v in self.slots:
            cur = self.slots[v]
            if cur is None:
                raise self.fail("the region yields memory it never wrote")
            self.result = cur
        else:
            self.result = self.get(v, "the yielded value")


def _free_values(op: Operation) -> list[SSAValue]:
    """Operands of ``op`` and of the ops in its regions defined outside ``op``."""
    inside = {r for o in op.walk() for r in o.results} | {
        a for o in op.walk() for reg in o.regions for b in reg.blocks for a in b.args
    }
    out: list[SSAValue] = []
    for o in op.walk():
        for v in o.operands:
            if v not in inside and v not in out:
                out.append(v)
    return out


def _dce(block: Block) -> None:
    changed = True
    while changed:
        changed = False
        for o in reversed(list(block.ops)):
            if o is block.last_op:
                continue
            if all(not r.uses for r in o.results) and is_side_effect_free(o):
                block.erase_op(o)
                changed = True


def scalar_recipe(recipe: acc.ReductionRecipeOp, rname: str, elem: Attribute) -> ScalarRecipe:
    """The element-wise scalar form of ``recipe`` (type ``T``, ``memref<T>`` or an array of
    ``elem``)."""
    where = f"acc.reduction.recipe @{rname}"
    regions: list[Region] = []
    for src, nargs in ((recipe.init_region, 1), (recipe.combiner_region, 2)):
        out = Block(arg_types=[elem] * (nargs if nargs == 2 else 0))
        ev = _Evaluator(f"{where} ({'init' if nargs == 1 else 'combiner'} region)", out)
        args = src.block.args
        memref_form = isinstance(recipe.var_type, MemRefType)
        if nargs == 1:
            if memref_form:
                ev.slots[args[0]] = None
            else:
                ev.vals[args[0]] = _Unavailable("the reduction variable")
        else:
            for a, x in zip(args[:2], out.args, strict=True):
                if memref_form:
                    ev.slots[a] = x
                else:
                    ev.vals[a] = x
        for a in args[nargs:]:
            ev.vals[a] = _Unavailable("a bounds argument")
        ev.block(src.block)
        if ev.result is None:
            raise ev.fail("the region has no acc.yield")
        if ev.result.type != elem:
            raise ev.fail(f"the element value has type {ev.result.type}, expected {elem}")
        out.add_op(oacc.YieldOp(ev.result))
        _dce(out)
        regions.append(Region(out))
    return ScalarRecipe(elem, regions[0], regions[1])


# ---------------------------------------------------------------------------------------
# Whether a recipe is its operator's standard one (then the kind expands it)
# ---------------------------------------------------------------------------------------

_INT_OPS: dict[ReductionKind, type[Operation]] = {
    R.ADD: arith.AddiOp, R.MUL: arith.MuliOp, R.MAX: arith.MaxSIOp, R.MIN: arith.MinSIOp,
    R.UMAX: arith.MaxUIOp, R.UMIN: arith.MinUIOp, R.AND: arith.AndIOp, R.OR: arith.OrIOp,
    R.XOR: arith.XOrIOp,
}
_FLOAT_OPS: dict[ReductionKind, type[Operation]] = {
    R.ADD: arith.AddfOp, R.MUL: arith.MulfOp, R.MAX: arith.MaxnumfOp, R.MIN: arith.MinnumfOp,
}
_COMPLEX_OPS: dict[ReductionKind, type[Operation]] = {R.ADD: complex.AddOp, R.MUL: complex.MulOp}


def _body(region: Region) -> tuple[list[Operation], oacc.YieldOp]:
    ops = list(region.block.ops)
    y = ops.pop()
    assert isinstance(y, oacc.YieldOp)
    return ops, y


def is_standard(kind: ReductionKind, sr: ScalarRecipe) -> bool:
    """Whether ``sr`` is exactly ``kind``'s identity and operator (on its element type), so
    the kind's own expansion computes what the recipe computes."""
    from xmux.transforms.openacc.reduction_ops import init_value

    t = sr.elem
    ops, y = _body(sr.combiner)
    table = (_COMPLEX_OPS if isinstance(t, ComplexType) else
             _FLOAT_OPS if isinstance(t, AnyFloat) else _INT_OPS)
    cls = table.get(kind)
    if cls is None or len(ops) != 1 or not isinstance(ops[0], cls):
        return False
    x0, x1 = sr.combiner.block.args
    if set(ops[0].operands) != {x0, x1} or len(ops[0].operands) != 2:
        return False
    if y.arguments[0] is not ops[0].results[0]:
        return False
    iops, iy = _body(sr.init)
    if len(iops) != 1 or iy.arguments[0] is not iops[0].results[0]:
        return False
    want = init_value(kind, t)
    c = iops[0]
    if isinstance(t, ComplexType):
        if not isinstance(c, complex.ConstantOp):
            return False
        vals = [a.value.data for a in c.value.data]  # type: ignore[attr-defined]
        return vals == list(want)  # type: ignore[arg-type]
    if not isinstance(c, arith.ConstantOp):
        return False
    v = c.value
    if isinstance(v, FloatAttr):
        return v.value.data == want and str(v.value.data) == str(float(want))  # -0.0 / inf
    if isinstance(v, IntegerAttr):
        w = v.type.width.data  # type: ignore[attr-defined]
        return (v.value.data - int(want)) % (1 << w) == 0
    return False
