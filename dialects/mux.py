"""The ``mux`` dialect: ComputeMux builtins as MLIR ops.

One op per builtin of the Native CPU / ComputeMux interface
(the oneAPI Construction Kit's "SYCL Native CPU Pipeline Passes", section
"Builtins"):

* work-item queries (``mux.get_global_id 0 : index``, ``mux.get_work_dim : i32``, ...),
  and the internal ``mux.set_local_id`` written by work-item-loops;
* memory and control barriers (``mux.mem_barrier``, ``mux.work_group_barrier``,
  ``mux.sub_group_barrier``) with the reference's ``MemScope`` / ``MemSemantics`` enums;
* group collectives for work-group, sub-group and vec-group scope (reduce, inclusive and
  exclusive scan, broadcast, any, all) and sub-group shuffles;
* DMA (``mux.dma_read_1d`` ... ``mux.dma_write_3d``, ``mux.dma_wait``) on ``!mux.event``;
* the host-side ``mux.launch`` used by ``xmux-run``'s host ``@main``.

Kernel *attributes* (``mux.kernel`` etc.) are not defined here: they are plain discardable
attributes on ``func.func`` spelled only in ``dialects/attrs.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    Signedness,
    SymbolRefAttr,
    VectorType,
    i1,
    i32,
)
from xdsl.dialects.utils import BitEnumAttribute, EnumAttribute
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    EqAttrConstraint,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

# =======================================================================================
# Enums: memory scope, memory semantics, group operation kind
# =======================================================================================


class MemScope(StrEnum):
    """``MemScope`` of the reference (values in ``MEM_SCOPE_VALUES``)."""

    CROSS_DEVICE = "cross_device"
    DEVICE = "device"
    WORK_GROUP = "work_group"
    SUB_GROUP = "sub_group"
    WORK_ITEM = "work_item"


MEM_SCOPE_VALUES: dict[MemScope, int] = {
    MemScope.CROSS_DEVICE: 0,
    MemScope.DEVICE: 1,
    MemScope.WORK_GROUP: 2,
    MemScope.SUB_GROUP: 3,
    MemScope.WORK_ITEM: 4,
}


class MemSemantics(StrEnum):
    """Flags of the reference's ``MemSemantics``; ``relaxed`` (0) is the empty set.

    At most one ordering flag (acquire, release, acq_rel, seq_cst) may be set; the memory
    flags form a bitfield.
    """

    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"
    SEQ_CST = "seq_cst"
    SUB_GROUP_MEMORY = "sub_group_memory"
    WORK_GROUP_MEMORY = "work_group_memory"
    CROSS_WORK_GROUP_MEMORY = "cross_work_group_memory"


MEM_SEMANTICS_VALUES: dict[MemSemantics, int] = {
    MemSemantics.ACQUIRE: 0x2,
    MemSemantics.RELEASE: 0x4,
    MemSemantics.ACQ_REL: 0x8,
    MemSemantics.SEQ_CST: 0x10,
    MemSemantics.SUB_GROUP_MEMORY: 0x80,
    MemSemantics.WORK_GROUP_MEMORY: 0x100,
    MemSemantics.CROSS_WORK_GROUP_MEMORY: 0x200,
}
MEM_SEMANTICS_RELAXED = 0x0
MEM_SEMANTICS_ORDERING_MASK = 0x1F

_ORDERINGS = (
    MemSemantics.ACQUIRE,
    MemSemantics.RELEASE,
    MemSemantics.ACQ_REL,
    MemSemantics.SEQ_CST,
)


def llvm_ordering(semantics: int) -> str | None:
    """LLVM atomic ordering of a ``MemSemantics`` value; None for relaxed.

    >>> llvm_ordering(0x8 | 0x100)
    'acq_rel'
    """
    ordering = semantics & MEM_SEMANTICS_ORDERING_MASK
    names = {0x2: "acquire", 0x4: "release", 0x8: "acq_rel", 0x10: "seq_cst"}
    if ordering == MEM_SEMANTICS_RELAXED:
        return None
    if ordering not in names:
        raise ValueError(f"memory semantics {semantics:#x} sets more than one ordering")
    return names[ordering]


class GroupOpKind(StrEnum):
    """Operation of a reduce or scan collective."""

    ADD = "add"
    FADD = "fadd"
    MUL = "mul"
    FMUL = "fmul"
    SMIN = "smin"
    UMIN = "umin"
    FMIN = "fmin"
    SMAX = "smax"
    UMAX = "umax"
    FMAX = "fmax"
    AND = "and"
    OR = "or"
    XOR = "xor"
    LOGICAL_AND = "logical_and"
    LOGICAL_OR = "logical_or"
    LOGICAL_XOR = "logical_xor"


FLOAT_KINDS = frozenset({GroupOpKind.FADD, GroupOpKind.FMUL, GroupOpKind.FMIN, GroupOpKind.FMAX})
LOGICAL_KINDS = frozenset(
    {GroupOpKind.LOGICAL_AND, GroupOpKind.LOGICAL_OR, GroupOpKind.LOGICAL_XOR}
)
INTEGER_KINDS = frozenset(GroupOpKind) - FLOAT_KINDS - LOGICAL_KINDS
_FLOAT_COUNTERPART = {
    GroupOpKind.ADD: GroupOpKind.FADD,
    GroupOpKind.MUL: GroupOpKind.FMUL,
    GroupOpKind.SMIN: GroupOpKind.FMIN,
    GroupOpKind.UMIN: GroupOpKind.FMIN,
    GroupOpKind.SMAX: GroupOpKind.FMAX,
    GroupOpKind.UMAX: GroupOpKind.FMAX,
}


@irdl_attr_definition
class MemScopeAttr(EnumAttribute[MemScope], SpacedOpaqueSyntaxAttribute):
    """``#mux<scope work_group>`` (generic form): the reference's MemScope."""

    name = "mux.scope"

    @property
    def value(self) -> int:
        return MEM_SCOPE_VALUES[self.data]


@irdl_attr_definition(init=False)
class MemSemanticsAttr(BitEnumAttribute[MemSemantics]):
    """``#mux.semantics<acq_rel, work_group_memory>``; ``<relaxed>`` is no flag."""

    name = "mux.semantics"
    none_value = "relaxed"

    @property
    def value(self) -> int:
        return sum(MEM_SEMANTICS_VALUES[f] for f in self.data)

    @staticmethod
    def from_int(value: int) -> MemSemanticsAttr:
        flags = [f for f, v in MEM_SEMANTICS_VALUES.items() if value & v]
        rest = value & ~sum(MEM_SEMANTICS_VALUES.values())
        if rest:
            raise ValueError(f"unknown memory semantics bits {rest:#x}")
        return MemSemanticsAttr(flags)

    def print_parameter(self, printer: Printer) -> None:
        # Like BitEnumAttribute's, with ", " between flags (easier to read).
        with printer.in_angle_brackets():
            if not self.data:
                printer.print_string("relaxed")
            else:
                printer.print_list(
                    [f.value for f in MemSemantics if f in self.data], printer.print_string
                )


@irdl_attr_definition
class GroupOpKindAttr(EnumAttribute[GroupOpKind], SpacedOpaqueSyntaxAttribute):
    """``#mux<kind fadd>`` (generic form): the operation of a reduce or scan."""

    name = "mux.kind"


def _scope_attr(scope: MemScope | str | int | MemScopeAttr) -> MemScopeAttr:
    if isinstance(scope, MemScopeAttr):
        return scope
    if isinstance(scope, int):
        return MemScopeAttr({v: k for k, v in MEM_SCOPE_VALUES.items()}[scope])
    return MemScopeAttr(MemScope(scope))


def _semantics_attr(
    semantics: int | str | Sequence[MemSemantics | str] | MemSemanticsAttr,
) -> MemSemanticsAttr:
    if isinstance(semantics, MemSemanticsAttr):
        return semantics
    if isinstance(semantics, int):
        return MemSemanticsAttr.from_int(semantics)
    if isinstance(semantics, str):
        semantics = [] if semantics == "relaxed" else [semantics]
    return MemSemanticsAttr([MemSemantics(s) for s in semantics])


# =======================================================================================
# Types
# =======================================================================================


@irdl_attr_definition
class EventType(ParametrizedAttribute, TypeAttribute):
    """``!mux.event``: a DMA transfer event (``__mux_dma_event_t``)."""

    name = "mux.event"


# =======================================================================================
# Work-item queries
# =======================================================================================

_QUERY_RESULT_TYPES = "index, i32 or i64"


_INDEX = IndexType()


def is_query_type(t: Attribute) -> bool:
    """index, i32 or i64 (signless): the types a work-item query may return."""
    return isinstance(t, IndexType) or (
        isinstance(t, IntegerType)
        and t.width.data in (32, 64)
        and t.signedness.data == Signedness.SIGNLESS
    )


def _check_query_type(op: Operation, t: Attribute) -> None:
    if is_query_type(t):
        return
    raise VerifyException(f"'{op.name}' result must be {_QUERY_RESULT_TYPES}, got {t}")


def _check_dim(op: Operation, dim: IntegerAttr) -> None:
    d = dim.value.data
    if not 0 <= d <= 2:
        raise VerifyException(f"'{op.name}' dimension must be 0, 1 or 2, got {d}")


def _i32_attr(v: int | IntegerAttr) -> IntegerAttr:
    return v if isinstance(v, IntegerAttr) else IntegerAttr(v, i32)


class WorkItemQuery(IRDLOperation):
    """Marker base of every work-item query (``isinstance(op, mux.WorkItemQuery)``)."""

    result = result_def(AnyAttr())

    def verify_(self) -> None:
        _check_query_type(self, self.result.type)


class DimQueryOp(WorkItemQuery):
    """A query taking a dimension 0..2: ``%r = mux.get_global_id 0 : index``."""

    dim = prop_def(IntegerAttr[I32])

    assembly_format = "$dim attr-dict `:` type($result)"

    def __init__(self, dim: int | IntegerAttr, result_type: Attribute = _INDEX) -> None:
        super().__init__(properties={"dim": _i32_attr(dim)}, result_types=[result_type])

    def verify_(self) -> None:
        _check_dim(self, self.dim)
        super().verify_()


class QueryOp(WorkItemQuery):
    """A query without operands: ``%r = mux.get_work_dim : i32``."""

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: Attribute = _INDEX) -> None:
        super().__init__(result_types=[result_type])


# Work-item-varying queries read the state that ``mux.set_local_id`` writes: they must not
# be hoisted out of work-item loops or CSE'd across one, hence a read effect. Queries
# uniform over a launch are Pure.


@irdl_op_definition
class GetGlobalIdOp(DimQueryOp):
    """``__mux_get_global_id(i)``: unique global invocation id in dimension ``dim``
    (group id · enqueued local size + local id + global offset)."""

    name = "mux.get_global_id"
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class GetLocalIdOp(DimQueryOp):
    """``__mux_get_local_id(i)``: invocation id within its work-group in dimension ``dim``."""

    name = "mux.get_local_id"
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class GetGlobalSizeOp(DimQueryOp):
    """``__mux_get_global_size(i)``: number of global invocations in dimension ``dim``."""

    name = "mux.get_global_size"
    traits = traits_def(Pure())


@irdl_op_definition
class GetLocalSizeOp(DimQueryOp):
    """``__mux_get_local_size(i)``: size of *this* work-group in dimension ``dim`` (smaller
    than the enqueued size for a non-uniform remainder group)."""

    name = "mux.get_local_size"
    traits = traits_def(Pure())


@irdl_op_definition
class GetEnqueuedLocalSizeOp(DimQueryOp):
    """``__mux_get_enqueued_local_size(i)``: the local size given at launch in ``dim``."""

    name = "mux.get_enqueued_local_size"
    traits = traits_def(Pure())


@irdl_op_definition
class GetGlobalOffsetOp(DimQueryOp):
    """``__mux_get_global_offset(i)``: global offset (in invocations) in dimension ``dim``."""

    name = "mux.get_global_offset"
    traits = traits_def(Pure())


@irdl_op_definition
class GetNumGroupsOp(DimQueryOp):
    """``__mux_get_num_groups(i)``: number of work-groups in dimension ``dim``."""

    name = "mux.get_num_groups"
    traits = traits_def(Pure())


@irdl_op_definition
class GetGroupIdOp(DimQueryOp):
    """``__mux_get_group_id(i)``: id of this work-group in dimension ``dim``."""

    name = "mux.get_group_id"
    traits = traits_def(Pure())


@irdl_op_definition
class GetWorkDimOp(QueryOp):
    """``__mux_get_work_dim()``: number of dimensions in use (1..3)."""

    name = "mux.get_work_dim"
    traits = traits_def(Pure())


@irdl_op_definition
class GetGlobalLinearIdOp(QueryOp):
    """``__mux_get_global_linear_id()``: (id2−off2)·gs1·gs0 + (id1−off1)·gs0 + (id0−off0)."""

    name = "mux.get_global_linear_id"
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class GetLocalLinearIdOp(QueryOp):
    """``__mux_get_local_linear_id()``: lid2·ls1·ls0 + lid1·ls0 + lid0."""

    name = "mux.get_local_linear_id"
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class GetSubGroupIdOp(QueryOp):
    """``__mux_get_sub_group_id()``: id of this invocation's sub-group in its work-group."""

    name = "mux.get_sub_group_id"
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class GetSubGroupLocalIdOp(QueryOp):
    """``__mux_get_sub_group_local_id()``: invocation id within its sub-group."""

    name = "mux.get_sub_group_local_id"
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class GetSubGroupSizeOp(QueryOp):
    """``__mux_get_sub_group_size()``: number of invocations in this sub-group."""

    name = "mux.get_sub_group_size"
    traits = traits_def(MemoryReadEffect())


@irdl_op_definition
class GetMaxSubGroupSizeOp(QueryOp):
    """``__mux_get_max_sub_group_size()``: maximum sub-group size of the kernel."""

    name = "mux.get_max_sub_group_size"
    traits = traits_def(Pure())


@irdl_op_definition
class GetNumSubGroupsOp(QueryOp):
    """``__mux_get_num_sub_groups()``: number of sub-groups in this work-group."""

    name = "mux.get_num_sub_groups"
    traits = traits_def(Pure())


DIM_QUERIES: tuple[type[DimQueryOp], ...] = (
    GetGlobalIdOp,
    GetLocalIdOp,
    GetGlobalSizeOp,
    GetLocalSizeOp,
    GetEnqueuedLocalSizeOp,
    GetGlobalOffsetOp,
    GetNumGroupsOp,
    GetGroupIdOp,
)
NON_DIM_QUERIES: tuple[type[QueryOp], ...] = (
    GetWorkDimOp,
    GetGlobalLinearIdOp,
    GetLocalLinearIdOp,
    GetSubGroupIdOp,
    GetSubGroupLocalIdOp,
    GetSubGroupSizeOp,
    GetMaxSubGroupSizeOp,
    GetNumSubGroupsOp,
)


@irdl_op_definition
class SetLocalIdOp(IRDLOperation):
    """Internal: sets this invocation's local id in ``dim`` (written by work-item-loops in
    the work-item loop header, lowered to a store by define-mux-builtins).

    ``mux.set_local_id 0, %iv : index``
    """

    name = "mux.set_local_id"

    dim = prop_def(IntegerAttr[I32])
    value = operand_def(AnyAttr())

    traits = traits_def(MemoryWriteEffect())

    assembly_format = "$dim `,` $value attr-dict `:` type($value)"

    def __init__(self, dim: int | IntegerAttr, value: SSAValue | Operation) -> None:
        super().__init__(properties={"dim": _i32_attr(dim)}, operands=[value])

    def verify_(self) -> None:
        _check_dim(self, self.dim)
        t = self.value.type
        if not is_query_type(t):
            raise VerifyException(f"'{self.name}' value must be {_QUERY_RESULT_TYPES}, got {t}")


# =======================================================================================
# Barriers
# =======================================================================================


class _ScopedBarrier(IRDLOperation):
    scope = prop_def(MemScopeAttr)
    semantics = prop_def(MemSemanticsAttr)

    def scope_value(self) -> int:
        """The reference's integer MemScope value."""
        return self.scope.value

    def semantics_value(self) -> int:
        """The reference's integer MemSemantics value (ordering | memory flags)."""
        return self.semantics.value

    def verify_(self) -> None:
        orderings = [f.value for f in _ORDERINGS if f in self.semantics.data]
        if len(orderings) > 1:
            raise VerifyException(
                f"'{self.name}' semantics may set one ordering only, got {', '.join(orderings)}"
            )


@irdl_op_definition
class MemBarrierOp(_ScopedBarrier):
    """``__mux_mem_barrier(scope, semantics)``: a fence for memory accesses of this
    invocation as observed by others within ``scope``.

    ``mux.mem_barrier work_group, <acq_rel, work_group_memory>``
    """

    name = "mux.mem_barrier"

    assembly_format = "$scope `,` $semantics attr-dict"

    def __init__(self, scope: MemScope | str | int, semantics: int | str | Sequence[str]) -> None:
        super().__init__(
            properties={"scope": _scope_attr(scope), "semantics": _semantics_attr(semantics)}
        )


class _ControlBarrier(_ScopedBarrier):
    id = prop_def(IntegerAttr[I32], default_value=IntegerAttr(0, i32))

    assembly_format = "(`id` $id^ `,`)? $scope `,` $semantics attr-dict"

    def __init__(
        self,
        scope: MemScope | str | int = MemScope.WORK_GROUP,
        semantics: int | str | Sequence[str] = (
            MemSemantics.ACQ_REL,
            MemSemantics.WORK_GROUP_MEMORY,
        ),
        id: int = 0,
    ) -> None:
        super().__init__(
            properties={
                "id": _i32_attr(id),
                "scope": _scope_attr(scope),
                "semantics": _semantics_attr(semantics),
            }
        )

    @property
    def barrier_id(self) -> int:
        return self.id.value.data


@irdl_op_definition
class WorkGroupBarrierOp(_ControlBarrier):
    """``__mux_work_group_barrier(id, scope, semantics)``: waits for every invocation of the
    work-group, and acts as ``mux.mem_barrier scope, semantics``. ``id`` (default 0) is
    made unique by prepare-barriers.

    ``mux.work_group_barrier work_group, <acq_rel, work_group_memory>``,
    ``mux.work_group_barrier id 3, work_group, <acq_rel, work_group_memory>``
    """

    name = "mux.work_group_barrier"


@irdl_op_definition
class SubGroupBarrierOp(_ControlBarrier):
    """``__mux_sub_group_barrier(id, scope, semantics)``: as ``mux.work_group_barrier``
    over the invocations of the sub-group.

    ``mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>``
    """

    name = "mux.sub_group_barrier"


# =======================================================================================
# Group collectives and sub-group shuffles
# =======================================================================================


def _is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType | IndexType)


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _is_scalar(t: Attribute) -> bool:
    return _is_int(t) or _is_float(t)


def _element_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _is_bool(t: Attribute) -> bool:
    return t == i1


class GroupCollectiveOp(IRDLOperation):
    """Base of every group collective and shuffle.

    ``group_scope`` is "work_group", "sub_group" or "vec_group"; ``collective`` names the
    builtin family ("reduce", "scan_inclusive", "scan_exclusive", "broadcast", "any",
    "all", "shuffle", "shuffle_up", "shuffle_down", "shuffle_xor").
    """

    GROUP_SCOPE: ClassVar[str]
    COLLECTIVE: ClassVar[str]
    SAME_TYPE: ClassVar[tuple[str, ...]] = ()
    """Operands whose type must equal the result type."""

    def verify(self, verify_nested_ops: bool = True) -> None:
        # Checked before IRDL's own constraints, whose message would not name the op.
        # A malformed op (wrong operand/result count) is left to IRDL's count check.
        n_operands = len(self.get_irdl_definition().operands)
        well_formed = len(self.operands) == n_operands and len(self.results) == 1
        for name in self.SAME_TYPE if well_formed else ():
            t = getattr(self, name).type
            if t != self.result.type:
                raise VerifyException(
                    f"'{self.name}' result type {self.result.type} must equal the type {t} "
                    f"of operand '{name}'"
                )
        super().verify(verify_nested_ops)

    @property
    def group_scope(self) -> str:
        return self.GROUP_SCOPE

    @property
    def collective(self) -> str:
        return self.COLLECTIVE

    def _check_value(self, t: Attribute, what: str = "value") -> None:
        """Work- and sub-group collectives take scalars; vec-group ones scalars or vectors."""
        elem = _element_type(t) if self.group_scope == "vec_group" else t
        if not _is_scalar(elem):
            allowed = "a scalar integer or float"
            if self.group_scope == "vec_group":
                allowed += " or a vector of them"
            raise VerifyException(f"'{self.name}' {what} must be {allowed}, got {t}")


class _WorkGroupIdMixin(IRDLOperation):
    """Work-group collectives carry the barrier id of their builtin's first argument."""

    id = prop_def(IntegerAttr[I32], default_value=IntegerAttr(0, i32))

    @property
    def barrier_id(self) -> int:
        return self.id.value.data


class ReductionLikeOp(GroupCollectiveOp):
    """Base of reduce and scans: property ``kind`` (a ``GroupOpKind``), operand ``value``."""

    kind = prop_def(GroupOpKindAttr)

    @property
    def kind_value(self) -> GroupOpKind:
        return self.kind.data

    def verify_(self) -> None:
        t = self.value.type
        self._check_value(t)
        elem = _element_type(t)
        k = self.kind.data
        if k in FLOAT_KINDS and not _is_float(elem):
            raise VerifyException(f"'{self.name}' kind {k.value} needs a float value, got {t}")
        if k in INTEGER_KINDS and not _is_int(elem):
            hint = _FLOAT_COUNTERPART.get(k) if _is_float(elem) else None
            raise VerifyException(
                f"'{self.name}' kind {k.value} needs an integer value, got {t}"
                + (f" (use {hint.value} for floats)" if hint else "")
            )
        if k in LOGICAL_KINDS and not _is_int(elem):
            raise VerifyException(
                f"'{self.name}' kind {k.value} needs an i1 or integer value, got {t}"
            )


def _ctor_kind(kind: GroupOpKind | str) -> GroupOpKindAttr:
    return GroupOpKindAttr(GroupOpKind(kind))


class _UniformReductionOp(ReductionLikeOp):
    """Work-/sub-group reduce or scan: result type = operand type."""

    SAME_TYPE: ClassVar[tuple[str, ...]] = ("value",)
    T: ClassVar = VarConstraint("T", AnyAttr())
    value = operand_def(T)
    result = result_def(T)

    def __init__(self, kind: GroupOpKind | str, value: SSAValue | Operation, id: int = 0):
        props: dict[str, Attribute] = {"kind": _ctor_kind(kind)}
        if self.GROUP_SCOPE == "work_group":
            props["id"] = _i32_attr(id)
        v = SSAValue.get(value)
        super().__init__(operands=[v], result_types=[v.type], properties=props)


_WG_REDUCE_FORMAT = "(`id` $id^ `,`)? $kind $value attr-dict `:` type($value)"
_SG_REDUCE_FORMAT = "$kind $value attr-dict `:` type($value)"


@irdl_op_definition
class WorkGroupReduceOp(_UniformReductionOp, _WorkGroupIdMixin):
    """``__mux_work_group_reduce_<kind>(id, val)``: ``kind`` over the values of every
    invocation of the work-group, returned to all.

    ``%r = mux.work_group_reduce fadd %x : f32``, ``mux.work_group_reduce id 2, add %i : i32``
    """

    name = "mux.work_group_reduce"
    GROUP_SCOPE: ClassVar[str] = "work_group"
    COLLECTIVE: ClassVar[str] = "reduce"
    assembly_format = _WG_REDUCE_FORMAT


@irdl_op_definition
class WorkGroupScanInclusiveOp(_UniformReductionOp, _WorkGroupIdMixin):
    """``__mux_work_group_scan_inclusive_<kind>(id, val)``: ``kind`` over the values of
    invocations 0..i (local linear id order) of the work-group.

    ``%r = mux.work_group_scan_inclusive mul %x : i32``
    """

    name = "mux.work_group_scan_inclusive"
    GROUP_SCOPE: ClassVar[str] = "work_group"
    COLLECTIVE: ClassVar[str] = "scan_inclusive"
    assembly_format = _WG_REDUCE_FORMAT


@irdl_op_definition
class WorkGroupScanExclusiveOp(_UniformReductionOp, _WorkGroupIdMixin):
    """``__mux_work_group_scan_exclusive_<kind>(id, val)``: ``kind`` over the identity and
    the values of invocations 0..i-1 of the work-group.

    ``%r = mux.work_group_scan_exclusive fmul %x : f64``
    """

    name = "mux.work_group_scan_exclusive"
    GROUP_SCOPE: ClassVar[str] = "work_group"
    COLLECTIVE: ClassVar[str] = "scan_exclusive"
    assembly_format = _WG_REDUCE_FORMAT


@irdl_op_definition
class SubGroupReduceOp(_UniformReductionOp):
    """``__mux_sub_group_reduce_<kind>(val)``: reduce over the sub-group.

    ``%r = mux.sub_group_reduce add %x : i32``
    """

    name = "mux.sub_group_reduce"
    GROUP_SCOPE: ClassVar[str] = "sub_group"
    COLLECTIVE: ClassVar[str] = "reduce"
    assembly_format = _SG_REDUCE_FORMAT


@irdl_op_definition
class SubGroupScanInclusiveOp(_UniformReductionOp):
    """``__mux_sub_group_scan_inclusive_<kind>(val)``: inclusive scan over the sub-group.

    ``%r = mux.sub_group_scan_inclusive mul %x : i32``
    """

    name = "mux.sub_group_scan_inclusive"
    GROUP_SCOPE: ClassVar[str] = "sub_group"
    COLLECTIVE: ClassVar[str] = "scan_inclusive"
    assembly_format = _SG_REDUCE_FORMAT


@irdl_op_definition
class SubGroupScanExclusiveOp(_UniformReductionOp):
    """``__mux_sub_group_scan_exclusive_<kind>(val)``: exclusive scan over the sub-group.

    ``%r = mux.sub_group_scan_exclusive mul %x : i64``
    """

    name = "mux.sub_group_scan_exclusive"
    GROUP_SCOPE: ClassVar[str] = "sub_group"
    COLLECTIVE: ClassVar[str] = "scan_exclusive"
    assembly_format = _SG_REDUCE_FORMAT


@irdl_op_definition
class VecGroupReduceOp(ReductionLikeOp):
    """``__mux_vec_group_reduce_<kind>(val)``: reduce over the lanes of a vector (the result
    is the element type); a scalar is a group of one (the result is the value).

    ``%r = mux.vec_group_reduce add %v : vector<4xi32> -> i32``
    """

    name = "mux.vec_group_reduce"
    GROUP_SCOPE: ClassVar[str] = "vec_group"
    COLLECTIVE: ClassVar[str] = "reduce"

    value = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    assembly_format = "$kind $value attr-dict `:` type($value) `->` type($result)"

    def __init__(self, kind: GroupOpKind | str, value: SSAValue | Operation):
        v = SSAValue.get(value)
        super().__init__(
            operands=[v],
            result_types=[_element_type(v.type)],
            properties={"kind": _ctor_kind(kind)},
        )

    def verify_(self) -> None:
        super().verify_()
        expected = _element_type(self.value.type)
        if self.result.type != expected:
            raise VerifyException(
                f"'{self.name}' result must be the element type {expected} of the value, "
                f"got {self.result.type}"
            )


class _VecGroupScanOp(ReductionLikeOp):
    SAME_TYPE: ClassVar[tuple[str, ...]] = ("value",)
    T: ClassVar = VarConstraint("T", AnyAttr())
    value = operand_def(T)
    result = result_def(T)

    assembly_format = "$kind $value attr-dict `:` type($value)"

    def __init__(self, kind: GroupOpKind | str, value: SSAValue | Operation):
        v = SSAValue.get(value)
        super().__init__(operands=[v], result_types=[v.type], properties={"kind": _ctor_kind(kind)})


@irdl_op_definition
class VecGroupScanInclusiveOp(_VecGroupScanOp):
    """``__mux_vec_group_scan_inclusive_<kind>(val)``: inclusive scan across the lanes of a
    vector (lane i gets lanes 0..i); the result has the value's type.

    ``%r = mux.vec_group_scan_inclusive add %v : vector<4xi32>``
    """

    name = "mux.vec_group_scan_inclusive"
    GROUP_SCOPE: ClassVar[str] = "vec_group"
    COLLECTIVE: ClassVar[str] = "scan_inclusive"


@irdl_op_definition
class VecGroupScanExclusiveOp(_VecGroupScanOp):
    """``__mux_vec_group_scan_exclusive_<kind>(val)``: exclusive scan across the lanes of a
    vector (lane i gets the identity and lanes 0..i-1); the result has the value's type.

    ``%r = mux.vec_group_scan_exclusive mul %v : vector<2xi64>``
    """

    name = "mux.vec_group_scan_exclusive"
    GROUP_SCOPE: ClassVar[str] = "vec_group"
    COLLECTIVE: ClassVar[str] = "scan_exclusive"


# --- broadcast -----------------------------------------------------------------------


@irdl_op_definition
class WorkGroupBroadcastOp(GroupCollectiveOp, _WorkGroupIdMixin):
    """``__mux_work_group_broadcast(id, val, lidx, lidy, lidz)``: the value of the invocation
    with local id (x, y, z) (unused dimensions 0), returned to all.

    ``%r = mux.work_group_broadcast %v, %x, %y, %z : i32``
    """

    name = "mux.work_group_broadcast"
    GROUP_SCOPE: ClassVar[str] = "work_group"
    COLLECTIVE: ClassVar[str] = "broadcast"

    SAME_TYPE: ClassVar[tuple[str, ...]] = ("value",)
    T: ClassVar = VarConstraint("T", AnyAttr())
    value = operand_def(T)
    local_id_x = operand_def(IndexType)
    local_id_y = operand_def(IndexType)
    local_id_z = operand_def(IndexType)
    result = result_def(T)

    assembly_format = (
        "(`id` $id^ `,`)? $value `,` $local_id_x `,` $local_id_y `,` $local_id_z attr-dict"
        " `:` type($value)"
    )

    def __init__(
        self,
        value: SSAValue | Operation,
        local_id: Sequence[SSAValue | Operation],
        id: int = 0,
    ):
        v = SSAValue.get(value)
        super().__init__(
            operands=[v, *local_id], result_types=[v.type], properties={"id": _i32_attr(id)}
        )

    def verify_(self) -> None:
        self._check_value(self.value.type)


@irdl_op_definition
class SubGroupBroadcastOp(GroupCollectiveOp):
    """``__mux_sub_group_broadcast(val, sg_lid)``: the value of the invocation with sub-group
    local id ``sg_lid`` (i32), returned to all.

    ``%r = mux.sub_group_broadcast %v, %lid : i64``
    """

    name = "mux.sub_group_broadcast"
    GROUP_SCOPE: ClassVar[str] = "sub_group"
    COLLECTIVE: ClassVar[str] = "broadcast"

    SAME_TYPE: ClassVar[tuple[str, ...]] = ("value",)
    T: ClassVar = VarConstraint("T", AnyAttr())
    value = operand_def(T)
    sub_group_local_id = operand_def(I32)
    result = result_def(T)

    assembly_format = "$value `,` $sub_group_local_id attr-dict `:` type($value)"

    def __init__(self, value: SSAValue | Operation, sub_group_local_id: SSAValue | Operation):
        v = SSAValue.get(value)
        super().__init__(operands=[v, sub_group_local_id], result_types=[v.type])

    def verify_(self) -> None:
        self._check_value(self.value.type)


@irdl_op_definition
class VecGroupBroadcastOp(GroupCollectiveOp):
    """``__mux_vec_group_broadcast(val, vec_id)``: lane ``vec_id`` (i32) of a vector value;
    the result is the element type (a scalar value is returned unchanged).

    ``%r = mux.vec_group_broadcast %v, %lane : vector<2xi64> -> i64``
    """

    name = "mux.vec_group_broadcast"
    GROUP_SCOPE: ClassVar[str] = "vec_group"
    COLLECTIVE: ClassVar[str] = "broadcast"

    value = operand_def(AnyAttr())
    vec_id = operand_def(I32)
    result = result_def(AnyAttr())

    assembly_format = "$value `,` $vec_id attr-dict `:` type($value) `->` type($result)"

    def __init__(self, value: SSAValue | Operation, vec_id: SSAValue | Operation):
        v = SSAValue.get(value)
        super().__init__(operands=[v, vec_id], result_types=[_element_type(v.type)])

    def verify_(self) -> None:
        self._check_value(self.value.type)
        expected = _element_type(self.value.type)
        if self.result.type != expected:
            raise VerifyException(
                f"'{self.name}' result must be the element type {expected} of the value, "
                f"got {self.result.type}"
            )


# --- any / all ---------------------------------------------------------------------------


class _BoolGroupOp(GroupCollectiveOp):
    """any/all: true if any/all invocations' (or lanes') ``value`` is true."""

    value = operand_def(AnyAttr())
    result = result_def(EqAttrConstraint(i1))

    def __init__(self, value: SSAValue | Operation, id: int | None = None):
        props = {} if id is None else {"id": _i32_attr(id)}
        super().__init__(operands=[value], result_types=[i1], properties=props)

    def verify_(self) -> None:
        t = self.value.type
        ok = _is_bool(_element_type(t)) if self.group_scope == "vec_group" else _is_bool(t)
        if not ok:
            allowed = "i1 or vector of i1" if self.group_scope == "vec_group" else "i1"
            raise VerifyException(f"'{self.name}' value must be {allowed}, got {t}")


@irdl_op_definition
class WorkGroupAnyOp(_BoolGroupOp, _WorkGroupIdMixin):
    """``__mux_work_group_any(id, x)``: true if any invocation's ``x`` is true.

    ``%r = mux.work_group_any %b : i1``
    """

    name = "mux.work_group_any"
    GROUP_SCOPE: ClassVar[str] = "work_group"
    COLLECTIVE: ClassVar[str] = "any"
    assembly_format = "(`id` $id^ `,`)? $value attr-dict `:` type($value)"


@irdl_op_definition
class WorkGroupAllOp(_BoolGroupOp, _WorkGroupIdMixin):
    """``__mux_work_group_all(id, x)``: true if every invocation's ``x`` is true.

    ``%r = mux.work_group_all %b : i1``
    """

    name = "mux.work_group_all"
    GROUP_SCOPE: ClassVar[str] = "work_group"
    COLLECTIVE: ClassVar[str] = "all"
    assembly_format = "(`id` $id^ `,`)? $value attr-dict `:` type($value)"


@irdl_op_definition
class SubGroupAnyOp(_BoolGroupOp):
    """``__mux_sub_group_any(x)``: true if any invocation of the sub-group has ``x`` true.

    ``%r = mux.sub_group_any %b : i1``
    """

    name = "mux.sub_group_any"
    GROUP_SCOPE: ClassVar[str] = "sub_group"
    COLLECTIVE: ClassVar[str] = "any"
    assembly_format = "$value attr-dict `:` type($value)"


@irdl_op_definition
class SubGroupAllOp(_BoolGroupOp):
    """``__mux_sub_group_all(x)``: true if every invocation of the sub-group has ``x`` true.

    ``%r = mux.sub_group_all %b : i1``
    """

    name = "mux.sub_group_all"
    GROUP_SCOPE: ClassVar[str] = "sub_group"
    COLLECTIVE: ClassVar[str] = "all"
    assembly_format = "$value attr-dict `:` type($value)"


@irdl_op_definition
class VecGroupAnyOp(_BoolGroupOp):
    """``__mux_vec_group_any(x)``: true if any lane of ``x`` is true.

    ``%r = mux.vec_group_any %v : vector<4xi1>``
    """

    name = "mux.vec_group_any"
    GROUP_SCOPE: ClassVar[str] = "vec_group"
    COLLECTIVE: ClassVar[str] = "any"
    assembly_format = "$value attr-dict `:` type($value)"


@irdl_op_definition
class VecGroupAllOp(_BoolGroupOp):
    """``__mux_vec_group_all(x)``: true if every lane of ``x`` is true.

    ``%r = mux.vec_group_all %v : vector<4xi1>``
    """

    name = "mux.vec_group_all"
    GROUP_SCOPE: ClassVar[str] = "vec_group"
    COLLECTIVE: ClassVar[str] = "all"
    assembly_format = "$value attr-dict `:` type($value)"


# --- sub-group shuffles --------------------------------------------------------------------


class _ShuffleOp(GroupCollectiveOp):
    GROUP_SCOPE: ClassVar[str] = "sub_group"
    T: ClassVar = VarConstraint("T", AnyAttr())

    def verify_(self) -> None:
        self._check_value(self.result.type)


@irdl_op_definition
class SubGroupShuffleOp(_ShuffleOp):
    """``__mux_sub_group_shuffle(val, lid)``: ``val`` of the invocation with sub-group
    local id ``lid`` (i32).

    ``%r = mux.sub_group_shuffle %v, %lid : i32``
    """

    name = "mux.sub_group_shuffle"
    COLLECTIVE: ClassVar[str] = "shuffle"
    SAME_TYPE: ClassVar[tuple[str, ...]] = ("value",)
    value = operand_def(_ShuffleOp.T)
    lid = operand_def(I32)
    result = result_def(_ShuffleOp.T)
    assembly_format = "$value `,` $lid attr-dict `:` type($value)"

    def __init__(self, value: SSAValue | Operation, lid: SSAValue | Operation):
        v = SSAValue.get(value)
        super().__init__(operands=[v, lid], result_types=[v.type])


@irdl_op_definition
class SubGroupShuffleUpOp(_ShuffleOp):
    """``__mux_sub_group_shuffle_up(prev, curr, delta)``: with index = sub-group local id −
    ``delta`` (i32): ``curr`` of invocation index if 0 <= index < max sub-group size, else
    ``prev`` of invocation index + max size if index >= −max size.

    ``%r = mux.sub_group_shuffle_up %prev, %curr, %delta : i8``
    """

    name = "mux.sub_group_shuffle_up"
    COLLECTIVE: ClassVar[str] = "shuffle_up"
    SAME_TYPE: ClassVar[tuple[str, ...]] = ("prev", "curr")
    prev = operand_def(_ShuffleOp.T)
    curr = operand_def(_ShuffleOp.T)
    delta = operand_def(I32)
    result = result_def(_ShuffleOp.T)
    assembly_format = "$prev `,` $curr `,` $delta attr-dict `:` type($result)"

    def __init__(
        self, prev: SSAValue | Operation, curr: SSAValue | Operation, delta: SSAValue | Operation
    ):
        v = SSAValue.get(curr)
        super().__init__(operands=[prev, v, delta], result_types=[v.type])


@irdl_op_definition
class SubGroupShuffleDownOp(_ShuffleOp):
    """``__mux_sub_group_shuffle_down(curr, next, delta)``: with index = sub-group local id
    + ``delta`` (i32): ``curr`` of invocation index if index < max sub-group size, else
    ``next`` of invocation index − max size if index < 2·max size.

    ``%r = mux.sub_group_shuffle_down %curr, %next, %delta : f32``
    """

    name = "mux.sub_group_shuffle_down"
    COLLECTIVE: ClassVar[str] = "shuffle_down"
    SAME_TYPE: ClassVar[tuple[str, ...]] = ("curr", "next")
    curr = operand_def(_ShuffleOp.T)
    next = operand_def(_ShuffleOp.T)
    delta = operand_def(I32)
    result = result_def(_ShuffleOp.T)
    assembly_format = "$curr `,` $next `,` $delta attr-dict `:` type($result)"

    def __init__(
        self, curr: SSAValue | Operation, next: SSAValue | Operation, delta: SSAValue | Operation
    ):
        v = SSAValue.get(curr)
        super().__init__(operands=[v, next, delta], result_types=[v.type])


@irdl_op_definition
class SubGroupShuffleXorOp(_ShuffleOp):
    """``__mux_sub_group_shuffle_xor(val, xor_val)``: ``val`` of the invocation with
    sub-group local id = own id XOR ``xor_val`` (i32).

    ``%r = mux.sub_group_shuffle_xor %v, %mask : f64``
    """

    name = "mux.sub_group_shuffle_xor"
    COLLECTIVE: ClassVar[str] = "shuffle_xor"
    SAME_TYPE: ClassVar[tuple[str, ...]] = ("value",)
    value = operand_def(_ShuffleOp.T)
    xor_val = operand_def(I32)
    result = result_def(_ShuffleOp.T)
    assembly_format = "$value `,` $xor_val attr-dict `:` type($value)"

    def __init__(self, value: SSAValue | Operation, xor_val: SSAValue | Operation):
        v = SSAValue.get(value)
        super().__init__(operands=[v, xor_val], result_types=[v.type])


COLLECTIVE_OPS: tuple[type[GroupCollectiveOp], ...] = (
    WorkGroupReduceOp,
    WorkGroupScanInclusiveOp,
    WorkGroupScanExclusiveOp,
    WorkGroupBroadcastOp,
    WorkGroupAnyOp,
    WorkGroupAllOp,
    SubGroupReduceOp,
    SubGroupScanInclusiveOp,
    SubGroupScanExclusiveOp,
    SubGroupBroadcastOp,
    SubGroupAnyOp,
    SubGroupAllOp,
    VecGroupReduceOp,
    VecGroupScanInclusiveOp,
    VecGroupScanExclusiveOp,
    VecGroupBroadcastOp,
    VecGroupAnyOp,
    VecGroupAllOp,
    SubGroupShuffleOp,
    SubGroupShuffleUpOp,
    SubGroupShuffleDownOp,
    SubGroupShuffleXorOp,
)


# =======================================================================================
# DMA
# =======================================================================================


class DmaOp(IRDLOperation):
    """Base of the DMA transfers: ``dst``/``src`` memrefs (copied from their first element;
    reads go global → local, writes local → global, not enforced), sizes and strides in
    **bytes** (index) as the reference's ``__mux_dma_*`` builtins, an optional ``event``
    of an earlier transfer to chain onto, and the resulting ``!mux.event``.
    """

    result = result_def(EventType)

    IS_READ: ClassVar[bool]
    RANK: ClassVar[int]


_DMA_TAIL = " (`event` `(` $event^ `)`)? attr-dict `:` type($dst) `,` type($src)"


class _Dma1D(DmaOp):
    RANK: ClassVar[int] = 1
    # dst/src declared here, not in DmaOp, so that they come first in the operand list
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    width = operand_def(IndexType)
    event = opt_operand_def(EventType)

    assembly_format = "$dst `,` $src `width` `(` $width `)`" + _DMA_TAIL

    def __init__(
        self,
        dst: SSAValue | Operation,
        src: SSAValue | Operation,
        width: SSAValue | Operation,
        event: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[dst, src, width, [] if event is None else [event]],
            result_types=[EventType()],
        )


class _Dma2D(DmaOp):
    RANK: ClassVar[int] = 2
    # dst/src declared here, not in DmaOp, so that they come first in the operand list
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    width = operand_def(IndexType)
    dst_stride = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    height = operand_def(IndexType)
    event = opt_operand_def(EventType)

    assembly_format = (
        "$dst `,` $src `width` `(` $width `)` `dst_stride` `(` $dst_stride `)`"
        " `src_stride` `(` $src_stride `)` `height` `(` $height `)`" + _DMA_TAIL
    )

    def __init__(
        self,
        dst: SSAValue | Operation,
        src: SSAValue | Operation,
        width: SSAValue | Operation,
        dst_stride: SSAValue | Operation,
        src_stride: SSAValue | Operation,
        height: SSAValue | Operation,
        event: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[
                dst,
                src,
                width,
                dst_stride,
                src_stride,
                height,
                [] if event is None else [event],
            ],
            result_types=[EventType()],
        )


class _Dma3D(DmaOp):
    RANK: ClassVar[int] = 3
    # dst/src declared here, not in DmaOp, so that they come first in the operand list
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    width = operand_def(IndexType)
    dst_line_stride = operand_def(IndexType)
    src_line_stride = operand_def(IndexType)
    height = operand_def(IndexType)
    dst_plane_stride = operand_def(IndexType)
    src_plane_stride = operand_def(IndexType)
    depth = operand_def(IndexType)
    event = opt_operand_def(EventType)

    assembly_format = (
        "$dst `,` $src `width` `(` $width `)` `dst_line_stride` `(` $dst_line_stride `)`"
        " `src_line_stride` `(` $src_line_stride `)` `height` `(` $height `)`"
        " `dst_plane_stride` `(` $dst_plane_stride `)` `src_plane_stride` `(` $src_plane_stride"
        " `)` `depth` `(` $depth `)`" + _DMA_TAIL
    )

    def __init__(
        self,
        dst: SSAValue | Operation,
        src: SSAValue | Operation,
        width: SSAValue | Operation,
        dst_line_stride: SSAValue | Operation,
        src_line_stride: SSAValue | Operation,
        height: SSAValue | Operation,
        dst_plane_stride: SSAValue | Operation,
        src_plane_stride: SSAValue | Operation,
        depth: SSAValue | Operation,
        event: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[
                dst,
                src,
                width,
                dst_line_stride,
                src_line_stride,
                height,
                dst_plane_stride,
                src_plane_stride,
                depth,
                [] if event is None else [event],
            ],
            result_types=[EventType()],
        )


@irdl_op_definition
class DmaRead1DOp(_Dma1D):
    """``__mux_dma_read_1D(dst, src, width, event)``: copy ``width`` bytes from global
    ``src`` to local ``dst``.

    ``%e = mux.dma_read_1d %dst, %src width(%w) : memref<64xf32, 3>, memref<?xf32>``
    """

    name = "mux.dma_read_1d"
    IS_READ: ClassVar[bool] = True


@irdl_op_definition
class DmaWrite1DOp(_Dma1D):
    """``__mux_dma_write_1D(dst, src, width, event)``: copy ``width`` bytes from local
    ``src`` to global ``dst``.

    ``%e = mux.dma_write_1d %dst, %src width(%w) event(%e0) : memref<?xf32>, memref<64xf32, 3>``
    """

    name = "mux.dma_write_1d"
    IS_READ: ClassVar[bool] = False


@irdl_op_definition
class DmaRead2DOp(_Dma2D):
    """``__mux_dma_read_2D(dst, src, width, dst_stride, src_stride, height, event)``:
    ``height`` rows of ``width`` bytes, rows ``dst_stride``/``src_stride`` bytes apart.

    ``%e = mux.dma_read_2d %dst, %src width(%w) dst_stride(%ds) src_stride(%ss) height(%h)
    : memref<8x8xf32, 3>, memref<?x?xf32>``
    """

    name = "mux.dma_read_2d"
    IS_READ: ClassVar[bool] = True


@irdl_op_definition
class DmaWrite2DOp(_Dma2D):
    """``__mux_dma_write_2D(dst, src, width, dst_stride, src_stride, height, event)``: the
    2D copy from local ``src`` to global ``dst``.

    ``%e = mux.dma_write_2d %dst, %src width(%w) dst_stride(%ds) src_stride(%ss) height(%h)
    event(%e0) : memref<?x?xf32>, memref<8x8xf32, 3>``
    """

    name = "mux.dma_write_2d"
    IS_READ: ClassVar[bool] = False


@irdl_op_definition
class DmaRead3DOp(_Dma3D):
    """``__mux_dma_read_3D(dst, src, width, dst_line_stride, src_line_stride, height,
    dst_plane_stride, src_plane_stride, depth, event)``: ``depth`` planes of ``height``
    rows of ``width`` bytes, rows ``*_line_stride`` and planes ``*_plane_stride`` bytes apart.

    ``%e = mux.dma_read_3d %dst, %src width(%w) dst_line_stride(%dl) src_line_stride(%sl)
    height(%h) dst_plane_stride(%dp) src_plane_stride(%sp) depth(%d)
    : memref<4x8x8xf32, 3>, memref<?x?x?xf32>``
    """

    name = "mux.dma_read_3d"
    IS_READ: ClassVar[bool] = True


@irdl_op_definition
class DmaWrite3DOp(_Dma3D):
    """``__mux_dma_write_3D(dst, src, width, dst_line_stride, src_line_stride, height,
    dst_plane_stride, src_plane_stride, depth, event)``: the 3D copy from local ``src`` to
    global ``dst``.

    ``%e = mux.dma_write_3d %dst, %src width(%w) ... depth(%d) event(%e0)
    : memref<?x?x?xf32>, memref<4x8x8xf32, 3>``
    """

    name = "mux.dma_write_3d"
    IS_READ: ClassVar[bool] = False


@irdl_op_definition
class DmaWaitOp(IRDLOperation):
    """``__mux_dma_wait(num_events, events)``: wait for the transfers of ``events``.

    ``mux.dma_wait %e0, %e1``
    """

    name = "mux.dma_wait"

    events = var_operand_def(EventType)

    assembly_format = "$events attr-dict"

    def __init__(self, events: Sequence[SSAValue | Operation]):
        super().__init__(operands=[events])


DMA_OPS: tuple[type[IRDLOperation], ...] = (
    DmaRead1DOp,
    DmaWrite1DOp,
    DmaRead2DOp,
    DmaWrite2DOp,
    DmaRead3DOp,
    DmaWrite3DOp,
    DmaWaitOp,
)


# =======================================================================================
# Host side: kernel launch
# =======================================================================================


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """Host side: launch kernel ``@kernel`` over an ND-range with arguments ``args``.

    ``mux.launch @k(%a, %b) global_size(%n) local_size(%l) global_offset(%o)
    : (memref<?xf32>, memref<?xf32>)`` — 1 to 3 index operands per size, the same number for
    each; ``global_offset`` is optional (zero). Lowered to a call of the runtime's
    ``xmux_launch``.
    """

    name = "mux.launch"

    kernel = prop_def(SymbolRefAttr)
    args = var_operand_def(AnyAttr())
    global_size = var_operand_def(IndexType)
    local_size = var_operand_def(IndexType)
    global_offset = var_operand_def(IndexType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = (
        "$kernel `(` $args `)` `global_size` `(` $global_size `)` `local_size` `(` $local_size `)`"
        " (`global_offset` `(` $global_offset^ `)`)? attr-dict `:` `(` type($args) `)`"
    )

    def __init__(
        self,
        kernel: str | SymbolRefAttr,
        args: Sequence[SSAValue | Operation],
        global_size: Sequence[SSAValue | Operation],
        local_size: Sequence[SSAValue | Operation],
        global_offset: Sequence[SSAValue | Operation] = (),
    ) -> None:
        if isinstance(kernel, str):
            kernel = SymbolRefAttr(kernel)
        super().__init__(
            properties={"kernel": kernel},
            operands=[args, global_size, local_size, global_offset],
        )

    @property
    def work_dim(self) -> int:
        return len(self.global_size)

    def verify_(self) -> None:
        n = len(self.global_size)
        k = self.kernel.string_value()
        if not 1 <= n <= 3:
            raise VerifyException(
                f"'{self.name}' of @{k}: global_size needs 1 to 3 dimensions, got {n}"
            )
        if len(self.local_size) != n:
            raise VerifyException(
                f"'{self.name}' of @{k}: local_size has {len(self.local_size)} dimensions, "
                f"global_size has {n}"
            )
        if self.global_offset and len(self.global_offset) != n:
            raise VerifyException(
                f"'{self.name}' of @{k}: global_offset has {len(self.global_offset)} "
                f"dimensions, global_size has {n}"
            )


# =======================================================================================
# Dialect
# =======================================================================================

_OPS: list[type[IRDLOperation]] = [
    *DIM_QUERIES,
    *NON_DIM_QUERIES,
    SetLocalIdOp,
    MemBarrierOp,
    WorkGroupBarrierOp,
    SubGroupBarrierOp,
    *COLLECTIVE_OPS,
    *DMA_OPS,
    LaunchOp,
]

BARRIER_OPS: tuple[type[IRDLOperation], ...] = (WorkGroupBarrierOp, SubGroupBarrierOp)


def is_barrier_like(op: Operation) -> bool:
    """True for control barriers and work-/sub-group collectives and shuffles: ops that
    every invocation of a group must reach together. Vec-group ops work within one
    invocation, and ``mux.mem_barrier`` is a fence only: neither is barrier-like."""
    if isinstance(op, BARRIER_OPS):
        return True
    return isinstance(op, GroupCollectiveOp) and op.group_scope != "vec_group"


def is_work_group_barrier_like(op: Operation) -> bool:
    """True for ``mux.work_group_barrier`` and work-group collectives: the ops at which a
    work-group function must be split when its work-items run in a loop. (Sub-group ops
    need no split while sub-groups have one invocation, as in this pipeline.)"""
    return isinstance(op, WorkGroupBarrierOp) or (
        isinstance(op, GroupCollectiveOp) and op.group_scope == "work_group"
    )


Mux = Dialect(
    "mux",
    _OPS,
    [MemScopeAttr, MemSemanticsAttr, GroupOpKindAttr, EventType],
)
