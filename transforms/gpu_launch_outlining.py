"""``gpu-launch-outlining``: ``gpu.launch`` -> ``gpu.module`` / ``gpu.func`` + ``gpu.launch_func``.

Upstream MLIR's ``-gpu-kernel-outlining`` (with ``-gpu-launch-sink-index-computations``):
each ``gpu.launch`` in a function ``@f`` becomes a kernel ``gpu.func @f_kernel`` in its own
``gpu.module @f_kernel`` (``@f_kernel_0``, ``_1``, ... when taken). Values the body captures
become kernel arguments in order of first use, except constants (``arith.constant``), which
are cloned into the kernel. The kernel's entry queries ``gpu.block_id``, ``gpu.thread_id``,
``gpu.grid_dim`` and ``gpu.block_dim`` for the launch's 12 block arguments; workgroup and
private attributions move to the ``gpu.func``; ``gpu.terminator`` becomes ``gpu.return``.
A launch with ``clusters(...)`` keeps them on its ``gpu.launch_func``; in the kernel its
cluster ids are ``gpu.cluster_id`` and its cluster sizes ``gpu.cluster_dim_blocks`` (the
values the launch passed: blocks per cluster; upstream's outlining writes
``gpu.cluster_dim``, the number of clusters, which differs unless grid = cluster²).
Launch sizes that are constants give ``known_block_size`` / ``known_grid_size``. The module
gets ``gpu.container_module``. A launch body of several blocks is entered with ``cf.br``.

Expects: ``gpu.launch`` ops anywhere in ``func.func``\\ s (a no-op without them).
Guarantees: no ``gpu.launch`` is left.

Before::

    func.func @main(%a: memref<?xf32>) {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
        memref.store %f, %a[%tx] : memref<?xf32>
        gpu.terminator
      }
    }

After::

    func.func @main(%a: memref<?xf32>) {
      ...
      gpu.launch_func @main_kernel::@main_kernel blocks in (%c1, %c1, %c1)
          threads in (%c64, %c1, %c1) args(%a : memref<?xf32>)
    }
    gpu.module @main_kernel {
      gpu.func @main_kernel(%a: memref<?xf32>) kernel
          attributes {known_block_size = array<i32: 64, 1, 1>, ...} {
        %bx = gpu.block_id x  ...  %tx = gpu.thread_id x ...
        memref.store %f, %a[%tx] : memref<?xf32>
        gpu.return
      }
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i32,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.lazy_import import has_dialect_ops, lazy_module

# imported only for modules with gpu ops (abi/lazy_import.py)
gpu = lazy_module("xmux.dialects.gpu")
gpu_host = lazy_module("xmux.dialects.gpu_host")
gpu_newer = lazy_module("xmux.dialects.gpu_newer")


def _captured(region: Region) -> list[SSAValue]:
    """Values defined outside ``region`` and used inside, in order of first use."""
    seen: dict[SSAValue, None] = {}
    for op in region.walk():
        for v in op.operands:
            owner = v.owner
            parent = owner.parent_block() if isinstance(owner, Operation) else owner
            inside = False
            while parent is not None:
                if parent.parent is region:
                    inside = True
                    break
                p_op = parent.parent_op()
                parent = p_op.parent_block() if p_op is not None else None
            if not inside:
                seen.setdefault(v, None)
    return list(seen)


def _constant_sizes(values: tuple[SSAValue, ...]) -> list[int] | None:
    out: list[int] = []
    for v in values:
        if not isinstance(v.owner, arith.ConstantOp):
            return None
        attr = v.owner.value
        if not isinstance(attr, IntegerAttr):
            return None
        out.append(attr.value.data)
    return out


@dataclass(frozen=True)
class GpuLaunchOutlining(ModulePass):
    """Outline each ``gpu.launch`` into a ``gpu.func`` kernel and a ``gpu.launch_func``."""

    name = "gpu-launch-outlining"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not has_dialect_ops(op, "gpu"):
            return
        launches = [o for o in op.walk() if isinstance(o, gpu_host.LaunchOp)]
        if not launches:
            return
        taken = {str(o.sym_name.data) for o in op.walk()
                 if getattr(o, "sym_name", None) is not None
                 and isinstance(o.sym_name, StringAttr)}
        for launch in launches:
            self._outline(op, launch, taken)
        op.attributes["gpu.container_module"] = UnitAttr()

    def _outline(self, module: ModuleOp, launch: gpu_host.LaunchOp, taken: set[str]) -> None:
        host = launch.parent_op()
        while host is not None and not isinstance(host, func.FuncOp):
            host = host.parent_op()
        base = f"{host.sym_name.data}_kernel" if host is not None else "kernel"
        name, n = base, 0
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)

        region = launch.body
        # Constants are cloned into the body (gpu-launch-sink-index-computations).
        entry = region.blocks[0]
        for v in _captured(region):
            if isinstance(v.owner, arith.ConstantOp):
                clone = v.owner.clone()
                Rewriter.insert_op(clone, InsertPoint.at_start(entry))
                v.replace_uses_with_if(clone.result, lambda use: _inside(use.operation, region))
        args = _captured(region)

        wg = [a.type for a in launch.workgroup_args]
        priv = [a.type for a in launch.private_args]
        new_entry = Block(arg_types=[*(a.type for a in args), *wg, *priv])
        queries: list[Operation] = []
        for cls in (gpu.BlockIdOp, gpu.ThreadIdOp, gpu.GridDimOp, gpu.BlockDimOp):
            queries.extend(cls(d) for d in "xyz")
        # upstream's block-argument order: block ids, grid sizes, thread ids, block sizes
        order = [0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11]
        new_entry.add_ops(queries)
        old_args = entry.args
        for i, q in zip(order, queries, strict=True):
            old_args[i].replace_all_uses_with(q.results[0])
        n_config = launch.num_config_args
        if n_config == 18:  # clusters: ids, then sizes (blocks per cluster, as launched)
            cluster_queries = [*(gpu.ClusterIdOp(d) for d in "xyz"),
                               *(gpu_newer.ClusterDimBlocksOp(d) for d in "xyz")]
            new_entry.add_ops(cluster_queries)
            for old, q in zip(old_args[12:18], cluster_queries, strict=True):
                old.replace_all_uses_with(q.results[0])
        for old, new in zip(old_args[n_config:], new_entry.args[len(args):], strict=True):
            old.replace_all_uses_with(new)
        for v, a in zip(args, new_entry.args, strict=False):
            v.replace_uses_with_if(a, lambda use: _inside(use.operation, region))
        for t in [o for o in region.walk() if isinstance(o, gpu_host.TerminatorOp)]:
            Rewriter.replace_op(t, gpu.ReturnOp())

        body = Region()
        body.add_block(new_entry)
        if len(region.blocks) == 1:
            for o in list(entry.ops):
                o.detach()
                new_entry.add_op(o)
        else:
            new_entry.add_op(cf.BranchOp(entry))
            region.move_blocks(body)
        for a in reversed(entry.args):
            entry.erase_arg(a)

        props: dict = {"function_type": FunctionType.from_lists([a.type for a in args], [])}
        attributes: dict = {"sym_name": StringAttr(name), "gpu.kernel": UnitAttr()}
        if wg:
            attributes["workgroup_attributions"] = IntegerAttr(len(wg), 64)
        for key, sizes in (("known_block_size", launch.block), ("known_grid_size", launch.grid)):
            known = _constant_sizes(sizes)
            # upstream's known sizes are i32: a larger (legal, index-typed) size gets no hint
            if known is not None and all(0 < k < 2**31 for k in known):
                props[key] = DenseArrayBase.from_list(i32, known)
        kernel = gpu.FuncOp.create(properties=props, attributes=attributes, regions=[body])
        gmod = gpu.ModuleOp(name)
        gmod.add_op(kernel)
        module.body.block.add_op(gmod)

        shmem = launch.dynamicSharedMemorySize
        clusters = () if launch.clusterSizeX is None else (
            launch.clusterSizeX, launch.clusterSizeY, launch.clusterSizeZ)
        call = gpu_host.LaunchFuncOp(
            SymbolRefAttr(name, [name]), launch.grid, launch.block, args, shmem,
            launch.asyncDependencies, is_async=launch.asyncToken is not None,
            clusters=clusters)
        Rewriter.replace_op(launch, call)


def _inside(op: Operation | None, region: Region) -> bool:
    while op is not None:
        if op.parent_region() is region:
            return True
        op = op.parent_op()
    return False
