"""``memref`` ops with the custom syntax upstream MLIR prints, which xDSL 0.74 parses only in
the generic form: ``memref.cast`` and ``memref.atomic_rmw``.

    %d = memref.cast %a : memref<13xf32> to memref<?xf32>
    %old = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<10xf32>) -> f32

The ops subclass xDSL's (passes that match ``memref.CastOp`` / ``memref.AtomicRMWOp`` see
them); ``Memref`` is xDSL's memref dialect with these two replaced, which xmux registers
under the name ``memref`` (``xmux/registry.py``). The generic forms still parse.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Dialect
from xdsl.parser import Parser
from xdsl.printer import Printer

#: MLIR's arith::AtomicRMWKind numbering, which the generic form stores.
ATOMIC_RMW_KINDS = (
    "addf", "addi", "assign", "maximumf", "maxs", "maxu", "minimumf", "mins", "minu", "mulf",
    "muli", "ori", "andi", "maxnumf", "minnumf",
)


# Plain subclasses (an IRDL op class cannot be redefined): they keep xDSL's definition and
# verifier and override only parse / print.


class CastOp(memref.CastOp):
    """``memref.cast %a : memref<13xf32> to memref<?xf32>``."""

    @classmethod
    def parse(cls, parser: Parser) -> CastOp:
        src = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_keyword("to")
        dest = parser.parse_type()
        return cls.create(operands=[parser.resolve_operand(src, t)], result_types=[dest],
                          attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : {self.source.type} to {self.dest.type}")


class AtomicRMWOp(memref.AtomicRMWOp):
    """``memref.atomic_rmw addf %v, %m[%i] : (f32, memref<10xf32>) -> f32``."""

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        pos = parser.pos
        word = parser.parse_identifier()
        if word not in ATOMIC_RMW_KINDS:
            parser.raise_error(
                f"unknown memref.atomic_rmw kind '{word}' (expected one of "
                f"{', '.join(ATOMIC_RMW_KINDS)})", pos, parser.pos)
        v = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        m = parser.parse_unresolved_operand()
        idx = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ft = parser.parse_function_type()
        ins, outs = ft.inputs.data, ft.outputs.data
        if len(ins) != 2 or len(outs) != 1:
            parser.raise_error("memref.atomic_rmw type is (value, memref) -> value")
        from xdsl.dialects.builtin import IndexType

        operands = [parser.resolve_operand(v, ins[0]), parser.resolve_operand(m, ins[1]),
                    *(parser.resolve_operand(i, IndexType()) for i in idx)]
        return cls.create(operands=operands, result_types=[outs[0]], attributes=attrs,
                          properties={"kind": IntegerAttr(ATOMIC_RMW_KINDS.index(word), i64)})

    def print(self, printer: Printer) -> None:
        k = self.kind.value.data
        printer.print_string(f" {ATOMIC_RMW_KINDS[k] if k < len(ATOMIC_RMW_KINDS) else k} ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : ({self.value.type}, {self.memref.type}) -> {self.result.type}")


def _make_dialect() -> Dialect:
    replaced = {CastOp.name: CastOp, AtomicRMWOp.name: AtomicRMWOp}
    ops = [replaced.get(op.name, op) for op in memref.MemRef.operations]
    return Dialect("memref", ops, list(memref.MemRef.attributes))


Memref = _make_dialect()
