"""The upstream MLIR ``llvm.*`` ops that xDSL 0.74's ``llvm`` dialect lacks.

``dialects/llvm.py`` adds them to xDSL's ops in the ``llvm`` dialect xmux registers in place
of xDSL's (the module keeps its historical name: passes build ``llvmx.FenceOp`` etc.). Each op
mirrors its upstream namesake: same name, operands and properties (orderings and the atomic
binary operation are ``i64`` enum values, as in upstream's generic form) and custom syntax::

    %old = llvm.atomicrmw add %p, %v monotonic : !llvm.ptr, i32
    %res = llvm.cmpxchg weak %p, %cmp, %new acq_rel monotonic : !llvm.ptr, i32
    llvm.fence syncscope("singlethread") release
    llvm.switch %x : i32, ^default(%a : i32) [
      0: ^bb1,
      -3: ^bb2(%b : i64)
    ]
    %f = llvm.uitofp %i : i32 to f32
    %i = llvm.fptosi %f : f32 to i32
    %u = llvm.fptoui %f : vector<4xf32> to vector<4xi32>
    %e = llvm.extractelement %vec[%idx : i32] : vector<4xf32>
    %g = llvm.addrspacecast %p : !llvm.ptr<3> to !llvm.ptr

(``llvm.uitofp nneg`` is LLVM 20's form: mlir-opt-19 has no ``nneg`` there, and xmux's
lowering does not write it.) ``runtime/emit.py`` translates them to LLVM IR. At the end, the
upstream conventions that both passes and the lowering build with (the NVVM kernel marker,
MLIR's memref descriptor): a pass may not import the lowering.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    AnyFloatConstr,
    ArrayAttr,
    DenseArrayBase,
    DenseIntElementsAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    SignlessIntegerConstraint,
    StringAttr,
    UnitAttr,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.dialects.llvm import LLVMArrayType, LLVMPointerType, LLVMStructType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrConstraint,
    AttrSizedOperandSegments,
    ConstraintContext,
    InferenceContext,
    IRDLOperation,
    ParsePropInAttrDict,
    RangeOf,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    successor_def,
    traits_def,
    var_operand_def,
    var_successor_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    VariadicSuccessorVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

# ---------------------------------------------------------------------------------------
# Enums (upstream's I64EnumAttr values: the generic form stores these integers)
# ---------------------------------------------------------------------------------------

ATOMIC_ORDERINGS: dict[int, str] = {
    0: "not_atomic",
    1: "unordered",
    2: "monotonic",
    4: "acquire",
    5: "release",
    6: "acq_rel",
    7: "seq_cst",
}
ORDERING_VALUES: dict[str, int] = {v: k for k, v in ATOMIC_ORDERINGS.items()}

ATOMIC_BIN_OPS: dict[int, str] = {
    0: "xchg",
    1: "add",
    2: "sub",
    3: "and",
    4: "nand",
    5: "or",
    6: "xor",
    7: "max",
    8: "min",
    9: "umax",
    10: "umin",
    11: "fadd",
    12: "fsub",
    13: "fmax",
    14: "fmin",
    15: "uinc_wrap",
    16: "udec_wrap",
}
BIN_OP_VALUES: dict[str, int] = {v: k for k, v in ATOMIC_BIN_OPS.items()}
_FLOAT_BIN_OPS = frozenset({"fadd", "fsub", "fmax", "fmin"})


def ordering_attr(ordering: str | int) -> IntegerAttr:
    """The i64 property value of an atomic ordering given by keyword or number."""
    value = ORDERING_VALUES[ordering] if isinstance(ordering, str) else ordering
    if value not in ATOMIC_ORDERINGS:
        raise ValueError(f"unknown atomic ordering {ordering!r}")
    return IntegerAttr(value, i64)


def ordering_name(attr: IntegerAttr) -> str:
    return ATOMIC_ORDERINGS[attr.value.data]


def _enum_value(attr: Attribute | None, table: Mapping[int, str], what: str, op: str) -> str:
    if not isinstance(attr, IntegerAttr) or attr.value.data not in table:
        raise VerifyException(f"{op}: invalid {what} {attr}")
    return table[attr.value.data]


class _KeywordEnum(CustomDirective):
    """Prints an i64 enum property as its keyword (``monotonic``), like upstream's enums."""

    TABLE: ClassVar[Mapping[int, str]]
    WHAT: ClassVar[str]

    attr: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        values = {v: k for k, v in self.TABLE.items()}
        pos = parser.pos
        kw = parser.parse_optional_keyword_in(tuple(values))
        if kw is None:
            parser.raise_error(
                f"expected {self.WHAT} (one of {', '.join(values)})", pos, parser.pos
            )
        self.attr.set(state, IntegerAttr(values[kw], i64))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        attr = self.attr.get(op)
        state.print_whitespace(printer)
        if isinstance(attr, IntegerAttr) and attr.value.data in self.TABLE:
            printer.print_string(self.TABLE[attr.value.data])
        else:  # unverified op: still print something the reader can see
            printer.print_string(f"<invalid {self.WHAT} {attr}>")


@irdl_custom_directive
class AtomicOrdering(_KeywordEnum):
    TABLE = ATOMIC_ORDERINGS
    WHAT = "atomic ordering"

    attr: AttributeVariable


@irdl_custom_directive
class AtomicBinOp(_KeywordEnum):
    TABLE = ATOMIC_BIN_OPS
    WHAT = "atomic binary operation"

    attr: AttributeVariable


def _scalar(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


# ---------------------------------------------------------------------------------------
# Atomics
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """Atomic read-modify-write; the result is the old value (upstream ``llvm.atomicrmw``)."""

    name = "llvm.atomicrmw"

    T: ClassVar = VarConstraint("T", AnyAttr())

    ptr = operand_def(LLVMPointerType)
    val = operand_def(T)
    res = result_def(T)

    bin_op = prop_def(IntegerAttr[I64])
    ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)
    alignment = opt_prop_def(IntegerAttr[I64])
    volatile_ = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    custom_directives = (AtomicBinOp, AtomicOrdering)
    assembly_format = (
        "(`volatile` $volatile_^)? custom<AtomicBinOp>($bin_op) $ptr `,` $val"
        " (`syncscope` `(` $syncscope^ `)`)? custom<AtomicOrdering>($ordering)"
        " attr-dict `:` type($ptr) `,` type($val)"
    )

    def __init__(
        self,
        bin_op: str,
        ptr: SSAValue | Operation,
        val: SSAValue | Operation,
        ordering: str | int,
        *,
        syncscope: str | None = None,
        alignment: int | None = None,
        volatile: bool = False,
    ):
        if bin_op not in BIN_OP_VALUES:
            raise ValueError(f"unknown atomicrmw operation {bin_op!r}")
        super().__init__(
            operands=[ptr, val],
            result_types=[SSAValue.get(val).type],
            properties={
                "bin_op": IntegerAttr(BIN_OP_VALUES[bin_op], i64),
                "ordering": ordering_attr(ordering),
                "syncscope": StringAttr(syncscope) if syncscope is not None else None,
                "alignment": IntegerAttr(alignment, i64) if alignment is not None else None,
                "volatile_": UnitAttr() if volatile else None,
            },
        )

    @property
    def bin_op_name(self) -> str:
        return ATOMIC_BIN_OPS[self.bin_op.value.data]

    def verify_(self) -> None:
        op = _enum_value(self.bin_op, ATOMIC_BIN_OPS, "atomic binary operation", self.name)
        ordering = _enum_value(self.ordering, ATOMIC_ORDERINGS, "atomic ordering", self.name)
        if ordering in ("not_atomic", "unordered"):
            raise VerifyException(f"{self.name}: ordering must be at least 'monotonic'")
        t = self.val.type
        if op in _FLOAT_BIN_OPS:
            if not _is_float(_scalar(t)):
                raise VerifyException(f"{self.name} {op}: expected a floating point type, got {t}")
        elif op == "xchg":
            if not (_is_int(t) or _is_float(t) or isinstance(t, LLVMPointerType)):
                raise VerifyException(
                    f"{self.name} xchg: expected an integer, float or pointer type, got {t}"
                )
        elif not _is_int(t):
            raise VerifyException(f"{self.name} {op}: expected an integer type, got {t}")


@dataclass(frozen=True)
class _CmpXchgResult(AttrConstraint[LLVMStructType]):
    """``!llvm.struct<(T, i1)>`` where T is the compared type (so the result is inferred)."""

    value_constr: AttrConstraint

    def verify(self, attr: Attribute, constraint_context: ConstraintContext) -> None:
        if not isinstance(attr, LLVMStructType) or len(attr.types.data) != 2:
            raise VerifyException(f"expected !llvm.struct<(T, i1)>, got {attr}")
        self.value_constr.verify(attr.types.data[0], constraint_context)
        if attr.types.data[1] != i1:
            raise VerifyException(f"expected !llvm.struct<(T, i1)>, got {attr}")

    def can_infer(self, var_constraint_names: AbstractSet[str]) -> bool:
        return self.value_constr.can_infer(var_constraint_names)

    def infer(self, context: InferenceContext) -> LLVMStructType:
        return LLVMStructType.from_type_list([self.value_constr.infer(context), i1])

    def mapping_type_vars(self, type_var_mapping: Mapping[TypeVar, AttrConstraint]):
        return _CmpXchgResult(self.value_constr.mapping_type_vars(type_var_mapping))


@irdl_op_definition
class AtomicCmpXchgOp(IRDLOperation):
    """Atomic compare-and-exchange returning ``{old, success}`` (upstream ``llvm.cmpxchg``).

    Operands are named as upstream: ``val`` is the expected (compared) value, ``new`` the
    replacement.
    """

    name = "llvm.cmpxchg"

    T: ClassVar = VarConstraint("T", AnyAttr())

    ptr = operand_def(LLVMPointerType)
    val = operand_def(T)
    new = operand_def(T)
    res = result_def(_CmpXchgResult(T))

    success_ordering = prop_def(IntegerAttr[I64])
    failure_ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)
    alignment = opt_prop_def(IntegerAttr[I64])
    weak = opt_prop_def(UnitAttr)
    volatile_ = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    custom_directives = (AtomicOrdering,)
    assembly_format = (
        "(`weak` $weak^)? (`volatile` $volatile_^)? $ptr `,` $val `,` $new"
        " (`syncscope` `(` $syncscope^ `)`)?"
        " custom<AtomicOrdering>($success_ordering) custom<AtomicOrdering>($failure_ordering)"
        " attr-dict `:` type($ptr) `,` type($val)"
    )

    def __init__(
        self,
        ptr: SSAValue | Operation,
        cmp: SSAValue | Operation,
        new: SSAValue | Operation,
        success_ordering: str | int,
        failure_ordering: str | int,
        *,
        weak: bool = False,
        syncscope: str | None = None,
        alignment: int | None = None,
        volatile: bool = False,
    ):
        t = SSAValue.get(cmp).type
        super().__init__(
            operands=[ptr, cmp, new],
            result_types=[LLVMStructType.from_type_list([t, i1])],
            properties={
                "success_ordering": ordering_attr(success_ordering),
                "failure_ordering": ordering_attr(failure_ordering),
                "syncscope": StringAttr(syncscope) if syncscope is not None else None,
                "alignment": IntegerAttr(alignment, i64) if alignment is not None else None,
                "weak": UnitAttr() if weak else None,
                "volatile_": UnitAttr() if volatile else None,
            },
        )

    @property
    def cmp(self) -> SSAValue:
        """The expected value (upstream calls this operand ``val``)."""
        return self.val

    def verify_(self) -> None:
        ok = _enum_value(self.success_ordering, ATOMIC_ORDERINGS, "success ordering", self.name)
        fail = _enum_value(self.failure_ordering, ATOMIC_ORDERINGS, "failure ordering", self.name)
        for kind, o in (("success", ok), ("failure", fail)):
            if o in ("not_atomic", "unordered"):
                raise VerifyException(f"{self.name}: {kind} ordering must be at least 'monotonic'")
        if fail in ("release", "acq_rel"):
            raise VerifyException(f"{self.name}: failure ordering cannot be '{fail}'")
        t = self.val.type
        if not (_is_int(t) or isinstance(t, LLVMPointerType)):
            raise VerifyException(f"{self.name}: expected an integer or pointer type, got {t}")


@irdl_op_definition
class FenceOp(IRDLOperation):
    """Memory fence (upstream ``llvm.fence``)."""

    name = "llvm.fence"

    ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)

    irdl_options = (ParsePropInAttrDict(),)
    custom_directives = (AtomicOrdering,)
    assembly_format = (
        "(`syncscope` `(` $syncscope^ `)`)? custom<AtomicOrdering>($ordering) attr-dict"
    )

    def __init__(self, ordering: str | int, syncscope: str | None = None):
        super().__init__(
            properties={
                "ordering": ordering_attr(ordering),
                "syncscope": StringAttr(syncscope) if syncscope else None,
            }
        )

    def verify_(self) -> None:
        o = _enum_value(self.ordering, ATOMIC_ORDERINGS, "atomic ordering", self.name)
        if o not in ("acquire", "release", "acq_rel", "seq_cst"):
            raise VerifyException(
                f"{self.name}: ordering must be acquire, release, acq_rel or seq_cst, got '{o}'"
            )


# ---------------------------------------------------------------------------------------
# Switch
# ---------------------------------------------------------------------------------------


@irdl_custom_directive
class SwitchOpCases(CustomDirective):
    """Upstream's ``custom<SwitchOpCases>``: ``[ 1: ^bb1(%a : i32), 2: ^bb2 ]``."""

    value_type: TypeDirective
    case_values: AttributeVariable
    case_destinations: VariadicSuccessorVariable
    case_operands: VariadicOperandVariable
    case_operand_types: TypeDirective
    case_operand_segments: AttributeVariable

    @staticmethod
    def _parse_case(
        parser: Parser,
    ) -> tuple[int, Block, Sequence[UnresolvedOperand], Sequence[Attribute]]:
        value = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        block = parser.parse_successor()
        operands: Sequence[UnresolvedOperand] = ()
        types: Sequence[Attribute] = ()
        if parser.parse_optional_punctuation("(") is not None:
            operands = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
        return value, block, operands, types

    def parse(self, parser: Parser, state: ParsingState) -> None:
        parser.parse_punctuation("[")
        cases = []
        if parser.parse_optional_punctuation("]") is None:
            cases = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, lambda: self._parse_case(parser)
            )
            parser.parse_punctuation("]")
        self.case_operand_segments.set(
            state, DenseArrayBase.from_list(i32, [len(c[2]) for c in cases])
        )
        if cases:
            value_type = state.operand_types[0]
            assert value_type is not None
            self.case_values.set(
                state,
                DenseIntElementsAttr.from_list(
                    VectorType(value_type[0], (len(cases),)), [c[0] for c in cases]
                ),
            )
        self.case_destinations.set(state, [c[1] for c in cases])
        self.case_operands.set(state, [o for c in cases for o in c[2]])
        self.case_operand_types.set(state, [t for c in cases for t in c[3]])

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        assert isinstance(op, SwitchOp)
        state.print_whitespace(printer)
        printer.print_string("[")
        with printer.indented():
            for i, (value, dest, operands) in enumerate(op.cases()):
                printer.print_string(",\n" if i else "\n")
                printer.print_string(f"{value}: ")
                printer.print_block_name(dest)
                if operands:
                    with printer.in_parens():
                        printer.print_list(operands, printer.print_operand)
                        printer.print_string(" : ")
                        printer.print_list([o.type for o in operands], printer.print_attribute)
        printer.print_string("\n]")


@irdl_op_definition
class SwitchOp(IRDLOperation):
    """Multi-way branch on an integer (upstream ``llvm.switch``)."""

    name = "llvm.switch"

    value = operand_def(SignlessIntegerConstraint)
    defaultOperands = var_operand_def()
    caseOperands = var_operand_def()

    case_values = opt_prop_def(DenseIntElementsAttr)
    case_operand_segments = prop_def(DenseArrayBase.constr(i32))
    branch_weights = opt_prop_def(DenseArrayBase.constr(i32))

    defaultDestination = successor_def()
    caseDestinations = var_successor_def()

    traits = traits_def(IsTerminator())
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    custom_directives = (SwitchOpCases,)
    assembly_format = (
        "$value `:` type($value) `,` $defaultDestination"
        " (`(` $defaultOperands^ `:` type($defaultOperands) `)`)?"
        " custom<SwitchOpCases>(ref(type($value)), $case_values, $caseDestinations,"
        " $caseOperands, type($caseOperands), $case_operand_segments) attr-dict"
    )

    def __init__(
        self,
        value: SSAValue | Operation,
        default: Block,
        default_operands: Sequence[SSAValue | Operation] = (),
        cases: Sequence[tuple[int, Block, Sequence[SSAValue | Operation]]] = (),
    ):
        value_type = SSAValue.get(value).type
        props: dict[str, Attribute] = {
            "case_operand_segments": DenseArrayBase.from_list(i32, [len(c[2]) for c in cases])
        }
        if cases:
            props["case_values"] = DenseIntElementsAttr.from_list(
                VectorType(value_type, (len(cases),)), [c[0] for c in cases]
            )
        super().__init__(
            operands=[value, list(default_operands), [o for c in cases for o in c[2]]],
            properties=props,
            successors=[default, [c[1] for c in cases]],
        )

    def case_value_list(self) -> list[int]:
        return [] if self.case_values is None else [int(v) for v in self.case_values.get_values()]

    def cases(self) -> list[tuple[int, Block, Sequence[SSAValue]]]:
        """(value, destination, operands) for each case, in order."""
        out: list[tuple[int, Block, Sequence[SSAValue]]] = []
        idx = 0
        segments = self.case_operand_segments.get_values()
        # not strict: verify_ reports mismatched lengths, printing must still work before it
        values = self.case_value_list()
        for value, dest, n in zip(values, self.caseDestinations, segments, strict=False):
            out.append((value, dest, self.caseOperands[idx : idx + n]))
            idx += n
        return out

    def verify_(self) -> None:
        values = self.case_value_list()
        segments = self.case_operand_segments.get_values()
        if not len(values) == len(self.caseDestinations) == len(segments):
            raise VerifyException(
                f"{self.name}: {len(values)} case values, {len(self.caseDestinations)} case "
                f"destinations and {len(segments)} operand segments must agree"
            )
        if sum(segments) != len(self.caseOperands):
            raise VerifyException(f"{self.name}: case operand segments do not add up")
        if self.case_values is not None:
            elt = self.case_values.get_element_type()
            if elt != self.value.type:
                raise VerifyException(
                    f"{self.name}: case values have type {elt}, "
                    f"the switched value {self.value.type}"
                )
        if len(set(values)) != len(values):
            raise VerifyException(f"{self.name}: duplicate case values")
        succ = [(self.defaultDestination, self.defaultOperands)]
        succ += [(d, ops) for _, d, ops in self.cases()]
        for dest, ops in succ:
            want = [a.type for a in dest.args]
            got = [o.type for o in ops]
            if want != got:
                raise VerifyException(
                    f"{self.name}: branch operands ({', '.join(map(str, got))}) do not match "
                    f"the destination block arguments ({', '.join(map(str, want))})"
                )


# ---------------------------------------------------------------------------------------
# Casts and vector element access
# ---------------------------------------------------------------------------------------


def _verify_cast(op: IRDLOperation, src_float: bool) -> None:
    src, dst = op.operands[0].type, op.results[0].type
    if isinstance(src, VectorType) != isinstance(dst, VectorType) or (
        isinstance(src, VectorType)
        and isinstance(dst, VectorType)
        and src.get_shape() != dst.get_shape()
    ):
        raise VerifyException(f"{op.name}: {src} and {dst} must have the same shape")
    s, d = _scalar(src), _scalar(dst)
    ok = (_is_float(s) and _is_int(d)) if src_float else (_is_int(s) and _is_float(d))
    if not ok:
        want = "floating point to integer" if src_float else "integer to floating point"
        raise VerifyException(f"{op.name}: expected {want}, got {src} to {dst}")


_INT_LIKE = SignlessIntegerConstraint | VectorType.constr(SignlessIntegerConstraint)
_FLOAT_LIKE = AnyFloatConstr | VectorType.constr(AnyFloatConstr)


@irdl_op_definition
class UIToFPOp(IRDLOperation):
    """Unsigned integer to floating point (upstream ``llvm.uitofp``, with ``nneg``)."""

    name = "llvm.uitofp"

    arg = operand_def(_INT_LIKE)
    res = result_def(_FLOAT_LIKE)
    non_neg = opt_prop_def(UnitAttr, prop_name="nonNeg")

    traits = traits_def(NoMemoryEffect())
    assembly_format = "(`nneg` $nonNeg^)? $arg attr-dict `:` type($arg) `to` type($res)"

    def __init__(self, arg: SSAValue | Operation, res_type: Attribute, non_neg: bool = False):
        super().__init__(
            operands=[arg],
            result_types=[res_type],
            properties={"nonNeg": UnitAttr() if non_neg else None},
        )

    def verify_(self) -> None:
        _verify_cast(self, src_float=False)


class _FPToIntOp(IRDLOperation):
    arg = operand_def(_FLOAT_LIKE)
    res = result_def(_INT_LIKE)

    traits = traits_def(NoMemoryEffect())
    assembly_format = "$arg attr-dict `:` type($arg) `to` type($res)"

    def __init__(self, arg: SSAValue | Operation, res_type: Attribute):
        super().__init__(operands=[arg], result_types=[res_type])

    def verify_(self) -> None:
        _verify_cast(self, src_float=True)


@irdl_op_definition
class FPToSIOp(_FPToIntOp):
    """Floating point to signed integer (upstream ``llvm.fptosi``)."""

    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(_FPToIntOp):
    """Floating point to unsigned integer (upstream ``llvm.fptoui``)."""

    name = "llvm.fptoui"


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """One element of a 1-D vector (upstream ``llvm.extractelement``)."""

    name = "llvm.extractelement"

    ELEMENT: ClassVar = VarConstraint("ELEMENT", AnyAttr())

    vector = operand_def(
        VectorType.constr(ELEMENT, shape=ArrayAttr.constr(RangeOf(base(IntAttr)).of_length(1)))
    )
    position = operand_def(SignlessIntegerConstraint)
    res = result_def(ELEMENT)

    traits = traits_def(NoMemoryEffect())
    assembly_format = "$vector `[` $position `:` type($position) `]` attr-dict `:` type($vector)"

    def __init__(self, vector: SSAValue | Operation, position: SSAValue | Operation):
        vtype = SSAValue.get(vector).type
        assert isinstance(vtype, VectorType)
        super().__init__(operands=[vector, position], result_types=[vtype.element_type])

    def verify_(self) -> None:
        assert isinstance(self.vector.type, VectorType)
        if self.vector.type.get_num_scalable_dims():
            raise VerifyException(f"{self.name}: scalable vectors are not supported")


@irdl_op_definition
class AddrSpaceCastOp(IRDLOperation):
    """A pointer into another address space (upstream ``llvm.addrspacecast``): the NVPTX
    target's shared-memory globals (address space 3) become generic pointers."""

    name = "llvm.addrspacecast"

    arg = operand_def(LLVMPointerType)
    res = result_def(LLVMPointerType)

    traits = traits_def(NoMemoryEffect())
    assembly_format = "$arg attr-dict `:` type($arg) `to` type($res)"

    def __init__(self, arg: SSAValue | Operation, res_type: LLVMPointerType):
        super().__init__(operands=[arg], result_types=[res_type])


#: the ops ``dialects/llvm.py`` adds to xDSL's ``llvm`` dialect
OPS: tuple[type[IRDLOperation], ...] = (
    AddrSpaceCastOp,
    AtomicRMWOp,
    AtomicCmpXchgOp,
    FenceOp,
    SwitchOp,
    UIToFPOp,
    FPToSIOp,
    FPToUIOp,
    ExtractElementOp,
)


# ---------------------------------------------------------------------------------------
# Upstream conventions the passes and the lowering share
# ---------------------------------------------------------------------------------------

#: The unit attribute marking an NVPTX kernel (upstream MLIR's name): ``ptx_kernel`` entry.
NVVM_KERNEL = "nvvm.kernel"


def descriptor_type(rank: int) -> LLVMStructType:
    """MLIR's ranked memref descriptor struct: (allocated, aligned, offset, sizes[rank],
    strides[rank]), in elements; rank 0 has no sizes and strides."""
    ptr = LLVMPointerType()
    if rank == 0:
        return LLVMStructType.from_type_list([ptr, ptr, i64])
    arr = LLVMArrayType(rank, i64)
    return LLVMStructType.from_type_list([ptr, ptr, i64, arr, arr])
