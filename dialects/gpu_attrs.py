"""The ``gpu`` dialect's attributes: reduction kinds, shuffle modes, address spaces.

Apart from ``dialects/gpu.py`` (device ops, the dialect), ``gpu_func.py`` (``gpu.module``,
``gpu.func``) and ``gpu_host.py`` (launch and host ops), which all use them: each of those
imports this module and none imports back, so the three do not import one another in a cycle.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum


class AllReduceOperation(StrEnum):
    """Upstream's ``gpu::AllReduceOperation`` (LLVM 18 and newer)."""

    ADD = "add"
    MUL = "mul"
    MINUI = "minui"
    MINSI = "minsi"
    MINNUMF = "minnumf"
    MAXUI = "maxui"
    MAXSI = "maxsi"
    MAXNUMF = "maxnumf"
    AND = "and"
    OR = "or"
    XOR = "xor"
    MINIMUMF = "minimumf"
    MAXIMUMF = "maximumf"


#: Kinds that need a float operand / an integer operand (the rest take either).
FLOAT_REDUCTIONS = frozenset(
    {AllReduceOperation.MINNUMF, AllReduceOperation.MAXNUMF, AllReduceOperation.MINIMUMF,
     AllReduceOperation.MAXIMUMF}
)
INTEGER_REDUCTIONS = frozenset(
    {AllReduceOperation.MINUI, AllReduceOperation.MINSI, AllReduceOperation.MAXUI,
     AllReduceOperation.MAXSI, AllReduceOperation.AND, AllReduceOperation.OR,
     AllReduceOperation.XOR}
)
#: Kinds of LLVM 17 and older, which mlir-opt 19 rejects: named in the error.
_OLD_KINDS = {"max": "maxsi/maxui/maxnumf", "min": "minsi/minui/minnumf"}


@irdl_attr_definition
class AllReduceOperationAttr(EnumAttribute[AllReduceOperation], SpacedOpaqueSyntaxAttribute):
    """``#gpu<all_reduce_op add>``."""

    name = "gpu.all_reduce_op"


class ShuffleMode(StrEnum):
    XOR = "xor"
    UP = "up"
    DOWN = "down"
    IDX = "idx"


@irdl_attr_definition
class ShuffleModeAttr(EnumAttribute[ShuffleMode], SpacedOpaqueSyntaxAttribute):
    """``#gpu<shuffle_mode xor>``."""

    name = "gpu.shuffle_mode"


class AddressSpace(StrEnum):
    GLOBAL = "global"
    WORKGROUP = "workgroup"
    PRIVATE = "private"


@irdl_attr_definition
class AddressSpaceAttr(EnumAttribute[AddressSpace]):
    """``#gpu.address_space<workgroup>``: a memref memory space."""

    name = "gpu.address_space"

    @classmethod
    def parse_parameter(cls, parser) -> AddressSpace:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)


#: Integer memory spaces upstream's GPU lowerings use for the same spaces.
ADDRESS_SPACE_NUMBERS = {AddressSpace.GLOBAL: 1, AddressSpace.WORKGROUP: 3,
                         AddressSpace.PRIVATE: 5}


def is_workgroup_space(space: Attribute) -> bool:
    if isinstance(space, AddressSpaceAttr):
        return space.data == AddressSpace.WORKGROUP
    return isinstance(space, IntegerAttr) and space.value.data == 3


def parse_reduce_kind(parser: Parser) -> AllReduceOperationAttr:
    """A bare reduction kind; the kinds of LLVM 17 and older get an error naming them."""
    pos = parser.pos
    word = parser.parse_identifier()
    if word in _OLD_KINDS:
        parser.raise_error(
            f"all-reduce kind '{word}' is upstream MLIR's pre-LLVM-18 spelling; write "
            f"{_OLD_KINDS[word]}", pos, parser.pos)
    try:
        return AllReduceOperationAttr(AllReduceOperation(word))
    except ValueError:
        parser.raise_error(
            f"unknown gpu reduction kind '{word}' (expected one of "
            f"{', '.join(k.value for k in AllReduceOperation)})", pos, parser.pos)
