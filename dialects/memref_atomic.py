"""``memref.generic_atomic_rmw`` and ``memref.atomic_yield``: upstream MLIR's read-modify-write
with a body, which xDSL 0.74's ``memref`` dialect lacks. Added to xDSL's ``memref`` dialect by
``dialects/xdsl_compat.py`` (``memref_generic_atomic_rmw``, before any context loads it), with
upstream's syntax:

    %old = memref.generic_atomic_rmw %m[%i] : memref<10xi32> {
    ^bb0(%cur: i32):
      %new = arith.addi %cur, %c1 : i32
      memref.atomic_yield %new : i32
    }

The body gets the current element and yields the value to store; the op's result is the
element's value before the update (as upstream). The generic forms parse too.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.ir import Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

# -- memref.atomic_rmw: facts the passes and the lowering share ----------------------------

#: MLIR's arith::AtomicRMWKind numbering (the generic form of memref.atomic_rmw stores these)
ATOMIC_KINDS = {
    0: "addf",
    1: "addi",
    2: "assign",
    3: "maximumf",
    4: "maxs",
    5: "maxu",
    6: "minimumf",
    7: "mins",
    8: "minu",
    9: "mulf",
    10: "muli",
    11: "ori",
    12: "andi",
    13: "maxnumf",
    14: "minnumf",
}
#: the ordering of every atomic ``memref.atomic_rmw`` (lowering/to_llvm/memref_atomics.py
#: says why: relaxed, as the languages that reach it mean)
ORDERING = "monotonic"
#: unit attribute of a ``memref.atomic_rmw`` on a thread slice's private copy of a global
#: array (privatize-global-atomics): one thread owns it, like local memory
SLICE_PRIVATE = "mux.slice_private"


@irdl_op_definition
class GenericAtomicRMWOp(IRDLOperation):
    """Atomically replaces ``memref[indices]`` by what the body yields from its current value."""

    name = "memref.generic_atomic_rmw"

    T: ClassVar = VarConstraint("T", AnyAttr())
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def(T)
    body = region_def("single_block")

    traits = lazy_traits_def(lambda: (SingleBlockImplicitTerminator(AtomicYieldOp),))

    def __init__(self, ref: SSAValue, indices: list[SSAValue], body: Region) -> None:
        assert isinstance(ref.type, MemRefType)
        super().__init__(operands=[ref, indices], result_types=[ref.type.element_type],
                         regions=[body])

    def verify_(self) -> None:
        t = self.memref.type
        assert isinstance(t, MemRefType)
        if len(self.indices) != t.get_num_dims():
            raise VerifyException(
                f"memref.generic_atomic_rmw: {len(self.indices)} indices for a rank-"
                f"{t.get_num_dims()} memref")
        elem = t.element_type
        if self.result.type != elem:
            raise VerifyException(
                f"memref.generic_atomic_rmw: result type {self.result.type} is not the "
                f"element type {elem}")
        args = self.body.block.args
        if len(args) != 1 or args[0].type != elem:
            raise VerifyException(
                f"memref.generic_atomic_rmw: the body takes one argument of type {elem}")

    @classmethod
    def parse(cls, parser: Parser) -> GenericAtomicRMWOp:
        ref = parser.parse_unresolved_operand()
        idx = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, MemRefType):
            parser.raise_error(f"memref.generic_atomic_rmw expects a memref type, got {t}")
        operands = [parser.resolve_operand(ref, t),
                    *(parser.resolve_operand(i, IndexType()) for i in idx)]
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls.create(operands=operands, result_types=[t.element_type], regions=[body])
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("] : ")
        printer.print_attribute(self.memref.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class AtomicYieldOp(IRDLOperation):
    """Yields the new value of a ``memref.generic_atomic_rmw``'s element."""

    name = "memref.atomic_yield"

    result = operand_def()

    traits = traits_def(IsTerminator(), HasParent(GenericAtomicRMWOp))

    assembly_format = "$result attr-dict `:` type($result)"

    def __init__(self, value: SSAValue) -> None:
        super().__init__(operands=[value])

    def verify_(self) -> None:
        parent = self.parent_op()
        if isinstance(parent, GenericAtomicRMWOp) and self.result.type != parent.result.type:
            raise VerifyException(
                f"memref.atomic_yield: yields {self.result.type}, the element type is "
                f"{parent.result.type}")


__all__ = [
    "ATOMIC_KINDS",
    "ORDERING",
    "SLICE_PRIVATE",
    "AtomicYieldOp",
    "GenericAtomicRMWOp",
]
