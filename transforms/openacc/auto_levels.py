"""Levels of ``acc.loop``\\ s without a level clause, chosen as GCC's
``oacc_loop_auto_partitions`` chooses them (omp-offload.cc), before the loops are partitioned.

A loop is *auto-assigned* when it is ``auto`` (explicitly, or implicitly: no ``gang`` /
``worker`` / ``vector`` / ``seq``) and independent (explicitly, or implicitly inside
``acc.parallel`` / ``acc.serial``; inside ``acc.kernels`` only ``independent`` loops are).
Walking the loop tree from the outside, with the levels the enclosing loops use:

1. an auto-assigned loop that is outermost among auto-assigned loops, or whose nested loops
   use explicit levels, takes the outermost free level that is not ``vector`` and that no
   nested loop claims explicitly;
2. its nested loops are assigned;
3. an auto-assigned loop that got nothing in step 1, or that is outermost among
   auto-assigned loops, also takes the level just outside the outermost level its nested
   loops use (``vector`` when they use none), unless an enclosing loop uses it.

So a lone ``parallel loop`` is ``gang vector``, a two-deep nest ``gang`` / ``vector`` (outer
loop ``gang``, inner loop the innermost free level), a loop inside ``loop gang`` is ``worker
vector``. Any other loop without a level (``seq``, or ``auto`` in ``kernels``) runs
sequentially in the mode it is in. The chosen levels are written as the loop's ``gang`` /
``worker`` / ``vector`` clauses (the ``auto`` / ``independent`` flags are dropped).
"""

from __future__ import annotations

from xdsl.dialects import acc
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Operation

GANG, WORKER, VECTOR = 1, 2, 4
_MAX = 8
_ATTRS = (("gang", GANG), ("worker", WORKER), ("vector", VECTOR))


def _on(a: ArrayAttr | None) -> bool:
    return a is not None and any(d.data == acc.DeviceType.NONE for d in a.data)


def _explicit(lp: acc.LoopOp) -> int:
    bits = sum(bit for name, bit in _ATTRS if _on(getattr(lp, name)))
    # a clause with operands (gang({static=N}), worker(num), vector(length)) names its level
    # without the unit attribute
    for vals, bit in ((lp.gang_operands, GANG), (lp.worker_num_operands, WORKER),
                      (lp.vector_operands, VECTOR)):
        if vals:
            bits |= bit
    return bits


def _children(op: Operation) -> list[acc.LoopOp]:
    """The acc.loops directly nested in ``op`` (through any non-loop ops)."""
    out: list[acc.LoopOp] = []
    for r in op.regions:
        for b in r.blocks:
            for o in b.ops:
                if isinstance(o, acc.LoopOp):
                    out.append(o)
                else:
                    out.extend(_children(o))
    return out


def _fixed_inner(lp: acc.LoopOp) -> int:
    """Levels the loops nested in ``lp`` use explicitly."""
    m = 0
    for c in _children(lp):
        m |= _explicit(c) | _fixed_inner(c)
    return m


class _Assigner:
    def __init__(self, independent_by_default: bool) -> None:
        self.independent_by_default = independent_by_default
        self.masks: dict[acc.LoopOp, int] = {}

    def assigned(self, lp: acc.LoopOp) -> bool:
        if _explicit(lp) or _on(lp.seq):
            return False
        return self.independent_by_default or _on(lp.independent)

    def run(self, lp: acc.LoopOp, outer_mask: int, outer_assign: bool) -> int:
        """Assign ``lp`` and its nested loops; the levels they use."""
        assign = self.assigned(lp)
        mask = _explicit(lp)
        fixed_inner = _fixed_inner(lp)
        if assign and (not outer_assign or fixed_inner):
            m = GANG
            while m <= outer_mask:
                m <<= 1
            m &= (GANG | WORKER) & ~fixed_inner
            mask |= m
        inner = 0
        for c in _children(lp):
            inner |= self.run(c, outer_mask | mask, outer_assign or assign)
        if assign and (not mask or not outer_assign):
            m = inner | _MAX
            m = (m & -m) >> 1  # just outside the outermost level used inside
            mask |= m & ~outer_mask
        self.masks[lp] = mask
        return inner | mask


def assign_levels(construct: Operation, independent_by_default: bool) -> None:
    """Give the auto-assigned loops of a compute construct their levels (module docstring)."""
    a = _Assigner(independent_by_default)
    for lp in _children(construct):
        a.run(lp, 0, False)
    none = ArrayAttr([acc.DeviceTypeAttr(acc.DeviceType.NONE)])
    for lp, mask in a.masks.items():
        if not a.assigned(lp):
            continue
        for name, bit in _ATTRS:
            if mask & bit:
                lp.properties[name] = none
        for name in ("auto_", "independent"):
            lp.properties.pop(name, None)
