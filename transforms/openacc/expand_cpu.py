"""The ``expansion=cpu`` expansion of ``expand-oacc-reductions``: gangs as work-groups,
workers and vector lanes as work-items; plans the work-group local buffers and locks, then
expands each builtin per level (see the pass's docstring for the scheme)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects.builtin import (
    ComplexType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i1,
    i8,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, llvmx, mux, oacc
from xmux.dialects.oacc import Level
from xmux.transforms.lower_work_group_collectives import (
    LOCAL_MEMORY_SPACE,
    MAX_WORK_GROUP_SIZE,
    Ops,
)
from xmux.transforms.openacc.oacc_kernels import Kernel, error, level_index, op_where
from xmux.transforms.openacc.reduction_ops import (
    Reducer,
    from_parts,
    memref_pointer,
    num_parts,
    parts,
    raw_from_parts,
    raw_parts,
    spin_lock,
    spin_unlock,
    storage_type,
)

INDEX = IndexType()
PTR = llvm.LLVMPointerType()
GANG_LOCK = "__oacc_gang_lock"
WORKER_LOCK = "__oacc_worker_lock"
WORKER_BUFFER = "__oacc_worker_red_"
VECTOR_BUFFER = "__oacc_vector_red_"


def _if(b: Ops, cond: SSAValue, body: Callable[[Ops], None]) -> None:
    inner = Ops()
    body(inner)
    inner(scf.YieldOp())
    b(scf.IfOp(cond, [], inner.ops))


@dataclass
class _Storage:
    """Work-group local buffers: worker slots and vector rows per storage type."""

    worker_slots: dict[str, dict[tuple[str, int, int, int], int]] = field(default_factory=dict)
    vector_rows: dict[str, dict[tuple[str, int, int, int], int]] = field(default_factory=dict)
    num_rows: dict[str, int] = field(default_factory=dict)
    types: dict[str, Attribute] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    capacity: int = 1
    worker_lock: bool = False
    gang_lock: bool = False

    def worker_type(self, key: str) -> MemRefType:
        return _local(self.types[key], [len(self.worker_slots[key])])

    def vector_type(self, key: str) -> MemRefType:
        return _local(self.types[key], [self.num_rows[key], self.capacity])


def _local(t: Attribute, shape: list[int]) -> MemRefType:
    return MemRefType(t, shape, memory_space=IntegerAttr(LOCAL_MEMORY_SPACE, 64))


def _key(t: Attribute) -> str:
    return str(t)



def _in_loop(op: Operation, fn: func.FuncOp) -> bool:
    p = op.parent_op()
    while p is not None and p is not fn:
        if isinstance(p, scf.ForOp | scf.WhileOp | scf.ParallelOp):
            return True
        p = p.parent_op()
    return False


class CpuExpander:
    """The ``expansion=cpu`` expansion of a module's kernels: ``plan`` declares the buffers and
    locks every builtin needs, ``expand`` then replaces the builtins one by one."""

    def __init__(self, module: ModuleOp, kernels: list[Kernel],
                 recipes: dict[str, oacc.ReductionRecipeOp]) -> None:
        self.module = module
        self.kernels = kernels
        self.recipes = recipes
        self.st = _Storage()
        self.atomic_lids: dict[tuple[str, int], bool] = {}
        self.setup_barriers: set[tuple[str, int]] = set()

    # -- planning ----------------------------------------------------------------------

    def plan(self, owner: dict[Operation, Kernel]) -> None:
        st = self.st
        per_lid_rows: dict[tuple[str, str, int], int] = {}
        for op, k in owner.items():
            if isinstance(op, oacc.LockOp | oacc.UnlockOp) and op.level_value == Level.WORKER:
                st.worker_lock = True
            if not isinstance(op, oacc.ReductionBuiltinOp):
                continue
            t = op.local.type
            key = _key(storage_type(t))
            level = op.level_value
            if level == Level.GANG and isinstance(op, oacc.ReductionFiniOp):
                gk = (k.name, op.lid_value)
                self.atomic_lids[gk] = self.atomic_lids.get(gk, True) and (
                    op.res_ptr is None or self.red(op).atomic(t) is not None
                )
            elif level == Level.WORKER:
                st.types[key] = storage_type(t)
                slots = st.worker_slots.setdefault(key, {})
                for part in range(num_parts(t)):
                    slots.setdefault((k.name, op.lid_value, op.rid_value, part), len(slots))
            elif level == Level.VECTOR:
                self._check_local_dims(k, op)
                st.types[key] = storage_type(t)
                rows = st.vector_rows.setdefault(key, {})
                for part in range(num_parts(t)):
                    rk = (k.name, op.lid_value, op.rid_value, part)
                    if rk not in rows:
                        lk = (key, k.name, op.lid_value)
                        rows[rk] = per_lid_rows.get(lk, 0)
                        per_lid_rows[lk] = rows[rk] + 1
                        st.num_rows[key] = max(st.num_rows.get(key, 0), rows[rk] + 1)
                nw, vl = k.size(Level.WORKER), k.size(Level.VECTOR)
                cap = nw * vl if nw is not None and vl is not None else MAX_WORK_GROUP_SIZE
                st.capacity = max(st.capacity, cap)
            if level == Level.WORKER:
                self._check_local_dims(k, op)
        st.gang_lock = not all(self.atomic_lids.values())
        self._declare_globals()

    def _check_local_dims(self, k: Kernel, op: Operation) -> None:
        dg, dw, dv = k.level_dims
        if dw == dv:
            raise error(
                op_where(k, op),
                f"worker and vector levels map to the same local dimension {dw} "
                "(oacc.level_dims); they need different ones",
            )

    def _declare_globals(self) -> None:
        from xmux.transforms.lower_work_group_collectives import _unique_name

        st, module = self.st, self.module
        new: list[Operation] = []
        if st.gang_lock:
            st.names["gang_lock"] = _unique_name(module, GANG_LOCK)
            new.append(
                llvm.GlobalOp(
                    i32, st.names["gang_lock"], "internal", value=IntegerAttr(0, i32), alignment=64
                )
            )
        if st.worker_lock:
            st.names["worker_lock"] = _unique_name(module, WORKER_LOCK)
            new.append(
                memref.GlobalOp.get(
                    StringAttr(st.names["worker_lock"]), _local(i32, [1]), UnitAttr(), alignment=64
                )
            )
        for key in sorted(st.worker_slots):
            st.names["w" + key] = _unique_name(module, WORKER_BUFFER + key)
            new.append(
                memref.GlobalOp.get(
                    StringAttr(st.names["w" + key]), st.worker_type(key), UnitAttr(), alignment=64
                )
            )
        for key in sorted(st.vector_rows):
            st.names["v" + key] = _unique_name(module, VECTOR_BUFFER + key)
            new.append(
                memref.GlobalOp.get(
                    StringAttr(st.names["v" + key]), st.vector_type(key), UnitAttr(), alignment=64
                )
            )
        first = module.body.block.first_op
        point = InsertPoint.before(first) if first else InsertPoint.at_end(module.body.block)
        if new:
            Rewriter.insert_op(new, point)

    def red(self, op: oacc.ReductionBuiltinOp) -> Reducer:
        name = op.recipe_name
        return Reducer(op.kind_value, None if name is None else self.recipes[name])

    # -- positions ---------------------------------------------------------------------

    def pos(self, b: Ops, k: Kernel, level: Level) -> SSAValue:
        d = k.level_dims[level_index(level)]
        if level == Level.GANG:
            return b(mux.GetGroupIdOp(d, INDEX))
        return b(mux.GetLocalIdOp(d, INDEX))

    def size(self, b: Ops, k: Kernel, level: Level) -> SSAValue:
        n = k.size(level)
        if n is not None:
            return b.index(n)
        d = k.level_dims[level_index(level)]
        if level == Level.GANG:
            return b(mux.GetNumGroupsOp(d, INDEX))
        return b(mux.GetLocalSizeOp(d, INDEX))

    def _is_zero(self, b: Ops, v: SSAValue) -> SSAValue:
        return b(arith.CmpiOp(v, b.index(0), "eq"))

    def first_in_group(self, b: Ops) -> SSAValue:
        return self._is_zero(b, b(mux.GetLocalLinearIdOp(INDEX)))

    def lane_zero(self, b: Ops, k: Kernel) -> SSAValue:
        return self._is_zero(b, self.pos(b, k, Level.VECTOR))

    # -- expansion ---------------------------------------------------------------------

    def expand(self, op: Operation, k: Kernel, b: Ops) -> SSAValue | None:
        if isinstance(op, oacc.DimPosOp):
            return self.pos(b, k, op.level_value)
        if isinstance(op, oacc.DimSizeOp):
            return self.size(b, k, op.level_value)
        level = op.level_value  # type: ignore[attr-defined]
        if isinstance(op, oacc.ForkOp | oacc.JoinOp):
            if level != Level.GANG:
                b(mux.WorkGroupBarrierOp())
            return None
        if isinstance(op, oacc.LockOp | oacc.UnlockOp):
            self._lock(op, k, b)
            return None
        assert isinstance(op, oacc.ReductionBuiltinOp)
        if level == Level.GANG:
            return self._gang(op, k, b)
        if level == Level.WORKER:
            return self._worker(op, k, b)
        return self._vector(op, k, b)

    def _lock(self, op: oacc.LockOp | oacc.UnlockOp, k: Kernel, b: Ops) -> None:
        fn = spin_lock if isinstance(op, oacc.LockOp) else spin_unlock
        if op.level_value == Level.GANG:
            if self.atomic_lids.get((k.name, op.lid_value), True):
                return  # every fini of the loop is one atomic RMW (or none): no lock
            cond = self.first_in_group(b)
            _if(
                b, cond, lambda t: fn(t, t(llvm.AddressOfOp(self.st.names["gang_lock"], PTR)), None)
            )
        else:
            cond = self.lane_zero(b, k)

            def body(t: Ops) -> None:
                g = t(memref.GetGlobalOp(self.st.names["worker_lock"], _local(i32, [1])))
                fn(t, memref_pointer(t, g, op_where(k, op)), "singlethread")

            _if(b, cond, body)

    def _gang(self, op: oacc.ReductionBuiltinOp, k: Kernel, b: Ops) -> SSAValue:
        red = self.red(op)
        if isinstance(op, oacc.ReductionInitOp):
            return red.identity(b, op.local.type)
        if not isinstance(op, oacc.ReductionFiniOp) or op.res_ptr is None:
            return op.local
        res, local, t = op.res_ptr, op.local, op.local.type
        where = op_where(k, op)

        def update(u: Ops) -> None:
            rmw = red.atomic(t)
            if rmw is None:  # inside the gang lock
                cur = u(memref.LoadOp.get(res, []))
                vals = red.combine(u, t, raw_parts(u, cur), raw_parts(u, local))
                u(memref.StoreOp.get(raw_from_parts(u, vals, t), res, []))
                return
            ptr = memref_pointer(u, res, where)
            if isinstance(t, ComplexType):
                for i, v in enumerate(raw_parts(u, local)):
                    p = ptr if i == 0 else u(llvm.GEPOp(ptr, [i], t.element_type))
                    u(llvmx.AtomicRMWOp(rmw, p, v, "acq_rel"))
            elif t == i1:
                u(llvmx.AtomicRMWOp(rmw, ptr, u(arith.ExtUIOp(local, i8)), "acq_rel"))
            else:
                u(llvmx.AtomicRMWOp(rmw, ptr, local, "acq_rel"))

        _if(b, self.first_in_group(b), update)
        return local

    def _slot(self, b: Ops, op: oacc.ReductionBuiltinOp, k: Kernel) -> tuple[SSAValue, list]:
        key = _key(storage_type(op.local.type))
        buf = b(memref.GetGlobalOp(self.st.names["w" + key], self.st.worker_type(key)))
        slots = self.st.worker_slots[key]
        idx = [
            b.index(slots[(k.name, op.lid_value, op.rid_value, p)])
            for p in range(num_parts(op.local.type))
        ]
        return buf, idx

    def _worker(self, op: oacc.ReductionBuiltinOp, k: Kernel, b: Ops) -> SSAValue:
        t, red = op.local.type, self.red(op)
        if isinstance(op, oacc.ReductionInitOp):
            return red.identity(b, t)
        if isinstance(op, oacc.ReductionSetupOp):
            gk = (k.name, op.lid_value)
            if _in_loop(op, k.fn) and gk not in self.setup_barriers:
                # the previous round's teardown reads the slots in this barrier interval
                self.setup_barriers.add(gk)
                b(mux.WorkGroupBarrierOp())

            def write(u: Ops) -> None:
                buf, idx = self._slot(u, op, k)
                for v, i in zip(parts(u, op.local), idx, strict=True):
                    u(memref.StoreOp.get(v, buf, [i]))
                if self.st.worker_lock:
                    g = u(memref.GetGlobalOp(self.st.names["worker_lock"], _local(i32, [1])))
                    u(memref.StoreOp.get(u(arith.ConstantOp(IntegerAttr(0, i32))), g, [u.index(0)]))

            _if(b, self.first_in_group(b), write)
            return op.local
        if isinstance(op, oacc.ReductionFiniOp):

            def update(u: Ops) -> None:
                buf, idx = self._slot(u, op, k)
                cur = [u(memref.LoadOp.get(buf, [i])) for i in idx]
                new = red.combine(u, t, cur, parts(u, op.local))
                for v, i in zip(new, idx, strict=True):
                    u(memref.StoreOp.get(v, buf, [i]))

            _if(b, self.lane_zero(b, k), update)
            return op.local
        buf, idx = self._slot(b, op, k)  # teardown
        return from_parts(b, [b(memref.LoadOp.get(buf, [i])) for i in idx], t)

    def _vector(self, op: oacc.ReductionBuiltinOp, k: Kernel, b: Ops) -> SSAValue:
        t, red = op.local.type, self.red(op)
        if isinstance(op, oacc.ReductionSetupOp):
            return op.local
        if isinstance(op, oacc.ReductionInitOp):
            lane = self.pos(b, k, Level.VECTOR)
            first = self._is_zero(b, lane)
            return b(arith.SelectOp(first, op.local, red.identity(b, t)))
        key = _key(storage_type(t))
        buf = b(memref.GetGlobalOp(self.st.names["v" + key], self.st.vector_type(key)))
        rows = [
            b.index(self.st.vector_rows[key][(k.name, op.lid_value, op.rid_value, p)])
            for p in range(num_parts(t))
        ]
        vl = self.size(b, k, Level.VECTOR)
        base = b(arith.MuliOp(self.pos(b, k, Level.WORKER), vl))
        if isinstance(op, oacc.ReductionFiniOp):
            slot = b(arith.AddiOp(base, self.pos(b, k, Level.VECTOR)))
            for v, r in zip(parts(b, op.local), rows, strict=True):
                b(memref.StoreOp.get(v, buf, [r, slot]))
            return op.local
        # teardown: fold the worker's lanes in lane order (after the join barrier)
        return self._fold(b, op, buf, rows, base, vl)

    def _fold(self, b: Ops, op: oacc.ReductionBuiltinOp, buf: SSAValue, rows: list[SSAValue],
              base: SSAValue, count: SSAValue) -> SSAValue:
        """OP over ``buf[row][base + j]`` for j < count, in order (every thread the same)."""
        t, red = op.local.type, self.red(op)
        first = [b(memref.LoadOp.get(buf, [r, base])) for r in rows]
        body = Ops()
        blk = Block(arg_types=[INDEX, *(v.type for v in first)])
        j, accs = blk.args[0], list(blk.args[1:])
        at = body(arith.AddiOp(base, j))
        xs = [body(memref.LoadOp.get(buf, [r, at])) for r in rows]
        body(scf.YieldOp(*red.combine(body, t, accs, xs)))
        blk.add_ops(body.ops)
        loop = scf.ForOp(b.index(1), count, b.index(1), first, blk)
        # A fold over at most vector-length lanes gains nothing from vectorizing, and LLVM 22's
        # loop vectorizer asserts on its fmaxnum/fminnum form once full unrolling of the
        # work-item loop around it leaves several such chains in it (haswell, znver3).
        attrs.set_loop_vectorize_width(loop, 1)
        b(loop)
        return from_parts(b, list(loop.results), t)


