"""expand-oacc-reductions{target=host|cpu}: GCC's OpenACC builtins → plain SIMT code.

The oacc-xform analogue of ``reference/openacc-reductions-gcc.txt``: expands the ``oacc``
builtins that ``convert-acc-to-oacc`` placed in OpenACC kernels (``func.func`` with
``oacc.dims``). ``target=host`` is the reference's default (host) expansion: every kernel runs
as a single thread. ``target=cpu`` (default) runs gangs as work-groups on the thread pool and
workers / vector lanes as work-items (level → NDRange dimension from ``oacc.level_dims``:
gang = group dimension 0, worker = local dimension 1, vector = local dimension 0).

**host** — ``mux.launch`` of every OpenACC kernel: global = local = 1 in every dimension;
``mux.reqd_work_group_size`` = (1, 1, 1); ``oacc.dim_pos`` → 0, ``oacc.dim_size`` → 1;
setup: V = res ? *res : LOCAL; init, fini: V = LOCAL; teardown: if res: *res = LOCAL, V =
LOCAL; lock/unlock/fork/join vanish.

**cpu** — execution-mode rule: every work-item runs redundant code, so the fini at level L is
performed only by the work-items whose positions at the levels inside L are 0 (gang: local
linear id 0, worker: vector position 0, vector: every lane).

- dim_pos/dim_size: gang = ``mux.get_group_id`` / number of gangs, worker and vector =
  ``mux.get_local_id`` / their size (constants where ``oacc.dims`` has them).
- gang: setup/teardown V = LOCAL, init V = init_val(op), fini *res = OP(*res, LOCAL): one
  ``llvmx.atomicrmw`` where LLVM has the operation for the type (add/max/min/and/or/xor on
  integers, fadd/fmax/fmin on floats, and/or/xor on i1 as i8, complex add as two fadds),
  otherwise plain load/OP/store inside the loop's gang lock: a spin lock on the module-level
  i32 ``@__oacc_gang_lock`` (cmpxchg 0→1 loop + acquire fence; release fence + xchg 0).
  A lock whose finis are all atomic vanishes; gang fork/join and a fini without res vanish.
- worker: one slot per (lid, rid) of ``@__oacc_worker_red_<T> : memref<K x T, 3>`` (complex:
  two slots); setup: local linear id 0 writes slot = LOCAL (after a barrier when the setup is
  inside a loop: the previous round's teardown may still read the slot); fork/join =
  ``mux.work_group_barrier``; init V = init_val; fini under the worker lock (a work-group local
  i32, ``syncscope("singlethread")``: a work-group runs on one thread; the lock keeps the slot
  update out of reordering and vectorization): slot = OP(slot, LOCAL); teardown V = slot.
- vector: fork/join = ``mux.work_group_barrier``; init V = pos ? init_val : LOCAL; fini
  stores LOCAL at ``@__oacc_vector_red_<T>[row][worker·vl + lane]`` (row per (rid, part) of
  the loop); teardown folds the worker's ``vl`` values in lane order (every lane gets the same
  value), so the join barrier separates the stores from the folds and the next fork barrier
  the folds from the next stores.

i8/i16 are promoted to i32 in the buffers; complex values are decomposed into their two parts
(separate slots/rows). ``init_val``: add 0, mul 1, max lowest, min highest, and all ones,
or/xor 0, land 1, lor 0. max/min are signed on integers, IEEE maxNum/minNum on floats; land/lor
give 0 or 1.

Expects: oacc builtins only in OpenACC kernels, placed as in the reference.
Guarantees: no oacc op remains.

Before (gang reduction into a copy object)::

    %a1 = oacc.reduction_setup gang add %a res(%r : memref<f32>) lid 0 rid 0 : f32
    oacc.fork gang
    %a2 = oacc.reduction_init gang add %a1 res(%r : memref<f32>) lid 0 rid 0 : f32
    %s = ...                                  // the partitioned loop
    oacc.lock gang lid 0
    %a3 = oacc.reduction_fini gang add %s res(%r : memref<f32>) lid 0 rid 0 : f32
    oacc.unlock gang lid 0
    oacc.join gang
    %a4 = oacc.reduction_teardown gang add %a3 res(%r : memref<f32>) lid 0 rid 0 : f32

After, target=cpu (f32 add has an atomic: no lock)::

    %a2 = arith.constant 0.000000e+00 : f32
    %s = ...
    %0 = mux.get_local_linear_id : index
    %1 = arith.constant 0 : index
    %2 = arith.cmpi eq, %0, %1 : index
    scf.if %2 {
      %3 = "memref.extract_aligned_pointer_as_index"(%r) : (memref<f32>) -> index
      %4 = arith.index_cast %3 : index to i64
      %5 = llvm.inttoptr %4 : i64 to !llvm.ptr
      %6 = llvmx.atomicrmw fadd %5, %s acq_rel : !llvm.ptr, f32
    }

After, target=host (and the kernel's ``mux.launch`` gets global = local = 1)::

    %a1 = memref.load %r[] : memref<f32>
    %s = ...                                  // from %a1
    memref.store %s, %r[] : memref<f32>
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, complex, func, llvm, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    UnitAttr,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from xmux.dialects import attrs, mux, oacc
from xmux.dialects.oacc import Level, ReductionKind
from xmux.errors import NotSupportedError, XmuxError
from xmux.lowering import llvmx
from xmux.transforms.lower_work_group_collectives import (
    LOCAL_MEMORY_SPACE,
    MAX_WORK_GROUP_SIZE,
    Ops,
    reachable_functions,
)

TARGETS = ("host", "cpu")
INDEX = IndexType()
PTR = llvm.LLVMPointerType()
GANG_LOCK = "__oacc_gang_lock"
WORKER_LOCK = "__oacc_worker_lock"
WORKER_BUFFER = "__oacc_worker_red_"
VECTOR_BUFFER = "__oacc_vector_red_"
R = ReductionKind

_BUILTINS = (
    oacc.ReductionBuiltinOp,
    oacc.LockOp,
    oacc.UnlockOp,
    oacc.ForkOp,
    oacc.JoinOp,
    oacc.DimPosOp,
    oacc.DimSizeOp,
)


def _is_oacc(op: Operation) -> bool:
    return isinstance(op, _BUILTINS)


def _error(where: str, message: str) -> XmuxError:
    return XmuxError(f"expand-oacc-reductions: {where}: {message}")


# ---------------------------------------------------------------------------------------
# Values: init_val, the operators, promotion and complex parts
# ---------------------------------------------------------------------------------------


def _int_const(b: Ops, value: int, t: Attribute) -> SSAValue:
    if t == i1:
        value = -1 if value else 0
    return b(arith.ConstantOp(IntegerAttr(value, t)))  # type: ignore[arg-type]


def _float_const(b: Ops, value: float, t: Attribute) -> SSAValue:
    return b(arith.ConstantOp(FloatAttr(value, t)))  # type: ignore[arg-type]


def init_value(kind: ReductionKind, t: Attribute) -> int | float | tuple[float, float]:
    """The reference's ``init_val<T>(OP)``: the operator's identity for type ``t``."""
    if isinstance(t, ComplexType):
        return (1.0, 0.0) if kind == R.MUL else (0.0, 0.0)
    if isinstance(t, AnyFloat):
        return {R.ADD: 0.0, R.MUL: 1.0, R.MAX: -math.inf, R.MIN: math.inf, R.LAND: 1.0, R.LOR: 0.0}[
            kind
        ]
    assert isinstance(t, IntegerType)
    w = t.width.data
    if w == 1:
        return int(kind in (R.AND, R.LAND, R.MUL))
    return {
        R.ADD: 0,
        R.MUL: 1,
        R.MAX: -(1 << (w - 1)),
        R.MIN: (1 << (w - 1)) - 1,
        R.AND: -1,
        R.OR: 0,
        R.XOR: 0,
        R.LAND: 1,
        R.LOR: 0,
    }[kind]


def init_val(b: Ops, kind: ReductionKind, t: Attribute) -> SSAValue:
    v = init_value(kind, t)
    if isinstance(t, ComplexType):
        assert isinstance(v, tuple)
        return b(complex.ConstantOp.from_floats(v, t.element_type))  # type: ignore[arg-type]
    if isinstance(t, AnyFloat):
        return _float_const(b, float(v), t)  # type: ignore[arg-type]
    return _int_const(b, int(v), t)  # type: ignore[arg-type]


def _truth(b: Ops, v: SSAValue) -> SSAValue:
    if v.type == i1:
        return v
    if isinstance(v.type, AnyFloat):
        return b(arith.CmpfOp(v, _float_const(b, 0.0, v.type), "une"))
    return b(arith.CmpiOp(v, _int_const(b, 0, v.type), "ne"))


def _from_truth(b: Ops, bit: SSAValue, t: Attribute) -> SSAValue:
    if t == i1:
        return bit
    if isinstance(t, AnyFloat):
        return b(arith.SelectOp(bit, _float_const(b, 1.0, t), _float_const(b, 0.0, t)))
    return b(arith.SelectOp(bit, _int_const(b, 1, t), _int_const(b, 0, t)))


_INT_OPS: dict[ReductionKind, type[Operation]] = {
    R.ADD: arith.AddiOp,
    R.MUL: arith.MuliOp,
    R.MAX: arith.MaxSIOp,
    R.MIN: arith.MinSIOp,
    R.AND: arith.AndIOp,
    R.OR: arith.OrIOp,
    R.XOR: arith.XOrIOp,
}
_FLOAT_OPS: dict[ReductionKind, type[Operation]] = {
    R.ADD: arith.AddfOp,
    R.MUL: arith.MulfOp,
    R.MAX: arith.MaxnumfOp,
    R.MIN: arith.MinnumfOp,
}


def combine_scalar(b: Ops, kind: ReductionKind, x: SSAValue, y: SSAValue) -> SSAValue:
    """``x OP y`` for an integer, i1 or float type (land/lor give 0 or 1)."""
    if kind in (R.LAND, R.LOR):
        op = arith.AndIOp if kind == R.LAND else arith.OrIOp
        return _from_truth(b, b(op(_truth(b, x), _truth(b, y))), x.type)
    table = _FLOAT_OPS if isinstance(x.type, AnyFloat) else _INT_OPS
    return b(table[kind](x, y))  # type: ignore[call-arg]


def combine_parts(
    b: Ops, kind: ReductionKind, t: Attribute, xs: Sequence[SSAValue], ys: Sequence[SSAValue]
) -> list[SSAValue]:
    """OP on values given as parts (see ``parts``): complex mul needs both parts at once."""
    if isinstance(t, ComplexType) and kind == R.MUL:
        (a, c), (d, e) = xs, ys  # (a + ci)(d + ei) = (ad - ce) + (ae + cd)i
        re = b(arith.SubfOp(b(arith.MulfOp(a, d)), b(arith.MulfOp(c, e))))
        im = b(arith.AddfOp(b(arith.MulfOp(a, e)), b(arith.MulfOp(c, d))))
        return [re, im]
    return [combine_scalar(b, kind, x, y) for x, y in zip(xs, ys, strict=True)]


def storage_type(t: Attribute) -> Attribute:
    """The element type a buffer holds for one part of a ``t`` value (i8/i16 → i32)."""
    if isinstance(t, ComplexType):
        return t.element_type
    if isinstance(t, IntegerType) and t.width.data in (8, 16):
        return i32
    return t


def num_parts(t: Attribute) -> int:
    return 2 if isinstance(t, ComplexType) else 1


def split_complex(b: Ops, v: SSAValue) -> list[SSAValue]:
    t = v.type
    assert isinstance(t, ComplexType)
    return [
        b(cls.create(operands=[v], result_types=[t.element_type]))
        for cls in (complex.ReOp, complex.ImOp)
    ]


def parts(b: Ops, v: SSAValue) -> list[SSAValue]:
    """``v`` as storage-type parts: (re, im) for complex, promoted for i8/i16."""
    t = v.type
    if isinstance(t, ComplexType):
        return split_complex(b, v)
    s = storage_type(t)
    return [v] if s == t else [b(arith.ExtSIOp(v, s))]


def from_parts(b: Ops, vs: Sequence[SSAValue], t: Attribute) -> SSAValue:
    if isinstance(t, ComplexType):
        return b(complex.CreateOp(vs[0], vs[1], t))
    return vs[0] if vs[0].type == t else b(arith.TruncIOp(vs[0], t))


# ---------------------------------------------------------------------------------------
# Atomics and locks
# ---------------------------------------------------------------------------------------

_INT_RMW = {R.ADD: "add", R.MAX: "max", R.MIN: "min", R.AND: "and", R.OR: "or", R.XOR: "xor"}
_BOOL_RMW = {R.AND: "and", R.OR: "or", R.XOR: "xor", R.LAND: "and", R.LOR: "or"}
_FLOAT_RMW = {R.ADD: "fadd", R.MAX: "fmax", R.MIN: "fmin"}


def atomic_bin_op(kind: ReductionKind, t: Attribute) -> str | None:
    """The ``atomicrmw`` operation doing ``*p = *p OP v`` for ``t``, None if there is none."""
    if isinstance(t, ComplexType):
        return "fadd" if kind == R.ADD else None
    if isinstance(t, AnyFloat):
        return _FLOAT_RMW.get(kind)
    assert isinstance(t, IntegerType)
    return (_BOOL_RMW if t.width.data == 1 else _INT_RMW).get(kind)


def memref_pointer(b: Ops, m: SSAValue, where: str) -> SSAValue:
    """An ``!llvm.ptr`` to element 0 of a rank-0 (or static-offset) memref."""
    t = m.type
    assert isinstance(t, MemRefType)
    offset = 0
    if not isinstance(t.layout, NoneAttr):
        off = t.get_offset() if isinstance(t.layout, StridedLayoutAttr) else None
        if not isinstance(off, int) or off < 0:
            raise NotSupportedError(
                f"expand-oacc-reductions: {where}: result pointer {t} needs an identity or "
                "static-offset layout"
            )
        offset = off
    p = b(memref.ExtractAlignedPointerAsIndexOp.get(m))
    ptr = b(llvm.IntToPtrOp(b(arith.IndexCastOp(p, i64))))
    if offset:
        elem = t.element_type
        if isinstance(elem, ComplexType):  # in units of parts
            elem, offset = elem.element_type, 2 * offset
        ptr = b(llvm.GEPOp(ptr, [offset], i8 if elem == i1 else elem))
    return ptr


def spin_lock(b: Ops, lock: SSAValue, scope: str | None) -> None:
    """The reference's ptx_lock: cmpxchg 0 → 1 until it succeeds, then an acquire fence."""
    before = Ops()
    zero, one = (
        before(arith.ConstantOp(IntegerAttr(0, i32))),
        before(arith.ConstantOp(IntegerAttr(1, i32))),
    )
    pair = before(llvmx.AtomicCmpXchgOp(lock, zero, one, "acquire", "monotonic", syncscope=scope))
    ok = before(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), pair, i1))
    again = before(arith.XOrIOp(ok, before(arith.ConstantOp(IntegerAttr(-1, i1)))))
    before(scf.ConditionOp(again))
    b(scf.WhileOp([], [], before.ops, [scf.YieldOp()]))
    b(llvmx.FenceOp("acquire", scope))


def spin_unlock(b: Ops, lock: SSAValue, scope: str | None) -> None:
    """The reference's ptx_unlock: a release fence, then the lock word back to 0."""
    b(llvmx.FenceOp("release", scope))
    zero = b(arith.ConstantOp(IntegerAttr(0, i32)))
    b(llvmx.AtomicRMWOp("xchg", lock, zero, "release", syncscope=scope))


def _if(b: Ops, cond: SSAValue, body: Callable[[Ops], None]) -> None:
    inner = Ops()
    body(inner)
    inner(scf.YieldOp())
    b(scf.IfOp(cond, [], inner.ops))


# ---------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------


@dataclass
class _Kernel:
    fn: func.FuncOp
    dims: tuple[int, int, int]
    level_dims: tuple[int, int, int]

    @property
    def name(self) -> str:
        return self.fn.sym_name.data

    def size(self, level: Level) -> int | None:
        d = self.dims[list(Level).index(level)]
        return None if d == attrs.DYNAMIC_DIM else d


def _level_index(level: Level) -> int:
    return list(Level).index(level)


def _where(k: _Kernel | None, op: Operation) -> str:
    desc = f"'{op.name}'"
    if isinstance(op, oacc.ReductionBuiltinOp):
        desc += f" (lid {op.lid_value}, rid {op.rid_value})"
    elif isinstance(op, oacc.LockOp | oacc.UnlockOp):
        desc += f" (lid {op.lid_value})"
    return f"{desc} in @{k.name}" if k is not None else desc


def _collect(module: ModuleOp) -> tuple[list[_Kernel], dict[Operation, _Kernel]]:
    kernels: list[_Kernel] = []
    owner: dict[Operation, _Kernel] = {}
    for fn in module.walk():
        if not isinstance(fn, func.FuncOp):
            continue
        dims = attrs.get_oacc_dims(fn)
        ops = [o for o in fn.walk() if _is_oacc(o)]
        if dims is None:
            if ops:
                raise _error(
                    f"'{ops[0].name}' in @{fn.sym_name.data}",
                    "oacc builtins are only valid inside an OpenACC kernel (a func.func with "
                    "oacc.dims, as convert-acc-to-oacc outlines acc.parallel)",
                )
            continue
        k = _Kernel(fn, dims, attrs.get_oacc_level_dims(fn))
        kernels.append(k)
        for o in ops:
            owner[o] = k
            if isinstance(o, oacc.ReductionBuiltinOp):
                try:
                    oacc.check_reduction_type(o.kind_value, o.local.type, _where(k, o))
                except VerifyException as e:
                    raise _error("unsupported reduction", str(e)) from None
    return kernels, owner


# ---------------------------------------------------------------------------------------
# host
# ---------------------------------------------------------------------------------------


def _expand_host(op: Operation, b: Ops) -> SSAValue | None:
    if isinstance(op, oacc.DimPosOp):
        return b.index(0)
    if isinstance(op, oacc.DimSizeOp):
        return b.index(1)
    if not isinstance(op, oacc.ReductionBuiltinOp):
        return None  # lock/unlock/fork/join vanish
    res = op.res_ptr
    if isinstance(op, oacc.ReductionSetupOp) and res is not None:
        return b(memref.LoadOp.get(res, []))
    if isinstance(op, oacc.ReductionTeardownOp) and res is not None:
        b(memref.StoreOp.get(op.local, res, []))
    return op.local


def _rewrite_launches(module: ModuleOp, names: set[str]) -> None:
    for launch in [o for o in module.walk() if isinstance(o, mux.LaunchOp)]:
        if launch.kernel.string_value() not in names:
            continue
        one = arith.ConstantOp.from_int_and_width(1, INDEX)
        n = launch.work_dim
        new = mux.LaunchOp(launch.kernel, launch.args, [one] * n, [one] * n, launch.global_offset)
        new.attributes.update(launch.attributes)
        Rewriter.replace_op(launch, [one, new], [])


# ---------------------------------------------------------------------------------------
# cpu
# ---------------------------------------------------------------------------------------


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


def _gang_fini_is_atomic(op: oacc.ReductionBuiltinOp) -> bool:
    return op.res_ptr is not None and atomic_bin_op(op.kind_value, op.local.type) is not None


def _in_loop(op: Operation, fn: func.FuncOp) -> bool:
    p = op.parent_op()
    while p is not None and p is not fn:
        if isinstance(p, scf.ForOp | scf.WhileOp | scf.ParallelOp):
            return True
        p = p.parent_op()
    return False


class _CpuExpander:
    def __init__(self, module: ModuleOp, kernels: list[_Kernel]) -> None:
        self.module = module
        self.kernels = kernels
        self.st = _Storage()
        self.atomic_lids: dict[tuple[str, int], bool] = {}
        self.setup_barriers: set[tuple[str, int]] = set()

    # -- planning ----------------------------------------------------------------------

    def plan(self, owner: dict[Operation, _Kernel]) -> None:
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
                    op.res_ptr is None or _gang_fini_is_atomic(op)
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

    def _check_local_dims(self, k: _Kernel, op: Operation) -> None:
        dg, dw, dv = k.level_dims
        if dw == dv:
            raise _error(
                _where(k, op),
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

    # -- positions ---------------------------------------------------------------------

    def pos(self, b: Ops, k: _Kernel, level: Level) -> SSAValue:
        d = k.level_dims[_level_index(level)]
        if level == Level.GANG:
            return b(mux.GetGroupIdOp(d, INDEX))
        return b(mux.GetLocalIdOp(d, INDEX))

    def size(self, b: Ops, k: _Kernel, level: Level) -> SSAValue:
        n = k.size(level)
        if n is not None:
            return b.index(n)
        d = k.level_dims[_level_index(level)]
        if level == Level.GANG:
            return b(mux.GetNumGroupsOp(d, INDEX))
        return b(mux.GetLocalSizeOp(d, INDEX))

    def _is_zero(self, b: Ops, v: SSAValue) -> SSAValue:
        return b(arith.CmpiOp(v, b.index(0), "eq"))

    def first_in_group(self, b: Ops) -> SSAValue:
        return self._is_zero(b, b(mux.GetLocalLinearIdOp(INDEX)))

    def lane_zero(self, b: Ops, k: _Kernel) -> SSAValue:
        return self._is_zero(b, self.pos(b, k, Level.VECTOR))

    # -- expansion ---------------------------------------------------------------------

    def expand(self, op: Operation, k: _Kernel, b: Ops) -> SSAValue | None:
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

    def _lock(self, op: oacc.LockOp | oacc.UnlockOp, k: _Kernel, b: Ops) -> None:
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
                fn(t, memref_pointer(t, g, _where(k, op)), "singlethread")

            _if(b, cond, body)

    def _gang(self, op: oacc.ReductionBuiltinOp, k: _Kernel, b: Ops) -> SSAValue:
        if isinstance(op, oacc.ReductionInitOp):
            return init_val(b, op.kind_value, op.local.type)
        if not isinstance(op, oacc.ReductionFiniOp) or op.res_ptr is None:
            return op.local
        res, local, kind, t = op.res_ptr, op.local, op.kind_value, op.local.type
        where = _where(k, op)

        def update(u: Ops) -> None:
            rmw = atomic_bin_op(kind, t)
            if rmw is None:  # inside the gang lock
                cur = u(memref.LoadOp.get(res, []))
                vals = combine_parts(u, kind, t, _raw_parts(u, cur), _raw_parts(u, local))
                u(memref.StoreOp.get(_raw_from_parts(u, vals, t), res, []))
                return
            ptr = memref_pointer(u, res, where)
            if isinstance(t, ComplexType):
                for i, v in enumerate(_raw_parts(u, local)):
                    p = ptr if i == 0 else u(llvm.GEPOp(ptr, [i], t.element_type))
                    u(llvmx.AtomicRMWOp(rmw, p, v, "acq_rel"))
            elif t == i1:
                u(llvmx.AtomicRMWOp(rmw, ptr, u(arith.ExtUIOp(local, i8)), "acq_rel"))
            else:
                u(llvmx.AtomicRMWOp(rmw, ptr, local, "acq_rel"))

        _if(b, self.first_in_group(b), update)
        return local

    def _slot(self, b: Ops, op: oacc.ReductionBuiltinOp, k: _Kernel) -> tuple[SSAValue, list]:
        key = _key(storage_type(op.local.type))
        buf = b(memref.GetGlobalOp(self.st.names["w" + key], self.st.worker_type(key)))
        slots = self.st.worker_slots[key]
        idx = [
            b.index(slots[(k.name, op.lid_value, op.rid_value, p)])
            for p in range(num_parts(op.local.type))
        ]
        return buf, idx

    def _worker(self, op: oacc.ReductionBuiltinOp, k: _Kernel, b: Ops) -> SSAValue:
        t, kind = op.local.type, op.kind_value
        if isinstance(op, oacc.ReductionInitOp):
            return init_val(b, kind, t)
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
                new = combine_parts(u, kind, t, cur, parts(u, op.local))
                for v, i in zip(new, idx, strict=True):
                    u(memref.StoreOp.get(v, buf, [i]))

            _if(b, self.lane_zero(b, k), update)
            return op.local
        buf, idx = self._slot(b, op, k)  # teardown
        return from_parts(b, [b(memref.LoadOp.get(buf, [i])) for i in idx], t)

    def _vector(self, op: oacc.ReductionBuiltinOp, k: _Kernel, b: Ops) -> SSAValue:
        t, kind = op.local.type, op.kind_value
        if isinstance(op, oacc.ReductionSetupOp):
            return op.local
        if isinstance(op, oacc.ReductionInitOp):
            lane = self.pos(b, k, Level.VECTOR)
            first = self._is_zero(b, lane)
            return b(arith.SelectOp(first, op.local, init_val(b, kind, t)))
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
        first = [b(memref.LoadOp.get(buf, [r, base])) for r in rows]
        body = Ops()
        from xdsl.ir import Block

        blk = Block(arg_types=[INDEX, *(v.type for v in first)])
        j, accs = blk.args[0], list(blk.args[1:])
        at = body(arith.AddiOp(base, j))
        xs = [body(memref.LoadOp.get(buf, [r, at])) for r in rows]
        body(scf.YieldOp(*combine_parts(body, kind, t, accs, xs)))
        blk.add_ops(body.ops)
        loop = scf.ForOp(b.index(1), vl, b.index(1), first, blk)
        b(loop)
        return from_parts(b, list(loop.results), t)


def _raw_parts(b: Ops, v: SSAValue) -> list[SSAValue]:
    """Parts without promotion (the RESULT object's own type)."""
    if isinstance(v.type, ComplexType):
        return split_complex(b, v)
    return [v]


def _raw_from_parts(b: Ops, vs: Sequence[SSAValue], t: Attribute) -> SSAValue:
    if isinstance(t, ComplexType):
        return b(complex.CreateOp(vs[0], vs[1], t))
    return vs[0]


def _replace(op: Operation, b: Ops, value: SSAValue | None) -> None:
    Rewriter.insert_op(b.ops, InsertPoint.before(op))
    if value is not None and op.results:
        hint = op.results[0].name_hint
        op.results[0].replace_all_uses_with(value)
        if hint and value.name_hint is None and value.owner in b.ops:
            value.name_hint = hint
    Rewriter.erase_op(op)


def uses_capacity_buffer(module: ModuleOp, kernel: func.FuncOp) -> bool:
    """True when ``kernel`` (or a callee) reads a vector reduction buffer sized for the
    maximal work-group (its kernel has no required work-group size)."""
    funcs = {f.sym_name.data: f for f in module.walk() if isinstance(f, func.FuncOp)}
    return any(
        isinstance(o, memref.GetGlobalOp) and o.name_.root_reference.data.startswith(VECTOR_BUFFER)
        for n in reachable_functions(kernel, funcs)
        for o in funcs[n].walk()
    )


@dataclass(frozen=True)
class ExpandOaccReductions(ModulePass):
    """Expand the oacc builtins of OpenACC kernels for one thread (host) or the thread pool
    (cpu)."""

    name = "expand-oacc-reductions"

    target: str = "cpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.target not in TARGETS:
            raise XmuxError(
                f"expand-oacc-reductions: target must be one of {', '.join(TARGETS)}, "
                f"got '{self.target}'"
            )
        kernels, owner = _collect(op)
        if not kernels:
            return
        if self.target == "host":
            for o, _ in list(owner.items()):
                b = Ops()
                _replace(o, b, _expand_host(o, b))
            for k in kernels:
                attrs.set_reqd_work_group_size(k.fn, (1, 1, 1))
            _rewrite_launches(op, {k.name for k in kernels})
            return
        for k in kernels:
            if attrs.get_reqd_work_group_size(k.fn) is None:
                nw, vl = k.size(Level.WORKER), k.size(Level.VECTOR)
                if nw is not None and vl is not None:
                    dg, dw, dv = k.level_dims
                    size = [1, 1, 1]
                    size[dw] *= nw
                    size[dv] *= vl
                    attrs.set_reqd_work_group_size(k.fn, size)
        ex = _CpuExpander(op, kernels)
        ex.plan(owner)
        for o, k in list(owner.items()):
            b = Ops()
            _replace(o, b, ex.expand(o, k, b))
