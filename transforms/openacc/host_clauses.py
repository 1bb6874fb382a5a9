"""``convert-acc-to-oacc``: the OpenACC ops that need no device code on xmux's targets.

- ``acc.get_lowerbound``/``get_upperbound``/``get_stride``/``get_extent`` fold to the
  ``acc.bounds`` operand they read (converted to ``index``), or to what the other operands
  give (extent = ub - lb + 1, ub = lb + extent - 1, stride 1 when absent, as upstream's
  ``acc.bounds`` documents); ``acc.bounds`` left without uses vanish.
- ``acc.set``: xmux has one device per target and launches synchronously, so
  ``device_type``/``device_num``/``default_async`` change nothing.
- ``acc.routine`` (``seq`` only): a device routine is an ordinary function that kernels may
  call, so the op and the function's ``acc.routine_info`` go (and every ``acc.declare``
  attribute); gang/worker/vector routines
  (partitioned loops across a call) and ``bind`` names are refused with the routine's name.
- ``acc.global_ctor``/``acc.global_dtor``: their bodies only create/delete device copies of
  ``acc declare``\\ d globals (OpenACC 3.3 2.13), which are the host objects on the CPU and
  on the GPU path alike, so they go; a body doing anything else is refused.
"""

from __future__ import annotations

from xdsl.dialects import acc, arith, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects.attrs import ACC_DECLARE, ACC_ROUTINE_INFO
from xmux.transforms.openacc.acc_common import DATA_ONLY, IDENTITY_ENTRY, unsupported

_QUERIES = (acc.GetLowerboundOp, acc.GetUpperboundOp, acc.GetStrideOp, acc.GetExtentOp)


def fold_bound_queries(module: ModuleOp) -> None:
    """acc.get_* → the acc.bounds operand they name (or what the others imply)."""
    for q in [o for o in module.walk() if isinstance(o, _QUERIES)]:
        b = q.bounds.owner
        if not isinstance(b, acc.DataBoundsOp):
            raise unsupported(f"'{q.name}' of a value not made by acc.bounds")
        ip = InsertPoint.before(q)

        def ins(o: Operation, ip: InsertPoint = ip) -> SSAValue:
            Rewriter.insert_op(o, ip)
            return o.results[0]

        def idx(v: SSAValue | None, ins=ins) -> SSAValue | None:  # noqa: ANN001
            if v is None or isinstance(v.type, IndexType):
                return v
            return ins(arith.IndexCastOp(v, IndexType()))

        def const(n: int, ins=ins) -> SSAValue:  # noqa: ANN001
            return ins(arith.ConstantOp(IntegerAttr(n, IndexType())))

        lb, ub, ext = idx(b.lowerbound), idx(b.upperbound), idx(b.extent)
        if isinstance(q, acc.GetStrideOp):
            val = idx(b.stride) or const(1)
        elif isinstance(q, acc.GetLowerboundOp):
            val = lb or const(0)  # upstream: a missing lowerbound is 0 (from startIdx)
        else:
            lb = lb or const(0)
            if isinstance(q, acc.GetUpperboundOp):
                val = ub or ins(arith.SubiOp(ins(arith.AddiOp(lb, ext)), const(1)))
            else:
                val = ext or ins(arith.AddiOp(ins(arith.SubiOp(ub, lb)), const(1)))
        q.result.replace_all_uses_with(val)
        q.detach()
        q.erase()


#: ops a global constructor/destructor may hold: data clauses of declared globals
_CTOR_BODY = (*IDENTITY_ENTRY, *DATA_ONLY, acc.DeclareEnterOp, acc.DeclareExitOp,
              acc.DataBoundsOp, acc.TerminatorOp, memref.GetGlobalOp, arith.ConstantOp)


def drop_host_only(module: ModuleOp) -> None:
    """Remove acc.set, seq acc.routine, data-only global ctors/dtors and unused acc.bounds."""
    for o in list(module.walk()):
        if isinstance(o, acc.SetOp):
            o.detach()
            o.erase()
        elif isinstance(o, acc.RoutineOp):
            name = o.sym_name.data
            if o.bind_id_name is not None or o.bind_str_name is not None:
                raise unsupported(f"'acc.routine' @{name} with a bind name")
            if o.gang is not None or o.worker is not None or o.vector is not None:
                raise unsupported(f"'acc.routine' @{name} with gang/worker/vector parallelism")
            o.detach()
            o.erase()
        elif isinstance(o, (acc.GlobalConstructorOp, acc.GlobalDestructorOp)):
            bad = next((i for i in o.walk() if i is not o and not isinstance(i, _CTOR_BODY)),
                       None)
            if bad is not None:
                raise unsupported(f"'{o.name}' @{o.sym_name.data} holding '{bad.name}'")
            o.detach()
            o.erase()
    for o in module.walk():
        for key in (ACC_ROUTINE_INFO, ACC_DECLARE):
            o.attributes.pop(key, None)
    for o in reversed([o for o in module.walk() if isinstance(o, acc.DataBoundsOp)]):
        if not o.result.uses:
            o.detach()
            o.erase()
