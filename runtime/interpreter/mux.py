"""The mux dialect: work-item queries, barriers, group collectives, shuffles and DMA.

Collectives follow what the compiler implements (``lower-work-group-collectives`` and
``lower-sub-group-collectives`` docstrings): folds in local linear id (lane) order;
reductions other than fmin/fmax and exclusive scans start from the kind's identity (a
reduce's fadd from -0.0, an exclusive scan's from +0.0; an exclusive fmin/fmax scan folds
from element 0, so that it is the inclusive scan shifted), fmin/fmax are minnum/maxnum,
logical kinds give 0/1; sub-groups are N consecutive work-items (the last one smaller) and
out-of-range shuffle lanes read the work-item's own value. Barrier-like ops call
``Group.sync``, which suspends the work-item until its group (or sub-group) is there.
"""

from __future__ import annotations

from typing import Any

from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation

from xmux.dialects import mux
from xmux.dialects.mux import GroupOpKind as K
from xmux.runtime.interpreter import arith as _arith
from xmux.runtime.interpreter.errors import UndefinedBehaviorError
from xmux.runtime.interpreter.memory import dma_copy
from xmux.runtime.interpreter.values import FLOAT_DTYPES, int_width, mask, to_signed

# -- work-item queries ----------------------------------------------------------------------


def _query(interp, op: Operation) -> int:
    wi = interp.wi
    if wi is None:
        raise UndefinedBehaviorError(f"{op.name} outside a kernel at {interp.where()}")
    g = wi.group
    lc = g.launch
    d = op.dim.value.data if isinstance(op, mux.DimQueryOp) else 0
    if isinstance(op, mux.GetGlobalIdOp):
        return g.gid[d] * lc.local_size[d] + wi.lid[d] + lc.global_offset[d]
    if isinstance(op, mux.GetLocalIdOp):
        return wi.lid[d]
    if isinstance(op, mux.GetGlobalSizeOp):
        return lc.global_size[d]
    if isinstance(op, mux.GetLocalSizeOp):
        return g.size[d]
    if isinstance(op, mux.GetEnqueuedLocalSizeOp):
        return lc.local_size[d]
    if isinstance(op, mux.GetGlobalOffsetOp):
        return lc.global_offset[d]
    if isinstance(op, mux.GetNumGroupsOp):
        return lc.num_groups[d]
    if isinstance(op, mux.GetGroupIdOp):
        return g.gid[d]
    if isinstance(op, mux.GetWorkDimOp):
        return lc.work_dim
    if isinstance(op, mux.GetGlobalLinearIdOp):
        gi, gs, off = wi.global_id, lc.global_size, lc.global_offset
        return ((gi[2] - off[2]) * gs[1] + (gi[1] - off[1])) * gs[0] + (gi[0] - off[0])
    if isinstance(op, mux.GetLocalLinearIdOp):
        return wi.llid
    n = lc.sub_group_size
    if isinstance(op, mux.GetSubGroupIdOp):
        return wi.sg_id
    if isinstance(op, mux.GetSubGroupLocalIdOp):
        return wi.sg_lid
    if isinstance(op, mux.GetSubGroupSizeOp):
        return min(n, g.n - wi.sg_id * n)
    if isinstance(op, mux.GetMaxSubGroupSizeOp):
        return n
    if isinstance(op, mux.GetNumSubGroupsOp):
        return -(-g.n // n)
    raise AssertionError(op.name)


class MuxFunctions(InterpreterFunctions):
    """mux.* ops (queries registered in a loop below)."""

    @impl(mux.MemBarrierOp)
    def run_mem_barrier(self, interp, op, args):
        return ()  # work-items run one at a time: memory is always coherent

    @impl(mux.WorkGroupBarrierOp)
    def run_work_group_barrier(self, interp, op, args):
        interp.wi.group.sync(interp.wi, op, "work_group", None)
        return ()

    @impl(mux.SubGroupBarrierOp)
    def run_sub_group_barrier(self, interp, op, args):
        interp.wi.group.sync(interp.wi, op, "sub_group", None)
        return ()

    @impl(mux.DmaWaitOp)
    def run_dma_wait(self, interp, op, args):
        return ()  # transfers complete when issued

    @impl(mux.SetLocalIdOp)
    def run_set_local_id(self, interp, op, args):
        from xmux.abi.errors import NotSupportedError

        raise NotSupportedError(
            f"mux.set_local_id belongs to scheduled kernels (work-item-loops); the interpreter "
            f"runs kernels before scheduling, at {interp.where()}"
        )


def _query_impl(cls: type[Operation]):
    def run(self, interp, op, args):
        w = int_width(op.results[0].type)
        return (_query(interp, op) & mask(w),)  # type: ignore[arg-type]

    return impl(cls)(run)


def _collective_impl(cls: type[Operation]):
    scope = cls.GROUP_SCOPE  # type: ignore[attr-defined]

    def run(self, interp, op, args):
        wi = interp.wi
        return (wi.group.sync(wi, op, scope, args),)

    return impl(cls)(run)


def _vec_impl(cls: type[Operation]):
    def run(self, interp, op, args):
        return (vec_group(op, args),)

    return impl(cls)(run)


def _dma_impl(cls: type[Operation]):
    def run(self, interp, op, args):
        dst, src = args[0], args[1]
        if cls.RANK == 1:  # type: ignore[attr-defined]
            width = args[2]
            rows = [(0, 0)]
        elif cls.RANK == 2:  # type: ignore[attr-defined]
            width, ds, ss, h = args[2:6]
            rows = [(r * ds, r * ss) for r in range(h)]
        else:
            width, dl, sl, h, dp, sp, depth = args[2:9]
            rows = [(p * dp + r * dl, p * sp + r * sl) for p in range(depth) for r in range(h)]
        dma_copy(interp, dst, src, width, rows)
        return (0,)

    return impl(cls)(run)


for _cls in (*mux.DIM_QUERIES, *mux.NON_DIM_QUERIES):
    setattr(MuxFunctions, "run_" + _cls.name.replace(".", "_"), _query_impl(_cls))
for _cls in mux.COLLECTIVE_OPS:
    maker = _vec_impl if _cls.GROUP_SCOPE == "vec_group" else _collective_impl
    setattr(MuxFunctions, "run_" + _cls.name.replace(".", "_"), maker(_cls))
for _cls in mux.DMA_OPS:
    setattr(MuxFunctions, "run_" + _cls.name.replace(".", "_"), _dma_impl(_cls))
register_impls(MuxFunctions)


# -- folding ------------------------------------------------------------------------------


def identity(kind: K, t, *, reduce: bool) -> Any:
    if type(t) in FLOAT_DTYPES:
        ft = FLOAT_DTYPES[type(t)]
        if kind == K.FADD:
            return ft(-0.0 if reduce else 0.0)
        return ft({K.FMUL: 1.0, K.FMIN: float("inf"), K.FMAX: float("-inf")}[kind])
    w = int_width(t)
    assert w is not None
    m = mask(w)
    return {
        K.ADD: 0, K.MUL: 1, K.SMIN: (1 << (w - 1)) - 1, K.UMIN: m, K.SMAX: 1 << (w - 1),
        K.UMAX: 0, K.AND: m, K.OR: 0, K.XOR: 0, K.LOGICAL_AND: 1, K.LOGICAL_OR: 0,
        K.LOGICAL_XOR: 0,
    }[kind] & m


def combine(kind: K, a: Any, b: Any, w: int | None) -> Any:
    if kind == K.FADD:
        return a + b
    if kind == K.FMUL:
        return a * b
    if kind == K.FMIN:
        return _arith.minnumf(a, b)
    if kind == K.FMAX:
        return _arith.maxnumf(a, b)
    assert w is not None
    m = mask(w)
    if kind == K.ADD:
        return (a + b) & m
    if kind == K.MUL:
        return (a * b) & m
    if kind == K.SMIN:
        return a if to_signed(a, w) <= to_signed(b, w) else b
    if kind == K.SMAX:
        return a if to_signed(a, w) >= to_signed(b, w) else b
    if kind == K.UMIN:
        return min(a, b)
    if kind == K.UMAX:
        return max(a, b)
    if kind == K.AND:
        return a & b
    if kind == K.OR:
        return a | b
    if kind == K.XOR:
        return a ^ b
    if kind == K.LOGICAL_AND:
        return int(bool(a) and bool(b))
    if kind == K.LOGICAL_OR:
        return int(bool(a) or bool(b))
    if kind == K.LOGICAL_XOR:
        return int(bool(a) != bool(b))
    raise AssertionError(kind)


def scan(kind: K, values: list[Any], t, collective: str) -> list[Any]:
    """Prefix folds (``reduce``: the total, once) in order, as the compiler folds."""
    w = int_width(t)
    logical = kind in (K.LOGICAL_AND, K.LOGICAL_OR, K.LOGICAL_XOR)
    if collective == "scan_exclusive":
        out = [identity(kind, t, reduce=False)]
        if kind in (K.FMIN, K.FMAX):  # from element 0: excl[i] = incl[i-1], NaN included
            acc = values[0]
        else:
            acc = combine(kind, out[0], values[0], w) if values else out[0]
        for v in values[1:]:
            out.append(acc)
            acc = combine(kind, acc, v, w)
        return out[: len(values)]
    if collective == "reduce" and kind not in (K.FMIN, K.FMAX) or logical:
        acc = identity(kind, t, reduce=True)
        out = []
        for v in values:
            acc = combine(kind, acc, v, w)
            out.append(acc)
    else:
        acc = values[0]
        out = [acc]
        for v in values[1:]:
            acc = combine(kind, acc, v, w)
            out.append(acc)
    return out


def resolve_collective(op: Operation, members: list, payloads: list[Any], group) -> list[Any]:
    """Results of barrier-like ``op`` for ``members`` (in local linear id order), given
    each one's operands."""
    if isinstance(op, mux.WorkGroupBarrierOp | mux.SubGroupBarrierOp):
        return [None] * len(members)
    c = op.collective  # type: ignore[attr-defined]
    t = op.results[0].type
    n = len(members)
    if c in ("reduce", "scan_inclusive", "scan_exclusive"):
        values = [p[0] for p in payloads]
        prefixes = scan(op.kind_value, values, t, c)  # type: ignore[attr-defined]
        return [prefixes[-1]] * n if c == "reduce" else prefixes
    if c in ("any", "all"):
        bits = [bool(p[0]) for p in payloads]
        r = int(any(bits) if c == "any" else all(bits))
        return [r] * n
    if op.group_scope == "work_group":  # type: ignore[attr-defined]
        # broadcast(val, x, y, z): the ids are uniform; take the first work-item's
        _, x, y, z = payloads[0]
        sx, sy, sz = group.size
        if not (x < sx and y < sy and z < sz):
            raise UndefinedBehaviorError(
                f"work-group broadcast from local id ({to_signed(x, 64)}, {to_signed(y, 64)}, "
                f"{to_signed(z, 64)}) outside the work-group {list(group.size)} at "
                f"{members[0].interp.where(op)}"
            )
        src = (z * sy + y) * sx + x
        return [payloads[src][0]] * n
    # sub-group broadcast and shuffles: lanes of this sub-group, own value if out of range
    big_n = group.launch.sub_group_size
    s = n
    out = []
    for lane, p in enumerate(payloads):
        if c in ("broadcast", "shuffle"):
            k = p[1]
            out.append(payloads[k][0] if k < s else p[0])
        elif c == "shuffle_xor":
            k = lane ^ p[1]
            out.append(payloads[k][0] if k < s else p[0])
        elif c == "shuffle_up":
            i = lane - to_signed(p[2], 32)
            if 0 <= i < s:
                out.append(payloads[i][1])
            elif -big_n <= i < 0 and i + big_n < s:
                out.append(payloads[i + big_n][0])
            else:
                out.append(p[0])
        elif c == "shuffle_down":
            i = lane + p[2]
            if i < s:
                out.append(payloads[i][0])
            elif big_n <= i and i - big_n < s:
                out.append(payloads[i - big_n][1])
            else:
                out.append(p[1])
        else:
            raise AssertionError(c)
    return out


def vec_group(op: Operation, args: tuple[Any, ...]) -> Any:
    """A vec-group op: a collective over the lanes of one vector (a scalar is one lane)."""
    import numpy as np

    from xmux.runtime.interpreter.values import elem_type

    v = args[0]
    t = elem_type(op.operands[0].type)
    lanes = [int(x) if int_width(t) is not None else x for x in np.ravel(v)] \
        if isinstance(v, np.ndarray) else [v]
    c = op.collective  # type: ignore[attr-defined]
    if c == "any":
        return int(any(lanes))
    if c == "all":
        return int(all(lanes))
    if c == "broadcast":
        k = args[1]
        if k >= len(lanes):
            raise UndefinedBehaviorError(f"vec_group_broadcast lane {k} of {len(lanes)}")
        return lanes[k]
    prefixes = scan(op.kind_value, lanes, t, c)  # type: ignore[attr-defined]
    if c == "reduce":
        return prefixes[-1]
    if not isinstance(v, np.ndarray):
        return prefixes[0]
    return np.array(prefixes, dtype=v.dtype).reshape(v.shape)
