"""The ``llvm`` dialect as upstream MLIR prints it: xDSL 0.74's ``llvm`` ops and attributes,
plus the ones xmux writes that xDSL lacks.

``xmux/registry.py`` registers ``LLVM`` in place of xDSL's ``llvm`` dialect (as it does for
``gpu``), so xmux's lowered output is upstream llvm-dialect text that ``mlir-opt`` and
``mlir-translate --mlir-to-llvmir`` accept:

- the ops of ``dialects/llvmx.py`` under their upstream names (``llvm.fence``,
  ``llvm.atomicrmw``, ``llvm.cmpxchg``, ``llvm.switch``, ``llvm.uitofp``, ``llvm.fptosi``,
  ``llvm.fptoui``, ``llvm.extractelement``, ``llvm.addrspacecast``);
- ``llvm.add``/``sub``/``mul``/``shl`` whose ``overflowFlags`` property is upstream's
  ``#llvm.overflow<...>`` attribute (xDSL stores an ``i32``, which upstream's generic form
  rejects);
- loop metadata attributes with upstream's syntax::

    #llvm.access_group<id = distinct[1]<>>
    #llvm.loop_annotation<vectorize = #llvm.loop_vectorize<width = 8 : i32>,
                          unroll = #llvm.loop_unroll<disable = true>, mustProgress = true,
                          parallelAccesses = #llvm.access_group<id = distinct[1]<>>>

  Memory ops carry ``access_groups = [#llvm.access_group<...>]`` and a loop's latch branch
  ``loop_annotation = #llvm.loop_annotation<...>``, as upstream; ``dialects/attrs.py`` reads
  and writes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import llvm as xllvm
from xdsl.dialects.builtin import ArrayAttr, BoolAttr, IntAttr, IntegerAttr, NoneAttr, i1, i32
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue
from xdsl.irdl import irdl_attr_definition, irdl_op_definition, opt_prop_def
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xmux.dialects import llvmx

# ---------------------------------------------------------------------------------------
# Loop metadata
# ---------------------------------------------------------------------------------------


@irdl_attr_definition
class AccessGroupAttr(ParametrizedAttribute):
    """An access group (``!llvm.access.group``): ``#llvm.access_group<id = distinct[N]<>>``.

    Upstream's id is a distinct attribute; ``N`` names it within one module (equal ``N``,
    same group), so the group is stored as that number."""

    name = "llvm.access_group"

    id: IntAttr

    def __init__(self, gid: int) -> None:
        super().__init__(IntAttr(gid))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<id = distinct[{self.id.data}]<>>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        parser.parse_keyword("id")
        parser.parse_punctuation("=")
        parser.parse_keyword("distinct")
        parser.parse_punctuation("[")
        gid = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation("]")
        parser.parse_punctuation("<")
        parser.parse_punctuation(">")
        parser.parse_punctuation(">")
        return [IntAttr(gid)]


class _KeywordParams(ParametrizedAttribute):
    """Upstream's ``<key = value, ...>`` syntax: every parameter is optional (``NoneAttr``
    when absent) and printed in upstream's order, which its parser requires."""

    #: parameter → "bool", "i32" or an attribute class the value must be
    KINDS: ClassVar[dict[str, str | type[Attribute]]]

    def __init__(self, **values: Attribute | None) -> None:
        unknown = set(values) - set(self.KINDS)
        if unknown:
            raise ValueError(f"{self.name}: unknown parameters {sorted(unknown)}")
        super().__init__(*(values.get(k) or NoneAttr() for k in self.KINDS))

    def get(self, key: str) -> Attribute | None:
        value = self.parameters[list(self.KINDS).index(key)]
        return None if isinstance(value, NoneAttr) else value

    def print_parameters(self, printer: Printer) -> None:
        items = [
            (k, v)
            for k, v in zip(self.KINDS, self.parameters, strict=True)
            if not isinstance(v, NoneAttr)
        ]
        printer.print_string("<")
        for i, (key, value) in enumerate(items):
            printer.print_string(f"{', ' if i else ''}{key} = ")
            if isinstance(value, ArrayAttr):  # upstream prints arrays without brackets
                printer.print_list(value.data, printer.print_attribute)
            else:
                printer.print_attribute(value)
        printer.print_string(">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        values: dict[str, Attribute] = {}
        parser.parse_punctuation("<")
        while parser.parse_optional_punctuation(">") is None:
            if values:
                parser.parse_punctuation(",")
            pos = parser.pos
            key = parser.parse_identifier()
            if key not in cls.KINDS or key in values:
                parser.raise_error(f"{cls.name}: unexpected parameter '{key}'", pos, parser.pos)
            parser.parse_punctuation("=")
            if cls.KINDS[key] is ArrayAttr:
                # the last parameter (upstream's order): the rest up to '>' is its list
                values[key] = ArrayAttr(
                    parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_attribute)
                )
                parser.parse_punctuation(">")
                break
            values[key] = parser.parse_attribute()
        return [values.get(k) or NoneAttr() for k in cls.KINDS]

    def verify(self) -> None:
        for key, value in zip(self.KINDS, self.parameters, strict=True):
            if isinstance(value, NoneAttr):
                continue
            kind = self.KINDS[key]
            ok = (
                (kind == "bool" and isinstance(value, IntegerAttr) and value.type == i1)
                or (kind == "i32" and isinstance(value, IntegerAttr) and value.type == i32)
                or (isinstance(kind, type) and isinstance(value, kind))
            )
            if not ok:
                raise VerifyException(f"{self.name}: invalid {key} = {value}")


@irdl_attr_definition
class LoopVectorizeAttr(_KeywordParams):
    """``#llvm.loop_vectorize<disable = true, width = 4 : i32>``: llvm.loop.vectorize.*"""

    name = "llvm.loop_vectorize"
    KINDS = {"disable": "bool", "width": "i32"}

    disable: Attribute
    width: Attribute


@irdl_attr_definition
class LoopInterleaveAttr(_KeywordParams):
    """``#llvm.loop_interleave<count = 1 : i32>``: llvm.loop.interleave.count"""

    name = "llvm.loop_interleave"
    KINDS = {"count": "i32"}

    count: Attribute


@irdl_attr_definition
class LoopUnrollAttr(_KeywordParams):
    """``#llvm.loop_unroll<disable = true>``: llvm.loop.unroll.disable"""

    name = "llvm.loop_unroll"
    KINDS = {"disable": "bool"}

    disable: Attribute


@irdl_attr_definition
class LoopAnnotationAttr(_KeywordParams):
    """``#llvm.loop_annotation<...>`` on a loop's latch branch: its ``!llvm.loop`` node
    (the parameters upstream has that xmux writes, in upstream's order)."""

    name = "llvm.loop_annotation"
    KINDS = {
        "vectorize": LoopVectorizeAttr,
        "interleave": LoopInterleaveAttr,
        "unroll": LoopUnrollAttr,
        "mustProgress": "bool",
        "parallelAccesses": ArrayAttr,
    }

    vectorize: Attribute
    interleave: Attribute
    unroll: Attribute
    mustProgress: Attribute
    parallelAccesses: Attribute

    def verify(self) -> None:
        super().verify()
        groups = self.get("parallelAccesses")
        if isinstance(groups, ArrayAttr) and not all(
            isinstance(g, AccessGroupAttr) for g in groups.data
        ):
            raise VerifyException(f"{self.name}: parallelAccesses must be access groups")


def bool_attr(value: bool) -> BoolAttr:
    return IntegerAttr(int(value), i1)


def i32_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i32)


# ---------------------------------------------------------------------------------------
# Integer arithmetic with upstream's overflow attribute
# ---------------------------------------------------------------------------------------


class _OverflowOp(xllvm.ArithmeticBinOpOverflow):
    """xDSL's op with ``overflowFlags`` as ``#llvm.overflow<...>`` (upstream's property)."""

    overflowFlags = opt_prop_def(xllvm.OverflowAttr)

    def __init__(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        attributes: dict[str, Attribute] | None = None,
        overflow: xllvm.OverflowAttr | IntegerAttr | None = None,
    ):
        if isinstance(overflow, IntegerAttr):
            overflow = xllvm.OverflowAttr.from_int(overflow.value.data)
        super(xllvm.ArithmeticBinOpOverflow, self).__init__(
            operands=[lhs, rhs],
            attributes=attributes or {},
            result_types=[SSAValue.get(lhs).type],
            properties={"overflowFlags": overflow or xllvm.OverflowAttr("none")},
        )

    @classmethod
    def parse(cls, parser: Parser):
        lhs = parser.parse_unresolved_operand()
        parser.parse_characters(",")
        rhs = parser.parse_unresolved_operand()
        flags = xllvm.OverflowAttr.parse(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_characters(":")
        t = parser.parse_type()
        lhs_v, rhs_v = parser.resolve_operands([lhs, rhs], [t, t], parser.pos)
        return cls(lhs_v, rhs_v, attributes, flags)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.lhs)
        printer.print_string(", ")
        printer.print_ssa_value(self.rhs)
        if self.overflowFlags is not None:
            self.overflowFlags.print(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)

    @property
    def flags(self) -> list[str]:
        """The LLVM IR flags (``nsw``, ``nuw``)."""
        return [] if self.overflowFlags is None else [f.value for f in self.overflowFlags.data]


@irdl_op_definition
class AddOp(_OverflowOp):
    name = "llvm.add"


@irdl_op_definition
class SubOp(_OverflowOp):
    name = "llvm.sub"


@irdl_op_definition
class MulOp(_OverflowOp):
    name = "llvm.mul"


@irdl_op_definition
class ShlOp(_OverflowOp):
    name = "llvm.shl"


@irdl_op_definition
class TruncOp(xllvm.IntegerConversionOpOverflow):
    """``llvm.trunc`` with no ``overflowFlags`` property unless it has flags: LLVM 19's
    ``llvm.trunc`` has none (LLVM 20 added them), so ``mlir-opt-19`` rejects xDSL's generic
    ``<{overflowFlags = #llvm.overflow<none>}>``."""

    name = "llvm.trunc"

    def __init__(
        self,
        arg: SSAValue,
        res_type: Attribute,
        attributes: dict[str, Attribute] | None = None,
        overflow: xllvm.OverflowAttr | None = None,
    ):
        super().__init__(arg, res_type, attributes or {}, overflow or xllvm.OverflowAttr(None))
        if not self.flags:
            del self.properties["overflowFlags"]

    @property
    def flags(self) -> list[str]:
        return [] if self.overflowFlags is None else [f.value for f in self.overflowFlags.data]


#: xDSL's op classes → the ones of this dialect (convert-to-llvm rebuilds ops earlier passes
#: made with xDSL's classes)
UPSTREAM_CLASSES: dict[type, type] = {
    xllvm.AddOp: AddOp,
    xllvm.SubOp: SubOp,
    xllvm.MulOp: MulOp,
    xllvm.ShlOp: ShlOp,
    xllvm.TruncOp: TruncOp,
}


def upstream_properties(cls: type, properties: dict[str, Attribute]) -> dict[str, Attribute]:
    """``properties`` of an op of xDSL's class for ``UPSTREAM_CLASSES[cls]``."""
    props = dict(properties)
    flags = props.get("overflowFlags")
    if isinstance(flags, IntegerAttr):
        props["overflowFlags"] = xllvm.OverflowAttr.from_int(flags.value.data)
    if cls is xllvm.TruncOp and isinstance(flags, xllvm.OverflowAttr) and not flags.data:
        del props["overflowFlags"]
    return props


OVERFLOW_OPS: dict[str, type[_OverflowOp]] = {
    "add": AddOp,
    "sub": SubOp,
    "mul": MulOp,
    "shl": ShlOp,
}


def _make_dialect() -> Dialect:
    ours: Sequence[type] = [*llvmx.OPS, *OVERFLOW_OPS.values(), TruncOp]
    names = {op.name for op in ours}
    ops = [op for op in xllvm.LLVM.operations if op.name not in names]
    attributes = [
        *xllvm.LLVM.attributes,
        AccessGroupAttr,
        LoopVectorizeAttr,
        LoopInterleaveAttr,
        LoopUnrollAttr,
        LoopAnnotationAttr,
    ]
    return Dialect("llvm", [*ops, *ours], attributes)


LLVM = _make_dialect()
