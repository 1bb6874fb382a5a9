"""convert-gpu-to-mux's part for the newer gpu ops of ``dialects/gpu_newer.py`` (issue 31):
thread-block clusters, ``gpu.rotate``, ``gpu.subgroup_broadcast`` / ``gpu.broadcast_lane``
and ``gpu.warp_execute_on_lane_0``. Not a pass: ``ConvertGpuToMux.apply`` calls ``lower``
after flattening the gpu modules and before its own device-op conversion.

**Clusters.** A cluster is a box of ``cluster`` blocks (upstream: ``gpu.launch_func ...
clusters in (cx, cy, cz) blocks in (gx, gy, gz)`` launches ``g`` blocks in clusters of
``c``; CUDA's cuLaunchKernelEx). xmux fixes a kernel's cluster shape at compile time, as
CUDA's ``__cluster_dims__`` does: the launches' cluster sizes must be constants, the same for
every launch of a kernel; the kernel gets ``nvvm.cluster_dim`` (``attrs.CLUSTER_DIM``). A
kernel never launched with clusters has clusters of one block (what sm_90 hardware reports).
The grid must be a multiple of the cluster: checked when compiling if both are constants,
else by a ``cf.assert`` before the launch naming it.

================================  ==========================================================
query d (shape c)                 CPU (and interpreter)           NVPTX (sm_90 and newer)
================================  ==========================================================
gpu.cluster_id                    group_id / c                    %clusterid.d
gpu.cluster_dim                   num_groups / c                  %nclusterid.d
gpu.cluster_block_id              group_id mod c                  %cluster_ctaid.d
gpu.cluster_dim_blocks            c                               %cluster_nctaid.d
================================  ==========================================================

On the CPU a cluster's work-groups are consecutive group ids of the launch; nothing in the
gpu dialect (LLVM 19..22) synchronises or shares memory across a cluster, so when they run is
not observable. On NVPTX, emit writes ``.reqnctapercluster`` from ``nvvm.cluster_dim``: a
plain cuLaunchKernel then runs real clusters; an arch below sm_90 is an error.

**Lane ops** (through mux sub-group ops, as ``gpu.shuffle``; 1-D vectors element by element):
``gpu.rotate %v, o, w`` reads ``mux.sub_group_shuffle`` from lane ``((lane + o) & (w - 1)) +
(lane & ~(w - 1))``, ``valid = lane < w``; ``gpu.subgroup_broadcast`` is
``mux.sub_group_broadcast`` from ``specific_lane``'s lane, else lane 0 (xmux's sub-group ops
are reached by the whole sub-group, whose first active lane is then lane 0).

**gpu.warp_execute_on_lane_0** (upstream's scf.if rule, vector distribution's
``WarpOpToScfIfPattern``): each lane stores its slice of the distributed arguments to a
work-group buffer (one row per sub-group: ``@__gpu_warp_<n>_<k> : memref<R x ... x T, 3>``,
R from the kernel's known block size, else 32 and an assert that the block has at most 32
warps); a sub-group barrier; ``scf.if laneid == 0`` loads the whole
vectors, runs the region and stores what it yields; a sub-group barrier; each lane loads its
slice (``laneid * K`` of a distributed 1-D vector) or the whole value (same types: uniform).
Uniform arguments are lane 0's own values. The warp size must be the sub-group size.

Before / after (CPU)::

    %i = gpu.cluster_block_id x                 %g = mux.get_group_id 0 : index
                                                %c = arith.constant 2 : index
                                                %i = arith.remui %g, %c : index
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, cf, func, llvm, memref, scf, vector
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.abi.lazy_import import lazy_module
from xmux.dialects import attrs, mux

gpu = lazy_module("xmux.dialects.gpu")
gpu_host = lazy_module("xmux.dialects.gpu_host")
newer = lazy_module("xmux.dialects.gpu_newer")

_INDEX = IndexType()
Shape = tuple[int, int, int]
_ONE: Shape = (1, 1, 1)
#: Sub-groups per block a warp_execute_on_lane_0 buffer has rows for (CUDA: 1024 threads)
MAX_WARPS = 32
#: The first sm with thread-block clusters
_CLUSTER_SM = 90


def lane_ops() -> tuple[type[Operation], ...]:
    """Ops that make a kernel use sub-groups (``mux.reqd_sub_group_size``)."""
    return (newer.RotateOp, newer.SubgroupBroadcastOp, newer.BroadcastLaneOp,
            newer.WarpExecuteOnLane0Op)


def _cluster_ops() -> tuple[type[Operation], ...]:
    return (gpu.ClusterIdOp, newer.ClusterDimOp, newer.ClusterDimBlocksOp,
            newer.ClusterBlockIdOp)


def _where(op: Operation) -> str:
    f = _function(op)
    return f" in @{f.sym_name.data}" if f is not None else ""


def _function(op: Operation) -> func.FuncOp | None:
    f = op.parent_op()
    while f is not None and not isinstance(f, func.FuncOp):
        f = f.parent_op()
    return f


def _constant(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _launch_name(op: Operation) -> str:
    return f"gpu.launch_func {op.kernel}{_where(op)}"


# -- clusters -----------------------------------------------------------------------------


def cluster_shapes(module: ModuleOp, names: dict[tuple[str, str], str]) -> dict[str, Shape]:
    """Kernel name -> the cluster shape its launches use (kernels launched with clusters)."""
    shapes: dict[str, Shape] = {}
    for op in module.walk():
        if not isinstance(op, gpu_host.LaunchFuncOp) or op.clusterSizeX is None:
            continue
        ref = op.kernel
        mname = ref.root_reference.data
        fname = ref.nested_references.data[-1].data if ref.nested_references.data else mname
        kernel = names.get((mname, fname))
        if kernel is None:
            continue  # convert-gpu-to-mux reports the missing kernel
        sizes = [_constant(v) for v in (op.clusterSizeX, op.clusterSizeY, op.clusterSizeZ)]
        if any(s is None or s < 1 for s in sizes):
            raise NotSupportedError(
                f"{_launch_name(op)}: cluster sizes must be positive constants (xmux fixes a "
                "kernel's cluster shape when compiling, as CUDA's __cluster_dims__)")
        shape: Shape = (sizes[0], sizes[1], sizes[2])  # type: ignore[assignment]
        if shapes.setdefault(kernel, shape) != shape:
            raise NotSupportedError(
                f"{_launch_name(op)}: clusters of {list(shape)} blocks, but another launch of "
                f"@{kernel} uses {list(shapes[kernel])} (one cluster shape per kernel)")
    return shapes


def _check_arch(module: ModuleOp, what: str) -> None:
    chip = attrs.get_target(module).chip.data
    digits = chip[3:].rstrip("a") if chip.startswith("sm_") else ""
    if not digits.isdigit() or int(digits) < _CLUSTER_SM:
        raise NotSupportedError(f"{what}: thread-block clusters need sm_90 or newer; the "
                                f"target is {chip}")


def _shape_for(op: Operation, shapes: dict[str, Shape]) -> Shape:
    f = _function(op)
    if f is not None and f.sym_name.data in shapes:
        return shapes[f.sym_name.data]
    if f is not None and attrs.is_kernel(f):
        return _ONE
    distinct = set(shapes.values())  # a helper function: the module's one shape, if any
    if len(distinct) > 1:
        raise NotSupportedError(f"'{op.name}'{_where(op)}: a function called from kernels "
                                "with different cluster shapes")
    return distinct.pop() if distinct else _ONE


def _cluster_query(op: Operation, shapes: dict[str, Shape], gpu_target: bool) -> None:
    d = op.dim_index
    if gpu_target:
        reg = {"gpu.cluster_id": "clusterid", "gpu.cluster_dim": "nclusterid",
               "gpu.cluster_block_id": "cluster.ctaid",
               "gpu.cluster_dim_blocks": "cluster.nctaid"}[op.name]
        read = llvm.CallIntrinsicOp(f"llvm.nvvm.read.ptx.sreg.{reg}.{'xyz'[d]}", [], [i32])
        ext = arith.ExtUIOp(read, i64)
        cast = arith.IndexCastOp(ext, _INDEX)
        Rewriter.replace_op(op, [read, ext, cast])
        return
    c = _shape_for(op, shapes)[d]
    size = arith.ConstantOp(IntegerAttr(c, _INDEX))
    if isinstance(op, newer.ClusterDimBlocksOp):
        Rewriter.replace_op(op, size)
        return
    q: Operation = (mux.GetNumGroupsOp(d, _INDEX) if isinstance(op, newer.ClusterDimOp)
                    else mux.GetGroupIdOp(d, _INDEX))
    if c == 1:  # one block per cluster: the block is the cluster
        Rewriter.replace_op(op, [arith.ConstantOp(IntegerAttr(0, _INDEX))]
                            if isinstance(op, newer.ClusterBlockIdOp) else [q])
        return
    div = (arith.RemUIOp(q, size) if isinstance(op, newer.ClusterBlockIdOp)
           else arith.DivUIOp(q, size))
    Rewriter.replace_op(op, [q, size, div])


def check_launch_grid(op: Operation, grid: list[SSAValue], new: list[Operation]) -> None:
    """The grid of a launch with clusters must be a multiple of the cluster shape: a
    compile-time error for constants, else a ``cf.assert`` appended to ``new``."""
    if op.clusterSizeX is None:
        return
    for axis, g, cv in zip("xyz", grid, (op.clusterSizeX, op.clusterSizeY, op.clusterSizeZ),
                           strict=True):
        c = _constant(cv)
        if c is None or c == 1:
            continue
        message = (f"{_launch_name(op)}: the grid's {axis} size is not a multiple of the "
                   f"cluster's ({c})")
        known = _constant(g)
        if known is not None:
            if known % c:
                raise NotSupportedError(f"{message}: {known} blocks")
            continue
        size = arith.ConstantOp(IntegerAttr(c, _INDEX))
        rem = arith.RemUIOp(g, size)
        zero = arith.ConstantOp(IntegerAttr(0, _INDEX))
        ok = arith.CmpiOp(rem, zero, "eq")
        new += [size, rem, zero, ok, cf.AssertOp(ok, message)]


# -- lane ops -----------------------------------------------------------------------------


def _per_element(op: Operation, v: SSAValue, one: Callable[[SSAValue, list[Operation]],
                                                         SSAValue],
                 new: list[Operation]) -> SSAValue:
    """``one`` on scalar ``v``, or on every element of a 1-D vector (rebuilt after)."""
    if not isinstance(v.type, VectorType):
        return one(v, new)
    elems = [vector.ExtractOp(v, [i], v.type.element_type)
             for i in range(v.type.get_shape()[0])]
    new += elems
    done = [one(e.result, new) for e in elems]
    acc: Operation = vector.BroadcastOp(done[0], v.type)
    new.append(acc)
    for i, r in enumerate(done[1:], 1):
        acc = vector.InsertOp(r, acc.results[0], [i])
        new.append(acc)
    return acc.results[0]


def _rotate(op: Operation, sub_group_size: int) -> None:
    w, o = op.width.value.data, op.offset.value.data
    if w > sub_group_size:
        raise NotSupportedError(f"'gpu.rotate'{_where(op)}: width {w} is wider than the "
                                f"sub-group ({sub_group_size})")
    lane = mux.GetSubGroupLocalIdOp(i32)

    def c(n: int) -> arith.ConstantOp:
        return arith.ConstantOp(IntegerAttr(n, i32))

    off, low, high = c(o), c(w - 1), c(~(w - 1))
    plus = arith.AddiOp(lane, off)
    wrapped = arith.AndIOp(plus, low)
    base = arith.AndIOp(lane, high)
    src = arith.AddiOp(wrapped, base)
    width = c(w)
    valid = arith.CmpiOp(lane, width, "ult")
    new: list[Operation] = [lane, off, low, high, plus, wrapped, base, src, width, valid]

    def one(v: SSAValue, out: list[Operation]) -> SSAValue:
        sh = mux.SubGroupShuffleOp(v, src)
        out.append(sh)
        return sh.result

    r = _per_element(op, op.value, one, new)
    Rewriter.insert_op(new, InsertPoint.before(op))
    op.rotateResult.replace_all_uses_with(r)
    op.valid.replace_all_uses_with(valid.result)
    Rewriter.erase_op(op)


def _broadcast(op: Operation) -> None:
    new: list[Operation] = []
    if op.lane is not None:
        lane = op.lane
    else:
        zero = arith.ConstantOp(IntegerAttr(0, i32))
        new.append(zero)
        lane = zero.result

    def one(v: SSAValue, out: list[Operation]) -> SSAValue:
        b = mux.SubGroupBroadcastOp(v, lane)
        out.append(b)
        return b.result

    r = _per_element(op, op.src, one, new)
    Rewriter.insert_op(new, InsertPoint.before(op))
    op.result.replace_all_uses_with(r)
    Rewriter.erase_op(op)


# -- gpu.warp_execute_on_lane_0 -----------------------------------------------------------


class _Buffers:
    """Module-level work-group buffers, one row per sub-group."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        self.count = 0

    def new(self, t: Attribute, n: int, rows: int) -> Callable[[], memref.GetGlobalOp]:
        """A ``memref<rows x (elements of t) x elem, 3>`` global for value type ``t`` of warp
        op ``n``: a maker of ``memref.get_global`` ops reading it."""
        elem, size = ((t.element_type, t.get_shape()[0]) if isinstance(t, VectorType)
                      else (t, 1))
        mt = MemRefType(elem, [rows, size], memory_space=IntegerAttr(3, 64))
        name = f"__gpu_warp_{n}_{self.count}"
        self.count += 1
        self.module.body.block.add_op(memref.GlobalOp.get(
            StringAttr(name), mt, UnitAttr(), StringAttr("private"), alignment=16))
        return lambda: memref.GetGlobalOp(name, mt)


def _warp_execute(op: Operation, n: int, buffers: _Buffers, sub_group_size: int) -> None:
    where = f"'gpu.warp_execute_on_lane_0'{_where(op)}"
    warp = op.warp_size.value.data
    if warp != sub_group_size:
        raise NotSupportedError(f"{where}: a warp of {warp} lanes; the sub-groups here have "
                                f"{sub_group_size}")
    block = op.warpRegion.blocks[0]
    yield_op = block.last_op
    pairs_in = list(zip(op.args, block.args, strict=True))
    pairs_out = list(zip(op.results_, yield_op.operands, strict=True))
    for part, whole in [(a.type, b.type) for a, b in pairs_in] + \
                       [(r.type, y.type) for r, y in pairs_out]:
        if part != whole and (not isinstance(whole, VectorType) or whole.get_num_dims() != 1):
            raise NotSupportedError(f"{where}: distributing {whole} (1-D vectors only)")
    before: list[Operation] = []
    lane = op.laneid
    sg = mux.GetSubGroupIdOp(_INDEX)
    before.append(sg)
    f = _function(op)
    known = attrs.get_reqd_work_group_size(f) if f is not None else None
    if known is not None:  # a row per sub-group of the known block
        rows = -(-known[0] * known[1] * known[2] // sub_group_size)
    else:  # CUDA's largest block; a larger one fails the assert
        rows = MAX_WARPS
        limit = arith.ConstantOp(IntegerAttr(rows, _INDEX))
        fits = arith.CmpiOp(sg, limit, "ult")
        before += [limit, fits, cf.AssertOp(fits, f"{where}: more than {rows} warps in a "
                                            "block")]
    zero = arith.ConstantOp(IntegerAttr(0, _INDEX))
    before.append(zero)

    def slice_at(t: VectorType, out: list[Operation]) -> SSAValue:
        k = arith.ConstantOp(IntegerAttr(t.get_shape()[0], _INDEX))
        at = arith.MuliOp(lane, k)
        out += [k, at]
        return at.result

    loads_in: list[Operation] = []
    mapping: dict[SSAValue, SSAValue] = {}
    for a, b in pairs_in:
        if a.type == b.type:  # uniform: lane 0's own value
            mapping[b] = a
            continue
        buffer = buffers.new(b.type, n, rows)
        get = buffer()
        before += [get, vector.StoreOp(a, get, [sg, slice_at(a.type, before)])]
        get_in = buffer()
        whole = vector.LoadOp(get_in, [sg, zero], b.type)
        loads_in += [get_in, whole]
        mapping[b] = whole.result
    if loads_in:  # the slices are stored before lane 0 reads them
        before.append(mux.SubGroupBarrierOp("sub_group"))
    is_zero = arith.CmpiOp(lane, zero, "eq")
    before.append(is_zero)

    then = Block()
    then.add_ops(loads_in)
    for b, v in mapping.items():
        b.replace_all_uses_with(v)
    for inner in list(block.ops):
        if inner is yield_op:
            continue
        inner.detach()
        then.add_op(inner)
    after: list[Operation] = []
    for r, y in pairs_out:
        buffer = buffers.new(y.type, n, rows)
        get = buffer()
        if isinstance(y.type, VectorType):
            then.add_ops([get, vector.StoreOp(y, get, [sg, zero])])
        else:
            then.add_ops([get, memref.StoreOp.get(y, get, [sg, zero])])
        get_out = buffer()
        after.append(get_out)
        if isinstance(r.type, VectorType):
            at = zero.result if r.type == y.type else slice_at(r.type, after)
            load: Operation = vector.LoadOp(get_out, [sg, at], r.type)
        else:
            load = memref.LoadOp.get(get_out, [sg, zero])
        after.append(load)
        r.replace_all_uses_with(load.results[0])
    then.add_op(scf.YieldOp())
    if_op = scf.IfOp(is_zero, [], Region(then))
    if pairs_out:
        after.insert(0, mux.SubGroupBarrierOp("sub_group"))
    Rewriter.insert_op([*before, if_op, *after], InsertPoint.before(op))
    Rewriter.erase_op(op)


# -- the entry point ----------------------------------------------------------------------


def lower(module: ModuleOp, names: dict[tuple[str, str], str], sub_group_size: int) -> None:
    """Lower the newer gpu ops of ``module`` (gpu modules already flattened)."""
    gpu_target = attrs.get_target(module).is_gpu
    shapes = cluster_shapes(module, names)
    functions = attrs.functions(module)
    for kernel, shape in shapes.items():
        if kernel in functions:
            attrs.set_cluster_dim(functions[kernel], shape)
    buffers = _Buffers(module)
    warps = [o for o in module.walk() if isinstance(o, newer.WarpExecuteOnLane0Op)]
    for n, w in enumerate(warps):
        _warp_execute(w, n, buffers, sub_group_size)
    checked = False
    for op in list(module.walk()):
        if isinstance(op, _cluster_ops()):
            if gpu_target and not checked:
                _check_arch(module, f"'{op.name}'{_where(op)}")
                checked = True
            _cluster_query(op, shapes, gpu_target)
        elif isinstance(op, newer.RotateOp):
            _rotate(op, sub_group_size)
        elif isinstance(op, newer.SubgroupBroadcastOp | newer.BroadcastLaneOp):
            _broadcast(op)
    if gpu_target and shapes and not checked:
        _check_arch(module, f"@{next(iter(shapes))}'s launch with clusters")
