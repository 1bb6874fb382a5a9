"""The ``mux`` dialect: ComputeMux builtins as MLIR ops.

One op per builtin of the Native CPU / ComputeMux interface
(``reference/native-cpu-pipeline-passes.txt``, section "Builtins"):

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

from xdsl.dialects.builtin import (
    I32,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    SymbolRefAttr,
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
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
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
    LaunchOp,
]

BARRIER_OPS: tuple[type[IRDLOperation], ...] = (WorkGroupBarrierOp, SubGroupBarrierOp)


def is_barrier_like(op: Operation) -> bool:
    """True for control barriers and group collectives (ops every invocation of a group
    must reach together)."""
    return isinstance(op, BARRIER_OPS)


Mux = Dialect(
    "mux",
    _OPS,
    [MemScopeAttr, MemSemanticsAttr, GroupOpKindAttr, EventType],
)
