"""Upstream ``acc`` construct syntax that xDSL 0.74's declarative formats refuse.

- **Clauses in any order.** Upstream's OpenACC ops list their clauses in an ``oilist``: the
  parser takes them in any order (mlir-opt prints them in one order, people write others).
  xDSL's formats read them in one fixed order, so ``acc.parallel num_gangs(...) dataOperands(...)``
  failed with ``Expected region!``. Here the leading keyword clauses of ``acc.parallel``,
  ``acc.serial``, ``acc.kernels``, ``acc.loop``, ``acc.data`` (and every other ``acc`` op whose
  format starts with such clauses) parse in any order, each at most once; the rest of the format
  (region, loop control, attributes) follows as before. Printing is unchanged (xDSL's order,
  which upstream reads).
- **The LLVM 19 recipe form.** In LLVM 19 (what ``mlir-opt-19`` prints) a construct names the
  recipe of each reduction / private / firstprivate operand in the clause:
  ``reduction(@add_f64 -> %r : memref<f64>)``; newer upstream moved the recipe to the
  data-clause op (``acc.reduction varPtr(...) recipe(@add_f64) -> ...``) and the clause lists
  only operands, which is xDSL's (and xmux's) model. The 19 form parses into that model: each
  ``@recipe`` is set on the ``acc.reduction`` / ``acc.private`` / ``acc.firstprivate`` that
  defines the operand (an error if that op names another recipe, or the operand comes from
  anything else). Both forms can be mixed in one module.

This module holds the parsers and printers; ``dialects/xdsl_compat.py`` puts them on xDSL's own
op classes (``acc_clauses_in_any_order``, ``acc_atomic_read_llvm19``, ``acc_llvm19_output``)
when a context loads ``acc``, so every pass sees the same classes. Importing this module
changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache

from xdsl.dialects import acc
from xdsl.dialects.builtin import SymbolRefAttr, i1
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    FormatProgram,
    KeywordDirective,
    OptionalGroupDirective,
    ParsingState,
    PrintingState,
    VariadicOperandVariable,
    WhitespaceDirective,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind

#: clause keyword -> the data-clause op that must define its operands in the LLVM 19 form
_RECIPE_CLAUSES: dict[str, type[IRDLOperation]] = {
    "reduction": acc.ReductionOp,
    "private": acc.PrivateOp,
    "firstprivate": acc.FirstprivateOp,
}


@dataclass
class _Recipes19:
    """The ``@recipe -> %x`` pairs of one op's LLVM 19 clauses, set on the data ops after."""

    #: (clause keyword, operand field name, recipe per operand of that field)
    clauses: list[tuple[str, str, list[SymbolRefAttr]]] = field(default_factory=list)


class AnyOrderProgram:
    """An op's declarative format with its leading keyword clauses parsed in any order."""

    def __init__(self, op_type: type[IRDLOperation]) -> None:
        op_def = op_type.get_irdl_definition()
        assert op_def.assembly_format is not None
        self.program = FormatProgram.from_str(op_def.assembly_format, op_def)
        stmts = list(self.program.stmts)
        self.clauses: dict[str, OptionalGroupDirective] = {}
        while stmts and isinstance(stmts[0], WhitespaceDirective | OptionalGroupDirective):
            s = stmts[0]
            if isinstance(s, OptionalGroupDirective):
                if not isinstance(s.then_first, KeywordDirective):
                    break
                self.clauses[s.then_first.keyword] = s
            stmts.pop(0)
        self.rest = tuple(stmts)

    def operand_field(self, kw: str) -> str:
        """The operand field of clause ``kw`` (``reduction`` -> ``reduction_operands``)."""
        group = self.clauses[kw]
        return next(e for e in group.then_elements if isinstance(e, VariadicOperandVariable)).name

    def parse(self, parser: Parser, op_type: type[IRDLOperation]) -> IRDLOperation:
        state = ParsingState(op_type)
        start = parser.pos
        seen: set[str] = set()
        recipes = _Recipes19()
        while True:
            pos = parser.pos
            kw = next((k for k in self.clauses if parser.parse_optional_keyword(k)), None)
            if kw is None:
                break
            if kw in seen:
                parser.raise_error(f"'{op_type.name}': clause '{kw}' given twice", pos,
                                   parser.pos)
            seen.add(kw)
            group = self.clauses[kw]
            if kw in _RECIPE_CLAUSES and self._parse_19_clause(parser, state, group, recipes, kw):
                continue
            for element in group.then_elements:
                element.parse(parser, state)
        for kw, group in self.clauses.items():
            if kw not in seen:
                group.set_empty(state)
        for stmt in self.rest:
            stmt.parse(parser, state)
        op = self._build(parser, state, op_type)
        self._attach_recipes(parser, op, recipes, start)
        return op

    @staticmethod
    def _parse_19_clause(parser: Parser, state: ParsingState, group: OptionalGroupDirective,
                         recipes: _Recipes19, kw: str) -> bool:
        """``(@r -> %x : T, ...)`` after ``kw``; False (nothing read) for the newer form."""
        parser.parse_punctuation("(")
        if parser.parse_optional_punctuation(")") is not None:
            parser.raise_error(f"'{kw}' clause without operands")
        var = next(e for e in group.then_elements if isinstance(e, VariadicOperandVariable))
        syms: list[SymbolRefAttr] = []
        ops: list[UnresolvedOperand] = []
        types: list[Attribute] = []

        def one() -> None:
            syms.append(SymbolRefAttr(parser.parse_symbol_name()))
            parser.parse_punctuation("->")
            ops.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(":")
            types.append(parser.parse_type())

        if parser._current_token.kind != MLIRTokenKind.AT_IDENT:  # noqa: SLF001 - a peek
            # the newer form: the group's own elements after its `(`
            var.parse(parser, state)
            parser.parse_punctuation(":")
            var.parse_types(parser, state)
            parser.parse_punctuation(")")
            return True
        one()
        while parser.parse_optional_punctuation(",") is not None:
            one()
        parser.parse_punctuation(")")
        var.set(state, ops)
        var.set_types(state, types)
        recipes.clauses.append((kw, var.name, syms))
        return True

    def _build(self, parser: Parser, state: ParsingState,
               op_type: type[IRDLOperation]) -> IRDLOperation:
        # the tail of xDSL's FormatProgram.parse, on the state parsed above
        op_def = op_type.get_irdl_definition()
        self.program.resolve_constraint_variables(state, op_def)
        operand_types = self.program.resolve_operand_types(state, op_def)
        result_types = self.program.resolve_result_types(state, op_def)
        operands = tuple(
            parser.resolve_operands(uo, ot, parser.pos)  # type: ignore[arg-type]
            for uo, ot in zip(state.operands, operand_types, strict=True)
        )
        return op_type.build(result_types=result_types, operands=operands,
                             attributes=state.attributes, properties=state.properties,
                             regions=state.regions, successors=state.successors)

    @staticmethod
    def _attach_recipes(parser: Parser, op: IRDLOperation, recipes: _Recipes19,
                        pos: int) -> None:
        for kw, fname, syms in recipes.clauses:
            want = _RECIPE_CLAUSES[kw]
            for value, sym in zip(getattr(op, fname), syms, strict=True):
                owner = value.owner
                if not isinstance(owner, want):
                    got = (f"a result of '{owner.name}'" if isinstance(owner, Operation)
                           else "a block argument")
                    parser.raise_error(
                        f"'{op.name}': {kw}({sym} -> ...) needs an operand defined by "
                        f"'{want.name}', got {got}", pos, parser.pos)
                have = owner.properties.get("recipe")
                if have is not None and have != sym:
                    parser.raise_error(
                        f"'{op.name}': {kw} operand's '{want.name}' names recipe {have}, "
                        f"the clause names {sym}", pos, parser.pos)
                owner.properties["recipe"] = sym


def clause_ops() -> list[type[IRDLOperation]]:
    """The acc ops whose format starts with at least two keyword clauses."""
    found = []
    for op in acc.ACC.operations:
        fmt = op.get_irdl_definition().assembly_format if issubclass(op, IRDLOperation) else None
        if fmt is not None and fmt.lstrip().startswith("(`") and fmt.count("(`") >= 2:
            found.append(op)
    return found


@cache
def _program(op_type: type[IRDLOperation]) -> AnyOrderProgram:
    return AnyOrderProgram(op_type)  # built on first use: xmux-opt's start-up stays short


def parse_any_order(cls: type[IRDLOperation], parser: Parser) -> IRDLOperation:
    """``cls.parse`` for the ops of ``clause_ops()``: leading clauses in any order."""
    return _program(cls).parse(parser, cls)


# ---- acc.atomic.read: the LLVM 19 form names two types ---------------------------------


def parse_atomic_read(cls: type[acc.AtomicReadOp], parser: Parser) -> acc.AtomicReadOp:
    """``[if(%c)] %v = %x : Tv, Tx, Elem`` (newer) or ``%v = %x : T, Elem`` (LLVM 19: one type
    for both pointers)."""
    cond = None
    if parser.parse_optional_keyword("if") is not None:
        with parser.in_parens():
            cond = parser.parse_unresolved_operand()
    v = parser.parse_unresolved_operand()
    parser.parse_punctuation("=")
    x = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    tv = parser.parse_type()
    parser.parse_punctuation(",")
    second = parser.parse_type()
    if parser.parse_optional_punctuation(",") is not None:
        tx, elem = second, parser.parse_type()
    else:
        tx, elem = tv, second
    attrs = parser.parse_optional_attr_dict()
    operands = [[parser.resolve_operand(x, tx)], [parser.resolve_operand(v, tv)],
                [] if cond is None else [parser.resolve_operand(cond, i1)]]
    props = {"element_type": elem}
    props |= {k: attrs.pop(k) for k in list(attrs) if k in ("element_type",)}
    return cls.build(operands=operands, properties=props, attributes=attrs)


# ---- LLVM 19 output ----------------------------------------------------------------------

_LLVM19_OUTPUT: list[bool] = [False]


@contextmanager
def llvm19_output() -> Iterator[None]:
    """Print ``acc`` ops in the LLVM 19 form while active (``xmux-opt --acc-syntax=llvm19``):
    recipes in the constructs' clauses (``reduction(@r -> %x : T)``), none on the data-clause
    ops, ``acc.atomic.read`` with one pointer type. An operand whose data op names no recipe
    keeps the newer form (LLVM 19 has no spelling for it)."""
    _LLVM19_OUTPUT.append(True)
    try:
        yield
    finally:
        _LLVM19_OUTPUT.pop()


def printing_llvm19() -> bool:
    """Whether ``llvm19_output()`` is active."""
    return _LLVM19_OUTPUT[-1]


def _recipe_of(value: SSAValue) -> SymbolRefAttr | None:
    owner = value.owner
    if isinstance(owner, tuple(_RECIPE_CLAUSES.values())):
        recipe = owner.properties.get("recipe")
        return recipe if isinstance(recipe, SymbolRefAttr) else None
    return None


def _print_construct_19(op: IRDLOperation, printer: Printer) -> None:
    program = _program(type(op))
    state = PrintingState()
    for stmt in program.program.stmts:
        kw = (stmt.then_first.keyword if isinstance(stmt, OptionalGroupDirective)
              and isinstance(stmt.then_first, KeywordDirective) else None)
        values = getattr(op, program.operand_field(kw)) if kw in _RECIPE_CLAUSES else ()
        recipes = [_recipe_of(v) for v in values]
        if not values or None in recipes:
            stmt.print(printer, state, op)
            continue
        state.print_whitespace(printer)
        printer.print_string(f"{kw}(")
        for i, (v, r) in enumerate(zip(values, recipes, strict=True)):
            printer.print_string(", " if i else "")
            printer.print_string(f"{r} -> ")
            printer.print_operand(v)
            printer.print_string(" : ")
            printer.print_attribute(v.type)
        printer.print_string(")")


def _print_data_op_19(op: IRDLOperation, printer: Printer, base: Callable) -> None:
    recipe = op.properties.pop("recipe", None)
    try:
        base(op, printer)
    finally:
        if recipe is not None:
            op.properties["recipe"] = recipe


def _print_atomic_read_19(op: acc.AtomicReadOp, printer: Printer, base: Callable) -> None:
    if op.if_cond is not None or op.v.type != op.x.type:
        return base(op, printer)
    printer.print_string(" ")
    printer.print_operand(op.v)
    printer.print_string(" = ")
    printer.print_operand(op.x)
    printer.print_string(" : ")
    printer.print_attribute(op.v.type)
    printer.print_string(", ")
    printer.print_attribute(op.element_type)
    printer.print_op_attributes(op.attributes)


def llvm19_printers() -> list[tuple[type[IRDLOperation], Callable]]:
    """(op class, its LLVM 19 printer ``print19(op, printer, base)``, ``base`` the class's
    own ``print``) for each op whose LLVM 19 form differs."""
    constructs = (acc.ParallelOp, acc.SerialOp, acc.KernelsOp, acc.LoopOp)
    return [
        *((c, lambda op, p, b: _print_construct_19(op, p)) for c in constructs),
        *((d, _print_data_op_19) for d in _RECIPE_CLAUSES.values()),
        (acc.AtomicReadOp, _print_atomic_read_19),
    ]
