"""``memref`` ops with the custom syntax upstream MLIR prints, which xDSL 0.74 parses only in
the generic form: ``memref.cast``, ``memref.atomic_rmw`` and ``memref.global`` (and
``vector.print %x : T``, the scalar output of MLIR's integration tests).

    %d = memref.cast %a : memref<13xf32> to memref<?xf32>
    %old = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<10xf32>) -> f32
    memref.global "private" constant @c : memref<2xi32> = dense<[1, 4]> {alignment = 64}
    memref.global @buf : memref<64xf32, 3> = uninitialized

Applied once when xmux builds a context or its plugin universe (``xmux/registry.py``), as
``acc_compat`` is: it gives xDSL's own ``memref.CastOp`` / ``AtomicRMWOp`` / ``GlobalOp`` a
``parse`` and ``print``, so every pass,
lowering and interpreter function that matches those classes sees them unchanged (a
subclass would not be the class the interpreter dispatches on). The generic forms still
parse. ``memref.generic_atomic_rmw`` / ``memref.atomic_yield``, which xDSL 0.74 lacks, live in
``dialects/memref_atomic.py``.

A declaration without ``=`` (upstream: an external global) reads as ``= uninitialized``: xDSL's
``initial_value`` is not optional, and xmux gives both the same meaning (storage it allocates).
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.parser import Parser
from xdsl.printer import Printer

#: MLIR's arith::AtomicRMWKind numbering, which the generic form stores.
ATOMIC_RMW_KINDS = (
    "addf", "addi", "assign", "maximumf", "maxs", "maxu", "minimumf", "mins", "minu", "mulf",
    "muli", "ori", "andi", "maxnumf", "minnumf",
)


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


def _parse_atomic_rmw(cls: type[memref.AtomicRMWOp], parser: Parser) -> memref.AtomicRMWOp:
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
    operands = [parser.resolve_operand(v, ins[0]), parser.resolve_operand(m, ins[1]),
                *(parser.resolve_operand(i, IndexType()) for i in idx)]
    return cls.create(operands=operands, result_types=[outs[0]], attributes=attrs,
                      properties={"kind": IntegerAttr(ATOMIC_RMW_KINDS.index(word), i64)})


def _print_atomic_rmw(self: memref.AtomicRMWOp, printer: Printer) -> None:
    k = self.kind.value.data
    printer.print_string(f" {ATOMIC_RMW_KINDS[k] if 0 <= k < len(ATOMIC_RMW_KINDS) else k} ")
    printer.print_operand(self.value)
    printer.print_string(", ")
    printer.print_operand(self.memref)
    printer.print_string("[")
    printer.print_list(self.indices, printer.print_operand)
    printer.print_string("]")
    printer.print_op_attributes(self.attributes)
    printer.print_string(f" : ({self.value.type}, {self.memref.type}) -> {self.result.type}")


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


def add_custom_syntax() -> None:
    for cls, parse, print_ in (
        (memref.CastOp, _parse_cast, _print_cast),
        (memref.AtomicRMWOp, _parse_atomic_rmw, _print_atomic_rmw),
        (memref.GlobalOp, _parse_global, _print_global),
    ):
        cls.parse = classmethod(parse)  # type: ignore[method-assign]
        cls.print = print_  # type: ignore[method-assign]


add_custom_syntax()


# ---- vector.print (the integration tests' scalar output) ------------------------------


def _parse_vector_print(cls: type, parser: Parser):
    u = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    attrs = parser.parse_optional_attr_dict()
    return cls.create(operands=[parser.resolve_operand(u, t)], attributes=attrs)


def _print_vector_print(self, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_operand(self.source)
    printer.print_string(f" : {self.source.type}")
    printer.print_op_attributes(self.attributes)


def add_vector_print_syntax() -> None:
    """``vector.print %x : i32`` (xDSL 0.74's vector.print has only the generic form)."""
    from xdsl.dialects import vector

    vector.PrintOp.parse = classmethod(_parse_vector_print)  # type: ignore[method-assign]
    vector.PrintOp.print = _print_vector_print  # type: ignore[method-assign]


add_vector_print_syntax()


import xmux.dialects.core_compat  # noqa: E402, F401 - memref.copy etc., scf.while without values
import xmux.dialects.memref_atomic  # noqa: E402, F401 - generic_atomic_rmw (xDSL lacks it)
