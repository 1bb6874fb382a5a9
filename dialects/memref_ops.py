"""Upstream's custom syntax of ``memref`` ops that xDSL 0.74 reads only in the generic form
(installed by ``dialects/xdsl_compat.py``: ``memref_rank_cast_scope_syntax``), and
``memref.assume_alignment`` as LLVM 19 has it (no result; ``memref_assume_alignment_llvm19``):

    %r = memref.rank %m : memref<?xf32>
    %g = memref.memory_space_cast %m : memref<16xf32> to memref<16xf32, 1>
    %v = memref.alloca_scope -> (f32) { ... memref.alloca_scope.return %x : f32 }
    memref.alloca_scope { ... }                      // no results: implicit terminator
    memref.assume_alignment %m, 16 : memref<16xf32>
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import memref
from xdsl.dialects.builtin import I32, IndexType, IntegerAttr, MemRefType, i32
from xdsl.ir import Block, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


def parse_rank(cls: type[memref.RankOp], parser: Parser) -> memref.RankOp:
    src = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    op = cls.build(operands=[parser.resolve_operand(src, t)], result_types=[IndexType()])
    op.attributes.update(attrs)
    return op


def print_rank(self: memref.RankOp, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_operand(self.source)
    printer.print_op_attributes(self.attributes)
    printer.print_string(" : ")
    printer.print_attribute(self.source.type)


def parse_space_cast(cls: type[memref.MemorySpaceCastOp],
                     parser: Parser) -> memref.MemorySpaceCastOp:
    src = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    parser.parse_keyword("to")
    dest = parser.parse_type()
    op = cls(parser.resolve_operand(src, t), dest)  # type: ignore[arg-type]
    op.attributes.update(attrs)
    return op


def print_space_cast(self: memref.MemorySpaceCastOp, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_operand(self.source)
    printer.print_op_attributes(self.attributes)
    printer.print_string(" : ")
    printer.print_attribute(self.source.type)
    printer.print_string(" to ")
    printer.print_attribute(self.dest.type)


def parse_alloca_scope(cls: type[memref.AllocaScopeOp],
                       parser: Parser) -> memref.AllocaScopeOp:
    types: list = []
    if parser.parse_optional_punctuation("->") is not None:
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    region = parser.parse_region()
    attrs = parser.parse_optional_attr_dict()
    if not region.blocks:
        region.add_block(Block())
    block = region.block
    if not types and (block.last_op is None
                      or not isinstance(block.last_op, memref.AllocaScopeReturnOp)):
        block.add_op(memref.AllocaScopeReturnOp.build(operands=[[]]))  # implicit terminator
    op = cls.build(result_types=[types], regions=[region])
    op.attributes.update(attrs)
    return op


def print_alloca_scope(self: memref.AllocaScopeOp, printer: Printer) -> None:
    printer.print_string(" ")
    if self.res:
        printer.print_string("-> (")
        printer.print_list(self.result_types, printer.print_attribute)
        printer.print_string(") ")
    printer.print_region(self.scope, print_entry_block_args=False,
                         print_empty_block=False, print_block_terminators=bool(self.res))
    printer.print_op_attributes(self.attributes)


def parse_scope_return(cls: type[memref.AllocaScopeReturnOp],
                       parser: Parser) -> memref.AllocaScopeReturnOp:
    attrs = parser.parse_optional_attr_dict()
    names = parser.parse_optional_undelimited_comma_separated_list(
        parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand) or []
    values: list[SSAValue] = []
    if names:
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        values = parser.resolve_operands(names, types, parser.pos)
    op = cls.build(operands=[values])
    op.attributes.update(attrs)
    return op


def print_scope_return(self: memref.AllocaScopeReturnOp, printer: Printer) -> None:
    printer.print_op_attributes(self.attributes)
    if self.ops:
        printer.print_string(" ")
        printer.print_list(self.ops, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list(self.ops.types, printer.print_attribute)


@irdl_op_definition
class AssumeAlignmentOp(IRDLOperation):
    """``memref.assume_alignment`` of LLVM 19: a statement, no result (LLVM 20 added one).
    xmux's lowering and interpreter treat it as a no-op (the alignment is a promise)."""

    name = "memref.assume_alignment"

    T: ClassVar = VarConstraint("T", base(MemRefType))
    memref = operand_def(T)
    alignment = prop_def(IntegerAttr[I32])

    assembly_format = "$memref `,` $alignment attr-dict `:` type($memref)"

    def __init__(self, ref: SSAValue, alignment: int) -> None:
        super().__init__(operands=[ref],
                         properties={"alignment": IntegerAttr(alignment, i32)})

    def verify_(self) -> None:
        if self.alignment.value.data <= 0:
            raise VerifyException(
                f"Alignment must be positive, got {self.alignment.value.data}")

