"""define-mux-builtins: define the mux builtins over the host scheduling structs.

Re-creates the DefineMuxBuiltinsPass with the host target's BIMuxInfo: every work-item
query reads the scheduling structs of ``docs/architecture.md`` (flat arrays of i64, field
offsets in ``dialects/attrs.py``):

* scheduling parameters: every function that uses a work-item query or
  ``mux.set_local_id``, calls (transitively) one that does, or is an entry point gets three
  trailing ``!llvm.ptr`` arguments ``%wi_info, %wg_info, %sched_info`` and the
  ``mux.scheduling_params`` attribute; its ``func.call``s of such functions pass its own
  three on.
* queries: ``llvm.getelementptr`` + ``llvm.load`` of an i64 field, arith for the derived
  ids, then ``arith.index_cast`` / ``arith.trunci`` to the query's result type.
  Work-group and schedule fields do not change during a call of a work-group function, so
  each is loaded once, at the top of the function; local ids are loaded where they are
  queried (``mux.set_local_id`` stores them).

  ====================== ==================================================================
  get_local_id d         wi[d]
  get_group_id d         wg[d];  get_num_groups d: wg[3+d];  get_local_size d: wg[6+d]
  get_global_size d      sched[d];  get_global_offset d: sched[3+d]
  get_enqueued_local_size sched[6+d];  get_work_dim: sched[11]
  get_global_id d        group_id·enqueued_local_size + local_id + global_offset
  get_global_linear_id   (id2−off2)·gs1·gs0 + (id1−off1)·gs0 + (id0−off0)
  get_local_linear_id    lid2·ls1·ls0 + lid1·ls0 + lid0   (actual local size)
  sub-groups of size N   N = the function's ``mux.reqd_sub_group_size``, else that of the
                         entry points reaching it, else 1 (lower-sub-group-collectives sets
                         it); L = ls0·ls1·ls2, llid = local linear id:
                         sub_group_id = llid / N, sub_group_local_id = llid mod N,
                         sub_group_size = min(N, L − sub_group_id·N) (the last sub-group
                         may be smaller), max_sub_group_size = N, num_sub_groups = ⌈L / N⌉;
                         N = 1 gives 1, 0, llid and L directly
  ====================== ==================================================================
* ``mux.mem_barrier`` → ``llvm.fence`` with the ordering of its semantics (relaxed: no
  fence). A work-group runs on one thread, so work-group, sub-group and work-item scopes
  get ``syncscope("singlethread")`` (a compiler-only fence); device scopes a full fence.
* DMA (``mux.dma_read_*`` / ``mux.dma_write_*``): element copy loops (byte sizes and
  strides divided by the element size; elements counted row-major over each memref's
  shape). The transfer is complete when the op returns, so events vanish with the ops
  that use them (DMA ops chaining them, ``mux.dma_wait``); an event used any other way is
  not supported. Every work-item that reaches the op performs the whole copy: idempotent
  for reads; a write of local data needs a barrier before it anyway.

Expects: work-item loops already built (no control barriers or collectives: those are "not
supported by this pipeline yet", as is any other mux op left over). Guarantees: no mux op
remains except the host-side ``mux.launch``.

Before / after::

    func.func @k(%a: memref<?xf32>) {
      %i = mux.get_global_id 0 : index
      ...
    }
    // ==>
    func.func @k(%a: memref<?xf32>, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr,
                 %sched_info: !llvm.ptr) attributes {mux.scheduling_params} {
      %0 = llvm.getelementptr inbounds %wg_info[0, 0] : (...) -> !llvm.ptr, !llvm.array<9 x i64>
      %group_id0 = llvm.load %0 {alignment = 8 : i64} : !llvm.ptr -> i64
      ... %enqueued_local_size0 (sched[6]) likewise ...
      %2 = arith.muli %group_id0, %enqueued_local_size0 : i64
      ... %global_offset0 (sched[3]) likewise ...
      %4 = arith.addi %2, %global_offset0 : i64          // uniform part, computed once
      %5 = llvm.getelementptr inbounds %wi_info[0, 0] : (...) -> !llvm.ptr, !llvm.array<3 x i64>
      %local_id0 = llvm.load %5 {alignment = 8 : i64} : !llvm.ptr -> i64
      %6 = arith.addi %4, %local_id0 : i64
      %i = arith.index_cast %6 : i64 to index
      ...
    }
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    CompileTimeFixedBitwidthType,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError, XmuxError
from xmux.dialects import attrs, mux
from xmux.transforms.lower_sub_group_collectives import (
    SUB_GROUP_QUERIES,
    function_sub_group_sizes,
)

PASS = "define-mux-builtins"
PARAM_NAMES = ("wi_info", "wg_info", "sched_info")
WI, WG, SCHED = 0, 1, 2
_STRUCT_TYPES = (attrs.WI_INFO_TYPE, attrs.WG_INFO_TYPE, attrs.SCHED_INFO_TYPE)
_FIELD_NAMES = {
    (WI, attrs.WI_LOCAL_ID): "local_id",
    (WG, attrs.WG_GROUP_ID): "group_id",
    (WG, attrs.WG_NUM_GROUPS): "num_groups",
    (WG, attrs.WG_LOCAL_SIZE): "local_size",
    (SCHED, attrs.SCHED_GLOBAL_SIZE): "global_size",
    (SCHED, attrs.SCHED_GLOBAL_OFFSET): "global_offset",
    (SCHED, attrs.SCHED_LOCAL_SIZE): "enqueued_local_size",
}


def _field_name(struct: int, index: int) -> str:
    if struct == SCHED and index == attrs.SCHED_WORK_DIM:
        return "work_dim"
    for (s, base), name in _FIELD_NAMES.items():
        if s == struct and base <= index < base + 3:
            return f"{name}{index - base}"
    return f"{PARAM_NAMES[struct]}_{index}"


def _uses_scheduling(f: func.FuncOp) -> bool:
    return any(isinstance(op, mux.WorkItemQuery | mux.SetLocalIdOp) for op in f.walk())


# ---------------------------------------------------------------------------------------
# Scheduling parameters
# ---------------------------------------------------------------------------------------


def functions_needing_params(module: ModuleOp) -> dict[str, func.FuncOp]:
    """Definitions that use the structs, entry points, and (transitively) their callers."""
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    callers: dict[str, set[str]] = {name: set() for name in funcs}
    for name, f in funcs.items():
        for op in f.walk():
            if isinstance(op, func.CallOp) and (callee := op.callee.string_value()) in callers:
                callers[callee].add(name)
    work = [
        name
        for name, f in funcs.items()
        if f.body.blocks
        and (attrs.is_entry_point(f) or attrs.has_scheduling_params(f) or _uses_scheduling(f))
    ]
    needed: dict[str, func.FuncOp] = {}
    while work:
        name = work.pop()
        if name in needed:
            continue
        needed[name] = funcs[name]
        work.extend(callers[name])
    for name, f in needed.items():
        if not f.body.blocks:
            raise XmuxError(f"{PASS}: @{name} needs the scheduling parameters but has no body")
    return needed


def _entry(f: func.FuncOp) -> Block:
    block = f.body.blocks.first
    assert block is not None
    return block


def scheduling_args(f: func.FuncOp) -> tuple[SSAValue, SSAValue, SSAValue]:
    args = _entry(f).args
    return args[-3], args[-2], args[-1]


def add_scheduling_params(f: func.FuncOp) -> None:
    """Append ``%wi_info, %wg_info, %sched_info`` (idempotent)."""
    if attrs.has_scheduling_params(f):
        return
    entry = _entry(f)
    ptr = llvm.LLVMPointerType()
    for name in PARAM_NAMES:
        arg = entry.insert_arg(ptr, len(entry.args))
        arg.name_hint = name
    ft = f.function_type
    f.function_type = FunctionType.from_lists([*ft.inputs.data, ptr, ptr, ptr], ft.outputs.data)
    if f.arg_attrs is not None:
        f.arg_attrs = ArrayAttr([*f.arg_attrs.data, *(DictionaryAttr({}),) * 3])
    attrs.set_scheduling_params(f)


def pass_params_on(f: func.FuncOp, needed: dict[str, func.FuncOp]) -> None:
    """Calls from ``f`` to functions taking the params get ``f``'s own three appended."""
    for op in list(f.walk()):
        if not isinstance(op, func.CallOp):
            continue
        callee = needed.get(op.callee.string_value())
        if callee is None or len(op.arguments) == len(callee.function_type.inputs):
            continue
        if len(op.arguments) + 3 != len(callee.function_type.inputs):
            raise XmuxError(
                f"{PASS}: call of @{callee.sym_name.data} in @{f.sym_name.data} has "
                f"{len(op.arguments)} arguments, expected "
                f"{len(callee.function_type.inputs) - 3}"
            )
        new_call = func.CallOp(
            op.callee, [*op.arguments, *scheduling_args(f)], op.result_types
        )
        new_call.attributes.update(op.attributes)
        Rewriter.replace_op(op, new_call)


# ---------------------------------------------------------------------------------------
# Query expansion
# ---------------------------------------------------------------------------------------


@dataclass
class Expander:
    """Emits the expansion of the builtins of one function.

    Values uniform over a call of the work-group function (work-group and schedule fields,
    and arithmetic on them only) are computed once, at the top of the entry block in order
    of first use; the rest goes to ``ops``, inserted where the op being expanded was.
    """

    function: func.FuncOp
    sub_group_size: int = 1
    ops: list[Operation] = field(default_factory=list)
    _cache: dict[tuple[object, ...], SSAValue] = field(default_factory=dict)
    _last_cached: Operation | None = None
    _uniform_depth: int = 0

    def emit(self, op: Operation) -> SSAValue:
        if self._uniform_depth:
            ip = (
                InsertPoint.at_start(_entry(self.function))
                if self._last_cached is None
                else InsertPoint.after(self._last_cached)
            )
            Rewriter.insert_op(op, ip)
            self._last_cached = op
        else:
            self.ops.append(op)
        return op.results[0] if op.results else SSAValue.get(op)

    def uniform(self, key: tuple[object, ...], compute: Callable[[], SSAValue]) -> SSAValue:
        if key not in self._cache:
            self._uniform_depth += 1
            try:
                self._cache[key] = compute()
            finally:
                self._uniform_depth -= 1
        return self._cache[key]

    def _read(self, struct: int, index: int) -> SSAValue:
        ptr = scheduling_args(self.function)[struct]
        gep = self.emit(llvm.GEPOp(ptr, [0, index], _STRUCT_TYPES[struct], inbounds=True))
        value = self.emit(llvm.LoadOp(gep, i64, alignment=8))
        value.name_hint = _field_name(struct, index)
        return value

    def field(self, struct: int, index: int) -> SSAValue:
        if struct == WI:  # local ids change from work-item to work-item
            return self._read(struct, index)
        return self.uniform(("field", struct, index), lambda: self._read(struct, index))

    def const(self, value: int, type: Attribute = i64) -> SSAValue:
        return self.emit(arith.ConstantOp(IntegerAttr(value, type)))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MuliOp(a, b))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.AddiOp(a, b))

    def to_i64(self, value: SSAValue) -> SSAValue:
        t = value.type
        if isinstance(t, IndexType):
            return self.emit(arith.IndexCastOp(value, i64))
        if isinstance(t, IntegerType) and t.width.data < 64:
            return self.emit(arith.ExtUIOp(value, i64))
        return value

    def from_i64(self, value: SSAValue, type: Attribute) -> SSAValue:
        if isinstance(type, IndexType):
            return self.emit(arith.IndexCastOp(value, type))
        if isinstance(type, IntegerType) and type.width.data < 64:
            return self.emit(arith.TruncIOp(value, type))
        return value

    # --- derived quantities (all i64) ---------------------------------------------------

    def local_id(self, d: int) -> SSAValue:
        return self.field(WI, attrs.WI_LOCAL_ID + d)

    def local_size(self, d: int) -> SSAValue:
        return self.field(WG, attrs.WG_LOCAL_SIZE + d)

    def global_size(self, d: int) -> SSAValue:
        return self.field(SCHED, attrs.SCHED_GLOBAL_SIZE + d)

    def group_start(self, d: int) -> SSAValue:
        """group id · enqueued local size (uniform)."""

        def compute() -> SSAValue:
            group = self.field(WG, attrs.WG_GROUP_ID + d)
            enqueued = self.field(SCHED, attrs.SCHED_LOCAL_SIZE + d)
            return self.mul(group, enqueued)

        return self.uniform(("group_start", d), compute)

    def group_start_with_offset(self, d: int) -> SSAValue:
        """group id · enqueued local size + global offset (uniform)."""

        def compute() -> SSAValue:
            start = self.group_start(d)
            return self.add(start, self.field(SCHED, attrs.SCHED_GLOBAL_OFFSET + d))

        return self.uniform(("group_start_with_offset", d), compute)

    def global_id_from_offset(self, d: int) -> SSAValue:
        """global id − global offset = group id · enqueued local size + local id."""
        return self.add(self.group_start(d), self.local_id(d))

    def global_id(self, d: int) -> SSAValue:
        return self.add(self.group_start_with_offset(d), self.local_id(d))

    def linear(self, ids: list[SSAValue], sizes: list[SSAValue]) -> SSAValue:
        """id2·s1·s0 + id1·s0 + id0, written as ((id2·s1 + id1)·s0 + id0)."""
        acc = ids[2]
        for d in (1, 0):
            acc = self.add(self.mul(acc, sizes[d]), ids[d])
        return acc

    def global_linear_id(self) -> SSAValue:
        ids = [self.global_id_from_offset(d) for d in range(3)]
        return self.linear(ids, [self.global_size(d) for d in range(3)])

    def local_linear_id(self) -> SSAValue:
        ids = [self.local_id(d) for d in range(3)]
        return self.linear(ids, [self.local_size(d) for d in range(3)])

    def local_linear_size(self) -> SSAValue:
        def compute() -> SSAValue:
            sizes = [self.local_size(d) for d in range(3)]
            return self.mul(self.mul(sizes[0], sizes[1]), sizes[2])

        return self.uniform(("local_linear_size",), compute)


    # --- sub-groups: N consecutive work-items in local linear order ----------------------

    def sub_group_id(self) -> SSAValue:
        if self.sub_group_size == 1:
            return self.local_linear_id()
        return self.emit(arith.DivUIOp(self.local_linear_id(), self.const(self.sub_group_size)))

    def sub_group_local_id(self) -> SSAValue | int:
        if self.sub_group_size == 1:
            return 0
        return self.emit(arith.RemUIOp(self.local_linear_id(), self.const(self.sub_group_size)))

    def sub_group_size_query(self) -> SSAValue | int:
        """min(N, L − sub_group_id·N): the last sub-group may be smaller."""
        n = self.sub_group_size
        if n == 1:
            return 1
        start = self.mul(self.sub_group_id(), self.const(n))
        left = self.emit(arith.SubiOp(self.local_linear_size(), start))
        return self.emit(arith.MinUIOp(left, self.const(n)))

    def num_sub_groups(self) -> SSAValue:
        """ceil(L / N)."""
        n = self.sub_group_size
        if n == 1:
            return self.local_linear_size()

        def compute() -> SSAValue:
            up = self.add(self.local_linear_size(), self.const(n - 1))
            return self.emit(arith.DivUIOp(up, self.const(n)))

        return self.uniform(("num_sub_groups",), compute)


def _dim_field(struct: int, base: int) -> Callable[[Expander, int], SSAValue]:
    return lambda e, d: e.field(struct, base + d)


_DIM_QUERIES: dict[type[Operation], Callable[[Expander, int], SSAValue]] = {
    mux.GetLocalIdOp: Expander.local_id,
    mux.GetGroupIdOp: _dim_field(WG, attrs.WG_GROUP_ID),
    mux.GetNumGroupsOp: _dim_field(WG, attrs.WG_NUM_GROUPS),
    mux.GetLocalSizeOp: Expander.local_size,
    mux.GetGlobalSizeOp: Expander.global_size,
    mux.GetGlobalOffsetOp: _dim_field(SCHED, attrs.SCHED_GLOBAL_OFFSET),
    mux.GetEnqueuedLocalSizeOp: _dim_field(SCHED, attrs.SCHED_LOCAL_SIZE),
    mux.GetGlobalIdOp: Expander.global_id,
}

_QUERIES: dict[type[Operation], Callable[[Expander], SSAValue | int]] = {
    mux.GetWorkDimOp: lambda e: e.field(SCHED, attrs.SCHED_WORK_DIM),
    mux.GetGlobalLinearIdOp: Expander.global_linear_id,
    mux.GetLocalLinearIdOp: Expander.local_linear_id,
    mux.GetSubGroupIdOp: Expander.sub_group_id,
    mux.GetNumSubGroupsOp: Expander.num_sub_groups,
    mux.GetSubGroupSizeOp: Expander.sub_group_size_query,
    mux.GetMaxSubGroupSizeOp: lambda e: e.sub_group_size,
    mux.GetSubGroupLocalIdOp: Expander.sub_group_local_id,
}


def expand_query(e: Expander, op: mux.WorkItemQuery) -> None:
    if isinstance(op, mux.DimQueryOp):
        value: SSAValue | int = _DIM_QUERIES[type(op)](e, op.dim.value.data)
    else:
        value = _QUERIES[type(op)](e)
    if isinstance(value, int):
        result = e.const(value, op.result.type)
    else:
        result = e.from_i64(value, op.result.type)
    if op.result.name_hint and e.ops and e.ops[-1].results and e.ops[-1].results[0] is result:
        result.name_hint = op.result.name_hint
    Rewriter.insert_op(e.ops, InsertPoint.before(op))
    op.result.replace_all_uses_with(result)
    Rewriter.erase_op(op)


def expand_set_local_id(e: Expander, op: mux.SetLocalIdOp) -> None:
    value = e.to_i64(op.value)
    ptr = scheduling_args(e.function)[WI]
    index = attrs.WI_LOCAL_ID + op.dim.value.data
    gep = e.emit(llvm.GEPOp(ptr, [0, index], attrs.WI_INFO_TYPE, inbounds=True))
    e.ops.append(llvm.StoreOp(value, gep, alignment=8))
    Rewriter.insert_op(e.ops, InsertPoint.before(op))
    Rewriter.erase_op(op)


# ---------------------------------------------------------------------------------------
# Memory barriers and DMA
# ---------------------------------------------------------------------------------------


_GROUP_SCOPES = (
    mux.MEM_SCOPE_VALUES[mux.MemScope.WORK_GROUP],
    mux.MEM_SCOPE_VALUES[mux.MemScope.SUB_GROUP],
    mux.MEM_SCOPE_VALUES[mux.MemScope.WORK_ITEM],
)


def expand_mem_barrier(op: mux.MemBarrierOp) -> None:
    """A fence; single-thread scope when only invocations of one work-group observe it
    (a work-group runs on one thread)."""
    from xmux.dialects import llvmx  # lazily: only kernels with fences need it

    ordering = mux.llvm_ordering(op.semantics_value())
    if ordering is None:
        Rewriter.erase_op(op)
        return
    syncscope = "singlethread" if op.scope_value() in _GROUP_SCOPES else None
    Rewriter.replace_op(op, llvmx.FenceOp(ordering, syncscope))


def _element_bytes(t: Attribute) -> int | None:
    if isinstance(t, IndexType):
        return 8
    if isinstance(t, CompileTimeFixedBitwidthType):
        return t.compile_time_size
    return None


@dataclass
class _Builder:
    """Collects ops to insert before one op, with small arith helpers on index."""

    ops: list[Operation] = field(default_factory=list)

    def emit(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp.from_int_and_width(value, IndexType()))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.DivUIOp(a, b))

    def rem(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.RemUIOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(arith.MuliOp(a, b))

    def add(self, a: SSAValue | None, b: SSAValue) -> SSAValue:
        """a + b, with None for a known zero."""
        return b if a is None else self.emit(arith.AddiOp(a, b))

    def delinearize(self, ref: SSAValue, linear: SSAValue) -> list[SSAValue]:
        """Indices of element ``linear`` of ``ref`` counted row-major over its shape."""
        t = ref.type
        assert isinstance(t, MemRefType)
        rank = len(t.shape)
        if rank == 0:
            return []
        if rank == 1:
            return [linear]
        indices: list[SSAValue] = []
        rest = linear
        for d in range(rank - 1, 0, -1):
            size = t.get_shape()[d]
            if size == DYNAMIC_INDEX:
                dim = self.emit(memref.DimOp(ref, self.const(d)))
            else:
                dim = self.const(size)
            indices.append(self.rem(rest, dim))
            rest = self.div(rest, dim)
        indices.append(rest)
        return indices[::-1]


def expand_dma(op: mux.DmaOp, f: func.FuncOp) -> None:
    """Element copy loop nest (bytes → elements); the transfer is done on return."""
    expand_dma_strided(op, f)


def expand_dma_strided(
    op: mux.DmaOp,
    f: func.FuncOp,
    first: SSAValue | None = None,
    step: SSAValue | None = None,
    where: str = PASS,
) -> None:
    """``expand_dma`` where the innermost (row) loop copies elements ``first``, ``first +
    step``, ... only (i64 values): a share of a copy that several work-items make together."""
    dst, src = op.dst, op.src  # type: ignore[attr-defined]
    assert isinstance(dst.type, MemRefType) and isinstance(src.type, MemRefType)
    elem = dst.type.element_type
    if src.type.element_type != elem:
        raise NotSupportedError(
            f"{where}: '{op.name}' in @{f.sym_name.data} copies between memrefs of different "
            f"element types ({src.type.element_type}, {elem}): not supported"
        )
    size = _element_bytes(elem)
    if size is None:
        raise NotSupportedError(
            f"{where}: '{op.name}' in @{f.sym_name.data}: element type {elem} is not supported"
        )
    b = _Builder()
    esize = b.const(size)
    zero, one = b.const(0), b.const(1)
    row_first, row_step = zero, one
    if first is not None and step is not None:
        row_first = b.emit(arith.IndexCastOp(first, IndexType()))
        row_step = b.emit(arith.IndexCastOp(step, IndexType()))

    def elements(name: str) -> SSAValue:
        return b.div(getattr(op, name), esize)

    # (count, dst stride, src stride) per loop level, outermost first, in elements
    levels: list[tuple[SSAValue, SSAValue, SSAValue]] = []
    if op.RANK == 3:
        depth = op.depth  # type: ignore[attr-defined]
        levels.append((depth, elements("dst_plane_stride"), elements("src_plane_stride")))
    if op.RANK == 2:
        height = op.height  # type: ignore[attr-defined]
        levels.append((height, elements("dst_stride"), elements("src_stride")))
    if op.RANK == 3:
        height = op.height  # type: ignore[attr-defined]
        levels.append((height, elements("dst_line_stride"), elements("src_line_stride")))
    width = elements("width")

    def nest(level: int, dst_base: SSAValue | None, src_base: SSAValue | None) -> scf.ForOp:
        last = level == len(levels)
        count = width if last else levels[level][0]
        body = Block(arg_types=[IndexType()])
        iv = body.args[0]
        inner = _Builder()
        if last:
            src_index = inner.delinearize(src, inner.add(src_base, iv))
            value = inner.emit(memref.LoadOp.get(src, src_index))
            dst_index = inner.delinearize(dst, inner.add(dst_base, iv))
            inner.ops.append(memref.StoreOp.get(value, dst, dst_index))
        else:
            _, dst_step, src_step = levels[level]
            dst_next = inner.add(dst_base, inner.mul(iv, dst_step))
            src_next = inner.add(src_base, inner.mul(iv, src_step))
            inner.ops.append(nest(level + 1, dst_next, src_next))
        inner.ops.append(scf.YieldOp())
        body.add_ops(inner.ops)
        if last:
            return scf.ForOp(row_first, count, row_step, [], body)
        return scf.ForOp(zero, count, one, [], body)

    b.ops.append(nest(0, None, None))
    Rewriter.insert_op(b.ops, InsertPoint.before(op))
    Rewriter.erase_op(op, safe_erase=False)  # its event's users go with it (checked before)


def _not_supported(op: Operation, f: func.FuncOp) -> NotSupportedError:
    return NotSupportedError(
        f"{PASS}: '{op.name}' in @{f.sym_name.data} is not supported by this pipeline yet"
    )


def define_builtins(f: func.FuncOp, sub_group_size: int = 1) -> None:
    """Expand every mux builtin in ``f`` (which has the scheduling parameters if needed)."""
    cache = Expander(f, sub_group_size)
    dmas: list[mux.DmaOp] = []
    for op in list(f.walk()):
        if isinstance(op, mux.DmaWaitOp):
            Rewriter.erase_op(op)  # transfers are complete when their op returns
        elif isinstance(op, mux.DmaOp):
            dmas.append(op)
        elif isinstance(op, mux.WorkItemQuery | mux.SetLocalIdOp):
            cache.ops = []
            if isinstance(op, mux.SetLocalIdOp):
                expand_set_local_id(cache, op)
            else:
                expand_query(cache, op)
        elif isinstance(op, mux.MemBarrierOp):
            expand_mem_barrier(op)
        elif isinstance(op, mux.LaunchOp):
            continue
        elif op.dialect_name() == "mux":
            raise _not_supported(op, f)
    for dma in reversed(dmas):  # users of an event (later transfers) first
        expand_dma(dma, f)


def _check_events(f: func.FuncOp) -> None:
    """DMA events may only chain transfers and be waited on: they vanish with them."""
    for block in f.walk_blocks():
        for arg in block.args:
            if isinstance(arg.type, mux.EventType):
                raise NotSupportedError(
                    f"{PASS}: @{f.sym_name.data} passes a !mux.event as a block or function "
                    "argument: events may only be used by DMA ops and mux.dma_wait"
                )
    for op in f.walk():
        for result in op.results:
            if not isinstance(result.type, mux.EventType):
                continue
            for use in result.uses:
                if not isinstance(use.operation, mux.DmaOp | mux.DmaWaitOp):
                    raise NotSupportedError(
                        f"{PASS}: a !mux.event of '{op.name}' in @{f.sym_name.data} is used by "
                        f"'{use.operation.name}': events may only be used by DMA ops and "
                        "mux.dma_wait"
                    )


def _check_supported(module: ModuleOp) -> None:
    for f in module.ops:
        if not isinstance(f, func.FuncOp):
            continue
        for op in f.walk():
            if mux.is_barrier_like(op):
                raise _not_supported(op, f)
        _check_events(f)


@dataclass(frozen=True)
class DefineMuxBuiltinsPass(ModulePass):
    """Define work-item queries, set_local_id, mem_barrier and DMA over the host structs."""

    name = "define-mux-builtins"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check_supported(op)
        needed = functions_needing_params(op)
        for f in needed.values():
            add_scheduling_params(f)
        for f in needed.values():
            pass_params_on(f, needed)
        sub_group_users = [
            f.sym_name.data
            for f in op.ops
            if isinstance(f, func.FuncOp)
            and any(isinstance(o, SUB_GROUP_QUERIES) for o in f.walk())
        ]
        sizes = function_sub_group_sizes(op, sub_group_users, where=PASS)
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks:
                define_builtins(f, sizes.get(f.sym_name.data, 1))
