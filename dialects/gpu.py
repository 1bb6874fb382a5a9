"""Upstream MLIR's ``gpu`` dialect with the syntax ``mlir-opt`` (LLVM 19 and newer) prints.

xDSL 0.74's ``gpu`` dialect (``xdsl.dialects.gpu``) parses only the generic form, uses the
pre-LLVM-18 ``all_reduce`` enum and lacks ``gpu.shuffle``, ``gpu.subgroup_reduce``,
``gpu.printf``, ``gpu.memset`` and ``gpu.dynamic_shared_memory``. This module defines the
device-side ops with upstream's custom syntax; ``dialects/gpu_host.py`` the launch and host
ops. ``GPU`` (bottom) is the dialect xmux registers under the name ``gpu`` in place of
xDSL's (``xmux/registry.py``); it reuses xDSL's ``!gpu.async.token`` and ``#gpu<dim x>``.

Device ops::

    %t = gpu.thread_id x                 block_id / block_dim / grid_dim / global_id too
    %l = gpu.lane_id
    %s = gpu.subgroup_id : index         subgroup_size / num_subgroups too
    gpu.barrier
    %r = gpu.all_reduce add %v uniform {} : (f32) -> f32
    %r = gpu.all_reduce %v { ^bb0(%a: i32, %b: i32): ... gpu.yield %c : i32 } : (i32) -> i32
    %r = gpu.subgroup_reduce maxnumf %v cluster(size = 4, stride = 2) : (f32) -> f32
    %r, %ok = gpu.shuffle xor %v, %offset, %width : f32
    gpu.printf "x = %d\\n", %i : i32
    %m = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i1,
    i32,
)
from xdsl.dialects.gpu import AsyncTokenType, DimensionAttr
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    Region,
    SSAValue,
)
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    IsolatedFromAbove,
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from xmux.dialects.gpu_attrs import (  # re-exported: gpu.AddressSpaceAttr, ...
    ADDRESS_SPACE_NUMBERS,  # noqa: F401
    FLOAT_REDUCTIONS,
    INTEGER_REDUCTIONS,
    AddressSpace,  # noqa: F401
    AddressSpaceAttr,
    AllReduceOperation,
    AllReduceOperationAttr,
    ShuffleMode,  # noqa: F401
    ShuffleModeAttr,
    is_workgroup_space,  # noqa: F401
    parse_reduce_kind,
)
from xmux.dialects.gpu_base import _QUERY_FORMAT, YieldOp, _DimQuery  # noqa: F401 (re-exported)
from xmux.dialects.gpu_func import (  # re-exported: gpu.FuncOp, gpu.ModuleOp, ...
    FuncOp,
    ModuleEndOp,
    ModuleOp,
    ReturnOp,
)

# =======================================================================================
# Work-item queries
# =======================================================================================

@irdl_op_definition
class ThreadIdOp(_DimQuery):
    """``gpu.thread_id x``: the thread's index in its block."""

    name = "gpu.thread_id"


@irdl_op_definition
class BlockIdOp(_DimQuery):
    """``gpu.block_id x``: the block's index in the grid."""

    name = "gpu.block_id"


@irdl_op_definition
class BlockDimOp(_DimQuery):
    """``gpu.block_dim x``: threads per block."""

    name = "gpu.block_dim"


@irdl_op_definition
class GridDimOp(_DimQuery):
    """``gpu.grid_dim x``: blocks in the grid."""

    name = "gpu.grid_dim"


@irdl_op_definition
class GlobalIdOp(_DimQuery):
    """``gpu.global_id x``: block_id * block_dim + thread_id."""

    name = "gpu.global_id"


@irdl_op_definition
class ClusterIdOp(_DimQuery):
    """``gpu.cluster_id x``: the cluster's index in the grid (%clusterid); the other
    cluster queries are in ``dialects/gpu_newer.py``."""

    name = "gpu.cluster_id"


@irdl_op_definition
class LaneIdOp(IRDLOperation):
    """``gpu.lane_id``: the thread's index in its subgroup."""

    name = "gpu.lane_id"
    upper_bound = opt_prop_def(IntegerAttr[IndexType])
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "(`upper_bound` $upper_bound^)? attr-dict"


class _SubgroupQuery(IRDLOperation):
    upper_bound = opt_prop_def(IntegerAttr[IndexType])
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "(`upper_bound` $upper_bound^)? attr-dict `:` type($result)"


@irdl_op_definition
class SubgroupIdOp(_SubgroupQuery):
    """``gpu.subgroup_id : index``: the subgroup's index in its block."""

    name = "gpu.subgroup_id"


@irdl_op_definition
class SubgroupSizeOp(_SubgroupQuery):
    """``gpu.subgroup_size : index``: threads per subgroup."""

    name = "gpu.subgroup_size"


@irdl_op_definition
class NumSubgroupsOp(_SubgroupQuery):
    """``gpu.num_subgroups : index``: subgroups per block."""

    name = "gpu.num_subgroups"


DIM_QUERY_OPS = (ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp, GlobalIdOp, ClusterIdOp)

# =======================================================================================
# Synchronization and collectives
# =======================================================================================


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``gpu.barrier``: every thread of the block waits; workgroup memory is then coherent.
    (``memfence [...]`` of LLVM 21 narrows the fence; the CPU fences all spaces.)"""

    name = "gpu.barrier"
    address_spaces = opt_prop_def(ArrayAttr)
    assembly_format = "(`memfence` $address_spaces^)? attr-dict"


def _check_kind_type(op: Operation, kind: AllReduceOperation, t: Attribute) -> None:
    from xdsl.dialects.builtin import AnyFloat, IntegerType, VectorType

    elem = t.element_type if isinstance(t, VectorType) else t
    if kind in FLOAT_REDUCTIONS and not isinstance(elem, AnyFloat):
        raise VerifyException(f"'{op.name}' {kind.value} needs a float value, got {t}")
    if kind in INTEGER_REDUCTIONS and not isinstance(elem, IntegerType):
        raise VerifyException(f"'{op.name}' {kind.value} needs an integer value, got {t}")


@irdl_op_definition
class AllReduceOp(IRDLOperation):
    """``gpu.all_reduce``: reduce ``value`` over every thread of the block, returned to
    all. Either a kind (``add``, ``maxnumf``, ...; the region is then empty) or a region
    whose block takes two values and yields their combination (``gpu.yield``)."""

    name = "gpu.all_reduce"
    T: ClassVar = VarConstraint("T", AnyAttr())
    op = opt_prop_def(AllReduceOperationAttr)
    uniform = opt_prop_def(UnitAttr)
    value = operand_def(T)
    result = result_def(T)
    body = region_def()
    traits = traits_def(IsolatedFromAbove())

    def __init__(self, value: SSAValue | Operation, kind: AllReduceOperation | None = None,
                 body: Region | None = None, uniform: bool = False) -> None:
        v = SSAValue.get(value)
        props: dict[str, Attribute] = {}
        if kind is not None:
            props["op"] = AllReduceOperationAttr(kind)
        if uniform:
            props["uniform"] = UnitAttr()
        super().__init__(operands=[v], result_types=[v.type], properties=props,
                         regions=[body or Region()])

    @classmethod
    def parse(cls, parser: Parser) -> AllReduceOp:
        kind = None
        if _peek_identifier(parser):
            kind = parse_reduce_kind(parser)
        value = parser.parse_unresolved_operand()
        uniform = parser.parse_optional_keyword("uniform") is not None
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ft = parser.parse_function_type()
        if len(ft.inputs.data) != 1 or len(ft.outputs.data) != 1:
            parser.raise_error("gpu.all_reduce takes one value and returns one")
        v = parser.resolve_operand(value, ft.inputs.data[0])
        op = cls(v, kind.data if kind else None, body, uniform)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        if self.op is not None:
            printer.print_string(f" {self.op.data.value}")
        printer.print_string(" ")
        printer.print_operand(self.value)
        if self.uniform is not None:
            printer.print_string(" uniform")
        printer.print_string(" ")
        printer.print_region(self.body)
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : ({self.value.type}) -> {self.result.type}")

    def verify_(self) -> None:
        has_body = bool(self.body.blocks)
        if has_body == (self.op is not None):
            raise VerifyException(
                "'gpu.all_reduce' needs either a reduction kind or a non-empty region, "
                "not both" if has_body else
                "'gpu.all_reduce' needs either a reduction kind or a non-empty region")
        if self.op is not None:
            _check_kind_type(self, self.op.data, self.value.type)
        else:
            block = self.body.blocks[0]
            t = self.value.type
            if block.arg_types != (t, t):
                raise VerifyException(
                    f"'gpu.all_reduce' region takes two {t} arguments, got "
                    f"({', '.join(str(a) for a in block.arg_types)})")


def _peek_identifier(parser: Parser) -> bool:
    from xdsl.utils.mlir_lexer import MLIRTokenKind

    return parser._current_token.kind == MLIRTokenKind.BARE_IDENT  # noqa: SLF001


@irdl_op_definition
class SubgroupReduceOp(IRDLOperation):
    """``gpu.subgroup_reduce add %v (uniform)? (cluster(size = N (, stride = S)?))? :
    (T) -> T``: reduce over the subgroup, or over clusters of ``size`` threads whose lane
    ids are ``stride`` apart."""

    name = "gpu.subgroup_reduce"
    T: ClassVar = VarConstraint("T", AnyAttr())
    op = prop_def(AllReduceOperationAttr)
    uniform = opt_prop_def(UnitAttr)
    cluster_size = opt_prop_def(IntegerAttr[I32])
    cluster_stride = opt_prop_def(IntegerAttr[I32])
    value = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> SubgroupReduceOp:
        kind = parse_reduce_kind(parser)
        value = parser.parse_unresolved_operand()
        props: dict[str, Attribute] = {"op": kind}
        if parser.parse_optional_keyword("uniform") is not None:
            props["uniform"] = UnitAttr()
        if parser.parse_optional_keyword("cluster") is not None:
            parser.parse_punctuation("(")
            parser.parse_keyword("size")
            parser.parse_punctuation("=")
            props["cluster_size"] = IntegerAttr(parser.parse_integer(), i32)
            if parser.parse_optional_punctuation(","):
                parser.parse_keyword("stride")
                parser.parse_punctuation("=")
                props["cluster_stride"] = IntegerAttr(parser.parse_integer(), i32)
            parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ft = parser.parse_function_type()
        if len(ft.inputs.data) != 1 or len(ft.outputs.data) != 1:
            parser.raise_error("gpu.subgroup_reduce takes one value and returns one")
        v = parser.resolve_operand(value, ft.inputs.data[0])
        op = cls.create(operands=[v], result_types=[ft.outputs.data[0]], properties=props,
                        attributes=attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.op.data.value} ")
        printer.print_operand(self.value)
        if self.uniform is not None:
            printer.print_string(" uniform")
        if self.cluster_size is not None:
            printer.print_string(f" cluster(size = {self.cluster_size.value.data}")
            if self.cluster_stride is not None:
                printer.print_string(f", stride = {self.cluster_stride.value.data}")
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : ({self.value.type}) -> {self.result.type}")

    def verify_(self) -> None:
        _check_kind_type(self, self.op.data, self.value.type)
        for name, a in (("size", self.cluster_size), ("stride", self.cluster_stride)):
            if a is not None:
                n = a.value.data
                if n < 1 or n & (n - 1):
                    raise VerifyException(
                        f"'gpu.subgroup_reduce' cluster {name} must be a power of two, got {n}")

    @property
    def cluster(self) -> tuple[int, int] | None:
        if self.cluster_size is None:
            return None
        stride = self.cluster_stride.value.data if self.cluster_stride is not None else 1
        return self.cluster_size.value.data, stride


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """``%r, %valid = gpu.shuffle xor|up|down|idx %v, %offset, %width : T``: ``v`` of lane
    ``lane ^ offset`` / ``lane - offset`` / ``lane + offset`` / ``offset``; ``valid`` is
    false when that lane is outside ``[0, width)`` (the result is then this lane's own
    ``v``, as on NVIDIA GPUs)."""

    name = "gpu.shuffle"
    T: ClassVar = VarConstraint("T", AnyAttr())
    mode = prop_def(ShuffleModeAttr)
    value = operand_def(T)
    offset = operand_def(I32)
    width = operand_def(I32)
    shuffleResult = result_def(T)  # noqa: N815 - upstream's name
    valid = result_def(i1)
    traits = traits_def(Pure())
    assembly_format = "$mode $value `,` $offset `,` $width attr-dict `:` type($value)"


@irdl_op_definition
class PrintfOp(IRDLOperation):
    """``gpu.printf "fmt", %a, %b : i32, f32``: a C printf from every thread.

    LLVM 19's form without the comma (``gpu.printf "fmt" %a : i32``) parses too; a following
    ``%r = ...`` is not taken for arguments (LLVM 19 itself misreads that)."""

    name = "gpu.printf"
    format = prop_def(StringAttr)
    args = var_operand_def()

    @classmethod
    def parse(cls, parser: Parser) -> PrintfOp:
        from xdsl.utils.exceptions import ParseError
        from xdsl.utils.mlir_lexer import MLIRTokenKind

        fmt = parser.parse_str_literal()
        attrs = parser.parse_optional_attr_dict()

        def arguments() -> list[SSAValue]:
            us = [parser.parse_unresolved_operand()]
            while parser.parse_optional_punctuation(","):
                us.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(":")
            types = [parser.parse_type()]
            while parser.parse_optional_punctuation(","):
                types.append(parser.parse_type())
            if len(types) != len(us):
                parser.raise_error(f"gpu.printf has {len(us)} arguments and {len(types)} types")
            return [parser.resolve_operand(u, t) for u, t in zip(us, types, strict=True)]

        args: list[SSAValue] = []
        if parser.parse_optional_punctuation(","):
            args = arguments()
        elif parser._current_token.kind == MLIRTokenKind.PERCENT_IDENT:  # noqa: SLF001
            pos = parser.pos
            try:
                args = arguments()
            except ParseError:
                parser._resume_from(pos)  # noqa: SLF001 - the next op's results
        return cls.create(operands=args, properties={"format": StringAttr(fmt)},
                          attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.format)
        printer.print_op_attributes(self.attributes)
        if self.args:
            printer.print_string(", ")
            printer.print_list(self.args, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)


@irdl_op_definition
class DynamicSharedMemoryOp(IRDLOperation):
    """``gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>``: the
    block's dynamically sized workgroup memory."""

    name = "gpu.dynamic_shared_memory"
    resultMemref = result_def(MemRefType)  # noqa: N815 - upstream's name
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($resultMemref)"


# =======================================================================================
# The dialect
# =======================================================================================

DEVICE_OPS: list[type[IRDLOperation]] = [
    *DIM_QUERY_OPS, LaneIdOp, SubgroupIdOp, SubgroupSizeOp, NumSubgroupsOp, BarrierOp,
    AllReduceOp, SubgroupReduceOp, ShuffleOp, PrintfOp, DynamicSharedMemoryOp, YieldOp,
]


DEVICE_OPS += [ModuleOp, ModuleEndOp, FuncOp, ReturnOp]


def _make_dialect() -> Dialect:
    from xdsl.dialects import gpu as xgpu

    from xmux.dialects import gpu_host, gpu_mma, gpu_newer

    return Dialect(
        "gpu",
        [*DEVICE_OPS, *gpu_host.HOST_OPS, xgpu.SetDefaultDeviceOp,
         *gpu_mma.MMA_OPS,  # gpu.subgroup_mma_* (dialects/gpu_mma.py)
         *gpu_newer.NEWER_OPS],  # clusters, lane ops (dialects/gpu_newer.py)
        [AsyncTokenType, DimensionAttr, AllReduceOperationAttr, ShuffleModeAttr,
         AddressSpaceAttr, xgpu.ProcessorAttr, xgpu.LoopDimMapAttr,
         *gpu_mma.MMA_ATTRS, *gpu_newer.NEWER_ATTRS],
    )


GPU = _make_dialect()
