"""Every change xmux makes to xDSL's own classes and state, in one place (issue 30 item 5).

xmux reads what upstream MLIR writes (``mlir-opt`` output, MLIR's own tests), and xDSL 0.74
refuses some of it: custom forms it reads only generically, a verifier narrower than
upstream's, an op it lacks. A subclass or a second dialect of the same name would not do:
every pass, lowering and interpreter function matches xDSL's own classes, and a context (or
xDSL's universe) holds one dialect per name. So the fixes go onto xDSL's classes, and all of
them are here: each patch is a function below, named for what it fixes, with a comment saying
what upstream xDSL lacks or gets wrong, and ``tests/test_xdsl_compat.py`` has two tests per
patch: that it works, and that xDSL without it (``unpatched(name)``) still needs it. When an
xDSL upgrade makes the second fail, the patch can go.

Applied once each (idempotent), in groups, so that start-up stays short:

- ``apply()``: memref / scf / vector syntax and ``memref.generic_atomic_rmw``, and the
  speed patches (``irdl_fast_paths``, ``irdl_constraint_cache``, ``builtin_type_cache``,
  ``mlir_lexer_fast_tokens``: dialects/xdsl_fast.py; tested against xDSL's own code in
  ``tests/test_xdsl_fast.py``); called when ``xmux/registry.py`` is imported, before any
  context loads those dialects.
- ``apply_acc()``: the ``acc`` patches (xDSL's ``acc`` module alone is 0.06 s of every
  command's start-up); called when a context loads ``acc`` (the factory that
  ``replace_universe_dialects`` puts in xDSL's universe).
- ``replace_universe_dialects(factories)``: xmux's wider dialects of xDSL's names in xDSL's
  universe (``xmux/universe.py``, for plain ``xdsl-opt``).
- ``located_pipeline()``: a debug build's pipeline, whose inserted ops inherit locations
  (``block_insertions_keep_locations``, applied by the first debug compile).

xmux's own definitions are not here: ``memref.generic_atomic_rmw``'s ops are in
``dialects/memref_atomic.py``, the ``acc`` clause parser and LLVM 19 printers in
``dialects/acc_syntax.py``, the wider ``gpu`` / ``llvm`` dialects in ``dialects/gpu.py`` /
``dialects/llvm.py``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, wraps
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.ir import Block, Dialect
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind

if TYPE_CHECKING:
    from xdsl.dialects import memref, scf

__all__ = [
    "PATCHES",
    "apply",
    "apply_acc",
    "located_pipeline",
    "replace_universe_dialects",
    "unpatched",
]

_ABSENT = object()


@dataclass
class Patch:
    """One patch: the function that applies it, and what it replaced (to undo it in tests)."""

    name: str
    group: str
    fn: Callable[..., None]
    applied: bool = False
    #: (owner, attribute or key, value before, value after), in the order set
    changes: list[tuple[Any, Any, Any, Any]] = field(default_factory=list)

    def apply(self, *args: object) -> None:
        """Apply the patch unless it is applied already."""
        with _lock:  # two threads' contexts may load acc at once: wrap its printers once
            if self.applied:
                return
            _applying.append(self)
            try:
                self.fn(*args)
            finally:
                _applying.pop()
            self.applied = True


#: every patch by name, in the order defined
PATCHES: dict[str, Patch] = {}
_applying: list[Patch] = []
_lock = threading.RLock()


def _fresh_lock_in_child() -> None:
    # a child forked while another thread applied a patch would wait for _lock for ever
    global _lock
    _lock = threading.RLock()
    _applying.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_lock_in_child)


def _patch(group: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Registers a patch function; the name it is bound to applies it once."""

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        p = PATCHES[fn.__name__] = Patch(fn.__name__, group, fn)

        @wraps(fn)
        def apply_once(*args: object) -> None:
            p.apply(*args)

        return apply_once

    return register


def _current(owner: Any, attr: Any) -> Any:  # noqa: ANN401 - a class, dict, object
    """What ``owner`` itself holds at ``attr`` (``_ABSENT``: nothing)."""
    if isinstance(owner, dict):
        return owner.get(attr, _ABSENT)
    return (owner.__dict__ if isinstance(owner, type) else vars(owner)).get(attr, _ABSENT)


def _set(owner: Any, attr: Any, value: Any) -> None:  # noqa: ANN401 - a class, dict, object
    """``owner.attr = value`` (``owner[attr]`` for a dict), recorded on the patch applying."""
    before = _current(owner, attr)
    if isinstance(owner, dict):
        owner[attr] = value
    else:
        setattr(owner, attr, value)
    _applying[-1].changes.append((owner, attr, before, value))


def _put(owner: Any, attr: Any, value: Any) -> None:  # noqa: ANN401
    if isinstance(owner, dict):
        if value is _ABSENT:
            owner.pop(attr, None)
        else:
            owner[attr] = value
    elif value is _ABSENT:
        delattr(owner, attr)
    else:
        setattr(owner, attr, value)


@contextmanager
def unpatched(name: str) -> Iterator[None]:
    """xDSL as it is without the (applied) patch ``name``, for tests: what it replaced is put
    back, and the patch again after. Not thread-safe: for tests only."""
    p = PATCHES[name]
    if not p.applied:
        raise RuntimeError(f"patch {name} is not applied")
    # what is there now comes back after, not the patch's own value: a later patch of the
    # same attribute (memref's op list has two) may have replaced that
    now = [(owner, attr, _current(owner, attr)) for owner, attr, _, _ in p.changes]
    for owner, attr, before, _ in reversed(p.changes):
        _put(owner, attr, before)
    try:
        yield
    finally:
        for owner, attr, value in reversed(now):
            _put(owner, attr, value)


def _syntax(cls: type, parse: Callable[..., Any], print_: Callable[..., Any]) -> None:
    """A custom form for op class ``cls``: its ``parse`` (a classmethod) and ``print``."""
    _set(cls, "parse", classmethod(parse))
    _set(cls, "print", print_)


# ---- memref ------------------------------------------------------------------------------


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


@_patch("core")
def lazy_op_formats() -> None:
    # speed (issue 33 item 2): an op class's assembly format is parsed on its first parse or
    # print, not when the class is defined (dialects/xdsl_fast.py); first among the patches:
    # the op classes defined after it (every dialect module a context loads later) get it
    from xdsl.irdl import operations

    from xmux.dialects import xdsl_fast

    _set(operations, "get_accessors_from_op_def",
         xdsl_fast.lazy_formats(operations.get_accessors_from_op_def))


@_patch("core")
def memref_copy_syntax() -> None:
    from xdsl.dialects import memref

    # xDSL 0.74's memref.copy has only the generic form; upstream prints
    # `memref.copy %a, %b : memref<4xf32> to memref<4xf32>`
    _syntax(memref.CopyOp, _parse_copy, _print_copy)


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


@_patch("core")
def memref_extract_aligned_pointer_syntax() -> None:
    from xdsl.dialects import memref

    # xDSL 0.74 has only the generic form; upstream prints
    # `%p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index`
    _syntax(memref.ExtractAlignedPointerAsIndexOp, _parse_extract_ptr, _print_extract_ptr)


def _parse_cast(cls: type[memref.CastOp], parser: Parser) -> memref.CastOp:
    src = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    parser.parse_keyword("to")
    dest = parser.parse_type()
    return cls.create(operands=[parser.resolve_operand(src, t)], result_types=[dest],
                      attributes=attrs)


def _print_cast(self: memref.CastOp, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_operand(self.source)
    printer.print_op_attributes(self.attributes)
    printer.print_string(f" : {self.source.type} to {self.dest.type}")


@_patch("core")
def memref_cast_syntax() -> None:
    from xdsl.dialects import memref

    # xDSL 0.74 has only the generic form; upstream prints
    # `%d = memref.cast %a : memref<13xf32> to memref<?xf32>`
    _syntax(memref.CastOp, _parse_cast, _print_cast)


@cache
def _atomic_rmw_kinds() -> tuple[str, ...]:
    from xmux.dialects.memref_atomic import ATOMIC_KINDS

    return tuple(ATOMIC_KINDS[k] for k in sorted(ATOMIC_KINDS))


def _parse_atomic_rmw(cls: type[memref.AtomicRMWOp], parser: Parser) -> memref.AtomicRMWOp:
    kinds = _atomic_rmw_kinds()
    pos = parser.pos
    word = parser.parse_identifier()
    if word not in kinds:
        parser.raise_error(
            f"unknown memref.atomic_rmw kind '{word}' (expected one of {', '.join(kinds)})",
            pos, parser.pos)
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
    operands = [parser.resolve_operand(v, ins[0]), parser.resolve_operand(m, ins[1]),
                *(parser.resolve_operand(i, IndexType()) for i in idx)]
    return cls.create(operands=operands, result_types=[outs[0]], attributes=attrs,
                      properties={"kind": IntegerAttr(kinds.index(word), i64)})


def _print_atomic_rmw(self: memref.AtomicRMWOp, printer: Printer) -> None:
    kinds = _atomic_rmw_kinds()
    k = self.kind.value.data
    printer.print_string(f" {kinds[k] if 0 <= k < len(kinds) else k} ")
    printer.print_operand(self.value)
    printer.print_string(", ")
    printer.print_operand(self.memref)
    printer.print_string("[")
    printer.print_list(self.indices, printer.print_operand)
    printer.print_string("]")
    printer.print_op_attributes(self.attributes)
    printer.print_string(f" : ({self.value.type}, {self.memref.type}) -> {self.result.type}")


@_patch("core")
def memref_atomic_rmw_syntax() -> None:
    from xdsl.dialects import memref

    # xDSL 0.74 has only the generic form (the kind an integer property); upstream prints
    # `%old = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<10xf32>) -> f32`
    _syntax(memref.AtomicRMWOp, _parse_atomic_rmw, _print_atomic_rmw)


def _parse_global(cls: type[memref.GlobalOp], parser: Parser) -> memref.GlobalOp:
    from xdsl.dialects.builtin import (
        DenseIntOrFPElementsAttr,
        MemRefType,
        StringAttr,
        TensorType,
        UnitAttr,
    )

    vis = parser.parse_optional_str_literal() or "public"
    props: dict = {"sym_visibility": StringAttr(vis)}
    if parser.parse_optional_keyword("constant") is not None:
        props["constant"] = UnitAttr()
    props["sym_name"] = parser.parse_symbol_name()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    if not isinstance(t, MemRefType):
        parser.raise_error(f"memref.global type must be a memref, got {t}")
    props["type"] = t
    init = UnitAttr()  # uninitialized, and external declarations alike
    if parser.parse_optional_punctuation("="):
        if parser.parse_optional_keyword("uninitialized") is None:
            if parser.parse_optional_keyword("dense") is not None:
                shape = TensorType(t.element_type, t.get_shape())
                init = parser.parse_dense_int_or_fp_elements_attr(shape)
            else:
                init = parser.parse_attribute()
                if not isinstance(init, DenseIntOrFPElementsAttr):
                    parser.raise_error(f"memref.global initial value {init} is not dense")
    props["initial_value"] = init
    attrs = parser.parse_optional_attr_dict()
    if "alignment" in attrs:
        props["alignment"] = attrs.pop("alignment")
    order = ("sym_name", "type", "initial_value", "sym_visibility", "constant", "alignment")
    return cls.create(properties={k: props[k] for k in order if k in props}, attributes=attrs)


def _print_global(self: memref.GlobalOp, printer: Printer) -> None:
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    vis = self.sym_visibility.data
    printer.print_string(f' "{vis}"' if vis != "public" else "")
    printer.print_string(" constant" if self.constant is not None else "")
    printer.print_string(f" @{self.sym_name.data} : ")
    printer.print_attribute(self.type)
    init = self.initial_value
    if isinstance(init, DenseIntOrFPElementsAttr):
        # upstream prints the dense literal without its tensor type (the memref gives it)
        printer.print_string(" = ")
        text = str(init)
        printer.print_string(text[: text.rindex(" : ")])
    else:
        printer.print_string(" = uninitialized")
    attrs = dict(self.attributes)
    if self.alignment is not None:
        attrs = {"alignment": self.alignment, **attrs}
    printer.print_op_attributes(attrs)


@_patch("core")
def memref_global_syntax() -> None:
    from xdsl.dialects import memref

    # xDSL 0.74 has only the generic form; upstream prints
    # `memref.global "private" constant @c : memref<2xi32> = dense<[1, 4]> {alignment = 64}`.
    # A declaration without `=` (upstream: external) reads as `= uninitialized`: xDSL's
    # initial_value is not optional, and xmux gives both one meaning (storage it allocates).
    _syntax(memref.GlobalOp, _parse_global, _print_global)


@_patch("core")
def memref_generic_atomic_rmw() -> None:
    from xdsl.dialects import memref

    # xDSL 0.74's memref dialect lacks memref.generic_atomic_rmw / memref.atomic_yield
    # (xmux's definitions: dialects/memref_atomic.py); added to xDSL's dialect so that a
    # context's `memref` knows them (xDSL's Dialect has no public add_op)
    from xmux.dialects.memref_atomic import AtomicYieldOp, GenericAtomicRMWOp

    ops = memref.MemRef._operations  # noqa: SLF001
    extra = [op for op in (GenericAtomicRMWOp, AtomicYieldOp) if op not in ops]
    _set(memref.MemRef, "_operations", [*ops, *extra])


# ---- scf / vector ------------------------------------------------------------------------


def _parse_while_without_operands(cls: type[scf.WhileOp], parser: Parser) -> scf.WhileOp:
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


@_patch("core")
def scf_while_without_operands() -> None:
    from xdsl.dialects import scf

    # xDSL 0.74's scf.while parses only with an operand list, `scf.while () : () -> ()`;
    # upstream prints a loop without loop-carried values as `scf.while : () -> () {...}`
    xdsl_parse = scf.WhileOp.parse.__func__

    def parse(cls: type[scf.WhileOp], parser: Parser) -> scf.WhileOp:
        if parser._current_token.kind == MLIRTokenKind.COLON:  # noqa: SLF001 - a peek
            return _parse_while_without_operands(cls, parser)
        return xdsl_parse(cls, parser)

    _set(scf.WhileOp, "parse", classmethod(parse))


@_patch("core")
def scf_index_switch_empty_regions() -> None:
    from xdsl.dialects import scf

    # upstream prints a region of scf.index_switch that only yields as `{\n}` (the scf.yield
    # elided); xDSL 0.74 reads it as a region without a block, which fails to verify
    xdsl_parse = scf.IndexSwitchOp.parse.__func__

    def parse(cls: type[scf.IndexSwitchOp], parser: Parser) -> scf.IndexSwitchOp:
        op = xdsl_parse(cls, parser)
        for region in op.regions:
            if not region.blocks:  # `{ }`: the region's lone `scf.yield`, elided
                region.add_block(Block([scf.YieldOp()]))
        return op

    _set(scf.IndexSwitchOp, "parse", classmethod(parse))


def _parse_parallel(cls: type[scf.ParallelOp], parser: Parser) -> scf.ParallelOp:
    from xdsl.dialects import scf

    paren = Parser.Delimiter.PAREN
    ivs = parser.parse_comma_separated_list(
        paren, lambda: parser.parse_argument(expect_type=False))

    def indices() -> list[Any]:
        names = parser.parse_comma_separated_list(paren, parser.parse_unresolved_operand)
        return [parser.resolve_operand(n, IndexType()) for n in names]

    parser.parse_punctuation("=")
    lbs = indices()
    parser.parse_keyword("to")
    ubs = indices()
    parser.parse_keyword("step")
    steps = indices()
    pos = parser.pos
    inits = (parser.parse_comma_separated_list(paren, parser.parse_unresolved_operand)
             if parser.parse_optional_keyword("init") else [])
    types: list[Any] = []
    if parser.parse_optional_punctuation("->"):
        types = (parser.parse_comma_separated_list(paren, parser.parse_type)
                 if parser._current_token.kind == MLIRTokenKind.L_PAREN  # noqa: SLF001 - a peek
                 else [parser.parse_type()])
    if len(types) != len(inits):
        parser.raise_error(f"scf.parallel: {len(inits)} init value(s) but {len(types)} "
                           "result type(s)", pos, parser.pos)
    init_vals = parser.resolve_operands(inits, types, pos)
    body = parser.parse_region([iv.resolve(IndexType()) for iv in ivs])
    attrs = parser.parse_optional_attr_dict()
    if not body.blocks:
        body.add_block(Block(arg_types=[IndexType()] * len(ivs)))
    if not isinstance(body.block.last_op, scf.ReduceOp):  # the terminator upstream may elide
        body.block.add_op(scf.ReduceOp())
    op = cls(lbs, ubs, steps, body, init_vals)
    op.attributes |= attrs
    return op


def _print_parallel(self: scf.ParallelOp, printer: Printer) -> None:
    def values(vs: Any) -> None:  # noqa: ANN401 - SSA values or block arguments
        with printer.in_parens():
            printer.print_list(vs, printer.print_ssa_value)

    printer.print_string(" ")
    values(self.body.block.args)
    printer.print_string(" = ")
    values(self.lowerBound)
    printer.print_string(" to ")
    values(self.upperBound)
    printer.print_string(" step ")
    values(self.step)
    if self.initVals:
        printer.print_string(" init ")
        values(self.initVals)
        types = [r.type for r in self.res]
        printer.print_string(" -> ")
        if len(types) == 1:
            printer.print_attribute(types[0])
        else:
            with printer.in_parens():
                printer.print_list(types, printer.print_attribute)
    printer.print_string(" ")
    printer.print_region(self.body, print_entry_block_args=False)
    printer.print_op_attributes(self.attributes)


@_patch("core")
def scf_parallel_syntax() -> None:
    from xdsl.dialects import scf

    # xDSL 0.74's scf.parallel has only the generic form; upstream prints
    # `scf.parallel (%i) = (%lb) to (%ub) step (%s) init (%x) -> f32 { ... scf.reduce(...) }`
    # (the terminator printed; without one, an empty `scf.reduce` as upstream's parser adds)
    _syntax(scf.ParallelOp, _parse_parallel, _print_parallel)


def _parse_reduce(cls: type[scf.ReduceOp], parser: Parser) -> scf.ReduceOp:
    args: list[Any] = []
    if parser.parse_optional_punctuation("("):
        pos = parser.pos
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        args = parser.resolve_operands(names, types, pos)
    regions = []
    if args:  # one region per value, comma-separated
        regions = [parser.parse_region()]
        while parser.parse_optional_punctuation(","):
            regions.append(parser.parse_region())
    op = cls(args, regions)
    op.attributes |= parser.parse_optional_attr_dict()
    return op


def _print_reduce(self: scf.ReduceOp, printer: Printer) -> None:
    if self.args:
        printer.print_string("(")
        printer.print_list(self.args, printer.print_ssa_value)
        printer.print_string(" : ")
        printer.print_list([a.type for a in self.args], printer.print_attribute)
        printer.print_string(") ")
        printer.print_list(self.reductions, printer.print_region)
    printer.print_op_attributes(self.attributes)


@_patch("core")
def scf_reduce_regions() -> None:
    from xdsl.dialects import scf

    # xDSL 0.74's declarative scf.reduce reads one region after the values; upstream writes
    # one per value, comma-separated: `scf.reduce(%a, %b : f32, i32) {...}, {...}`
    _syntax(scf.ReduceOp, _parse_reduce, _print_reduce)


def _parse_vector_print(cls: type, parser: Parser) -> Any:  # noqa: ANN401 - a vector.PrintOp
    u = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    attrs = parser.parse_optional_attr_dict()
    return cls.create(operands=[parser.resolve_operand(u, t)], attributes=attrs)


def _print_vector_print(self: Any, printer: Printer) -> None:  # noqa: ANN401
    printer.print_string(" ")
    printer.print_operand(self.source)
    printer.print_string(f" : {self.source.type}")
    printer.print_op_attributes(self.attributes)


@_patch("core")
def vector_print_syntax() -> None:
    # xDSL 0.74's vector.print has only the generic form; MLIR's integration tests write
    # `vector.print %x : i32`
    from xdsl.dialects import vector

    _syntax(vector.PrintOp, _parse_vector_print, _print_vector_print)


# ---- affine (issue 31: affine as clients leave it before --lower-affine) ------------------


def _semi_affine(kind: Any, original: Callable[..., Any]) -> Callable[..., Any]:  # noqa: ANN401
    from xdsl.ir.affine import AffineExpr
    from xdsl.ir.affine.affine_expr import AffineBinaryOpExpr

    def build(self: AffineExpr, other: AffineExpr | int) -> AffineExpr:
        try:
            return original(self, other)
        except NotImplementedError:  # a non-constant right-hand side: semi-affine
            rhs = AffineExpr.constant(other) if isinstance(other, int) else other
            return AffineBinaryOpExpr(kind, self, rhs)

    return build


@_patch("core")
def affine_semi_affine_exprs() -> None:
    # xDSL 0.74 raises NotImplementedError (a traceback out of the parser) for semi-affine
    # expressions, which upstream allows: `d0 * s0`, `d0 floordiv s0`, `(d0 - s0) ceildiv
    # s1`, `d0 mod s0`. Here they build the plain binary expression (after xDSL's own
    # folding of constants); lower-affine-upstream expands them as upstream does.
    from xdsl.ir.affine import AffineBinaryOpKind, AffineExpr

    for attr, kind in (("__mul__", AffineBinaryOpKind.Mul),
                       ("__floordiv__", AffineBinaryOpKind.FloorDiv),
                       ("ceil_div", AffineBinaryOpKind.CeilDiv),
                       ("__mod__", AffineBinaryOpKind.Mod)):
        _set(AffineExpr, attr, _semi_affine(kind, getattr(AffineExpr, attr)))


def _ssa_ids_with_symbol(original: Callable[..., Any]) -> Callable[..., Any]:
    def get(self: Any) -> Any:  # noqa: ANN401 - xDSL's AffineParser and its triple
        parse, by_name, spans = original(self)

        def parse_optional() -> Any:  # noqa: ANN401 - an AffineExpr or None
            token = self._current_token
            if token.kind != MLIRTokenKind.BARE_IDENT or token.text != "symbol":
                return parse()
            self._consume_token()
            self.parse_punctuation("(")
            if (expr := parse()) is None:
                self.raise_error("expected an SSA value in symbol(...)")
            self.parse_punctuation(")")
            return expr

        return parse_optional, by_name, spans

    return get


@_patch("core")
def affine_symbol_operands() -> None:
    # upstream prints a symbol operand of affine.load / affine.store / affine.parallel as
    # `symbol(%n)` (`affine.load %a[%i + symbol(%n)]`); xDSL 0.74's parser of SSA-id maps
    # reads only `%n` (every SSA id is a symbol to it, so the two mean the same there)
    from xdsl.parser.affine_parser import AffineParser

    _set(AffineParser, "_get_parse_optional_ssa_value",
         _ssa_ids_with_symbol(AffineParser._get_parse_optional_ssa_value))  # noqa: SLF001


@_patch("core")
def affine_max_op() -> None:
    # xDSL 0.74's affine dialect has affine.min but no affine.max (linalg's tiling writes
    # both); xmux's definition (dialects/affine_ops.py) joins xDSL's dialect
    from xdsl.dialects import affine

    from xmux.dialects.affine_ops import MaxOp

    ops = affine.Affine._operations  # noqa: SLF001
    if MaxOp not in ops:
        _set(affine.Affine, "_operations", [*ops, MaxOp])


@_patch("core")
def affine_if_syntax() -> None:
    # xDSL 0.74 reads affine.if only in the generic form; upstream prints
    # `affine.if #set(%i)[%n] -> (index) { ... } else { ... }`
    from xdsl.dialects import affine

    from xmux.dialects.affine_ops import parse_if, print_if

    _syntax(affine.IfOp, parse_if, print_if)


@_patch("core")
def affine_parallel_syntax() -> None:
    # xDSL 0.74 reads affine.parallel only in the generic form; upstream prints
    # `affine.parallel (%i) = (0) to (symbol(%n)) step (2) reduce ("addf") -> (f32) {...}`;
    # its verifier counts one operand per result too, so no reduction verifies
    from xdsl.dialects import affine

    from xmux.dialects.affine_ops import parse_parallel, print_parallel, verify_parallel

    _syntax(affine.ParallelOp, parse_parallel, print_parallel)
    _set(affine.ParallelOp, "verify_", verify_parallel)


# ---- issue 31: vector / memref ops as upstream prints them ---------------------------------


@_patch("core")
def vector_newer_ops() -> None:
    # xDSL 0.74's vector dialect lacks vector.splat / step / outerproduct / shape_cast
    # (linalg vectorization leaves them); xmux's definitions (dialects/vector_ops.py) join it
    from xdsl.dialects import vector

    from xmux.dialects.vector_ops import VECTOR_NEWER_OPS, ShapeCastOp

    ops = vector.Vector._operations  # noqa: SLF001
    extra = [op for op in VECTOR_NEWER_OPS if op not in ops]
    _set(vector.Vector, "_operations", [*ops, *extra])
    _set(vector, "ShapeCastOp", ShapeCastOp)  # as later xDSL names it


@_patch("core")
def scf_forall_op() -> None:
    from xdsl.dialects import scf

    # xDSL 0.74's scf dialect lacks scf.forall / scf.forall.in_parallel (linalg tiling and
    # clients' parallel loops write `scf.forall (%i) in (4) {...}`); xmux's definitions
    # (dialects/scf_forall.py) join it
    from xmux.dialects.scf_forall import ForallOp, InParallelOp

    ops = scf.Scf._operations  # noqa: SLF001
    extra = [op for op in (ForallOp, InParallelOp) if op not in ops]
    _set(scf.Scf, "_operations", [*ops, *extra])


@_patch("core")
def memref_rank_cast_scope_syntax() -> None:
    from xdsl.dialects import memref

    # xDSL 0.74 reads memref.rank / memory_space_cast / alloca_scope(.return) only in the
    # generic form; upstream prints `memref.rank %m : memref<?xf32>`,
    # `memref.memory_space_cast %m : memref<4xf32> to memref<4xf32, 1>`, `memref.alloca_scope {`
    from xmux.dialects import memref_ops as m

    _syntax(memref.RankOp, m.parse_rank, m.print_rank)
    _syntax(memref.MemorySpaceCastOp, m.parse_space_cast, m.print_space_cast)
    _syntax(memref.AllocaScopeOp, m.parse_alloca_scope, m.print_alloca_scope)
    _syntax(memref.AllocaScopeReturnOp, m.parse_scope_return, m.print_scope_return)


@_patch("core")
def memref_assume_alignment_llvm19() -> None:
    from xdsl.dialects import memref

    # xDSL 0.74's memref.assume_alignment has a result (LLVM 20's); mlir-opt-19 rejects
    # `%0 = memref.assume_alignment ...` ("cannot name an operation with no results"):
    # xmux's LLVM 19 definition (dialects/memref_ops.py) replaces it
    from xmux.dialects.memref_ops import AssumeAlignmentOp

    ops = [AssumeAlignmentOp if o is memref.AssumeAlignmentOp else o
           for o in memref.MemRef._operations]  # noqa: SLF001
    _set(memref.MemRef, "_operations", ops)


@_patch("core")
def irdl_fast_paths() -> None:
    # speed, not syntax (issue 33 item 2): xDSL 0.74's generic op builder and verifier cost
    # ~70 Python calls per simple op; dialects/xdsl_fast.py does the same checks directly for
    # op classes with single operands and results and hands everything else (and every
    # failure, for xDSL's own error) to xDSL's functions
    from xdsl.irdl import operations

    from xmux.dialects import xdsl_fast

    _set(operations.OpDef, "verify", xdsl_fast.fast_verify(operations.OpDef.verify))
    _set(operations, "irdl_op_init", xdsl_fast.fast_op_init(operations.irdl_op_init))


@_patch("core")
def irdl_constraint_cache() -> None:
    # speed (issue 33 item 2): xDSL's isa(x, ArrayAttr[IntAttr]) and the constraints' lazy
    # imports rebuild the constraint of a type hint from scratch on every call (~0.1 ms; each
    # memref type the parser makes pays it): the package-level irdl_to_attr_constraint they
    # import at call time remembers them (dialects/xdsl_fast.py)
    import xdsl.irdl

    from xmux.dialects import xdsl_fast

    _set(xdsl.irdl, "irdl_to_attr_constraint",
         xdsl_fast.cached_constraint(xdsl.irdl.irdl_to_attr_constraint))


@_patch("core")
def builtin_type_cache() -> None:
    # speed (issue 33 item 2): a parse builds `memref<?xf32>` (lexer, shape, MemRefType and
    # its verifier) at every use; the parser now reuses the type it made of the same text
    # within one parse (dialects/xdsl_fast.py says which texts qualify)
    from xdsl.parser.attribute_parser import AttrParser

    from xmux.dialects import xdsl_fast

    _set(AttrParser, "_parse_optional_builtin_type",
         xdsl_fast.cached_builtin_types(AttrParser._parse_optional_builtin_type))  # noqa: SLF001


@_patch("core")
def mlir_lexer_fast_tokens() -> None:
    # speed (issue 33 item 2): xDSL's MLIR lexer spends ~10 Python calls on every token; the
    # common ones (identifiers, %values, punctuation) are now one regular-expression match
    # (dialects/xdsl_fast.py), the rest xDSL's code
    from xdsl.utils.mlir_lexer import MLIRLexer

    from xmux.dialects import xdsl_fast

    _set(MLIRLexer, "lex", xdsl_fast.fast_lex(MLIRLexer.lex))


def apply() -> None:
    """The memref / scf / vector patches (once)."""
    for p in PATCHES.values():
        if p.group == "core":
            p.apply()


# ---- acc (applied when a context loads acc) ----------------------------------------------


@_patch("acc")
def acc_terminator_in_recipes() -> None:
    # acc.terminator's HasParent in xDSL 0.74 lists kernels / data / host_data / global
    # ctor-dtor / atomic capture, not the recipe ops, whose regions upstream's own OpenACC
    # tests end with it: such a module failed to verify. Widened (what xDSL accepted stays).
    from xdsl.dialects import acc
    from xdsl.traits import HasParent

    recipes = (acc.PrivateRecipeOp, acc.FirstprivateRecipeOp, acc.ReductionRecipeOp)
    traits = acc.TerminatorOp.traits
    current = traits.traits
    for t in current:
        if isinstance(t, HasParent) and not set(recipes) <= set(t.op_types):
            wider = HasParent(*t.op_types, *(r for r in recipes if r not in t.op_types))
            _set(traits, "_traits", frozenset((current - {t}) | {wider}))
            return


@_patch("acc")
def acc_terminator_in_declare() -> None:
    # upstream's acc.declare region ends with acc.terminator (mlir-opt-19 requires it), which
    # xDSL 0.74's HasParent of acc.terminator does not list: widened like the recipes above.
    from xdsl.dialects import acc
    from xdsl.traits import HasParent

    traits = acc.TerminatorOp.traits
    current = traits.traits
    for t in current:
        if isinstance(t, HasParent) and acc.DeclareOp not in t.op_types:
            _set(traits, "_traits", frozenset((current - {t}) | {HasParent(*t.op_types,
                                                                             acc.DeclareOp)}))
            return


@_patch("acc")
def acc_clauses_in_any_order() -> None:
    # xDSL 0.74's declarative formats read an acc construct's clauses in one fixed order;
    # upstream's are an oilist (any order: `acc.parallel num_gangs(...) dataOperands(...)`
    # failed with "Expected region!"), and LLVM 19 names each reduction / private /
    # firstprivate operand's recipe in the clause (`reduction(@r -> %x : T)`), which xDSL
    # does not read. The parser: dialects/acc_syntax.py.
    from xmux.dialects import acc_syntax

    for op in acc_syntax.clause_ops():
        _set(op, "parse", classmethod(acc_syntax.parse_any_order))


@_patch("acc")
def acc_atomic_read_llvm19() -> None:
    # xDSL 0.74 reads acc.atomic.read with two pointer types (`%v = %x : Tv, Tx, Elem`), not
    # LLVM 19's one (`%v = %x : T, Elem`)
    from xdsl.dialects import acc

    from xmux.dialects import acc_syntax

    _set(acc.AtomicReadOp, "parse", classmethod(acc_syntax.parse_atomic_read))


@_patch("acc")
def acc_llvm19_output() -> None:
    # xDSL 0.74 prints acc only in the newer upstream form; under
    # acc_syntax.llvm19_output() (`xmux-opt --acc-syntax=llvm19`) these ops print what
    # mlir-opt-19 reads (recipes in the constructs' clauses, one atomic.read pointer type)
    from xmux.dialects import acc_syntax

    for cls, print19 in acc_syntax.llvm19_printers():
        base = cls.print

        def print_(self: Any, printer: Printer, base: Callable = base,  # noqa: ANN401
                   print19: Callable = print19) -> None:
            if acc_syntax.printing_llvm19():
                print19(self, printer, base)
            else:
                base(self, printer)

        _set(cls, "print", print_)


def apply_acc() -> None:
    """The acc patches (once); imports xDSL's acc dialect."""
    for p in PATCHES.values():
        if p.group == "acc":
            p.apply()


# ---- debug builds (applied by the first debug compile) -----------------------------------

#: debug pipelines running now (``located_pipeline``): while any is, insertions inherit
_located_pipelines = 0


def _inherit_location(op: object, *donors: object) -> None:
    from xdsl.dialects.builtin import UnknownLoc

    if _located_pipelines and isinstance(op.location, UnknownLoc):  # type: ignore[attr-defined]
        for donor in donors:
            if donor is not None and not isinstance(donor.location, UnknownLoc):  # type: ignore[attr-defined]
                op.location = donor.location  # type: ignore[attr-defined]
                return


@_patch("debug")
def block_insertions_keep_locations() -> None:
    # xDSL 0.74's rewriters insert the ops that replace an op without its location (MLIR's
    # give them the location of the op they come from), so after the passes a debug build
    # (xmux.compile(debug=True), lowering/locations.py) knew the lines of untouched ops only.
    # While a debug pipeline runs (located_pipeline()), an op inserted into a block without a
    # location takes the one of the op it goes next to (a pattern inserts before the op it
    # replaces), else the enclosing op's. Other compiles only pay a counter test.
    before, after, add = Block.insert_op_before, Block.insert_op_after, Block.add_op

    def insert_op_before(self: Block, new_op: Any, existing_op: Any) -> None:  # noqa: ANN401
        _inherit_location(new_op, existing_op, existing_op.prev_op, self.parent_op())
        before(self, new_op, existing_op)

    def insert_op_after(self: Block, new_op: Any, existing_op: Any) -> None:  # noqa: ANN401
        _inherit_location(new_op, existing_op, self.parent_op())
        after(self, new_op, existing_op)

    def add_op(self: Block, operation: Any) -> None:  # noqa: ANN401
        _inherit_location(operation, self.last_op, self.parent_op())
        add(self, operation)

    _set(Block, "insert_op_before", insert_op_before)
    _set(Block, "insert_op_after", insert_op_after)
    _set(Block, "add_op", add_op)


@contextmanager
def located_pipeline() -> Iterator[None]:
    """While active, ops inserted into blocks inherit a location
    (``block_insertions_keep_locations``, applied on first use)."""
    global _located_pipelines
    block_insertions_keep_locations()
    with _lock:
        _located_pipelines += 1
    try:
        yield
    finally:
        with _lock:
            _located_pipelines -= 1


# ---- xDSL's universe (plain xdsl-opt) ------------------------------------------------------


@_patch("universe")
def replace_universe_dialects(factories: Mapping[str, Callable[[], Dialect]]) -> None:
    """Put ``factories`` (xmux's wider dialects of xDSL's names) in place of xDSL's own in
    xDSL's universe, and make loading ``acc`` apply ``apply_acc()`` first."""
    # xDSL 0.74's Universe.get_multiverse refuses a second dialect of one name from a plugin
    # universe ("Duplicate definition"), so xmux's gpu / llvm replace xDSL's factories in
    # XDSL_UNIVERSE itself; acc's factory is wrapped so that the acc patches cost nothing
    # until a context loads acc
    from xdsl.universe import XDSL_UNIVERSE

    dialects = XDSL_UNIVERSE.all_dialects
    xdsl_acc = dialects["acc"]

    def acc_with_patches() -> Dialect:
        apply_acc()
        return xdsl_acc()

    _set(dialects, "acc", acc_with_patches)
    for name, factory in factories.items():
        _set(dialects, name, factory)
