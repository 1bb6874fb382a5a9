"""What xDSL 0.74's ``affine`` dialect lacks of upstream's, as upstream prints it: the op
``affine.max`` (linalg tiling writes it beside ``affine.min``) and the custom forms of
``affine.if`` and ``affine.parallel``. ``dialects/xdsl_compat.py`` adds them to xDSL's own
dialect and classes (``affine_max_op``, ``affine_if_syntax``, ``affine_parallel_syntax``;
the reduction kinds of ``affine.parallel`` are strings, as xDSL defines them), so that
xDSL's ``affine`` and ``transforms/lower_affine_upstream.py`` see one set of classes.

    %m = affine.max affine_map<(d0)[s0] -> (d0 * 4, s0)>(%i)[%n]
    %r = affine.if affine_set<(d0)[s0] : (d0 - s0 >= 0)>(%i)[%n] -> index {
      affine.yield %a : index
    } else {
      affine.yield %b : index
    }
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import affine
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    DenseIntElementsAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException


def parse_map_operands(parser: Parser, num_dims: int, num_symbols: int, pos: int,
                       ) -> list[SSAValue]:
    """``(%d0, ...)[%s0, ...]`` after a map or set, each list optional, as upstream."""
    dims = parser.parse_optional_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_operand(IndexType())) or []
    syms = parser.parse_optional_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())) or []
    if len(dims) != num_dims or len(syms) != num_symbols:
        parser.raise_error(f"expected {num_dims} dimension and {num_symbols} symbol operands, "
                           f"got {len(dims)} and {len(syms)}", pos)
    return [*dims, *syms]


def print_map_operands(printer: Printer, operands: Sequence[SSAValue], num_dims: int) -> None:
    printer.print_string("(")
    printer.print_list(operands[:num_dims], printer.print_operand)
    printer.print_string(")")
    if len(operands) > num_dims:
        printer.print_string("[")
        printer.print_list(operands[num_dims:], printer.print_operand)
        printer.print_string("]")


@irdl_op_definition
class MaxOp(IRDLOperation):
    """``affine.max``: the largest result of an affine map (upstream's AffineMaxOp)."""

    name = "affine.max"
    arguments = var_operand_def(IndexType())
    result = result_def(IndexType())
    map = prop_def(AffineMapAttr)

    traits = traits_def(Pure())

    def __init__(self, map_operands: Sequence[SSAValue | Operation],
                 affine_map: AffineMapAttr) -> None:
        super().__init__(operands=[map_operands], properties={"map": affine_map},
                         result_types=[IndexType()])

    def verify_(self) -> None:
        m = self.map.data
        if len(self.operands) != m.num_dims + m.num_symbols:
            raise VerifyException(f"{self.name} expects {m.num_dims + m.num_symbols} operands, "
                                  f"but got {len(self.operands)}")
        if not m.results:
            raise VerifyException(f"{self.name}: the map must have at least one result")

    @classmethod
    def parse(cls, parser: Parser) -> MaxOp:
        pos = parser.pos
        m = parser.parse_attribute()
        if not isinstance(m, AffineMapAttr):
            parser.raise_error("expected an affine map", pos)
        operands = parse_map_operands(parser, m.data.num_dims, m.data.num_symbols, pos)
        op = MaxOp(operands, m)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.map)
        printer.print_string(" ")
        print_map_operands(printer, self.operands, self.map.data.num_dims)
        printer.print_op_attributes(self.attributes)


def _ensure_yield(region: Region) -> None:
    # upstream elides the terminator of a region without results (ImplicitAffineTerminator)
    if not region.blocks:
        return
    block = region.blocks[0]
    if block.last_op is not None and block.last_op.has_trait(IsTerminator):
        return
    if block.last_op is None or not isinstance(block.last_op, affine.YieldOp):
        block.add_op(affine.YieldOp.get())


def parse_if(cls: type[affine.IfOp], parser: Parser) -> affine.IfOp:
    """``affine.if #set(%d...)[%s...] (-> types)? region (else region)? attr-dict``."""
    pos = parser.pos
    cond = parser.parse_attribute()
    if not isinstance(cond, AffineSetAttr):
        parser.raise_error("expected an integer set (affine_set<...>)", pos)
    args = parse_map_operands(parser, cond.data.num_dims, cond.data.num_symbols, pos)
    types: list[Attribute] = []
    if parser.parse_optional_punctuation("->") is not None:
        if parser.parse_optional_punctuation("(") is not None:
            if parser.parse_optional_punctuation(")") is None:
                types = parser.parse_comma_separated_list(parser.Delimiter.NONE,
                                                          parser.parse_type)
                parser.parse_punctuation(")")
        else:
            types = [parser.parse_type()]
    then = parser.parse_region()
    other = parser.parse_region() if parser.parse_optional_keyword("else") is not None \
        else Region()
    _ensure_yield(then)
    _ensure_yield(other)
    op = cls.create(operands=args, result_types=types, properties={"condition": cond},
                    regions=[then, other])
    op.attributes |= parser.parse_optional_attr_dict()
    return op


def print_if(self: affine.IfOp, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_attribute(self.condition)
    printer.print_string(" ")
    print_map_operands(printer, self.args, self.condition.data.num_dims)
    if self.results:
        printer.print_string(" -> (")
        printer.print_list(self.result_types, printer.print_attribute)
        printer.print_string(")")
    printer.print_string(" ")
    terminators = bool(self.results)
    printer.print_region(self.then_region, print_entry_block_args=False,
                         print_block_terminators=terminators)
    if self.else_region.blocks:
        printer.print_string(" else ")
        printer.print_region(self.else_region, print_entry_block_args=False,
                             print_block_terminators=terminators)
    printer.print_op_attributes(self.attributes)


def _parse_bounds(parser: Parser, aff: object, parse_id: object, keyword: str,
                  ) -> tuple[list[AffineExpr], list[int]]:
    """``(b, max(b, b), ...)``: the expressions of every bound and the size of each group."""
    exprs: list[AffineExpr] = []
    groups: list[int] = []

    def one() -> None:
        if parser.parse_optional_keyword(keyword) is not None:
            group = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: aff._parse_affine_expr(parse_id))  # type: ignore[attr-defined]  # noqa: SLF001
        else:
            group = [aff._parse_affine_expr(parse_id)]  # type: ignore[attr-defined]  # noqa: SLF001
        exprs.extend(group)
        groups.append(len(group))

    parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
    return exprs, groups


def parse_parallel(cls: type[affine.ParallelOp], parser: Parser) -> affine.ParallelOp:
    """``affine.parallel (%i, ...) = (lbs) to (ubs) (step (s, ...))? (reduce ("k", ...) ->
    (types))? region attr-dict``; a bound is an expression of SSA ids (``%d``,
    ``symbol(%s)``) or a ``max(...)`` (lower) / ``min(...)`` (upper) group."""
    from xdsl.parser.affine_parser import AffineParser
    from xdsl.parser.core import UnresolvedOperand

    ivs = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False))
    parser.parse_punctuation("=")
    maps: list[tuple[AffineMap, list[int], list[SSAValue]]] = []
    for keyword in ("max", "min"):
        if keyword == "min":
            parser.parse_keyword("to")
        aff = AffineParser(parser._parser_state)  # noqa: SLF001 - shares the token stream
        parse_id, by_name, spans = aff._get_parse_optional_ssa_value()  # noqa: SLF001
        exprs, groups = _parse_bounds(parser, aff, parse_id, keyword)
        operands = [parser.resolve_operand(UnresolvedOperand(s, 0), IndexType()) for s in spans]
        maps.append((AffineMap(0, len(by_name), tuple(exprs)), groups, operands))
    steps = [1] * len(ivs)
    if parser.parse_optional_keyword("step") is not None:
        steps = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_integer(allow_boolean=False))
    kinds: list[str] = []
    types: list[Attribute] = []
    if parser.parse_optional_keyword("reduce") is not None:
        kinds = parser.parse_comma_separated_list(parser.Delimiter.PAREN,
                                                  parser.parse_str_literal)
        parser.parse_punctuation("->")
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    body = parser.parse_region([iv.resolve(IndexType()) for iv in ivs])
    _ensure_yield(body)

    def groups_attr(groups: list[int]) -> DenseIntElementsAttr:
        return DenseIntElementsAttr.from_list(TensorType(i32, [len(groups)]), groups)

    (lb, lb_groups, lb_operands), (ub, ub_groups, ub_operands) = maps
    op = cls.create(
        operands=[*lb_operands, *ub_operands], result_types=types,
        properties={
            "reductions": ArrayAttr([StringAttr(k) for k in kinds]),
            "lowerBoundsMap": AffineMapAttr(lb), "lowerBoundsGroups": groups_attr(lb_groups),
            "upperBoundsMap": AffineMapAttr(ub), "upperBoundsGroups": groups_attr(ub_groups),
            "steps": ArrayAttr([IntegerAttr(s, i64) for s in steps]),
        },
        regions=[body])
    op.attributes |= parser.parse_optional_attr_dict()
    return op


def _print_bounds(printer: Printer, m: AffineMap, groups: Sequence[int],
                  operands: Sequence[SSAValue], keyword: str) -> None:
    from xdsl.dialects.affine import _print_affine_expr_of_ssa_ids

    printer.print_string("(")
    at = 0
    for i, n in enumerate(groups):
        if i:
            printer.print_string(", ")
        group = m.results[at:at + n]
        at += n
        if n > 1:
            printer.print_string(keyword + "(")
        for j, e in enumerate(group):
            if j:
                printer.print_string(", ")
            _print_affine_expr_of_ssa_ids(printer, e, operands)
        if n > 1:
            printer.print_string(")")
    printer.print_string(")")


def print_parallel(self: affine.ParallelOp, printer: Printer) -> None:
    block = self.body.blocks[0]
    printer.print_string(" (")
    printer.print_list(block.args, printer.print_ssa_value)
    printer.print_string(") = ")
    lb, ub = self.lowerBoundsMap.data, self.upperBoundsMap.data
    operands = list(self.map_operands)
    n_lb = lb.num_dims + lb.num_symbols
    _print_bounds(printer, lb, list(self.lowerBoundsGroups.get_values()), operands[:n_lb],
                  "max")
    printer.print_string(" to ")
    _print_bounds(printer, ub, list(self.upperBoundsGroups.get_values()), operands[n_lb:],
                  "min")
    steps = [s.value.data for s in self.steps.data]
    if any(s != 1 for s in steps):
        printer.print_string(f" step ({', '.join(map(str, steps))})")
    if self.results:
        printer.print_string(" reduce (")
        printer.print_list(self.reductions.data, printer.print_attribute)
        printer.print_string(") -> (")
        printer.print_list(self.result_types, printer.print_attribute)
        printer.print_string(")")
    printer.print_string(" ")
    printer.print_region(self.body, print_entry_block_args=False,
                         print_block_terminators=bool(self.results))
    printer.print_op_attributes(self.attributes)


def verify_parallel(self: affine.ParallelOp) -> None:
    """Upstream's count: the operands are the bound maps' inputs (xDSL 0.74 adds one per
    result, so a reduction never verifies)."""
    lb, ub = self.lowerBoundsMap.data, self.upperBoundsMap.data
    if len(self.operands) != lb.num_dims + lb.num_symbols + ub.num_dims + ub.num_symbols:
        raise VerifyException("affine.parallel: expected as many operands as the lower and "
                              "upper bound maps have dimensions and symbols")
    for name, m, groups in (("lower", lb, self.lowerBoundsGroups),
                            ("upper", ub, self.upperBoundsGroups)):
        sizes = list(groups.get_values())
        if sum(sizes) != len(m.results):
            raise VerifyException(f"affine.parallel: the {name} bound groups do not cover "
                                  "the map's results")
        if len(sizes) != len(self.steps.data) or len(self.body.blocks[0].args) != len(sizes):
            raise VerifyException(f"affine.parallel: {len(sizes)} {name} bounds for "
                                  f"{len(self.steps.data)} steps")
    if len(self.reductions.data) != len(self.results):
        raise VerifyException("affine.parallel: one reduction kind per result expected")
