"""The ``expansion=ptx`` expansion of ``expand-oacc-reductions``: GCC's PTX design on an NVIDIA
GPU, where the threads of a CTA (work-group) really run concurrently. Vector lanes within a
warp reduce with ``shfl.sync`` butterflies, workers through a shared-memory slot each and the
work-group barrier of their join, gangs with one device-scope atomic (or the gang lock in
global memory). See the pass's docstring for the scheme."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import is_side_effect_free

from xmux.dialects import llvmx, mux, oacc
from xmux.dialects.oacc import Level
from xmux.transforms.lower_work_group_collectives import MAX_WORK_GROUP_SIZE, Ops
from xmux.transforms.openacc.expand_cpu import (
    GANG_LOCK,
    INDEX,
    PTR,
    VECTOR_BUFFER,
    WORKER_BUFFER,
    CpuExpander,
    _if,
    _key,
    _local,
)
from xmux.transforms.openacc.oacc_kernels import Kernel, op_where
from xmux.transforms.openacc.reduction_ops import (
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

WARP = 32
#: gang atomics and the gang lock synchronise the gangs of one launch: device scope
DEVICE = "device"


def nothing_shared_before(op: Operation) -> bool:
    """Whether a fork at ``op`` has nothing to order: it sits in the kernel's entry block after
    only ops without memory effects, work-item queries, private ``memref.alloca``s and loads
    whose value is unused. No thread has then written memory another may read, nor used a
    value of memory another may write after the fork (a barrier there would order nothing:
    NVRTC's reduction has none; bench/gpu.py's OpenACC sum began with a ``bar.sync`` and a
    ``bar.warp.sync`` that only made every warp wait for the slowest to start)."""
    block = op.parent_block()
    if block is None or not isinstance(block.parent_op(), func.FuncOp):
        return False
    prev = op.prev_op
    while prev is not None:
        if not (is_side_effect_free(prev) or isinstance(prev, mux.WorkItemQuery | memref.AllocaOp)
                or (isinstance(prev, memref.LoadOp) and not prev.res.uses)):
            return False
        prev = prev.prev_op
    return True


def warp_vector(k: Kernel) -> bool:
    """Whether a vector group of ``k`` lies within one warp: a static vector length dividing
    32 on local dimension 0 (the fastest one: a worker's lanes are consecutive threads)."""
    vl = k.size(Level.VECTOR)
    return vl is not None and vl > 1 and WARP % vl == 0 and k.level_dims[2] == 0


def warp_multiple(k: Kernel) -> bool:
    """Whether a vector group of ``k`` is whole warps (a static multiple of 32 lanes on local
    dimension 0): the lanes reduce per warp, then the warps' partials through shared
    memory."""
    vl = k.size(Level.VECTOR)
    return vl is not None and vl > WARP and vl % WARP == 0 and k.level_dims[2] == 0


def worker_forked_ops(fn: func.FuncOp) -> set[Operation]:
    """The vector forks and joins of ``fn`` that lie inside a worker-partitioned region."""
    out: set[Operation] = set()

    def walk(block: Block, worker: bool) -> None:
        for op in block.ops:
            if isinstance(op, oacc.ForkOp | oacc.JoinOp):
                lvl = op.level_value
                if lvl == Level.WORKER:
                    worker = isinstance(op, oacc.ForkOp)
                elif lvl == Level.VECTOR and worker:
                    out.add(op)
                continue
            for r in op.regions:
                for b in r.blocks:
                    walk(b, worker)

    walk(fn.body.block, False)
    return out


def _i32(b: Ops, value: int) -> SSAValue:
    return b(arith.ConstantOp(IntegerAttr(value, i32)))


def _shuffle_words(b: Ops, v: SSAValue) -> tuple[list[SSAValue], Callable[[Ops, list], SSAValue]]:
    """``v`` as i32 words (shfl.sync moves 32 bits) and how to rebuild it from them."""
    t = v.type
    if isinstance(t, AnyFloat):
        w = t.bitwidth
        it = IntegerType(w)
        words, back = _shuffle_words(b, b(arith.BitcastOp(v, it)))
        return words, lambda u, ws: u(arith.BitcastOp(back(u, ws), t))
    assert isinstance(t, IntegerType), t
    w = t.width.data
    if w == 32:
        return [v], lambda u, ws: ws[0]
    if w < 32:
        return [b(arith.ExtUIOp(v, i32))], lambda u, ws: u(arith.TruncIOp(ws[0], t))
    assert w == 64, t
    lo = b(arith.TruncIOp(v, i32))
    hi = b(arith.TruncIOp(b(arith.ShRUIOp(v, b(arith.ConstantOp(IntegerAttr(32, i64))))), i32))

    def back(u: Ops, ws: list[SSAValue]) -> SSAValue:
        lo64, hi64 = u(arith.ExtUIOp(ws[0], i64)), u(arith.ExtUIOp(ws[1], i64))
        shift = u(arith.ConstantOp(IntegerAttr(32, i64)))
        return u(arith.OrIOp(lo64, u(arith.ShLIOp(hi64, shift))))

    return [lo, hi], back


def shuffle_xor(b: Ops, v: SSAValue, lane_mask: int, members: SSAValue) -> SSAValue:
    """The value of ``v`` in the lane ``lane ^ lane_mask`` of the warp (``shfl.sync.bfly``
    over the lanes of ``members``)."""
    words, back = _shuffle_words(b, v)
    out = [
        b(llvm.CallIntrinsicOp("llvm.nvvm.shfl.sync.bfly.i32",
                               [members, w, _i32(b, lane_mask), _i32(b, WARP - 1)], [i32]))
        for w in words
    ]
    return back(b, out)


class PtxExpander(CpuExpander):
    """The ``expansion=ptx`` expansion: plans the shared-memory buffers (worker slots, vector
    partials) and the gang lock, then replaces the builtins one by one."""

    def __init__(self, module: ModuleOp, kernels: list[Kernel],
                 recipes: dict[str, oacc.ReductionRecipeOp]) -> None:
        super().__init__(module, kernels, recipes)
        self.worker_forked: set[Operation] = set()
        for k in kernels:
            self.worker_forked |= worker_forked_ops(k.fn)
        self.worker_capacity = 1

    # -- planning ----------------------------------------------------------------------

    def plan(self, owner: dict[Operation, Kernel]) -> None:
        st = self.st
        per_lid: dict[tuple[str, str, str, int], int] = {}

        def row(table: dict, key: str, k: Kernel, op: oacc.ReductionBuiltinOp, kind: str,
                ) -> None:
            # rows are reused across loops: the next loop's fork barrier separates them
            rows = table.setdefault(key, {})
            for part in range(num_parts(op.local.type)):
                rk = (k.name, op.lid_value, op.rid_value, part)
                if rk not in rows:
                    lk = (kind, key, k.name, op.lid_value)
                    rows[rk] = per_lid.get(lk, 0)
                    per_lid[lk] = rows[rk] + 1

        for op, k in owner.items():
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
                self._check_local_dims(k, op)
                st.types[key] = storage_type(t)
                row(st.worker_slots, key, k, op, "w")
                nw = k.size(Level.WORKER)
                self.worker_capacity = max(self.worker_capacity,
                                           nw if nw is not None else MAX_WORK_GROUP_SIZE)
            elif level == Level.VECTOR:
                self._check_local_dims(k, op)
                if warp_vector(k) or k.size(Level.VECTOR) == 1:
                    continue  # shuffles only
                st.types[key] = storage_type(t)
                row(st.vector_rows, key, k, op, "v")
                nw, vl = k.size(Level.WORKER), k.size(Level.VECTOR)
                if nw is None or vl is None:
                    cap = MAX_WORK_GROUP_SIZE
                elif warp_multiple(k):
                    cap = nw * (vl // WARP)
                else:
                    cap = nw * vl
                st.capacity = max(st.capacity, cap)
        for table, count in ((st.worker_slots, "w"), (st.vector_rows, "v")):
            for key, rows in table.items():
                n = max(rows.values()) + 1
                st.num_rows[count + key] = max(st.num_rows.get(count + key, 0), n)
        st.gang_lock = not all(self.atomic_lids.values())
        self._declare()

    def worker_type(self, key: str):
        return _local(self.st.types[key], [self.st.num_rows["w" + key], self.worker_capacity])

    def vector_type(self, key: str):
        return _local(self.st.types[key], [self.st.num_rows["v" + key], self.st.capacity])

    def _declare(self) -> None:
        from xdsl.rewriter import InsertPoint, Rewriter

        from xmux.transforms.lower_work_group_collectives import _unique_name

        st, module = self.st, self.module
        new: list[Operation] = []
        if st.gang_lock:
            st.names["gang_lock"] = _unique_name(module, GANG_LOCK)
            new.append(llvm.GlobalOp(i32, st.names["gang_lock"], "internal",
                                     value=IntegerAttr(0, i32), alignment=64))
        for prefix, table, typ in (("w", st.worker_slots, self.worker_type),
                                   ("v", st.vector_rows, self.vector_type)):
            base = WORKER_BUFFER if prefix == "w" else VECTOR_BUFFER
            for key in sorted(table):
                st.names[prefix + key] = _unique_name(module, base + key)
                new.append(memref.GlobalOp.get(StringAttr(st.names[prefix + key]), typ(key),
                                               UnitAttr(), alignment=64))
        first = module.body.block.first_op
        point = InsertPoint.before(first) if first else InsertPoint.at_end(module.body.block)
        if new:
            Rewriter.insert_op(new, point)

    # -- positions ---------------------------------------------------------------------

    def group_mask(self, b: Ops, k: Kernel) -> SSAValue:
        """The warp lanes of the caller's vector group (``warp_vector`` kernels): ``vl``
        consecutive lanes starting at (local linear id − vector position) mod 32."""
        vl = k.size(Level.VECTOR)
        assert vl is not None
        if vl == WARP:
            return _i32(b, -1)
        start = b(arith.SubiOp(b(mux.GetLocalLinearIdOp(INDEX)), self.pos(b, k, Level.VECTOR)))
        start32 = b(arith.AndIOp(b(arith.IndexCastOp(start, i32)), _i32(b, WARP - 1)))
        return b(arith.ShLIOp(_i32(b, (1 << vl) - 1), start32))

    def _barrier(self, b: Ops) -> None:
        b(mux.WorkGroupBarrierOp())

    # -- expansion ---------------------------------------------------------------------

    def expand(self, op: Operation, k: Kernel, b: Ops) -> SSAValue | None:
        if isinstance(op, oacc.ForkOp | oacc.JoinOp):
            self._fork_join(op, k, b)
            return None
        if isinstance(op, oacc.LockOp | oacc.UnlockOp):
            if op.level_value == Level.GANG:
                self._gang_lock(op, k, b)
            return None  # worker: a slot per worker, no lock; vector: none
        return super().expand(op, k, b)

    def _fork_join(self, op: oacc.ForkOp | oacc.JoinOp, k: Kernel, b: Ops) -> None:
        level = op.level_value
        if level == Level.GANG:
            return
        if isinstance(op, oacc.ForkOp) and nothing_shared_before(op):
            return  # no thread has written what another could read, nor read what it writes
        if level == Level.VECTOR and (op in self.worker_forked or k.size(Level.WORKER) == 1):
            # the vector group synchronises alone: its broadcast row and data are its own
            vl = k.size(Level.VECTOR)
            if vl == 1:
                return
            if warp_vector(k):
                b(llvm.CallIntrinsicOp("llvm.nvvm.bar.warp.sync", [self.group_mask(b, k)], []))
                return
        # worker-single code reads what worker 0 wrote: the whole work-group synchronises
        self._barrier(b)

    def _gang_lock(self, op: oacc.LockOp | oacc.UnlockOp, k: Kernel, b: Ops) -> None:
        if self.atomic_lids.get((k.name, op.lid_value), True):
            return  # every fini of the loop is one atomic RMW (or none): no lock
        fn = spin_lock if isinstance(op, oacc.LockOp) else spin_unlock
        _if(b, self.first_in_group(b),
            lambda t: fn(t, t(llvm.AddressOfOp(self.st.names["gang_lock"], PTR)), DEVICE))

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
            if rmw is None:  # inside the gang lock (its fences order these accesses)
                cur = u(memref.LoadOp.get(res, []))
                vals = red.combine(u, t, raw_parts(u, cur), raw_parts(u, local))
                u(memref.StoreOp.get(raw_from_parts(u, vals, t), res, []))
                return
            # one relaxed device-scope RMW per gang: the result is read after the launch
            ptr = memref_pointer(u, res, where)
            if isinstance(t, ComplexType):
                for i, v in enumerate(raw_parts(u, local)):
                    p = ptr if i == 0 else u(llvm.GEPOp(ptr, [i], t.element_type))
                    u(llvmx.AtomicRMWOp(rmw, p, v, "monotonic", syncscope=DEVICE))
            elif t == i1:
                u(llvmx.AtomicRMWOp(rmw, ptr, u(arith.ExtUIOp(local, i8)), "monotonic",
                                    syncscope=DEVICE))
            else:
                u(llvmx.AtomicRMWOp(rmw, ptr, local, "monotonic", syncscope=DEVICE))

        _if(b, self.first_in_group(b), update)
        return local

    # -- worker: a slot per worker, folded after the join barrier ----------------------

    def _rows(self, b: Ops, prefix: str, op: oacc.ReductionBuiltinOp, k: Kernel,
              ) -> tuple[SSAValue, list[SSAValue]]:
        key = _key(storage_type(op.local.type))
        typ = self.worker_type(key) if prefix == "w" else self.vector_type(key)
        buf = b(memref.GetGlobalOp(self.st.names[prefix + key], typ))
        table = self.st.worker_slots if prefix == "w" else self.st.vector_rows
        rows = [b.index(table[key][(k.name, op.lid_value, op.rid_value, p)])
                for p in range(num_parts(op.local.type))]
        return buf, rows

    def _worker(self, op: oacc.ReductionBuiltinOp, k: Kernel, b: Ops) -> SSAValue:
        t, red = op.local.type, self.red(op)
        if isinstance(op, oacc.ReductionSetupOp):
            return op.local  # worker 0's init keeps it
        if isinstance(op, oacc.ReductionInitOp):
            first = self._is_zero(b, self.pos(b, k, Level.WORKER))
            return b(arith.SelectOp(first, op.local, red.identity(b, t)))
        if isinstance(op, oacc.ReductionFiniOp):

            def store(u: Ops) -> None:
                buf, rows = self._rows(u, "w", op, k)
                w = self.pos(u, k, Level.WORKER)
                for v, r in zip(parts(u, op.local), rows, strict=True):
                    u(memref.StoreOp.get(v, buf, [r, w]))

            _if(b, self.lane_zero(b, k), store)
            return op.local
        # teardown, after the join barrier: the workers' slots in worker order
        buf, rows = self._rows(b, "w", op, k)
        return self._fold(b, op, buf, rows, b.index(0), self.size(b, k, Level.WORKER))

    # -- vector: shuffles within a warp, else per-warp partials / lane values ----------

    def _butterfly(self, b: Ops, op: oacc.ReductionBuiltinOp, vals: list[SSAValue], width: int,
                   members: SSAValue) -> list[SSAValue]:
        t, red = op.local.type, self.red(op)
        off = width // 2
        while off >= 1:
            other = [shuffle_xor(b, v, off, members) for v in vals]
            vals = red.combine(b, t, vals, other)
            off //= 2
        return vals

    def _vector(self, op: oacc.ReductionBuiltinOp, k: Kernel, b: Ops) -> SSAValue:
        t, red = op.local.type, self.red(op)
        if isinstance(op, oacc.ReductionSetupOp):
            return op.local
        if isinstance(op, oacc.ReductionInitOp):
            first = self._is_zero(b, self.pos(b, k, Level.VECTOR))
            return b(arith.SelectOp(first, op.local, red.identity(b, t)))
        vl = k.size(Level.VECTOR)
        if vl == 1:
            return op.local
        if warp_vector(k):
            if isinstance(op, oacc.ReductionTeardownOp):
                return op.local  # the fini gave every lane the result
            assert vl is not None
            vals = self._butterfly(b, op, parts(b, op.local), vl, self.group_mask(b, k))
            return from_parts(b, vals, t)
        if warp_multiple(k):
            assert vl is not None
            per = vl // WARP
            lane = self.pos(b, k, Level.VECTOR)
            base = b(arith.MuliOp(self.pos(b, k, Level.WORKER), b.index(per)))
            if isinstance(op, oacc.ReductionFiniOp):
                vals = self._butterfly(b, op, parts(b, op.local), WARP, _i32(b, -1))

                def store(u: Ops) -> None:
                    buf, rows = self._rows(u, "v", op, k)
                    slot = u(arith.AddiOp(base, u(arith.DivUIOp(lane, u.index(WARP)))))
                    for v, r in zip(vals, rows, strict=True):
                        u(memref.StoreOp.get(v, buf, [r, slot]))

                in_warp = b(arith.RemUIOp(lane, b.index(WARP)))
                _if(b, self._is_zero(b, in_warp), store)
                return op.local
            buf, rows = self._rows(b, "v", op, k)  # teardown: the group's warps in order
            return self._fold(b, op, buf, rows, base, b.index(per))
        # any other vector length: every lane's value, folded in lane order
        vlv = self.size(b, k, Level.VECTOR)
        base = b(arith.MuliOp(self.pos(b, k, Level.WORKER), vlv))
        buf, rows = self._rows(b, "v", op, k)
        if isinstance(op, oacc.ReductionFiniOp):
            slot = b(arith.AddiOp(base, self.pos(b, k, Level.VECTOR)))
            for v, r in zip(parts(b, op.local), rows, strict=True):
                b(memref.StoreOp.get(v, buf, [r, slot]))
            return op.local
        return self._fold(b, op, buf, rows, base, vlv)

