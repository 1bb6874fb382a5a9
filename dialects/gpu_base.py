"""The base pieces of the ``gpu`` dialect that its other modules share: the dimension
queries' base class and ``gpu.yield``.

``dialects/gpu.py`` (device ops, the dialect), ``gpu_newer.py`` (clusters, lane ops,
``gpu.warp_execute_on_lane_0``) and the rest import this module and it imports none of them,
so they do not import one another in a cycle (``gpu.py`` re-exports both names).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.dialects.gpu import DimensionAttr
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsTerminator, Pure

_QUERY_FORMAT = "$dimension (`upper_bound` $upper_bound^)? attr-dict"


class _DimQuery(IRDLOperation):
    dimension = prop_def(DimensionAttr)
    upper_bound = opt_prop_def(IntegerAttr[IndexType])
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = _QUERY_FORMAT

    def __init__(self, dim: str) -> None:
        from xdsl.dialects.gpu import DimensionEnum

        super().__init__(
            result_types=[IndexType()], properties={"dimension": DimensionAttr(DimensionEnum(dim))}
        )

    @property
    def dim_index(self) -> int:
        return "xyz".index(self.dimension.data.value)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """``gpu.yield %v : T``: ends a ``gpu.all_reduce`` region with the combined value."""

    name = "gpu.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[values])
