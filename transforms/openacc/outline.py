"""Outlining of ``convert-acc-to-oacc``: one ``acc.parallel``/``acc.serial`` moved into a
kernel (captured values as arguments, data clauses lowered, kernel attributes) and replaced by
its ``mux.launch``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import acc, arith, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs
from xmux.dialects.oacc import Level
from xmux.transforms.openacc.acc_common import (
    DATA_ONLY,
    IDENTITY_ENTRY,
    Builder,
    const_int,
    err,
    unsupported,
    var_name,
)
from xmux.transforms.openacc.auto_levels import assign_levels
from xmux.transforms.openacc.modes import ModeLowering
from xmux.transforms.openacc.partition import LoopPartitioner
from xmux.transforms.openacc.private_storage import (
    PrivateStorage,
    clause_levels,
    mark,
    mark_region_allocas,
)
from xmux.transforms.openacc.reduction_builtins import ReductionBuiltins, reduction_info

if TYPE_CHECKING:
    from xmux.transforms.convert_acc_to_oacc import ConvertAccToOacc


class Outliner:
    """Outlines one ``acc.parallel`` into a kernel and launches it; the data clauses are
    lowered here, the loops by a ``LoopPartitioner``."""

    def __init__(
        self,
        opts: ConvertAccToOacc,
        module: ModuleOp,
        host: func.FuncOp,
        par: acc.ParallelOp | acc.SerialOp | acc.KernelsOp,
        n: int,
        recipes: dict[str, Operation],
    ) -> None:
        self.opts = opts
        self.module = module
        self.host = host
        self.par = par
        self.recipes = recipes
        hname = host.sym_name.data
        names = {o.sym_name.data for o in module.ops if isinstance(o, func.FuncOp)}
        self.serial = isinstance(par, acc.SerialOp)
        self.kernels = isinstance(par, acc.KernelsOp)
        kind = "serial" if self.serial else "kernels" if self.kernels else "parallel"
        name = f"{hname}_acc_{kind}_{n}"
        while name in names:
            name += "_"
        self.name = name
        self.where = f"{par.name} in @{hname} (kernel @{name})"
        self.reductions = ReductionBuiltins()
        self.loops = LoopPartitioner(self.where, self.reductions)
        #: level of each private clause variable (private_storage.py)
        self.priv_levels: dict[SSAValue, Level] = {}
        #: the initialising ops of each first-private allocation
        self.fp_inits: dict[SSAValue, list[Operation]] = {}

    # ---- clauses and sizes

    def _check_clauses(self) -> None:
        par = self.par
        if par.if_cond is not None:
            raise unsupported(f"{self.where}: the if clause")
        if par.self_cond is not None or par.self_attr is not None:
            raise unsupported(f"{self.where}: the self clause")
        if isinstance(par, acc.SerialOp):
            return
        if len(par.num_gangs) > 1:
            raise unsupported(f"{self.where}: num_gangs with {len(par.num_gangs)} dimensions")
        for attr, what in ((par.num_gangs_device_type, "num_gangs"),
                           (par.num_workers_device_type, "num_workers"),
                           (par.vector_length_device_type, "vector_length")):
            if attr is not None and any(d.data != acc.DeviceType.NONE for d in attr.data):
                raise unsupported(f"{self.where}: device_type-specific {what}")

    def _sizes(self) -> list[tuple[SSAValue | None, int | None]]:
        """(host value or None, constant or None) of num_gangs, num_workers, vector_length."""
        par = self.par
        if isinstance(par, acc.SerialOp):
            return [(None, 1)] * 3
        defaults = (self.opts.num_gangs, self.opts.num_workers, self.opts.vector_length)
        out: list[tuple[SSAValue | None, int | None]] = []
        if self.kernels:
            # gang-single: GCC runs the code of a kernels region outside its parallelized
            # loops on one gang; the whole region runs on one gang here (gang loops then
            # take every iteration in that gang)
            par_gangs: list[SSAValue] = []
        else:
            par_gangs = list(par.num_gangs)
        for vals, d, what in ((par_gangs, 1 if self.kernels else defaults[0], "num_gangs"),
                              (par.num_workers, defaults[1], "num_workers"),
                              (par.vector_length, defaults[2], "vector_length")):
            if not vals:
                out.append((None, d))
                continue
            c = const_int(vals[0])
            if c is not None and c < 1:
                raise err(f"{self.where}: {what}({c}) must be at least 1")
            out.append((vals[0], c))
        return out

    # ---- main

    def run(self) -> None:
        self._check_clauses()
        par = self.par
        # acc.kernels: only loops marked independent (or with levels) are partitioned
        assign_levels(par, independent_by_default=not self.kernels)
        _switches_to_ifs(par)
        par_reds = [
            reduction_info(r, self.recipes, f"{self.where}: reduction clause")
            for r in par.reduction_operands
        ]
        for lp in par.walk():
            if isinstance(lp, acc.LoopOp):
                self.loops.loop_reds[lp] = [
                    reduction_info(r, self.recipes, f"acc.loop in {self.where}")
                    for r in lp.reduction_operands
                ]
        sizes = self._sizes()
        # gang / worker / vector level of the private variables (private_storage.py)
        self.priv_levels = clause_levels(par, self.loops._loop_levels)
        mark_region_allocas(par)
        kernel, args = self._outline()
        self.args = args
        entry = kernel.body.block
        self.entry_ip = InsertPoint.at_start(entry)
        self.alloca_ip = InsertPoint.at_start(entry)
        self._lower_data_ops(kernel)
        # reduction on the parallel construct: a null outermost gang "loop"
        first_body_op = self._first_non_alloca(entry)
        if par_reds:
            kres = [self._kernel_value(kernel, r) for r in par.reduction_operands]
            self.reductions.null_gang_loop(kernel, list(par_reds), kres, first_body_op)
        self.loops.lower_loops(kernel)
        PrivateStorage(self.module, kernel, sizes[1][1], sizes[2][1], self.where).run(
            self.fp_inits)
        ModeLowering(self.module, kernel, sizes[1][1], sizes[2][1], self.where).run()
        self._attributes(kernel, sizes)
        self._launch(kernel, args, sizes)

    def _first_non_alloca(self, block: Block) -> Operation:
        for o in block.ops:
            if not isinstance(o, (memref.AllocaOp, arith.ConstantOp)):
                return o
        raise AssertionError("kernel without terminator")

    def _outline(self) -> tuple[func.FuncOp, list[SSAValue]]:
        """Move the region into a new kernel; captured values become its arguments."""
        par = self.par
        region_ops = [o for o in par.walk() if o is not par]
        inside = set(region_ops)
        captured: list[SSAValue] = []
        seen: set[SSAValue] = set()
        for o in region_ops:
            for v in o.operands:
                if v in seen:
                    continue
                owner = v.owner
                defined_inside = (
                    owner in inside
                    if isinstance(owner, Operation)
                    else (owner.parent_op() in inside or owner.parent_op() is par)
                )
                if not defined_inside:
                    seen.add(v)
                    captured.append(v)
        # kernel arguments in the order the host defines the values (its arguments first)
        order = {o: i for i, o in enumerate(self.host.walk())}

        def defined_at(v: SSAValue) -> tuple[int, int]:
            if isinstance(v, BlockArgument):
                return (0 if v.owner is self.host.body.block else 1, v.index)
            return (2, order.get(v.owner, 0))

        def source(v: SSAValue) -> SSAValue:
            r = _root(v)
            return _root(r.owner.var) if isinstance(r.owner, acc.FirstprivateOp) else r

        captured.sort(key=lambda v: defined_at(source(v)))
        # what each captured value becomes in the kernel
        block = Block()
        args: list[SSAValue] = []  # host values passed to the launch
        arg_of: dict[SSAValue, BlockArgument] = {}
        mapping: dict[SSAValue, SSAValue] = {}
        consts: list[Operation] = []
        privates: list[tuple[SSAValue, acc._DataEntryOperation]] = []

        def host_arg(v: SSAValue) -> BlockArgument:
            if v not in arg_of:
                t = v.type
                ok = isinstance(t, (MemRefType, IndexType, AnyFloat)) or (
                    isinstance(t, IntegerType)
                )
                if not ok:
                    raise unsupported(
                        f"{self.where}: captured value {var_name(v)} of type {t}"
                    )
                arg_of[v] = block.insert_arg(t, len(block.args))
                if v.name_hint:
                    arg_of[v].name_hint = v.name_hint
                args.append(v)
            return arg_of[v]

        for v in captured:
            root = _root(v)
            owner = root.owner
            if isinstance(owner, (acc.PrivateOp, acc.FirstprivateOp)):
                privates.append((v, owner))
                if isinstance(owner, acc.FirstprivateOp):
                    host_arg(source(v))
            elif isinstance(owner, arith.ConstantOp):
                c = owner.clone()
                consts.append(c)
                mapping[v] = c.results[0]
            else:
                mapping[v] = host_arg(root)
        kernel = func.FuncOp(self.name, ([a.type for a in block.args], []), Region(block))
        self.module.body.block.insert_op_before(kernel, self.host)
        for c in consts:
            block.add_op(c)
        # move the body
        body = par.region.block
        for o in list(body.ops):
            o.detach()
            if isinstance(o, (acc.YieldOp, acc.TerminatorOp)):
                o.erase()
                continue
            block.add_op(o)
        block.add_op(func.ReturnOp())
        for v, nv in mapping.items():
            v.replace_uses_with_if(nv, lambda u: kernel.is_ancestor(u.operation))
        # captured private copies: allocated (and first-private ones copied) at entry
        for v, owner in privates:
            src = None
            if isinstance(owner, acc.FirstprivateOp):
                src = host_arg(_root(owner.var))
            kernel.function_type = func.FunctionType.from_lists(
                [a.type for a in block.args], []
            )
            priv = self._private_alloca(block, owner, None, src)
            v.replace_uses_with_if(priv, lambda u: kernel.is_ancestor(u.operation))
        kernel.function_type = func.FunctionType.from_lists([a.type for a in block.args], [])
        return kernel, args

    def _private_alloca(
        self, block: Block, owner: acc._DataEntryOperation, copy_ip: InsertPoint | None,
        src: SSAValue | None,
    ) -> SSAValue:
        """A per-work-item copy at the kernel entry, tagged with its level; first-private
        ones copy ``src`` at ``copy_ip`` (None: right after the allocation)."""
        t = owner.acc_var.type
        name = var_name(owner.acc_var)
        if not isinstance(t, MemRefType) or any(d < 0 for d in t.get_shape()):
            raise unsupported(f"{self.where}: '{owner.name}' of '{name}' of type {t}"
                               " (only statically shaped memrefs)")
        a = memref.AllocaOp.get(t.element_type, shape=t.get_shape())
        mark(a, self.priv_levels.get(owner.acc_var))
        Rewriter.insert_op(a, InsertPoint.at_start(block))
        if copy_ip is None:
            copy_ip = InsertPoint.after(a)
        if src is not None:
            init: list[Operation]
            if t.get_shape() == ():
                ld = memref.LoadOp.get(src, [])
                init = [ld, memref.StoreOp.get(ld.res, a.memref, [])]
            else:
                init = [memref.CopyOp(src, a.memref)]
            Rewriter.insert_op(init, copy_ip)
            self.fp_inits[a.memref] = init
        return a.memref

    def _lower_data_ops(self, kernel: func.FuncOp) -> None:
        """Data clauses inside the region: identity, private allocas, exits vanish."""
        entry = kernel.body.block
        for o in list(kernel.walk()):
            if isinstance(o, DATA_ONLY):
                o.detach()
                o.erase()
            elif isinstance(o, IDENTITY_ENTRY):
                o.acc_var.replace_all_uses_with(o.var)
                o.detach()
                o.erase()
            elif isinstance(o, (acc.PrivateOp, acc.FirstprivateOp)):
                src = o.var if isinstance(o, acc.FirstprivateOp) else None
                priv = self._private_alloca(entry, o, InsertPoint.before(o), src)
                o.acc_var.replace_all_uses_with(priv)
                o.detach()
                o.erase()
            elif isinstance(o, (acc.ParallelOp, acc.KernelsOp, acc.SerialOp)):
                raise err(f"{self.where}: nested '{o.name}'")

    def _kernel_value(self, kernel: func.FuncOp, host_value: SSAValue) -> SSAValue:
        """The kernel argument standing for a host value the construct refers to."""
        root = _root(host_value)
        for a, hv in zip(kernel.body.block.args, self.args, strict=True):
            if hv is root:
                return a
        raise err(f"{self.where}: reduction variable '{var_name(host_value)}' is not a host"
                   " object (reduction on acc.parallel needs a copy object)")

    # ---- kernel attributes and launch

    def _attributes(self, kernel: func.FuncOp, sizes: list[tuple[SSAValue | None, int | None]],
                    ) -> None:
        attrs.set_kernel(kernel)
        consts = [c for _, c in sizes]
        attrs.set_oacc_dims(kernel, consts)
        attrs.set_oacc_level_dims(kernel, self.opts.level_dims)
        if all(c is not None for c in consts):
            local = [1, 1, 1]
            local[self.opts.worker_dim] = consts[1]  # type: ignore[assignment]
            local[self.opts.vector_dim] = consts[2]  # type: ignore[assignment]
            attrs.set_reqd_work_group_size(kernel, local)

    def _launch(self, kernel: func.FuncOp, args: list[SSAValue],
                sizes: list[tuple[SSAValue | None, int | None]]) -> None:
        b = Builder(InsertPoint.before(self.par))
        vals = []
        for v, c in sizes:
            vals.append(b.const(c) if v is None else b.index(v))
        ng, nw, vl = vals
        gd, wd, vd = self.opts.level_dims
        ndim = max(gd, wd, vd) + 1
        local: list[SSAValue | None] = [None] * ndim
        local[wd] = nw
        local[vd] = vl
        glob = list(local)
        glob[gd] = ng if local[gd] is None else b.mul(local[gd], ng)
        local = [b.const(1) if v is None else v for v in local]
        glob = [b.const(1) if v is None else v for v in glob]
        b.op(mux_launch(kernel.sym_name.data, args, glob, local))
        self.par.detach()
        self.par.erase()


def _switches_to_ifs(construct: Operation) -> None:
    """``scf.index_switch`` ops holding ``acc.loop``\\ s become ``scf.if`` chains: their
    partitioned loops fork and join (barriers on the CPU), which work-item-loops handles
    under ``scf.if`` but not under ``scf.index_switch``."""
    for sw in [o for o in construct.walk() if isinstance(o, scf.IndexSwitchOp)]:
        if not any(isinstance(o, acc.LoopOp) for o in sw.walk()):
            continue
        types = list(sw.result_types)
        cases = list(sw.cases.get_values())
        other = sw.default_region.clone()
        chain: Operation | None = None
        for value, region in reversed(list(zip(cases, sw.case_regions, strict=True))):
            b = Builder(InsertPoint.before(sw))
            c = b.v(arith.ConstantOp(IntegerAttr(value, IndexType())))
            cond = b.v(arith.CmpiOp(sw.arg, c, "eq"))
            if chain is not None:
                other = Region(Block([chain, scf.YieldOp(*chain.results)]))
            chain = scf.IfOp(cond, types, region.clone(), other)
        if chain is None:
            continue
        Rewriter.insert_op(chain, InsertPoint.before(sw))
        for r, nr in zip(sw.results, chain.results, strict=True):
            r.replace_all_uses_with(nr)
        sw.detach()
        sw.erase()


def mux_launch(name: str, args: Sequence[SSAValue], glob: Sequence[SSAValue],
               local: Sequence[SSAValue]) -> Operation:
    from xmux.dialects import mux

    return mux.LaunchOp(name, args, glob, local)


def _root(v: SSAValue) -> SSAValue:
    """The object an OpenACC data-clause value stands for (identity clauses followed)."""
    while isinstance(v.owner, IDENTITY_ENTRY):
        v = v.owner.var
    return v
