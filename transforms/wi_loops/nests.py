"""What the work-item-loop stages need from their client: nests and per-work-item arrays.

``work-item-loops`` builds full nests over the work-group (``KernelNests``),
``work-item-loop-interchange`` copies of one work-item loop (``_LoopNests``); the stages of
this package only ask for an empty nest at an insertion point, an array of one slot per
work-item, and a few group-level values.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ComplexType,
    IndexType,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint


@dataclass
class Nest:
    """An empty work-item loop nest: segment work goes at ``ip`` (inside the innermost loop,
    or at the group level when no dimension needs a loop); ``lin`` is the linear
    work-item index valid there (built on first use by ``make_lin``)."""

    outer: Operation | None
    ip: InsertPoint
    make_lin: Callable[[], SSAValue]
    iv: SSAValue | None = None
    """The innermost induction variable (None without a loop)."""
    _lin: SSAValue | None = None

    @property
    def lin(self) -> SSAValue:
        if self._lin is None:
            self._lin = self.make_lin()
        return self._lin


class NestFactory(ABC):
    """What fission needs from its client: nests, per-work-item arrays, a zero index."""

    @abstractmethod
    def open_nest(self, ip: InsertPoint) -> Nest: ...

    @abstractmethod
    def insert_storage(self, ops: Sequence[Operation]) -> None:
        """Insert per-group allocations (and their size computations) at the kernel entry,
        after the sizes and earlier storage, in order."""

    @abstractmethod
    def group_size(self) -> SSAValue:
        """Number of per-work-item slots (valid at ``storage_ip``)."""

    @abstractmethod
    def zero(self) -> SSAValue:
        """Index 0, valid at the group level everywhere."""

    def open_single(self, ip: InsertPoint) -> Nest:
        """A "nest" for work-item 0 alone at the group level (no loop, linear index 0):
        clients that let fission run ``mux.single_work_item`` bodies once per group override
        it to also set the local ids to 0 at ``ip``."""
        raise NotImplementedError(f"{type(self).__name__} does not run single work-items")

    def new_array(self, element: Attribute) -> SSAValue:
        alloca = memref.AllocaOp.get(
            element, alignment=64, shape=[DYNAMIC_INDEX], dynamic_sizes=[self.group_size()]
        )
        self.insert_storage([alloca])
        return alloca.memref


#: the module attribute of debug builds (``lowering/locations.py``'s ``DEBUG_ATTR``, a layer
#: above this one)
DEBUG_ATTR = "xmux.debug"


def debug_build(op: Operation | None) -> bool:
    """``op`` is inside a module built with debug info: work-item loops then describe the
    values that live across barriers at their per-work-item storage in every region."""
    while op is not None:
        if DEBUG_ATTR in op.attributes:
            return True
        op = op.parent_op()
    return False


class Unstructured(Exception):
    """Control flow with barriers that fission cannot lift (use region dispatch)."""

    def __init__(self, op: Operation, why: str) -> None:
        super().__init__(f"'{op.name}': {why}")
        self.op = op


def storable(t: Attribute) -> bool:
    """A type one slot of a per-work-item array can hold."""
    if isinstance(t, ComplexType):
        return isinstance(t.element_type, AnyFloat)
    return isinstance(t, (IndexType, IntegerType, AnyFloat))


def byte_size(t: MemRefType) -> int | None:
    """Bytes of a static memref of scalars (None when dynamic or of another element)."""
    el = t.element_type
    if isinstance(el, IndexType):
        width = 64
    elif isinstance(el, (IntegerType, AnyFloat)):
        width = el.bitwidth
    elif isinstance(el, ComplexType) and isinstance(el.element_type, AnyFloat):
        width = 2 * el.element_type.bitwidth  # (re, im)
    else:
        return None
    n = 1
    for d in t.get_shape():
        if d < 0:
            return None
        n *= d
    return n * ((width + 7) // 8)
