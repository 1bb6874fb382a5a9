"""Upstream ``vector`` ops that xDSL 0.74's ``vector`` dialect lacks, with upstream's syntax.
Added to xDSL's dialect by ``dialects/xdsl_compat.py`` (``vector_newer_ops``); lowered by
``lower-vector-transfers`` (splat -> broadcast, step -> constant, outerproduct -> broadcast +
arith per row), before ``convert-to-llvm`` and in the interpreter's front end:

    %s = vector.splat %x : vector<4xf32>
    %i = vector.step : vector<4xindex>
    %o = vector.outerproduct %a, %b : vector<4xf32>, vector<8xf32>          // vector<4x8xf32>
    %y = vector.outerproduct %a, %x, %acc {kind = #vector.kind<add>} : vector<4xf32>, f32  // AXPY
    %f = vector.shape_cast %o : vector<4x8xf32> to vector<32xf32>

(an n-D vector reaches no lowering: ``lower-vector-transfers`` flattens a 2-D outer product
that only ``vector.shape_cast`` reads.)
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, IndexType, StringAttr, VectorType
from xdsl.dialects.vector import CombiningKindAttr, CombiningKindFlag
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class SplatOp(IRDLOperation):
    """Every lane of the result is ``input`` (upstream: deprecated for vector.broadcast)."""

    name = "vector.splat"

    input = operand_def(AnyAttr())
    aggregate = result_def(VectorType)

    traits = traits_def(Pure())

    def __init__(self, value: SSAValue, t: VectorType) -> None:
        super().__init__(operands=[value], result_types=[t])

    def verify_(self) -> None:
        if self.input.type != self.aggregate.type.element_type:  # type: ignore[attr-defined]
            raise VerifyException("vector.splat: operand type must be the element type")

    @classmethod
    def parse(cls, parser: Parser) -> SplatOp:
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, VectorType):
            parser.raise_error(f"vector.splat: expected a vector type, got {t}")
        op = cls(parser.resolve_operand(value, t.element_type), t)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.aggregate.type)


@irdl_op_definition
class StepOp(IRDLOperation):
    """``[0, 1, ..., n-1]`` as a ``vector<nxindex>``."""

    name = "vector.step"

    result = result_def(VectorType[IndexType])

    traits = traits_def(Pure())

    assembly_format = "attr-dict `:` type($result)"

    def verify_(self) -> None:
        if self.result.type.get_num_dims() != 1:  # type: ignore[attr-defined]
            raise VerifyException("vector.step: the result must be a 1-D vector")


@irdl_op_definition
class OuterProductOp(IRDLOperation):
    """``lhs`` ⊗ ``rhs`` (a 2-D vector), or ``lhs * rhs`` for a scalar ``rhs`` (AXPY),
    combined with ``acc`` by ``kind`` (default add) when given."""

    name = "vector.outerproduct"

    lhs = operand_def(VectorType)
    rhs = operand_def(AnyAttr())
    acc = opt_operand_def(VectorType)
    kind = opt_prop_def(CombiningKindAttr)
    result = result_def(VectorType)

    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue, acc: SSAValue | None,
                 kind: CombiningKindAttr | None, t: Attribute) -> None:
        super().__init__(operands=[lhs, rhs, acc], result_types=[t],
                         properties={"kind": kind} if kind is not None else {})

    def combining_kind(self) -> str:
        return self.kind.data.value if self.kind is not None else "add"

    @staticmethod
    def result_type(lhs: Attribute, rhs: Attribute) -> VectorType:
        assert isinstance(lhs, VectorType)
        if isinstance(rhs, VectorType):
            return VectorType(lhs.element_type, [lhs.get_shape()[0], rhs.get_shape()[0]])
        return lhs

    def verify_(self) -> None:
        lt = self.lhs.type
        assert isinstance(lt, VectorType)
        rt = self.rhs.type
        elem = rt.element_type if isinstance(rt, VectorType) else rt
        if lt.get_num_dims() != 1 or elem != lt.element_type:
            raise VerifyException("vector.outerproduct: lhs must be a 1-D vector and rhs a "
                                  "1-D vector or scalar of its element type")
        if self.result.type != self.result_type(lt, rt):
            raise VerifyException(f"vector.outerproduct: expected result type "
                                  f"{self.result_type(lt, rt)}")

    @classmethod
    def parse(cls, parser: Parser) -> OuterProductOp:
        names = parser.parse_comma_separated_list(parser.Delimiter.NONE,
                                                  parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        lt = parser.parse_type()
        parser.parse_punctuation(",")
        rt = parser.parse_type()
        if not isinstance(lt, VectorType) or len(names) not in (2, 3):
            parser.raise_error("vector.outerproduct: expected `%lhs, %rhs[, %acc] : "
                               "vector<..>, vector<..> | scalar`")
        t = cls.result_type(lt, rt)
        lhs = parser.resolve_operand(names[0], lt)
        rhs = parser.resolve_operand(names[1], rt)
        acc = parser.resolve_operand(names[2], t) if len(names) == 3 else None
        kind = attrs.pop("kind", None)
        if kind is not None and not isinstance(kind, CombiningKindAttr):
            parser.raise_error(f"vector.outerproduct: bad kind {kind}")
        op = cls(lhs, rhs, acc, kind, t)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.lhs, self.rhs, *([self.acc] if self.acc else [])],
                           printer.print_operand)
        attrs = dict(self.attributes)
        if self.kind is not None and self.kind.data != CombiningKindFlag.ADD:
            attrs["kind"] = self.kind
        printer.print_op_attributes(attrs)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)
        printer.print_string(", ")
        printer.print_attribute(self.rhs.type)


@irdl_op_definition
class ShapeCastOp(IRDLOperation):
    """The same elements (row-major) in another shape of as many."""

    name = "vector.shape_cast"

    source = operand_def(VectorType)
    result = result_def(VectorType)

    traits = traits_def(Pure())

    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"

    def __init__(self, source: SSAValue, t: VectorType) -> None:
        super().__init__(operands=[source], result_types=[t])

    def verify_(self) -> None:
        src, res = self.source.type, self.result.type
        assert isinstance(src, VectorType) and isinstance(res, VectorType)
        if src.element_type != res.element_type or \
                src.element_count() != res.element_count():
            raise VerifyException(f"vector.shape_cast: {src} and {res} differ in element "
                                  "type or count")


@irdl_op_definition
class ContractOp(IRDLOperation):
    """Upstream ``vector.contract``: products of ``lhs`` and ``rhs`` elements, reduced over the
    ``reduction`` iterators by ``kind`` (default add) into ``acc``; ``indexing_maps`` map the
    iteration space to each operand. Upstream's custom syntax (iterator types as strings)::

        %r = vector.contract {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
          affine_map<(i) -> ()>], iterator_types = ["reduction"], kind = #vector.kind<add>}
          %a, %b, %acc : vector<4xf32>, vector<4xf32> into f32

    Lowered by ``lower-vector-contract`` (1-D operands; an n-D one is refused there)."""

    name = "vector.contract"

    lhs = operand_def(VectorType)
    rhs = operand_def(VectorType)
    acc = operand_def(AnyAttr())
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    iterator_types = prop_def(ArrayAttr[StringAttr])
    kind = opt_prop_def(CombiningKindAttr)
    result = result_def(AnyAttr())

    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue, acc: SSAValue,
                 maps: ArrayAttr[AffineMapAttr], iterators: ArrayAttr[StringAttr],
                 kind: CombiningKindAttr | None) -> None:
        props: dict[str, Attribute] = {"indexing_maps": maps, "iterator_types": iterators}
        if kind is not None:
            props["kind"] = kind
        super().__init__(operands=[lhs, rhs, acc], result_types=[acc.type], properties=props)

    def combining_kind(self) -> str:
        return self.kind.data.value if self.kind is not None else "add"

    def verify_(self) -> None:
        its = [s.data for s in self.iterator_types.data]
        if any(s not in ("parallel", "reduction") for s in its):
            raise VerifyException(f"vector.contract: iterator types must be parallel or "
                                  f"reduction, got {its}")
        maps = [m.data for m in self.indexing_maps.data]
        if len(maps) != 3:
            raise VerifyException("vector.contract: expected 3 indexing maps (lhs, rhs, acc)")
        sizes: dict[int, int] = {}
        for what, v, m in zip(("lhs", "rhs", "acc"), (self.lhs, self.rhs, self.acc), maps,
                              strict=True):
            shape = v.type.get_shape() if isinstance(v.type, VectorType) else ()
            if m.num_dims != len(its) or m.num_symbols or len(m.results) != len(shape):
                raise VerifyException(f"vector.contract: the {what} map {m} does not fit "
                                      f"{len(its)} iterators and {v.type}")
            for e, n in zip(m.results, shape, strict=True):
                if not isinstance(e, AffineDimExpr):
                    raise VerifyException(f"vector.contract: the {what} map {m} must be a "
                                          "projected permutation")
                if sizes.setdefault(e.position, n) != n:
                    raise VerifyException(f"vector.contract: iterator d{e.position} has "
                                          f"sizes {sizes[e.position]} and {n}")
        if self.result.type != self.acc.type:
            raise VerifyException("vector.contract: the result type must be the acc type")

    @classmethod
    def parse(cls, parser: Parser) -> ContractOp:
        attrs = parser.parse_optional_attr_dict()
        names = parser.parse_comma_separated_list(parser.Delimiter.NONE,
                                                  parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        lt = parser.parse_type()
        parser.parse_punctuation(",")
        rt = parser.parse_type()
        parser.parse_keyword("into")
        at = parser.parse_type()
        maps, its = attrs.pop("indexing_maps", None), attrs.pop("iterator_types", None)
        kind = attrs.pop("kind", None)
        if len(names) != 3 or not isinstance(maps, ArrayAttr) or not isinstance(its, ArrayAttr):
            parser.raise_error("vector.contract: expected `{indexing_maps = [...], "
                               "iterator_types = [...]} %lhs, %rhs, %acc : T, T into T`")
        if kind is not None and not isinstance(kind, CombiningKindAttr):
            parser.raise_error(f"vector.contract: bad kind {kind}")
        op = cls(parser.resolve_operand(names[0], lt), parser.resolve_operand(names[1], rt),
                 parser.resolve_operand(names[2], at), maps, its, kind)  # type: ignore[arg-type]
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        attrs: dict[str, Attribute] = {"indexing_maps": self.indexing_maps,
                                       "iterator_types": self.iterator_types,
                                       "kind": self.kind or CombiningKindAttr(
                                           CombiningKindFlag.ADD)}
        printer.print_op_attributes({**attrs, **self.attributes})
        printer.print_string(" ")
        printer.print_list([self.lhs, self.rhs, self.acc], printer.print_operand)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)
        printer.print_string(", ")
        printer.print_attribute(self.rhs.type)
        printer.print_string(" into ")
        printer.print_attribute(self.acc.type)


VECTOR_NEWER_OPS = (SplatOp, StepOp, OuterProductOp, ShapeCastOp, ContractOp)
