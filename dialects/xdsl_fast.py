"""Faster equivalents of xDSL 0.74's hottest generic paths in parsing and rewriting.

Every op xDSL parses or a pass builds goes through ``irdl_op_init``, and every op is checked
by ``OpDef.verify`` (after parsing, after the pipeline, after each pass in the checking
mode). Both are written for the general case (variadic and optional operands, segment-size
attributes) and pay for it on every op: ~70 function calls and a dozen ``isinstance``
checks against ``collections.abc.Sequence`` (an ABC: slow) for an ``arith.addi``.

Most ops are simple: single operands and results (but one variadic), no successors, no
segment options. For an op class of that shape (decided once per class, ``_plan``) these do
the same checks with none of the generality:

- ``fast_verify``: the same constraint calls, in the same order, on one
  ``VerificationContext``; the operands' and results' counts checked directly. Any failure,
  or any class not of that shape, runs xDSL's own ``OpDef.verify``, so an error is raised
  by xDSL's code with xDSL's message, and nothing xDSL refuses is accepted.
- ``fast_op_init``: operands that are ``SSAValue``s (or single-result ops, or lists of
  one, as the parser passes them), result types that are attributes, no regions or
  successors: straight to ``Operation.__init__`` with the ``None`` properties and
  attributes dropped, as ``irdl_op_init`` does. Anything else (other sequences, ``None``,
  wrong counts, regions) goes to xDSL's ``irdl_op_init``, which builds it or says why not.

And three more of the parser's costs: ``cached_constraint`` (the constraint of a type hint,
rebuilt by every ``isa``), ``cached_builtin_types`` (the same type text parsed again within
one parse), ``fast_lex`` (the common tokens in one regular-expression match).

``dialects/xdsl_compat.py`` installs them (patches ``irdl_fast_paths``,
``irdl_constraint_cache``, ``builtin_type_cache``, ``mlir_lexer_fast_tokens``); this module
changes nothing by itself. ``tests/xdsl_fast_corpus.py`` checks that the filecheck corpus,
the examples and the bench kernels parse, verify and compile to the same IR (or the same
error) with and without them; ``tests/test_xdsl_fast.py`` runs a sample.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl.constraints import AttrConstraint, VerificationContext
from xdsl.irdl.operations import (
    AfterVariadicSingleAccessor,
    AttrSizedSegments,
    BeforeVariadicSingleAccessor,
    OpDef,
    OptAttributeDef,
    OptionalDef,
    OptPropertyDef,
    SameVariadicSize,
    UniqueVariadicAccessor,
    VariadicDef,
    irdl_op_verify_regions,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind


@dataclass(frozen=True)
class _Args:
    """An op class's operands or results: their range constraints in order, and the
    position of the one variadic among them (-1: none)."""

    constrs: tuple[Any, ...]
    variadic: int

    def split(self, values: Sequence[Any]) -> list[tuple[Any, ...]] | None:
        """``values`` cut per definition as xDSL's accessors cut them; None if they
        cannot be (too few)."""
        n, v = len(self.constrs), self.variadic
        if v < 0:
            return [(x,) for x in values] if len(values) == n else None
        extra = len(values) - n + 1  # the variadic's length
        if extra < 0:
            return None
        return ([(x,) for x in values[:v]] + [tuple(values[v:v + extra])]
                + [(x,) for x in values[v + extra:]])


@dataclass(frozen=True)
class _Plan:
    """What the fast paths need of an op class of the simple shape."""

    op_def: OpDef
    operands: _Args
    results: _Args
    regions: bool  # the class defines regions (verified by xDSL's irdl_op_verify_regions)


#: op class → its plan, or None when the class is not of the simple shape
_plans: dict[type, _Plan | None] = {}


def _accessor(cls: type, name: str) -> object:
    return next((c.__dict__[name] for c in cls.__mro__ if name in c.__dict__), None)


def _args(cls: type, defs: Sequence[tuple[str, Any]]) -> _Args | None:
    """``defs`` as ``_Args`` if each is single but at most one variadic (not optional), each
    read by the accessor that cuts the values as ``_Args.split`` does; else None."""
    variadic = -1
    for i, (name, d) in enumerate(defs):
        accessor = type(_accessor(cls, name))
        if isinstance(d, OptionalDef):
            return None
        if isinstance(d, VariadicDef):
            if variadic >= 0 or accessor is not UniqueVariadicAccessor:
                return None
            variadic = i
        elif accessor is not (BeforeVariadicSingleAccessor if variadic < 0
                              else AfterVariadicSingleAccessor):
            return None
    return _Args(tuple(d.constr for _, d in defs), variadic)


def _plan(cls: type) -> _Plan | None:
    try:
        return _plans[cls]
    except KeyError:
        pass
    plan = None
    get_def = getattr(cls, "get_irdl_definition", None)
    if get_def is not None:
        op_def = get_def()
        operands = _args(cls, op_def.operands)
        results = _args(cls, op_def.results)
        if (operands is not None and results is not None and not op_def.successors
                and not any(isinstance(o, AttrSizedSegments | SameVariadicSize)
                            for o in op_def.options)):  # others only concern the syntax
            plan = _Plan(op_def, operands, results, bool(op_def.regions))
    _plans[cls] = plan
    return plan


def _verify_simple(op_def: OpDef, plan: _Plan, op: Operation) -> None:
    """``OpDef.verify``'s checks for a class of ``plan``'s shape, in its order."""
    context = VerificationContext()
    for args, values in ((plan.operands, op._operands), (plan.results, op.results)):  # noqa: SLF001
        parts = args.split(values)
        if parts is None:
            raise VerifyException("operand or result count")
        for part, constr in zip(parts, args.constrs, strict=True):
            constr.verify(tuple(x.type for x in part), context)
    if plan.regions:
        irdl_op_verify_regions(op, op_def, context)
    elif op.regions:
        raise VerifyException("region count")
    if op._successors:  # noqa: SLF001
        raise VerifyException("successor count")
    props = op.properties
    for name, attr_def in op_def.properties.items():
        if name not in props:
            if isinstance(attr_def, OptPropertyDef):
                continue
            raise VerifyException("property missing")
        attr_def.constr.verify(props[name], context)
    for name in props:
        if name not in op_def.properties:
            raise VerifyException("property not defined")
    attributes = op.attributes
    for name, attr_def in op_def.attributes.items():
        if name not in attributes:
            if isinstance(attr_def, OptAttributeDef):
                continue
            raise VerifyException("attribute missing")
        attr_def.constr.verify(attributes[name], context)
    for trait in op_def.traits:
        trait.verify(op)


def fast_verify(original: Callable[[OpDef, Operation], None]) -> Callable[..., None]:
    """``OpDef.verify`` with the fast path; ``original``: xDSL's."""

    def verify(self: OpDef, op: Operation) -> None:
        plan = _plan(type(op))
        if plan is None or plan.op_def is not self:
            original(self, op)
            return
        try:
            _verify_simple(self, plan, op)
        except Exception:  # noqa: BLE001 - xDSL's own verifier decides, and words the error
            original(self, op)

    verify.__wrapped__ = original  # type: ignore[attr-defined]
    return verify


def fast_op_init(original: Callable[..., None]) -> Callable[..., None]:
    """``irdl_op_init`` with the fast path; ``original``: xDSL's."""

    def irdl_op_init(self: Operation, op_def: OpDef, *,
                     operands: Sequence[Any], result_types: Sequence[Any],
                     properties: Mapping[str, Attribute | None],
                     attributes: Mapping[str, Attribute | None],
                     successors: Sequence[Any], regions: Sequence[Any]) -> None:
        plan = _plan(type(self))
        values = types = None
        if (plan is not None and plan.op_def is op_def and not plan.regions and not successors
                and not regions):
            values = _values(operands, plan.operands.variadic)
            types = _types(result_types, plan.results.variadic)
        if (values is None or types is None or len(operands) != len(plan.operands.constrs)
                or len(result_types) != len(plan.results.constrs)):
            original(self, op_def, operands=operands, result_types=result_types,
                     properties=properties, attributes=attributes, successors=successors,
                     regions=regions)  # xDSL builds it, or says why not
            return
        Operation.__init__(
            self,
            operands=values,
            result_types=types,
            properties={k: v for k, v in properties.items() if v is not None},
            attributes={k: v for k, v in attributes.items() if v is not None},
            successors=[],
            regions=[],
        )

    irdl_op_init.__wrapped__ = original  # type: ignore[attr-defined]
    return irdl_op_init


def _value(x: object) -> SSAValue | None:
    if isinstance(x, SSAValue):
        return x
    if isinstance(x, Operation) and len(x.results) == 1:  # as SSAValue.get takes it
        return x.results[0]
    return None


def _values(args: Sequence[Any], variadic: int) -> list[SSAValue] | None:
    """The operand list ``irdl_op_init`` builds of ``args``, if each is a value (or an op of
    one result, or a list or tuple of one, as the parser passes them) and the variadic's a
    list or tuple of them; else None."""
    out: list[SSAValue] = []
    for i, a in enumerate(args):
        if isinstance(a, list | tuple):
            if i != variadic and len(a) != 1:
                return None
            for x in a:
                v = _value(x)
                if v is None:
                    return None
                out.append(v)
            continue
        v = _value(a)
        if v is None:
            return None
        out.append(v)
    return out


def _types(args: Sequence[Any], variadic: int) -> list[Attribute] | None:
    """The result types ``irdl_op_init`` builds of ``args``, if each is an attribute (or a
    list or tuple of one; the variadic's of any length); else None."""
    out: list[Attribute] = []
    for i, a in enumerate(args):
        if isinstance(a, list | tuple):
            if (i != variadic and len(a) != 1) or not all(isinstance(t, Attribute) for t in a):
                return None
            out.extend(a)
        elif isinstance(a, Attribute):
            out.append(a)
        else:
            return None
    return out


def cached_constraint(original: Callable[..., Any]) -> Callable[..., Any]:
    """``irdl_to_attr_constraint`` remembering what it made of each type hint (a class, a
    generic alias such as ``ArrayAttr[IntAttr]``, a union): xDSL rebuilds the constraint of
    a hint on every ``isa(x, hint)``, e.g. each ``MemRefType(...)`` of a parsed
    ``memref<?xf32>``. Constraints are immutable and the mapping is a pure function of the
    hint; constraint and attribute objects themselves go straight through."""
    cache: dict[tuple[object, bool], Any] = {}

    def irdl_to_attr_constraint(irdl: Any, *, allow_type_var: bool = False) -> Any:  # noqa: ANN401
        if isinstance(irdl, AttrConstraint | Attribute):
            return original(irdl, allow_type_var=allow_type_var)
        key = (irdl, allow_type_var)
        try:
            return cache[key]
        except KeyError:
            pass
        except TypeError:  # unhashable
            return original(irdl, allow_type_var=allow_type_var)
        made = cache[key] = original(irdl, allow_type_var=allow_type_var)
        return made

    irdl_to_attr_constraint.__wrapped__ = original  # type: ignore[attr-defined]
    return irdl_to_attr_constraint


#: the text of a parametrized builtin type that the cache below may reuse: no alias (`#`,
#: `!`), string, comment, layout or scalable dimension, only what spells memref<?x4xf32, 3>
_TYPE_TEXT = re.compile(r"[A-Za-z0-9_<>?, ]*>")


def cached_builtin_types(original: Callable[..., Any]) -> Callable[..., Any]:
    """``AttrParser._parse_optional_builtin_type`` reusing, within one parse (one parser
    state), the type it made of the same text: xDSL lexes and builds ``memref<?xf32>`` anew
    (~0.3 ms) at each of its thousands of uses. Only parametrized builtin types (a bare
    identifier and ``<``) whose whole text matches ``_TYPE_TEXT`` are remembered: their
    meaning does not depend on anything but the text (types are immutable attributes)."""

    def parse_builtin_type(self: Any) -> Any:  # noqa: ANN401 - xDSL's parser, a type
        state = self._parser_state  # noqa: SLF001
        token = state.current_token
        span = token.span
        content = span.input.content
        if token.kind is not MLIRTokenKind.BARE_IDENT or content[span.end:span.end + 1] != "<":
            return original(self)
        cache: dict[str, dict[str, Any]] = state.__dict__.setdefault("_xmux_types", {})
        start = span.start
        for text, made in cache.get(token.text, {}).items():
            if content.startswith(text, start):
                self._resume_from(start + len(text))  # noqa: SLF001 - the token after it
                return made
        made = original(self)
        if made is not None:
            after = state.current_token.span
            text = content[start:after.start].rstrip() if after.input is span.input else ""
            if _TYPE_TEXT.fullmatch(text):
                cache.setdefault(token.text, {})[text] = made
        return made

    parse_builtin_type.__wrapped__ = original  # type: ignore[attr-defined]
    return parse_builtin_type


#: one match: the whitespace and comments xDSL's lexer skips (its ``_whitespace_regex``),
#: then a token of the kinds most of a module is made of, spelled as xDSL's lexer reads them
#: (a bare identifier, a %value / ^block / !type identifier, an @symbol, one punctuation
#: character that starts no longer token). Anything else is left to xDSL's lexer.
_FAST_TOKEN = re.compile(
    r"(?>(?:(?://[^\n]*(?:\n)?)|(?:\s+))*)"  # atomic: never give back part of a comment
    r"(?:(?P<bare>[a-zA-Z_][a-zA-Z0-9_$.]*)"
    r"|(?P<prefixed>[%^!](?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))"
    r"|(?P<at>@[a-zA-Z_][a-zA-Z0-9_$.]*)"
    r"|(?P<punct>[:,()}\[\]<>=+*?|]))",
    re.ASCII,
)
_PUNCTUATION = {
    ":": MLIRTokenKind.COLON, ",": MLIRTokenKind.COMMA, "(": MLIRTokenKind.L_PAREN,
    ")": MLIRTokenKind.R_PAREN, "}": MLIRTokenKind.R_BRACE, "[": MLIRTokenKind.L_SQUARE,
    "]": MLIRTokenKind.R_SQUARE, "<": MLIRTokenKind.LESS, ">": MLIRTokenKind.GREATER,
    "=": MLIRTokenKind.EQUAL, "+": MLIRTokenKind.PLUS, "*": MLIRTokenKind.STAR,
    "?": MLIRTokenKind.QUESTION, "|": MLIRTokenKind.VERTICAL_BAR,
}
_PREFIXED = {"%": MLIRTokenKind.PERCENT_IDENT, "^": MLIRTokenKind.CARET_IDENT,
             "!": MLIRTokenKind.EXCLAMATION_IDENT}


def fast_lex(original: Callable[..., Any]) -> Callable[..., Any]:
    """``MLIRLexer.lex`` matching the common tokens with one regular expression (xDSL's
    makes ~10 Python calls a token); every other token, an error, the end of the input and
    the lexers derived from MLIRLexer (xDSL's assembly-format lexer) are xDSL's."""

    def lex(self: Any) -> Any:  # noqa: ANN401 - xDSL's lexer, its token
        if type(self) is not MLIRLexer:  # a subclass reads other tokens (the format lexer)
            return original(self)
        m = _FAST_TOKEN.match(self.input.content, self.pos)
        if m is None:
            return original(self)
        group = m.lastgroup
        start, end = m.start(group), m.end()
        if group == "bare":
            kind = MLIRTokenKind.BARE_IDENT
        elif group == "prefixed":
            kind = _PREFIXED[m.group(group)[0]]
        elif group == "at":
            kind = MLIRTokenKind.AT_IDENT
        else:
            kind = _PUNCTUATION[m.group(group)]
        self.pos = end
        return Token(kind, Span(start, end, self.input))

    lex.__wrapped__ = original  # type: ignore[attr-defined]
    return lex


def lazy_formats(
    get_accessors: Callable[[OpDef, Any], dict[str, Any]],
) -> Callable[[OpDef, Any], dict[str, Any]]:
    """``get_accessors_from_op_def`` (what ``irdl_op_definition`` builds an op class's
    methods with) parsing the class's ``assembly_format`` on its first ``parse`` or
    ``print`` rather than when the class is defined: a process defines ~260 such classes and
    parses or prints a few of them (the format parser took 83 ms of a 560 ms cold compile).
    The parse and print are xDSL's own ``FormatProgram``'s; a format xDSL refuses raises
    its ``PyRDLOpDefinitionError`` at that first use (``tests/test_xdsl_fast.py`` parses
    every loaded op's format, so none of xmux's or xDSL's is found late)."""
    from xdsl.irdl.declarative_assembly_format import FormatProgram
    from xdsl.irdl.operations import PyRDLOpDefinitionError
    from xdsl.utils.exceptions import ParseError

    def accessors(op_def: OpDef, custom_verify: Any) -> dict[str, Any]:  # noqa: ANN401
        text = op_def.assembly_format
        if text is None:
            return get_accessors(op_def, custom_verify)
        op_def.assembly_format = None  # xDSL's own code, but no format parsed
        try:
            new_attrs = get_accessors(op_def, custom_verify)
        finally:
            op_def.assembly_format = text
        program: list[FormatProgram] = []

        def format_program() -> FormatProgram:
            if not program:  # two threads may both parse it: the same program either way
                try:
                    program.append(FormatProgram.from_str(text, op_def))
                except ParseError as e:
                    raise PyRDLOpDefinitionError(
                        "Error during the parsing of the assembly format: ", e.args
                    ) from e
            return program[0]

        def parse_with_format(cls: type[Operation], parser: Any) -> Operation:  # noqa: ANN401
            return format_program().parse(parser, cls)

        def print_with_format(self: Operation, printer: Any) -> None:  # noqa: ANN401
            return format_program().print(printer, self)

        new_attrs["parse"] = classmethod(parse_with_format)
        new_attrs["print"] = print_with_format
        new_attrs["_xmux_format_program"] = staticmethod(format_program)
        return new_attrs

    return accessors
