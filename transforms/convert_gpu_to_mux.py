"""``convert-gpu-to-mux``: upstream ``gpu`` kernels and launches -> mux kernels and ``mux.launch``.

Expects ``gpu.module``/``gpu.func`` + ``gpu.launch_func`` (``gpu-launch-outlining`` makes them
from ``gpu.launch``). A no-op on modules without gpu ops.

**Kernels.** Every ``gpu.module`` is flattened into the top-level module: a ``gpu.func``
becomes a ``func.func`` of the same name (``<module>_<name>`` when that is taken), a kernel
gets ``mux.kernel = "entry_point"`` and, from ``known_block_size``,
``mux.reqd_work_group_size``; other ops (``func.func`` helpers, globals) move as they are.
Workgroup attributions become private ``memref.global``\\ s in memory space 3 (work-group
local memory, one per kernel and attribution) read with ``memref.get_global``; private
attributions become ``memref.alloca``\\ s (per work-item). ``#gpu.address_space<workgroup>``
in memref types becomes 3, ``global`` and ``private`` the default space.

**Device ops.**

=================================  =================================================
gpu.thread_id / block_id d         mux.get_local_id / get_group_id d
gpu.block_dim / grid_dim d         mux.get_local_size / get_num_groups d
gpu.global_id d                    mux.get_global_id d
gpu.lane_id / subgroup_id          mux.get_sub_group_local_id / get_sub_group_id
gpu.subgroup_size / num_subgroups  mux.get_max_sub_group_size / get_num_sub_groups
gpu.barrier                        mux.work_group_barrier work_group, <acq_rel, ...>
gpu.all_reduce KIND                mux.work_group_reduce (add -> add or fadd by type,
                                   minsi -> smin, maxnumf/maximumf -> fmax, ...;
                                   minimumf/maximumf: NaN if any value is NaN, through
                                   mux.work_group_any)
gpu.all_reduce region              the same when the region is one combining arith op
                                   (addi, xori, maxsi, ...) of its two arguments; else
                                   acc = v(0), acc = region(acc, v(k)) for k = 1 .. L-1
                                   with v(k) = mux.work_group_broadcast from local
                                   linear id k (O(L) collectives: correct, not fast)
gpu.subgroup_reduce KIND           mux.sub_group_reduce; with ``cluster(size = N,
                                   stride = S)``: log2(N) xor-shuffle steps of
                                   distance S, 2S, ... combined with the kind's op
gpu.shuffle MODE %v, %o, %w        src = lane^o / lane-o / lane+o / o; valid = src <u w;
                                   mux.sub_group_shuffle %v, (valid ? src : lane)
gpu.printf                         a call of the runtime's ordered printer
=================================  =================================================

Kernels that use sub-group ops get ``mux.reqd_sub_group_size`` = ``sub-group-size``
(default 32, a warp) unless they carry one.

**Host.** ``gpu.launch_func @m::@k blocks in (gx, gy, gz) threads in (bx, by, bz) args(...)``
becomes ``mux.launch @k(...) global_size(gx*bx, gy*by, gz*bz) local_size(bx, by, bz)``.
The CPU shares memory with the "device": ``gpu.alloc`` -> ``memref.alloc``, ``gpu.dealloc`` ->
``memref.dealloc``, ``gpu.memcpy`` -> ``memref.copy``, ``gpu.memset`` -> a store loop,
``vector.print`` of a scalar -> the printf runtime in MLIR runner's format,
``gpu.host_register``/``host_unregister`` and ``gpu.wait`` vanish, and so do async tokens
(every op completes in order).

A ``gpu.subgroup_reduce`` of a 1-D vector reduces element by element.

``gpu.subgroup_mma_*`` stay for the next pass, lower-subgroup-mma (CPU) or
lower-subgroup-mma-nvptx; their kernels get ``mux.reqd_sub_group_size`` like subgroup ops.

``gpu.dynamic_shared_memory`` is one module-level work-group buffer of 48 KiB (CUDA's default
limit; a launch asking for more fails an assertion) cast to the op's type.

Thread-block clusters (``gpu.cluster_*``, ``gpu.launch_func ... clusters in (...)``), the lane
ops ``gpu.rotate`` / ``gpu.subgroup_broadcast`` and ``gpu.warp_execute_on_lane_0``: see
``transforms/gpu_newer_to_mux.py`` (run first, after the gpu modules are flattened).

Before::

    gpu.module @k { gpu.func @f(%a: memref<?xf32>) kernel {
        %t = gpu.thread_id x  ...  gpu.return } }
    gpu.launch_func @k::@f blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%a : memref<?xf32>)

After::

    func.func @f(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
      %t = mux.get_local_id 0 : index  ...  func.return }
    mux.launch @f(%a) global_size(%g0, %g1, %g2) local_size(%c64, %c1, %c1)
        : (memref<?xf32>)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.abi.lazy_import import has_dialect_ops, lazy_module
from xmux.dialects import attrs, mux

if TYPE_CHECKING:
    from xmux.dialects.gpu import AllReduceOperation as K

# imported only for modules with gpu ops (abi/lazy_import.py)
gpu = lazy_module("xmux.dialects.gpu")
gpu_host = lazy_module("xmux.dialects.gpu_host")
# clusters, lane ops, warp_execute_on_lane_0 (issue 31)
newer_ops = lazy_module("xmux.transforms.gpu_newer_to_mux")

_INDEX = IndexType()

@cache
def _tables() -> tuple[dict[K, tuple[str | None, str | None]], dict[type[Operation], K],
                        dict[K, tuple[type[Operation] | None, type[Operation] | None]]]:
    """(gpu reduction kind -> (mux kind for integers, for floats), None: not for that type;
    a region's single combining op -> gpu kind; gpu kind -> arith op combining two values
    (integer, float))."""
    K = gpu.AllReduceOperation  # noqa: N806 - the enum, as imported for the annotations
    kinds = {
        K.ADD: ("add", "fadd"), K.MUL: ("mul", "fmul"), K.MINUI: ("umin", None),
        K.MINSI: ("smin", None), K.MAXUI: ("umax", None), K.MAXSI: ("smax", None),
        K.MINNUMF: (None, "fmin"), K.MAXNUMF: (None, "fmax"), K.MINIMUMF: (None, "fmin"),
        K.MAXIMUMF: (None, "fmax"), K.AND: ("and", None), K.OR: ("or", None),
        K.XOR: ("xor", None),
    }
    region_kinds = {
        arith.AddiOp: K.ADD, arith.AddfOp: K.ADD, arith.MuliOp: K.MUL, arith.MulfOp: K.MUL,
        arith.MinUIOp: K.MINUI, arith.MinSIOp: K.MINSI, arith.MaxUIOp: K.MAXUI,
        arith.MaxSIOp: K.MAXSI, arith.MinnumfOp: K.MINNUMF, arith.MaxnumfOp: K.MAXNUMF,
        arith.MinimumfOp: K.MINIMUMF, arith.MaximumfOp: K.MAXIMUMF, arith.AndIOp: K.AND,
        arith.OrIOp: K.OR, arith.XOrIOp: K.XOR,
    }
    combine = {
        K.ADD: (arith.AddiOp, arith.AddfOp), K.MUL: (arith.MuliOp, arith.MulfOp),
        K.MINUI: (arith.MinUIOp, None), K.MINSI: (arith.MinSIOp, None),
        K.MAXUI: (arith.MaxUIOp, None), K.MAXSI: (arith.MaxSIOp, None),
        K.MINNUMF: (None, arith.MinnumfOp), K.MAXNUMF: (None, arith.MaxnumfOp),
        K.MINIMUMF: (None, arith.MinimumfOp), K.MAXIMUMF: (None, arith.MaximumfOp),
        K.AND: (arith.AndIOp, None), K.OR: (arith.OrIOp, None), K.XOR: (arith.XOrIOp, None),
    }
    return kinds, region_kinds, combine


def _sub_group_ops() -> tuple[type[Operation], ...]:
    from xmux.dialects import gpu_mma  # matrices live in sub-groups (lower-subgroup-mma)

    return (gpu.LaneIdOp, gpu.SubgroupIdOp, gpu.SubgroupSizeOp, gpu.NumSubgroupsOp,
            gpu.SubgroupReduceOp, gpu.ShuffleOp, *gpu_mma.MMA_OPS, *newer_ops.lane_ops())


def _nan_kinds() -> tuple[K, K]:
    """The kinds whose result is NaN where any operand is (fmin/fmax drop NaNs)."""
    return (gpu.AllReduceOperation.MINIMUMF, gpu.AllReduceOperation.MAXIMUMF)


def _where(op: Operation) -> str:
    f = op.parent_op()
    while f is not None and not isinstance(f, (func.FuncOp, gpu.FuncOp)):
        f = f.parent_op()
    return f" in @{f.sym_name.data}" if f is not None else ""


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _mux_kind(op: Operation, kind: K, t: Attribute) -> str:
    if not (_is_float(t) or isinstance(t, IntegerType)):
        raise NotSupportedError(f"'{op.name}'{_where(op)}: reductions of {t} are not supported "
                                "(scalar integers and floats only)")
    k = _tables()[0][kind][1 if _is_float(t) else 0]
    if k is None:
        raise NotSupportedError(f"'{op.name}'{_where(op)}: {kind.value} of {t}")
    return k


def _combine(kind: K, a: SSAValue, b: SSAValue) -> Operation:
    cls = _tables()[2][kind][1 if _is_float(a.type) else 0]
    assert cls is not None
    return cls(a, b)


def _region_kind(op: gpu.AllReduceOp) -> K | None:
    block = op.body.blocks[0]
    ops = list(block.ops)
    region_kinds = _tables()[1]
    if (len(op.body.blocks) == 1 and len(ops) == 2 and type(ops[0]) in region_kinds
            and isinstance(ops[1], gpu.YieldOp)
            and set(ops[0].operands) == set(block.args)
            and tuple(ops[1].operands) == (ops[0].results[0],)):
        return region_kinds[type(ops[0])]
    return None


def _reduce_scalar(op: gpu.SubgroupReduceOp, v: SSAValue, new: list[Operation]) -> SSAValue:
    """The subgroup (or cluster) reduction of scalar ``v``; ops appended to ``new``."""
    kind = op.op.data
    k = _mux_kind(op, kind, v.type)
    if op.cluster is None:
        red = mux.SubGroupReduceOp(k, v)
        new.append(red)
        if kind in _nan_kinds():
            extra = _nan_propagating(v, red.result, mux.SubGroupAnyOp)
            new += extra
            return extra[-1].results[0]
        return red.result
    size, stride = op.cluster
    acc = v
    dist = stride
    while dist < size * stride:
        c = arith.ConstantOp(IntegerAttr(dist, i32))
        sh = mux.SubGroupShuffleXorOp(acc, c)
        comb = _combine(kind, acc, sh.result)
        new += [c, sh, comb]
        acc = comb.results[0]
        dist *= 2
    return acc


def _nan_propagating(v: SSAValue, reduced: SSAValue, any_op: type) -> list[Operation]:
    """minimumf / maximumf: the fmin / fmax reduction, or NaN when any value is NaN."""
    from xdsl.dialects.builtin import FloatAttr

    is_nan = arith.CmpfOp(v, v, "uno")
    anyn = any_op(is_nan)
    nan = arith.ConstantOp(FloatAttr(float("nan"), v.type))
    sel = arith.SelectOp(anyn, nan, reduced)
    return [is_nan, anyn, nan, sel]


def _region_all_reduce(op: gpu.AllReduceOp) -> None:
    """A general combining region: every work-item folds the values of all work-items of the
    group in local linear order, each read with ``mux.work_group_broadcast``:
    acc = v(0); for k in 1 .. L-1: acc = region(acc, v(k))."""
    body = op.body.blocks[0]
    if len(op.body.blocks) != 1 or not isinstance(body.last_op, gpu.YieldOp):
        raise NotSupportedError(f"'gpu.all_reduce'{_where(op)}: the region must be one block "
                                "ending in gpu.yield")
    v = op.value
    c = [arith.ConstantOp(IntegerAttr(i, _INDEX)) for i in (0, 1)]
    sizes = [mux.GetLocalSizeOp(d, _INDEX) for d in range(3)]
    lxy = arith.MuliOp(sizes[0], sizes[1])
    total = arith.MuliOp(lxy, sizes[2])
    first = mux.WorkGroupBroadcastOp(v, [c[0], c[0], c[0]])
    loop_body = Block(arg_types=[_INDEX, v.type])
    k, acc = loop_body.args
    x = arith.RemUIOp(k, sizes[0])
    kx = arith.DivUIOp(k, sizes[0])
    y = arith.RemUIOp(kx, sizes[1])
    z = arith.DivUIOp(k, lxy)
    other = mux.WorkGroupBroadcastOp(v, [x, y, z])
    loop_body.add_ops([x, kx, y, z, other])
    mapping = {body.args[0]: acc, body.args[1]: other.result}
    for inner in body.ops:
        if isinstance(inner, gpu.YieldOp):
            loop_body.add_op(scf.YieldOp(*(mapping.get(o, o) for o in inner.operands)))
        else:
            loop_body.add_op(inner.clone(value_mapper=mapping))
    loop = scf.ForOp(c[1], total, c[1], [first.result], Region(loop_body))
    Rewriter.insert_op([*c, *sizes, lxy, total, first, loop], InsertPoint.before(op))
    op.result.replace_all_uses_with(loop.results[0])
    Rewriter.erase_op(op)


def _convert_space(t: Attribute) -> Attribute:
    if isinstance(t, MemRefType) and isinstance(t.memory_space, gpu.AddressSpaceAttr):
        space = t.memory_space.data
        new_space: Attribute = (IntegerAttr(3, 64) if space == gpu.AddressSpace.WORKGROUP
                                else NoneAttr())
        return MemRefType(t.element_type, t.get_shape(), t.layout, new_space)
    return t


@dataclass(frozen=True)
class ConvertGpuToMux(ModulePass):
    """Convert upstream ``gpu`` kernels, launches and host ops to mux kernels and launches."""

    name = "convert-gpu-to-mux"

    sub_group_size: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not has_dialect_ops(op, "gpu"):
            return
        if any(isinstance(o, gpu_host.LaunchOp) for o in op.walk()):
            raise NotSupportedError(
                "convert-gpu-to-mux: gpu.launch must be outlined first (gpu-launch-outlining)")
        names = self._flatten(op)
        newer_ops.lower(op, names, self.sub_group_size)
        for o in list(op.walk()):
            self._device(o)
        for o in reversed(list(op.walk())):
            self._host(o, names)
        for o in op.walk():
            for r in o.results:
                if r.type != _convert_space(r.type):
                    Rewriter.replace_value_with_new_type(r, _convert_space(r.type))
            for reg in o.regions:
                for b in reg.blocks:
                    for a in b.args:
                        if a.type != _convert_space(a.type):
                            Rewriter.replace_value_with_new_type(a, _convert_space(a.type))
        for f in op.body.block.ops:
            if isinstance(f, func.FuncOp):
                f.function_type = type(f.function_type).from_lists(
                    [_convert_space(t) for t in f.function_type.inputs.data],
                    [_convert_space(t) for t in f.function_type.outputs.data])
        left = next((o for o in op.walk() if o.name.startswith("gpu.")
                     # stay for lower-subgroup-mma(-nvptx), the next pass
                     and not o.name.startswith("gpu.subgroup_mma_")), None)
        if left is not None:
            raise NotSupportedError(f"convert-gpu-to-mux: '{left.name}'{_where(left)} is not "
                                    "supported on the CPU")
        op.attributes.pop("gpu.container_module", None)

    # -- gpu.module -> top level ------------------------------------------------------

    def _flatten(self, module: ModuleOp) -> dict[tuple[str, str], str]:
        """Move every gpu.module's contents to the top level; (module, func) -> name."""
        top = module.body.block
        taken = {o.sym_name.data for o in top.ops
                 if isinstance(getattr(o, "sym_name", None), StringAttr)}
        names: dict[tuple[str, str], str] = {}
        for gmod in [o for o in top.ops if isinstance(o, gpu.ModuleOp)]:
            mname = gmod.sym_name.data
            local: dict[str, str] = {}
            for o in list(gmod.body.block.ops):
                sym = getattr(o, "sym_name", None)
                if isinstance(sym, StringAttr):
                    new = sym.data if sym.data not in taken else f"{mname}_{sym.data}"
                    taken.add(new)
                    local[sym.data] = new
                    names[(mname, sym.data)] = new
            for o in list(gmod.body.block.ops):
                o.detach()
                if isinstance(o, gpu.ModuleEndOp):
                    o.erase()
                    continue
                if isinstance(o, gpu.FuncOp):
                    o = self._func(module, o, local[o.sym_name.data])
                elif isinstance(getattr(o, "sym_name", None), StringAttr):
                    o.sym_name = StringAttr(local[o.sym_name.data])
                for inner in o.walk():
                    callee = getattr(inner, "callee", None)
                    if isinstance(callee, SymbolRefAttr) and callee.root_reference.data in local:
                        inner.callee = SymbolRefAttr(local[callee.root_reference.data])
                Rewriter.insert_op(o, InsertPoint.before(gmod))
            Rewriter.erase_op(gmod)
        return names

    def _func(self, module: ModuleOp, g: gpu.FuncOp, name: str) -> func.FuncOp:
        n = len(g.function_type.inputs.data)
        wg_args, priv_args = list(g.workgroup_args), list(g.private_args)
        body = g.detach_region(g.body)
        entry = body.blocks[0]
        first = entry.first_op
        for i, a in enumerate(wg_args):
            t = _convert_space(a.type)
            gname = f"__gpu_wg_{name}_{i}"
            glob = memref.GlobalOp.get(StringAttr(gname), t, UnitAttr(), StringAttr("private"))
            Rewriter.insert_op(glob, InsertPoint.at_end(module.body.block))
            get = memref.GetGlobalOp(gname, t)
            Rewriter.insert_op(get, InsertPoint.before(first) if first else
                               InsertPoint.at_end(entry))
            a.replace_all_uses_with(get.memref)
        for a in priv_args:
            t = _convert_space(a.type)
            alloca = memref.AllocaOp.get(t.element_type, shape=t.get_shape())
            Rewriter.insert_op(alloca, InsertPoint.before(first) if first else
                               InsertPoint.at_end(entry))
            a.replace_all_uses_with(alloca.memref)
        for a in reversed(entry.args[n:]):
            entry.erase_arg(a)
        for r in [o for o in body.walk() if isinstance(o, gpu.ReturnOp)]:
            Rewriter.replace_op(r, func.ReturnOp(*r.operands))
        f = func.FuncOp(name, g.function_type, body)
        if g.is_kernel:
            attrs.set_kernel(f, True)
            known = g.known_size("known_block_size")
            if known is not None:
                attrs.set_reqd_work_group_size(f, list(known))
            if any(isinstance(o, _sub_group_ops()) for o in body.walk()):
                if attrs.get_reqd_sub_group_size(f) is None:
                    attrs.set_reqd_sub_group_size(f, self.sub_group_size)
        for k, v in g.attributes.items():
            if k not in ("gpu.kernel", "gpu.known_block_size", "gpu.known_grid_size", "sym_name",
                         "workgroup_attributions"):
                f.attributes.setdefault(k, v)
        return f

    # -- device ops -------------------------------------------------------------------

    def _device(self, op: Operation) -> None:
        dims = {gpu.ThreadIdOp: mux.GetLocalIdOp, gpu.BlockIdOp: mux.GetGroupIdOp,
                gpu.BlockDimOp: mux.GetLocalSizeOp, gpu.GridDimOp: mux.GetNumGroupsOp,
                gpu.GlobalIdOp: mux.GetGlobalIdOp}
        plain = {gpu.LaneIdOp: mux.GetSubGroupLocalIdOp, gpu.SubgroupIdOp: mux.GetSubGroupIdOp,
                 gpu.SubgroupSizeOp: mux.GetMaxSubGroupSizeOp,
                 gpu.NumSubgroupsOp: mux.GetNumSubGroupsOp}
        if type(op) in dims:
            Rewriter.replace_op(op, dims[type(op)](op.dim_index, _INDEX))
        elif type(op) in plain:
            Rewriter.replace_op(op, plain[type(op)](_INDEX))
        elif isinstance(op, gpu.BarrierOp):
            Rewriter.replace_op(op, mux.WorkGroupBarrierOp())
        elif isinstance(op, gpu.AllReduceOp):
            kind = op.op.data if op.op is not None else _region_kind(op)
            if kind is None:
                _region_all_reduce(op)
                return
            k = _mux_kind(op, kind, op.value.type)
            red = mux.WorkGroupReduceOp(k, op.value)
            if kind in _nan_kinds():  # NaN anywhere -> NaN (fmin/fmax drop it)
                Rewriter.replace_op(op, [red, *_nan_propagating(op.value, red.result,
                                                                mux.WorkGroupAnyOp)])
            else:
                Rewriter.replace_op(op, red)
        elif isinstance(op, gpu.SubgroupReduceOp):
            self._subgroup_reduce(op)
        elif isinstance(op, gpu.ShuffleOp):
            self._shuffle(op)
        elif isinstance(op, gpu.PrintfOp):
            _printf(op)
        elif isinstance(op, gpu.DynamicSharedMemoryOp):
            _dynamic_shared_memory(op)

    def _subgroup_reduce(self, op: gpu.SubgroupReduceOp) -> None:
        from xdsl.dialects import vector
        from xdsl.dialects.builtin import VectorType

        new: list[Operation] = []
        v = op.value
        if not isinstance(v.type, VectorType):
            result = _reduce_scalar(op, v, new)
        else:  # element by element (upstream allows vectors; mux collectives take scalars)
            if v.type.get_num_dims() != 1:
                raise NotSupportedError(f"'{op.name}'{_where(op)}: a {v.type} (1-D vectors "
                                        "only)")
            # extract all, reduce each, rebuild: no vector value lives across the barriers
            # of the reductions (work-item-loops keeps only scalars per work-item)
            elems = [vector.ExtractOp(v, [i], v.type.element_type)
                     for i in range(v.type.get_shape()[0])]
            new += elems
            reduced = [_reduce_scalar(op, e.result, new) for e in elems]
            first = vector.BroadcastOp(reduced[0], v.type)
            new.append(first)
            result = first.results[0]
            for i, r in enumerate(reduced[1:], 1):
                ins = vector.InsertOp(r, result, [i])
                new.append(ins)
                result = ins.results[0]
        Rewriter.insert_op(new, InsertPoint.before(op))
        op.result.replace_all_uses_with(result)
        Rewriter.erase_op(op)

    def _shuffle(self, op: gpu.ShuffleOp) -> None:
        lane = mux.GetSubGroupLocalIdOp(i32)
        mode = op.mode.data
        off = op.offset
        ops: list[Operation] = [lane]
        if mode == gpu.ShuffleMode.XOR:
            src_op: Operation = arith.XOrIOp(lane, off)
        elif mode == gpu.ShuffleMode.UP:
            src_op = arith.SubiOp(lane, off)
        elif mode == gpu.ShuffleMode.DOWN:
            src_op = arith.AddiOp(lane, off)
        else:
            src_op = None  # type: ignore[assignment]
        src = src_op.results[0] if src_op is not None else off
        if src_op is not None:
            ops.append(src_op)
        valid = arith.CmpiOp(src, op.width, "ult")
        sel = arith.SelectOp(valid, src, lane)
        sh = mux.SubGroupShuffleOp(op.value, sel)
        ops += [valid, sel, sh]
        Rewriter.replace_op(op, ops, [sh.result, valid.result])

    # -- host ops ---------------------------------------------------------------------

    def _host(self, op: Operation, names: dict[tuple[str, str], str]) -> None:
        if isinstance(op, gpu_host.LaunchFuncOp):
            self._launch(op, names)
        elif isinstance(op, gpu_host.AllocOp):
            alloc = memref.AllocOp(list(op.dynamicSizes), [], op.memref.type)
            self._replace_async(op, [alloc], [alloc.memref])
        elif isinstance(op, gpu_host.DeallocOp):
            self._replace_async(op, [memref.DeallocOp.get(op.memref)], [])
        elif isinstance(op, gpu_host.MemcpyOp):
            self._replace_async(op, [memref.CopyOp(op.src, op.dst)], [])
        elif isinstance(op, gpu_host.MemsetOp):
            self._replace_async(op, _memset(op.dst, op.value), [])
        elif isinstance(op, (gpu_host.WaitOp, gpu_host.HostRegisterOp,
                             gpu_host.HostUnregisterOp)):
            self._replace_async(op, [], [])
        elif op.name == "vector.print":
            _vector_print(op)

    def _replace_async(self, op: Operation, new: list[Operation], values: list[SSAValue]
                       ) -> None:
        """Replace ``op`` by ``new`` (its non-token results by ``values``); its async token
        vanishes. Ops are converted in reverse order, so the token's gpu users are gone;
        any other user is an error."""
        token = getattr(op, "asyncToken", None)
        if token is not None:
            for use in list(token.uses):
                if not use.operation.name.startswith("gpu."):
                    raise NotSupportedError(
                        f"'{op.name}'{_where(op)}: its async token is used by "
                        f"'{use.operation.name}' (tokens may only feed gpu ops)")
        if new:
            Rewriter.insert_op(new, InsertPoint.before(op))
        for old, v in zip([r for r in op.results if r is not token], values, strict=True):
            old.replace_all_uses_with(v)
        Rewriter.erase_op(op, safe_erase=False)

    def _launch(self, op: gpu_host.LaunchFuncOp, names: dict[tuple[str, str], str]) -> None:
        ref = op.kernel
        mname = ref.root_reference.data
        fname = ref.nested_references.data[-1].data if ref.nested_references.data else mname
        if (mname, fname) not in names:
            raise NotSupportedError(f"gpu.launch_func{_where(op)}: no kernel @{mname}::@{fname}")
        new: list[Operation] = []

        def index(v: SSAValue) -> SSAValue:
            if isinstance(v.type, IndexType):
                return v
            c = arith.IndexCastOp(v, _INDEX)
            new.append(c)
            return c.result

        grid = [index(v) for v in op.grid]
        newer_ops.check_launch_grid(op, grid, new)
        block = [index(v) for v in op.block]
        glob = []
        for g, b in zip(grid, block, strict=True):
            m = arith.MuliOp(g, b)
            new.append(m)
            glob.append(m.result)
        if op.dynamicSharedMemorySize is not None:
            cap = arith.ConstantOp(IntegerAttr(DYNAMIC_SHARED_MEMORY_BYTES, i32))
            fits = arith.CmpiOp(op.dynamicSharedMemorySize, cap, "ule")
            new += [cap, fits, cf.AssertOp(
                fits, f"gpu.launch_func @{mname}::@{fname}: dynamic_shared_memory_size above "
                f"{DYNAMIC_SHARED_MEMORY_BYTES} bytes (xmux's fixed dynamic workgroup memory)")]
        new.append(mux.LaunchOp(names[(mname, fname)], list(op.kernelOperands), glob, block))
        self._replace_async(op, new, [])


_PRINTF = "xmux_gpu_printf"


def _printf(op: gpu.PrintfOp) -> None:
    """A call of the runtime's printer: (format id, address of the module's format record,
    count, 8 x 64-bit argument)."""
    from xdsl.dialects.builtin import Float64Type, i1, i64

    from xmux.abi import printf_format

    if len(op.args) > printf_format.MAX_ARGS:
        raise NotSupportedError(f"'gpu.printf'{_where(op)}: more than {printf_format.MAX_ARGS} "
                                "arguments")
    ops: list[Operation] = []
    words: list[SSAValue] = []
    kinds = ""
    for a in op.args:
        t = a.type
        if isinstance(t, IndexType):
            c: Operation = arith.IndexCastOp(a, i64)
            kinds += "i"
        elif isinstance(t, IntegerType):
            w = t.width.data
            c = (arith.ExtUIOp(a, i64) if t == i1 else arith.ExtSIOp(a, i64)) if w < 64 else None
            kinds += "i"
        elif _is_float(t):
            ext = arith.ExtFOp(a, Float64Type()) if not isinstance(t, Float64Type) else None
            if ext is not None:
                ops.append(ext)
            c = arith.BitcastOp(ext.result if ext is not None else a, i64)
            kinds += "f"
        else:
            raise NotSupportedError(f"'gpu.printf'{_where(op)}: argument of type {t}")
        if c is not None:
            ops.append(c)
        words.append(c.results[0] if c is not None else a)
    fid = printf_format.register_format(op.format.data, kinds)
    top = op.parent_op()
    while top is not None and not isinstance(top, ModuleOp):
        top = top.parent_op()
    assert top is not None
    # the record "<kinds>\0<format>\0" lives in the module, so a cached object prints too
    gname = f"__gpu_printf_{fid:08x}"
    record = memref.GetGlobalOp(gname, _printf_record(top, gname, kinds, op.format.data))
    ptr = memref.ExtractAlignedPointerAsIndexOp.get(record)
    ptr64 = arith.IndexCastOp(ptr, i64)
    head = [arith.ConstantOp(IntegerAttr(fid, i64)), record, ptr, ptr64,
            arith.ConstantOp(IntegerAttr(len(words), i64))]
    zero = arith.ConstantOp(IntegerAttr(0, i64))
    ops += [*head, zero]
    args = [head[0].result, ptr64.result, head[4].result, *words,
            *([zero.result] * (printf_format.MAX_ARGS - len(words)))]
    ops.append(func.CallOp(_PRINTF, args, []))
    Rewriter.insert_op(ops, InsertPoint.before(op))
    Rewriter.erase_op(op)
    if not any(isinstance(o, func.FuncOp) and o.sym_name.data == _PRINTF
               for o in top.body.block.ops):
        decl = func.FuncOp.external(_PRINTF, [i64] * (3 + printf_format.MAX_ARGS), [])
        top.body.block.add_op(decl)


def _printf_record(top: ModuleOp, name: str, kinds: str, fmt: str) -> MemRefType:
    """The module's constant ``memref<N x i8>`` @name holding kinds\0format\0 (once)."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, i8

    data = [b - 256 if b > 127 else b for b in (kinds + "\0" + fmt + "\0").encode()]
    t = MemRefType(i8, [len(data)])
    if not any(isinstance(o, memref.GlobalOp) and o.sym_name.data == name
               for o in top.body.block.ops):
        init = DenseIntOrFPElementsAttr.from_list(TensorType(i8, [len(data)]), data)
        top.body.block.add_op(memref.GlobalOp.get(StringAttr(name), t, init,
                                                  StringAttr("private"), UnitAttr()))
    return t


#: Bytes of dynamic workgroup memory every kernel using gpu.dynamic_shared_memory gets
#: (CUDA's default limit without opt-in); a launch asking for more is refused.
DYNAMIC_SHARED_MEMORY_BYTES = 48 * 1024
_DYN_SHMEM = "__gpu_dynamic_shared_memory"


def _dynamic_shared_memory(op: gpu.DynamicSharedMemoryOp) -> None:
    """One module-level work-group buffer of ``DYNAMIC_SHARED_MEMORY_BYTES`` i8, cast to the
    op's ``memref<?xi8, 3>`` (``memref.view`` then carves it as on a GPU)."""
    from xdsl.dialects.builtin import i8

    top = op.parent_op()
    while top is not None and not isinstance(top, ModuleOp):
        top = top.parent_op()
    assert top is not None
    t = MemRefType(i8, [DYNAMIC_SHARED_MEMORY_BYTES], memory_space=IntegerAttr(3, 64))
    if not any(isinstance(o, memref.GlobalOp) and o.sym_name.data == _DYN_SHMEM
               for o in top.body.block.ops):
        glob = memref.GlobalOp.get(StringAttr(_DYN_SHMEM), t, UnitAttr(), StringAttr("private"),
                                   alignment=64)
        top.body.block.add_op(glob)
    get = memref.GetGlobalOp(_DYN_SHMEM, t)
    cast = memref.CastOp.get(get.memref, _convert_space(op.resultMemref.type))
    Rewriter.replace_op(op, [get, cast])


def _vector_print(op: Operation) -> None:
    """``vector.print %x : T`` of a scalar: printed as MLIR's runner prints it (integers in
    decimal, floats as C's ``%g``, then a newline), through the gpu.printf runtime."""
    v = op.operands[0]
    if not (isinstance(v.type, (IntegerType, IndexType)) or _is_float(v.type)):
        raise NotSupportedError(f"vector.print of {v.type}: only scalars are supported")
    fmt = "%g\n" if _is_float(v.type) else "%lld\n"
    p = gpu.PrintfOp.create(operands=[v], properties={"format": StringAttr(fmt)})
    Rewriter.replace_op(op, p)
    _printf(p)


def _memset(dst: SSAValue, value: SSAValue) -> list[Operation]:
    """Nested ``scf.for`` loops storing ``value`` at every element of ``dst``."""
    t = dst.type
    assert isinstance(t, MemRefType)
    c0 = arith.ConstantOp(IntegerAttr(0, _INDEX))
    c1 = arith.ConstantOp(IntegerAttr(1, _INDEX))
    ops: list[Operation] = [c0, c1]
    bounds: list[SSAValue] = []
    for d, n in enumerate(t.get_shape()):
        if n >= 0:
            c: Operation = arith.ConstantOp(IntegerAttr(n, _INDEX))
        else:
            di = arith.ConstantOp(IntegerAttr(d, _INDEX))
            ops.append(di)
            c = memref.DimOp.from_source_and_index(dst, di)
        ops.append(c)
        bounds.append(c.results[0])

    def nest(level: int, ivs: list[SSAValue]) -> list[Operation]:
        if level == len(bounds):
            return [memref.StoreOp.get(value, dst, ivs)]
        body = Block(arg_types=[_INDEX])
        body.add_ops([*nest(level + 1, [*ivs, body.args[0]]), scf.YieldOp()])
        return [scf.ForOp(c0, bounds[level], c1, [], Region(body))]

    return ops + nest(0, [])
