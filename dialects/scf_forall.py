"""``scf.forall`` and ``scf.forall.in_parallel``: upstream's parallel loop nest, which xDSL
0.74's ``scf`` dialect lacks (added to it by ``dialects/xdsl_compat.py``: ``scf_forall_op``),
on memrefs only (no ``shared_outs``: tensors are bufferized before), with upstream's syntax:

    scf.forall (%i, %j) in (4, %n) { ... }                          // from 0, step 1
    scf.forall (%i) = (%lb) to (16) step (2) { ... }

Bounds and steps are static (``staticLowerBound`` ... with ``kDynamic`` where an operand gives
it) or SSA values, as upstream. ``lower-scf-forall`` makes it an ``scf.for`` nest (the
iterations are independent: any order is upstream's semantics).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, i64
from xdsl.dialects.utils import parse_dynamic_index_list_without_types
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, NoTerminator, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class InParallelOp(IRDLOperation):
    """The terminator of ``scf.forall`` (its region holds parallel inserts into
    ``shared_outs``: empty here)."""

    name = "scf.forall.in_parallel"

    region = region_def("single_block")

    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(ForallOp), NoTerminator()))

    def __init__(self) -> None:
        super().__init__(regions=[Region(Block())])

    @classmethod
    def parse(cls, parser: Parser) -> InParallelOp:
        op = cls()
        region = parser.parse_region()
        if region.blocks:
            op.region.detach_block(op.region.block)
            op.region.add_block(region.detach_block(region.block))
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.region, print_empty_block=True)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ForallOp(IRDLOperation):
    """A parallel loop nest over ``[lb, ub)`` by ``step`` per dimension."""

    name = "scf.forall"

    dynamicLowerBound = var_operand_def(IndexType)  # noqa: N815 - upstream's names
    dynamicUpperBound = var_operand_def(IndexType)  # noqa: N815
    dynamicStep = var_operand_def(IndexType)  # noqa: N815
    outputs = var_operand_def()
    staticLowerBound = prop_def(DenseArrayBase)  # noqa: N815
    staticUpperBound = prop_def(DenseArrayBase)  # noqa: N815
    staticStep = prop_def(DenseArrayBase)  # noqa: N815
    mapping = opt_prop_def(Attribute)
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(SingleBlockImplicitTerminator(InParallelOp))

    def __init__(self, bounds: Sequence[Sequence[int | SSAValue]], body: Region,
                 mapping: Attribute | None = None) -> None:
        """``bounds``: (lower bounds, upper bounds, steps), each an int or an index value."""
        dyn = [[v for v in vs if isinstance(v, SSAValue)] for vs in bounds]
        static = [DenseArrayBase.from_list(i64, [v if isinstance(v, int) else DYNAMIC_INDEX
                                                 for v in vs]) for vs in bounds]
        props: dict[str, Attribute] = dict(zip(
            ("staticLowerBound", "staticUpperBound", "staticStep"), static, strict=True))
        if mapping is not None:
            props["mapping"] = mapping
        super().__init__(operands=[*dyn, []], properties=props, regions=[body])

    def bounds(self) -> tuple[list[int | SSAValue], ...]:
        """(lower bounds, upper bounds, steps): static ints or the operands giving them."""
        out = []
        for static, dyn in ((self.staticLowerBound, self.dynamicLowerBound),
                            (self.staticUpperBound, self.dynamicUpperBound),
                            (self.staticStep, self.dynamicStep)):
            it = iter(dyn)
            out.append([next(it) if v == DYNAMIC_INDEX else v for v in static.get_values()])
        return tuple(out)

    def verify_(self) -> None:
        n = len(self.body.block.args)
        if any(len(b) != n for b in self.bounds()):
            raise VerifyException("scf.forall: one lower bound, upper bound and step per "
                                  "induction variable")
        if self.outputs:
            raise VerifyException("scf.forall: shared_outs (tensors) are not supported; "
                                  "bufferize first")

    @classmethod
    def parse(cls, parser: Parser) -> ForallOp:
        paren = Parser.Delimiter.PAREN
        ivs = parser.parse_comma_separated_list(
            paren, lambda: parser.parse_argument(expect_type=False))

        def bound_list() -> list[int | SSAValue]:
            vals, static = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX,
                                                                  delimiter=paren)
            it = iter([parser.resolve_operand(v, IndexType()) for v in vals])
            return [next(it) if s == DYNAMIC_INDEX else s for s in static]

        if parser.parse_optional_keyword("in") is not None:
            ubs = bound_list()
            lbs: list[int | SSAValue] = [0] * len(ubs)
            steps: list[int | SSAValue] = [1] * len(ubs)
        else:
            parser.parse_punctuation("=")
            lbs = bound_list()
            parser.parse_keyword("to")
            ubs = bound_list()
            parser.parse_keyword("step")
            steps = bound_list()
        if parser.parse_optional_keyword("shared_outs") is not None:
            parser.raise_error("scf.forall: shared_outs (tensors) are not supported; "
                               "bufferize first")
        body = parser.parse_region([iv.resolve(IndexType()) for iv in ivs])
        attrs = parser.parse_optional_attr_dict()
        if not body.blocks:
            body.add_block(Block(arg_types=[IndexType()] * len(ivs)))
        if not isinstance(body.block.last_op, InParallelOp):  # the elided terminator
            body.block.add_op(InParallelOp())
        op = cls((lbs, ubs, steps), body, attrs.pop("mapping", None))
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        def items(vs: Sequence[int | SSAValue]) -> None:
            with printer.in_parens():
                printer.print_list(vs, lambda v: printer.print_string(str(v))
                                   if isinstance(v, int) else printer.print_ssa_value(v))

        lbs, ubs, steps = self.bounds()
        printer.print_string(" ")
        with printer.in_parens():
            printer.print_list(self.body.block.args, printer.print_ssa_value)
        if all(v == 0 for v in lbs) and all(v == 1 for v in steps):
            printer.print_string(" in ")
            items(ubs)
        else:
            printer.print_string(" = ")
            items(lbs)
            printer.print_string(" to ")
            items(ubs)
            printer.print_string(" step ")
            items(steps)
        printer.print_string(" ")
        term = self.body.block.last_op
        printer.print_region(self.body, print_entry_block_args=False,
                             print_block_terminators=not (
                                 isinstance(term, InParallelOp) and not term.region.block.ops))
        attrs = dict(self.attributes)
        if self.mapping is not None:
            attrs["mapping"] = self.mapping
        printer.print_op_attributes(attrs)

