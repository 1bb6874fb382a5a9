"""Upstream ``gpu`` ops newer than xmux's first gpu support (issue 31): thread-block clusters,
lane ops and ``gpu.warp_execute_on_lane_0``, with the syntax mlir-opt prints.

They join the ``gpu`` dialect of ``dialects/gpu.py`` (its ``_make_dialect``); the passes reach
them as ``gpu_newer.X``. ``gpu.cluster_id`` itself is in ``dialects/gpu.py`` (parsed since
issue 14).

::

    %c = gpu.cluster_dim x            clusters in the grid (upstream: nclusterid)
    %c = gpu.cluster_dim_blocks x     blocks per cluster (cluster.nctaid)
    %c = gpu.cluster_block_id x       the block's index in its cluster (cluster.ctaid)
    %r, %ok = gpu.rotate %v, 1, 16 : f32
    %r = gpu.subgroup_broadcast %v, first_active_lane : f32
    %r = gpu.subgroup_broadcast %v, specific_lane %lane : f32
    %r = gpu.broadcast_lane %v, any_lane : f32       (the op's name in its first proposal)
    %r = gpu.warp_execute_on_lane_0(%laneid)[32] args(%a : vector<4xf32>) -> (vector<1xf32>) {
    ^bb0(%all: vector<128xf32>):
      ...
      gpu.yield %s : vector<32xf32>
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, Region, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from xmux.dialects.gpu_base import _DimQuery

# =======================================================================================
# Cluster queries (upstream's definitions; NVVM names in brackets)
# =======================================================================================


@irdl_op_definition
class ClusterDimOp(_DimQuery):
    """``gpu.cluster_dim x``: the number of clusters of the grid in ``x`` (%nclusterid)."""

    name = "gpu.cluster_dim"


@irdl_op_definition
class ClusterDimBlocksOp(_DimQuery):
    """``gpu.cluster_dim_blocks x``: blocks per cluster in ``x`` (%cluster_nctaid)."""

    name = "gpu.cluster_dim_blocks"


@irdl_op_definition
class ClusterBlockIdOp(_DimQuery):
    """``gpu.cluster_block_id x``: the block's index in its cluster (%cluster_ctaid)."""

    name = "gpu.cluster_block_id"


# =======================================================================================
# Lane ops
# =======================================================================================


def _lane_value(t: Attribute) -> bool:
    """Upstream's AnyIntegerOrFloatOr1DVector (index too: upstream's broadcast takes it)."""
    if isinstance(t, VectorType):
        return t.get_num_dims() == 1 and _lane_value(t.element_type)
    return isinstance(t, IntegerType | IndexType | AnyFloat)


@irdl_op_definition
class RotateOp(IRDLOperation):
    """``%r, %valid = gpu.rotate %v, OFFSET, WIDTH : T``: ``v`` of lane ``((lane + offset)
    & (width - 1)) + (lane & ~(width - 1))``; ``valid`` is ``lane < width`` (``r`` is
    then unspecified). ``width`` is a power of two, ``0 <= offset < width``."""

    name = "gpu.rotate"
    T: ClassVar = VarConstraint("T", AnyAttr())
    value = operand_def(T)
    offset = prop_def(IntegerAttr)
    width = prop_def(IntegerAttr)
    rotateResult = result_def(T)  # noqa: N815 - upstream's name
    valid = result_def(i1)
    traits = traits_def(Pure())

    def __init__(self, value: SSAValue, offset: int, width: int) -> None:
        super().__init__(operands=[value], result_types=[value.type, i1],
                         properties={"offset": IntegerAttr(offset, i32),
                                     "width": IntegerAttr(width, i32)})

    @classmethod
    def parse(cls, parser: Parser) -> RotateOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_integer()
        parser.parse_punctuation(",")
        width = parser.parse_integer()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        v = parser.resolve_operand(value, parser.parse_type())
        op = cls(v, offset, width)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(f", {self.offset.value.data}, {self.width.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : {self.value.type}")

    def verify_(self) -> None:
        if not _lane_value(self.value.type):
            raise VerifyException(f"'gpu.rotate' value must be an integer, float or 1-D vector "
                                  f"of them, got {self.value.type}")
        w, o = self.width.value.data, self.offset.value.data
        if w < 1 or w & (w - 1):
            raise VerifyException(f"'gpu.rotate' width must be a power of two, got {w}")
        if not 0 <= o < w:
            raise VerifyException(f"'gpu.rotate' offset must be in [0, {w}), got {o}")


class BroadcastType(StrEnum):
    FIRST_ACTIVE_LANE = "first_active_lane"
    ANY_LANE = "any_lane"  # in the op's first version; upstream dropped it later
    SPECIFIC_LANE = "specific_lane"


@irdl_attr_definition
class BroadcastTypeAttr(EnumAttribute[BroadcastType], SpacedOpaqueSyntaxAttribute):
    """``#gpu<broadcast first_active_lane>``."""

    name = "gpu.broadcast"


class _BroadcastBase(IRDLOperation):
    T: ClassVar = VarConstraint("T", AnyAttr())
    src = operand_def(T)
    lane = opt_operand_def(i32)
    broadcast_type = prop_def(BroadcastTypeAttr)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$src `,` $broadcast_type ($lane^)? attr-dict `:` type($result)"

    def verify_(self) -> None:
        if not _lane_value(self.src.type):
            raise VerifyException(f"'{self.name}' value must be an integer, float or 1-D "
                                  f"vector of them, got {self.src.type}")
        specific = self.broadcast_type.data == BroadcastType.SPECIFIC_LANE
        if specific != (self.lane is not None):
            raise VerifyException(f"'{self.name}' takes a lane id with specific_lane, and "
                                  "only then")


@irdl_op_definition
class SubgroupBroadcastOp(_BroadcastBase):
    """``gpu.subgroup_broadcast %v, first_active_lane | specific_lane %lane : T``: the
    value of one lane of the subgroup, returned to all."""

    name = "gpu.subgroup_broadcast"


@irdl_op_definition
class BroadcastLaneOp(_BroadcastBase):
    """``gpu.broadcast_lane``: ``gpu.subgroup_broadcast`` under its first proposal's name."""

    name = "gpu.broadcast_lane"


# =======================================================================================
# gpu.warp_execute_on_lane_0
# =======================================================================================


@irdl_op_definition
class WarpExecuteOnLane0Op(IRDLOperation):
    """``gpu.warp_execute_on_lane_0(%laneid)[32] args(...) -> (...) { ... gpu.yield }``:
    the region runs once per warp, on lane 0. An argument whose type differs from its
    block argument is distributed: lane ``i`` holds the ``i``-th slice of the block
    argument's vector (the distributed dimension is ``warp_size`` times longer); the same
    rule maps each yielded value to its result. Same types are uniform values."""

    name = "gpu.warp_execute_on_lane_0"
    laneid = operand_def(IndexType)
    args = var_operand_def()
    warp_size = prop_def(IntegerAttr)
    results_ = var_result_def()
    warpRegion = region_def("single_block")  # noqa: N815 - upstream's name

    def __init__(self, laneid: SSAValue, warp_size: int, args: Sequence[SSAValue],
                 result_types: Sequence[Attribute], region: Region) -> None:
        super().__init__(operands=[laneid, args], result_types=[result_types],
                         properties={"warp_size": IntegerAttr(warp_size, i64)},
                         regions=[region])

    @classmethod
    def parse(cls, parser: Parser) -> WarpExecuteOnLane0Op:
        from xmux.dialects.gpu_base import YieldOp

        parser.parse_punctuation("(")
        laneid = parser.parse_operand(IndexType())
        parser.parse_punctuation(")")
        parser.parse_punctuation("[")
        warp = parser.parse_integer()
        parser.parse_punctuation("]")
        args: list[SSAValue] = []
        if parser.parse_optional_keyword("args") is not None:
            parser.parse_punctuation("(")
            us = [parser.parse_unresolved_operand()]
            while parser.parse_optional_punctuation(","):
                us.append(parser.parse_unresolved_operand())
            parser.parse_punctuation(":")
            types = [parser.parse_type()]
            while parser.parse_optional_punctuation(","):
                types.append(parser.parse_type())
            parser.parse_punctuation(")")
            if len(types) != len(us):
                parser.raise_error(f"gpu.warp_execute_on_lane_0 has {len(us)} arguments and "
                                   f"{len(types)} types")
            args = [parser.resolve_operand(u, t) for u, t in zip(us, types, strict=True)]
        results: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            results = parser.parse_comma_separated_list(parser.Delimiter.PAREN,
                                                        parser.parse_type)
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        block = region.blocks[0]
        if not results and not isinstance(block.last_op, YieldOp):
            block.add_op(YieldOp())  # upstream's implicit terminator
        op = cls(laneid, warp, args, results, region)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.laneid)
        printer.print_string(f")[{self.warp_size.value.data}]")
        if self.args:
            printer.print_string(" args(")
            printer.print_list(self.args, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([a.type for a in self.args], printer.print_attribute)
            printer.print_string(")")
        if self.results_:
            printer.print_string(" -> (")
            printer.print_list([r.type for r in self.results_], printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.warpRegion, print_entry_block_args=True,
                             print_empty_block=False,
                             print_block_terminators=bool(self.results_))
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        from xmux.dialects.gpu_base import YieldOp

        block = self.warpRegion.blocks[0] if self.warpRegion.blocks else None
        if block is None or not isinstance(block.last_op, YieldOp):
            raise VerifyException("'gpu.warp_execute_on_lane_0' region must end in gpu.yield")
        if len(block.args) != len(self.args):
            raise VerifyException(
                f"'gpu.warp_execute_on_lane_0' has {len(self.args)} arguments and its region "
                f"{len(block.args)}")
        yielded = block.last_op.operands
        if len(yielded) != len(self.results_):
            raise VerifyException(
                f"'gpu.warp_execute_on_lane_0' has {len(self.results_)} results and yields "
                f"{len(yielded)} values")
        n = self.warp_size.value.data
        for a, b in zip(self.args, block.args, strict=True):
            distributed_dim(b.type, a.type, n)
        for r, y in zip(self.results_, yielded, strict=True):
            distributed_dim(y.type, r.type, n)


def distributed_dim(whole: Attribute, part: Attribute, warp_size: int) -> int | None:
    """The dimension along which ``whole`` (the region's value) is split into ``part`` (a
    lane's), or None when they are the same type (a uniform value). Upstream's rule: vectors
    of one rank whose shapes differ in exactly one dimension, by a factor of warp_size."""
    if whole == part:
        return None
    if not (isinstance(whole, VectorType) and isinstance(part, VectorType)
            and whole.element_type == part.element_type
            and whole.get_num_dims() == part.get_num_dims()):
        raise VerifyException(f"'gpu.warp_execute_on_lane_0': {part} is not a distribution "
                              f"of {whole}")
    dims = [i for i, (w, p) in enumerate(zip(whole.get_shape(), part.get_shape(), strict=True))
            if w != p]
    if len(dims) != 1 or whole.get_shape()[dims[0]] != part.get_shape()[dims[0]] * warp_size:
        raise VerifyException(
            f"'gpu.warp_execute_on_lane_0': {part} is not {whole} distributed over "
            f"{warp_size} lanes along one dimension")
    return dims[0]


NEWER_OPS: list[type[IRDLOperation]] = [
    ClusterDimOp, ClusterDimBlocksOp, ClusterBlockIdOp, RotateOp, SubgroupBroadcastOp,
    BroadcastLaneOp, WarpExecuteOnLane0Op,
]
NEWER_ATTRS: list[type[Attribute]] = [BroadcastTypeAttr]
