"""Upstream MLIR's warp-level matrix ops (``gpu.subgroup_mma_*``) and ``!gpu.mma_matrix``.

The syntax is the one ``mlir-opt`` (LLVM 19 and newer) prints; ``dialects/gpu.py`` adds these
ops and the type to xmux's ``gpu`` dialect. A ``!gpu.mma_matrix<MxNxT, "AOp"|"BOp"|"COp">`` is
one matrix held jointly by the 32 work-items of a sub-group (a warp): no work-item sees all of
it; the ops below are executed by the whole sub-group together::

    %a = gpu.subgroup_mma_load_matrix %src[%i, %j] {leadDimension = 32 : index}
           : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %c = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">
    %d = gpu.subgroup_mma_compute %a, %b, %c {b_transpose}
           : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp">
           -> !gpu.mma_matrix<16x16xf32, "COp">
    %e = gpu.subgroup_mma_elementwise addf %d, %c : (!gpu.mma_matrix<16x16xf32, "COp">,
           !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %e, %dst[%i, %j] {leadDimension = 32 : index}
           : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>

Element (r, c) of a loaded matrix is ``src[i, j]``'s element plus ``r * leadDimension + c``
in the memref's linear order (``transpose``: plus ``c * leadDimension + r``, column-major).
``compute`` is ``A x B + C``; ``a_transpose`` / ``b_transpose`` say the operand was loaded
with ``transpose`` (on NVIDIA GPUs they select the fragment's column-major layout).
Lowered by ``lower-subgroup-mma`` (CPU) and ``lower-subgroup-mma-nvptx`` (WMMA).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    param_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

#: Operand kinds of a matrix: the left and right factors and the accumulator.
OPERANDS = ("AOp", "BOp", "COp")


@irdl_attr_definition
class MMAMatrixType(ParametrizedAttribute, TypeAttribute):
    """``!gpu.mma_matrix<16x16xf16, "AOp">``: a matrix held by a sub-group."""

    name = "gpu.mma_matrix"
    shape: ArrayAttr[IntAttr] = param_def()
    element_type: Attribute = param_def()
    operand: StringAttr = param_def()

    def __init__(self, shape: tuple[int, int] | list[int], element_type: Attribute,
                 operand: str) -> None:
        super().__init__(ArrayAttr([IntAttr(d) for d in shape]), element_type,
                         StringAttr(operand))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[Attribute, ...]:
        with parser.in_angle_brackets():
            pos = parser.pos
            dims, elem = parser.parse_ranked_shape()
            if len(dims) != 2 or min(dims) < 1:
                parser.raise_error("!gpu.mma_matrix needs a static 2-D shape", pos, parser.pos)
            parser.parse_punctuation(",")
            pos = parser.pos
            operand = parser.parse_str_literal()
            if operand not in OPERANDS:
                parser.raise_error(
                    f'!gpu.mma_matrix operand must be "AOp", "BOp" or "COp", got "{operand}"',
                    pos, parser.pos)
        return ArrayAttr([IntAttr(d) for d in dims]), elem, StringAttr(operand)

    def print_parameters(self, printer: Printer) -> None:
        dims = "x".join(str(d.data) for d in self.shape.data)
        printer.print_string(f"<{dims}x")
        printer.print_attribute(self.element_type)
        printer.print_string(f', "{self.operand.data}">')

    def verify(self) -> None:
        if not isinstance(self.element_type, AnyFloat | IntegerType):
            raise VerifyException(
                f"!gpu.mma_matrix elements must be floats or integers, got {self.element_type}")
        if self.operand.data not in OPERANDS:
            raise VerifyException(f'!gpu.mma_matrix operand "{self.operand.data}"')

    @property
    def dims(self) -> tuple[int, int]:
        m, n = (d.data for d in self.shape.data)
        return m, n

    @property
    def kind(self) -> str:
        return self.operand.data


class MMAElementwiseOp(StrEnum):
    """Upstream's ``gpu::MMAElementwiseOp``."""

    ADDF = "addf"
    MULF = "mulf"
    SUBF = "subf"
    MAXF = "maxf"
    MINF = "minf"
    DIVF = "divf"
    ADDI = "addi"
    MULI = "muli"
    SUBI = "subi"
    DIVS = "divs"
    DIVU = "divu"
    NEGATEF = "negatef"
    NEGATES = "negates"
    EXTF = "extf"


#: The elementwise kinds taking one operand.
UNARY_ELEMENTWISE = frozenset({MMAElementwiseOp.NEGATEF, MMAElementwiseOp.NEGATES,
                               MMAElementwiseOp.EXTF})


@irdl_attr_definition
class MMAElementwiseOpAttr(EnumAttribute[MMAElementwiseOp], SpacedOpaqueSyntaxAttribute):
    """``#gpu<mma_element_wise addf>``."""

    name = "gpu.mma_element_wise"


def _where(op: Operation) -> str:
    """`` in @f``: the enclosing function (``gpu.func`` keeps its name in attributes)."""
    f = op.parent_op()
    while f is not None and f.name not in ("gpu.func", "func.func"):
        f = f.parent_op()
    if f is None:
        return ""
    name = f.properties.get("sym_name") or f.attributes.get("sym_name")
    return f" in @{name.data}" if isinstance(name, StringAttr) else ""


def _error(op: Operation, message: str) -> VerifyException:
    return VerifyException(f"'{op.name}'{_where(op)}: {message}")


def _check_memref(op: Operation, ref: SSAValue, indices: tuple[SSAValue, ...],
                  elem: Attribute) -> None:
    t = ref.type
    assert isinstance(t, MemRefType)
    if len(indices) != len(t.shape.data):
        raise _error(op, f"{len(indices)} indices for a rank-{len(t.shape.data)} memref")
    if t.element_type != elem:
        raise _error(op, f"memref element type {t.element_type} differs from the matrix's "
                         f"{elem}")


@irdl_op_definition
class SubgroupMmaLoadMatrixOp(IRDLOperation):
    """``gpu.subgroup_mma_load_matrix %src[%i, %j] {leadDimension = L : index
    [, transpose]} : memref<...> -> !gpu.mma_matrix<...>``."""

    name = "gpu.subgroup_mma_load_matrix"
    srcMemref = operand_def(MemRefType)  # noqa: N815 - upstream's names
    indices = var_operand_def(IndexType)
    leadDimension = prop_def(IntegerAttr[IndexType])  # noqa: N815
    transpose = opt_prop_def(UnitAttr)
    res = result_def(MMAMatrixType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$srcMemref `[` $indices `]` attr-dict `:` type($srcMemref) `->` type($res)"
    )

    def verify_(self) -> None:
        t = self.res.type
        assert isinstance(t, MMAMatrixType)
        _check_memref(self, self.srcMemref, tuple(self.indices), t.element_type)
        if self.leadDimension.value.data < 1:
            raise _error(self, "leadDimension must be positive")


@irdl_op_definition
class SubgroupMmaStoreMatrixOp(IRDLOperation):
    """``gpu.subgroup_mma_store_matrix %m, %dst[%i, %j] {leadDimension = L : index
    [, transpose]} : !gpu.mma_matrix<..., "COp">, memref<...>``."""

    name = "gpu.subgroup_mma_store_matrix"
    src = operand_def(MMAMatrixType)
    dstMemref = operand_def(MemRefType)  # noqa: N815 - upstream's names
    indices = var_operand_def(IndexType)
    leadDimension = prop_def(IntegerAttr[IndexType])  # noqa: N815
    transpose = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src `,` $dstMemref `[` $indices `]` attr-dict `:` type($src) `,` type($dstMemref)"
    )

    def verify_(self) -> None:
        t = self.src.type
        assert isinstance(t, MMAMatrixType)
        if t.kind != "COp":
            raise _error(self, f'stores "COp" matrices, got "{t.kind}"')
        _check_memref(self, self.dstMemref, tuple(self.indices), t.element_type)
        if self.leadDimension.value.data < 1:
            raise _error(self, "leadDimension must be positive")


@irdl_op_definition
class SubgroupMmaComputeOp(IRDLOperation):
    """``gpu.subgroup_mma_compute %a, %b, %c [{a_transpose, b_transpose}] : !gpu.mma_matrix
    <MxK, "AOp">, !gpu.mma_matrix<KxN, "BOp"> -> !gpu.mma_matrix<MxN, "COp">``: A x B + C."""

    name = "gpu.subgroup_mma_compute"
    T: ClassVar = VarConstraint("T", AnyAttr())
    opA = operand_def(MMAMatrixType)  # noqa: N815 - upstream's names
    opB = operand_def(MMAMatrixType)  # noqa: N815
    opC = operand_def(T)  # noqa: N815
    a_transpose = opt_prop_def(UnitAttr)
    b_transpose = opt_prop_def(UnitAttr)
    res = result_def(T)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$opA `,` $opB `,` $opC attr-dict `:` type($opA) `,` type($opB) `->` type($res)"
    )

    def verify_(self) -> None:
        a, b, c = self.opA.type, self.opB.type, self.opC.type
        if not isinstance(c, MMAMatrixType):
            raise _error(self, f"the accumulator must be a !gpu.mma_matrix, got {c}")
        assert isinstance(a, MMAMatrixType) and isinstance(b, MMAMatrixType)
        if (a.kind, b.kind, c.kind) != OPERANDS:
            raise _error(self, f'operands must be "AOp", "BOp", "COp", got "{a.kind}", '
                               f'"{b.kind}", "{c.kind}"')
        (m, k), (k2, n), (m2, n2) = a.dims, b.dims, c.dims
        if k != k2 or m != m2 or n != n2:
            raise _error(self, f"shapes {m}x{k} x {k2}x{n} + {m2}x{n2} do not match")
        if a.element_type != b.element_type:
            raise _error(self, f"A and B element types differ: {a.element_type}, "
                               f"{b.element_type}")


@irdl_op_definition
class SubgroupMmaConstantMatrixOp(IRDLOperation):
    """``gpu.subgroup_mma_constant_matrix %v : !gpu.mma_matrix<...>``: every element ``v``."""

    name = "gpu.subgroup_mma_constant_matrix"
    value = operand_def(AnyFloat | IntegerType)
    res = result_def(MMAMatrixType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> SubgroupMmaConstantMatrixOp:
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        if not isinstance(t, MMAMatrixType):
            parser.raise_error(f"expected a !gpu.mma_matrix type, got {t}", pos, parser.pos)
        v = parser.resolve_operand(value, t.element_type)
        return cls.create(operands=[v], result_types=[t], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.res.type)

    def verify_(self) -> None:
        t = self.res.type
        assert isinstance(t, MMAMatrixType)
        if self.value.type != t.element_type:
            raise _error(self, f"value of type {self.value.type} for a matrix of "
                               f"{t.element_type}")


@irdl_op_definition
class SubgroupMmaElementwiseOp(IRDLOperation):
    """``gpu.subgroup_mma_elementwise addf %a, %b : (!gpu.mma_matrix<...>, ...) ->
    !gpu.mma_matrix<...>``: the op on every element (``extf`` widens the elements)."""

    name = "gpu.subgroup_mma_elementwise"
    opType = prop_def(MMAElementwiseOpAttr)  # noqa: N815 - upstream's name
    args = var_operand_def(MMAMatrixType)
    res = result_def(MMAMatrixType)
    traits = traits_def(Pure())
    assembly_format = "$opType $args attr-dict `:` functional-type($args, $res)"

    def verify_(self) -> None:
        kind = self.opType.data
        want = 1 if kind in UNARY_ELEMENTWISE else 2
        if len(self.args) != want:
            raise _error(self, f"{kind.value} takes {want} operands, got {len(self.args)}")
        r = self.res.type
        assert isinstance(r, MMAMatrixType)
        for a in self.args:
            t = a.type
            assert isinstance(t, MMAMatrixType)
            if t.dims != r.dims or t.kind != r.kind:
                raise _error(self, f"operand {t} and result {r} differ in shape or operand")
            if kind != MMAElementwiseOp.EXTF and t.element_type != r.element_type:
                raise _error(self, f"operand {t} and result {r} differ in element type")
        float_kinds = {"addf", "mulf", "subf", "maxf", "minf", "divf", "negatef", "extf"}
        if (kind.value in float_kinds) != isinstance(r.element_type, AnyFloat):
            raise _error(self, f"{kind.value} on {r.element_type} elements")


MMA_OPS: list[type[IRDLOperation]] = [
    SubgroupMmaLoadMatrixOp, SubgroupMmaStoreMatrixOp, SubgroupMmaComputeOp,
    SubgroupMmaConstantMatrixOp, SubgroupMmaElementwiseOp,
]
MMA_ATTRS: list[type[Attribute]] = [MMAMatrixType, MMAElementwiseOpAttr]
