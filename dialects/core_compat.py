"""Custom forms of core ops that xmux's passes write and xDSL 0.74 reads only generically (or,
for ``scf.while``, only with an operand list), as mlir-opt prints them:

    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
    scf.while : () -> () { ... } do { ... }        (no loop-carried values)
    scf.index_switch %i ... default {\n}            (empty regions: an implicit scf.yield)

Applied, like ``memref_compat`` (which imports this module), by replacing ``parse`` / ``print``
of xDSL's own classes; the generic forms still parse.
"""

from __future__ import annotations

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind


def _parse_copy(cls: type[memref.CopyOp], parser: Parser) -> memref.CopyOp:
    src = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    dst = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    ts = parser.parse_type()
    parser.parse_keyword("to")
    td = parser.parse_type()
    return cls.create(operands=[parser.resolve_operand(src, ts), parser.resolve_operand(dst, td)],
                      attributes=attrs)


def _print_copy(self: memref.CopyOp, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_operand(self.source)
    printer.print_string(", ")
    printer.print_operand(self.destination)
    printer.print_op_attributes(self.attributes)
    printer.print_string(f" : {self.source.type} to {self.destination.type}")


def _parse_extract_ptr(cls: type[memref.ExtractAlignedPointerAsIndexOp],
                       parser: Parser) -> memref.ExtractAlignedPointerAsIndexOp:
    src = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    parser.parse_punctuation("->")
    rt = parser.parse_type()
    if not isinstance(rt, IndexType):
        parser.raise_error(f"memref.extract_aligned_pointer_as_index gives index, not {rt}")
    return cls.create(operands=[parser.resolve_operand(src, t)], result_types=[rt],
                      attributes=attrs)


def _print_extract_ptr(self: memref.ExtractAlignedPointerAsIndexOp, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_operand(self.source)
    printer.print_op_attributes(self.attributes)
    printer.print_string(f" : {self.source.type} -> index")


_while_parse = scf.WhileOp.parse


def _parse_while(cls: type[scf.WhileOp], parser: Parser) -> scf.WhileOp:
    if parser._current_token.kind != MLIRTokenKind.COLON:  # noqa: SLF001 - a peek
        return _while_parse.__func__(cls, parser)  # type: ignore[attr-defined]
    parser.parse_punctuation(":")
    ft = parser.parse_function_type()
    if ft.inputs.data:
        parser.raise_error("scf.while without an operand list takes no values: '() -> ...'")
    before = parser.parse_region()
    parser.parse_keyword("do")
    after = parser.parse_region()
    attrs = parser.parse_optional_attr_dict_with_keyword()
    op = cls((), ft.outputs.data, before, after)
    if attrs is not None:
        op.attributes |= attrs.data
    return op


_switch_parse = scf.IndexSwitchOp.parse


def _parse_index_switch(cls: type[scf.IndexSwitchOp], parser: Parser) -> scf.IndexSwitchOp:
    op = _switch_parse.__func__(cls, parser)  # type: ignore[attr-defined]
    for region in op.regions:
        if not region.blocks:  # `{ }`: upstream elides the region's lone `scf.yield`
            region.add_block(Block([scf.YieldOp()]))
    return op


def add_core_syntax() -> None:
    for cls, parse, print_ in (
        (memref.CopyOp, _parse_copy, _print_copy),
        (memref.ExtractAlignedPointerAsIndexOp, _parse_extract_ptr, _print_extract_ptr),
    ):
        cls.parse = classmethod(parse)  # type: ignore[method-assign]
        cls.print = print_  # type: ignore[method-assign]
    scf.WhileOp.parse = classmethod(_parse_while)  # type: ignore[method-assign]
    scf.IndexSwitchOp.parse = classmethod(_parse_index_switch)  # type: ignore[method-assign]


add_core_syntax()
