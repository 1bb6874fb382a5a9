"""lower-vector-contract: ``vector.contract`` of 1-D vectors as upstream's
``-convert-vector-to-llvm`` lowers it (its default "dot" strategy).

The 1-D case is a dot product: ``lhs`` and ``rhs`` ``vector<N x T>`` with identity maps, the
accumulator a scalar ``T`` (map ``(d0) -> ()``), one ``reduction`` iterator: the lanes'
products, reduced by ``vector.reduction <kind>`` starting from the accumulator, as
mlir-opt-19 ``--convert-vector-to-llvm`` does for ``add`` (``llvm.intr.vector.reduce.fadd``
of the accumulator and the products: the same float rounding) and upstream's general
contraction lowering for the other kinds. An n-D operand (matmul, matvec, outer-product forms)
or mixed element types are a ``NotSupportedError`` naming the op: xmux's vector lowering
handles 1-D vectors only (docs/architecture.md "Upstream gpu input").

Expects: xmux's ``vector.contract`` (dialects/vector_ops.py). Guarantees: none left. A module
without it is unchanged.

Before::

    %r = vector.contract {indexing_maps = [affine_map<(d0) -> (d0)>,
      affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"],
      kind = #vector.kind<add>} %a, %b, %acc : vector<4xf32>, vector<4xf32> into f32

After::

    %p = arith.mulf %a, %b : vector<4xf32>
    %r = vector.reduction <add>, %p, %acc : vector<4xf32> into f32
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import AnyFloat, ModuleOp, StringAttr, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.dialects.vector_ops import ContractOp


def _err(op: ContractOp, why: str) -> NotSupportedError:
    loc = str(op.location) if op.location is not None else ""
    where = f" at {loc}" if loc and "unknown" not in loc else ""
    f = op.parent_op()
    while f is not None and not isinstance(getattr(f, "sym_name", None), StringAttr):
        f = f.parent_op()
    if f is not None:
        where += f" in @{f.sym_name.data}"  # type: ignore[attr-defined]
    return NotSupportedError(f"lower-vector-contract: 'vector.contract'{where}: {why}")


def _is_dot(op: ContractOp) -> bool:
    lt, rt = op.lhs.type, op.rhs.type
    maps = [m.data for m in op.indexing_maps.data]
    ident = [AffineDimExpr(0)]
    return (isinstance(lt, VectorType) and isinstance(rt, VectorType)
            and lt.get_num_dims() == 1 and rt.get_num_dims() == 1
            and not isinstance(op.acc.type, VectorType)
            and [s.data for s in op.iterator_types.data] == ["reduction"]
            and list(maps[0].results) == ident and list(maps[1].results) == ident
            and not maps[2].results)


def _lower(op: ContractOp) -> None:
    if not _is_dot(op):
        raise _err(op, f"{op.lhs.type}, {op.rhs.type} into {op.acc.type}: only the 1-D dot "
                   "product is lowered (n-D vectors reach no lowering in xmux)")
    vt = op.lhs.type
    assert isinstance(vt, VectorType)
    elem = vt.element_type
    if op.rhs.type != vt or op.acc.type != elem:
        raise _err(op, f"mixed element types ({op.lhs.type}, {op.rhs.type} into "
                   f"{op.acc.type})")
    is_float = isinstance(elem, AnyFloat)
    new: list[Operation] = []

    def add(o: Operation) -> SSAValue:
        new.append(o)
        return o.results[0]

    def reduce(kind: vector.CombiningKindAttr, acc: SSAValue) -> SSAValue:
        # built with create: xDSL 0.74's ReductionOp() gives the result the vector's type
        return add(vector.ReductionOp.create(
            operands=[prod, acc], result_types=[elem],
            properties={"kind": kind, "fastmath": arith.FastMathFlagsAttr("none")}))

    prod = add(arith.MulfOp(op.lhs, op.rhs) if is_float else arith.MuliOp(op.lhs, op.rhs))
    res = reduce(op.kind or vector.CombiningKindAttr(vector.CombiningKindFlag.ADD), op.acc)
    for o in new:
        o.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    op.result.replace_all_uses_with(res)
    Rewriter.erase_op(op)


@dataclass(frozen=True)
class LowerVectorContract(ModulePass):
    """Lower 1-D vector.contract (dot products) to arith + vector.reduction."""

    name = "lower-vector-contract"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in [o for o in op.walk() if isinstance(o, ContractOp)]:
            _lower(o)
