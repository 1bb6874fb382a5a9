"""define-mux-builtins-nvptx: define the mux builtins for the NVPTX target.

The NVPTX form of define-mux-builtins (the BIMuxInfo of a GPU target): the hardware runs the
work-items, one thread each, so there are no work-item loops; the queries read NVVM's special
registers and the launch record (``abi/nvptx_abi.py``), barriers are ``bar.sync``.

* launch record: every function that uses a work-item query, calls (transitively) one that
  does, or is an entry point gets a trailing ``%launch: !llvm.array<16 x i64>`` argument
  (``mux.scheduling_params``), passed on by its calls; add-kernel-wrapper-nvptx builds it
  from the kernel's parameters.
* queries (i64, converted to the query's type), computed once at the top of the function:

  ====================== ==================================================================
  get_local_id d         %tid.d
  get_local_size d       %ntid.d (the actual size: a remainder launch has a smaller block)
  get_group_id d         %ctaid.d + launch[9+d] (the launch's group base)
  get_num_groups d       launch[12+d];  get_global_size d: launch[d]
  get_global_offset d    launch[3+d];  get_enqueued_local_size d: launch[6+d]
  get_work_dim           launch[15]
  get_global_id d        group id · enqueued local size + local id + global offset
  linear ids             as define-mux-builtins (x fastest, as CUDA numbers threads)
  sub-groups             warps of 32: sub_group_id = llid / 32, local id = llid mod 32,
                         size = min(32, L − id·32), num_sub_groups = ⌈L / 32⌉
  ====================== ==================================================================
* ``mux.work_group_barrier`` → ``llvm.nvvm.barrier0`` (``bar.sync 0``: orders the
  work-group's shared and global memory accesses), preceded by a device-scope fence when its
  scope is wider than the work-group; ``mux.sub_group_barrier`` → ``llvm.nvvm.bar.warp.sync``
  over the lanes of the work-item's warp.
* fences and atomics with ``syncscope("singlethread")`` (earlier passes' CPU forms, where a
  work-group ran on one thread) get ``block`` scope.
* ``mux.mem_barrier`` → ``llvm.fence`` with the ordering of its semantics and the scope as
  NVPTX names it (work-item, sub-group and work-group: ``block``; device:
  ``device``; cross-device: the system); relaxed: no fence.
* DMA: every work-item of the group takes a share of the elements (strided by the local
  linear id) and ``mux.dma_wait`` is a work-group barrier, as OpenCL's
  ``async_work_group_copy`` / ``wait_group_events`` are reached by the whole group.

Expects: sub-group and work-group collectives already lowered (lower-*-collectives-nvptx);
a kernel's ``mux.reqd_sub_group_size`` is absent or 32. Guarantees: no mux op remains except
the host-side ``mux.launch``.

Before / after::

    func.func @k(%a: memref<?xf32>) {
      %i = mux.get_global_id 0 : index
      ...
    // ==>
    func.func @k(%a: memref<?xf32>, %launch: !llvm.array<16 x i64>)
        attributes {mux.scheduling_params} {
      %0 = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
      %1 = arith.extui %0 : i32 to i64
      %group_base0 = llvm.extractvalue %launch[9] : !llvm.array<16 x i64>
      %group_id0 = arith.addi %1, %group_base0 : i64
      %enqueued_local_size0 = llvm.extractvalue %launch[6] : !llvm.array<16 x i64>
      ... global id = group_id0 · enqueued_local_size0 + %tid.x + global_offset0 ...
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    i32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi import nvptx_abi as abi
from xmux.abi.errors import NotSupportedError
from xmux.dialects import attrs, mux
from xmux.transforms.define_mux_builtins import (
    SCHED,
    WG,
    WI,
    Expander,
    _check_events,
    _entry,
    expand_dma_strided,
    expand_query,
    functions_needing_params,
)

PASS = "define-mux-builtins-nvptx"
LAUNCH_TYPE = llvm.LLVMArrayType(IntAttr(abi.LAUNCH_FIELDS), i64)
_XYZ = "xyz"

# (struct, index) of define-mux-builtins' host structs → launch record field
_LAUNCH_FIELD = {
    (WG, attrs.WG_NUM_GROUPS): abi.NUM_GROUPS,
    (SCHED, attrs.SCHED_GLOBAL_SIZE): abi.GLOBAL_SIZE,
    (SCHED, attrs.SCHED_GLOBAL_OFFSET): abi.GLOBAL_OFFSET,
    (SCHED, attrs.SCHED_LOCAL_SIZE): abi.ENQUEUED_LOCAL_SIZE,
}
_FIELD_NAMES = {
    abi.GLOBAL_SIZE: "global_size",
    abi.GLOBAL_OFFSET: "global_offset",
    abi.ENQUEUED_LOCAL_SIZE: "enqueued_local_size",
    abi.GROUP_BASE: "group_base",
    abi.NUM_GROUPS: "num_groups",
}


def launch_arg(f: func.FuncOp) -> SSAValue:
    return _entry(f).args[-1]


def add_launch_param(f: func.FuncOp) -> None:
    """Append ``%launch`` (idempotent)."""
    if attrs.has_scheduling_params(f):
        return
    entry = _entry(f)
    entry.insert_arg(LAUNCH_TYPE, len(entry.args)).name_hint = "launch"
    ft = f.function_type
    f.function_type = FunctionType.from_lists([*ft.inputs.data, LAUNCH_TYPE], ft.outputs.data)
    if f.arg_attrs is not None:
        f.arg_attrs = ArrayAttr([*f.arg_attrs.data, DictionaryAttr({})])
    attrs.set_scheduling_params(f)


def pass_launch_on(f: func.FuncOp, needed: dict[str, func.FuncOp]) -> None:
    for op in list(f.walk()):
        if not isinstance(op, func.CallOp):
            continue
        callee = needed.get(op.callee.string_value())
        if callee is None or len(op.arguments) == len(callee.function_type.inputs):
            continue
        new_call = func.CallOp(op.callee, [*op.arguments, launch_arg(f)], op.result_types)
        new_call.attributes.update(op.attributes)
        Rewriter.replace_op(op, new_call)


@dataclass
class NvptxExpander(Expander):
    """The query expansion of define-mux-builtins over special registers and the launch
    record. On a GPU every value is the thread's own, so all are computed once, at the top
    of the function."""

    def emit(self, op: Operation) -> SSAValue:
        self._uniform_depth += 1  # everything at the top of the function, in order
        try:
            return super().emit(op)
        finally:
            self._uniform_depth -= 1

    def sreg(self, name: str, d: int) -> SSAValue:
        value = self.emit(
            llvm.CallIntrinsicOp(f"llvm.nvvm.read.ptx.sreg.{name}.{_XYZ[d]}", [], [i32])
        )
        return self.emit(arith.ExtUIOp(value, i64))

    def launch_field(self, index: int) -> SSAValue:
        value = self.emit(
            llvm.ExtractValueOp(
                DenseArrayBase.from_list(i64, [index]), launch_arg(self.function), i64
            )
        )
        base = max((b for b in _FIELD_NAMES if b <= index), default=None)
        if index == abi.WORK_DIM:
            value.name_hint = "work_dim"
        elif base is not None:
            value.name_hint = f"{_FIELD_NAMES[base]}{index - base}"
        return value

    def _read(self, struct: int, index: int) -> SSAValue:
        if struct == WI:
            return self.sreg("tid", index - attrs.WI_LOCAL_ID)
        if struct == WG and attrs.WG_LOCAL_SIZE <= index < attrs.WG_LOCAL_SIZE + 3:
            return self.sreg("ntid", index - attrs.WG_LOCAL_SIZE)
        if struct == WG and attrs.WG_GROUP_ID <= index < attrs.WG_GROUP_ID + 3:
            d = index - attrs.WG_GROUP_ID
            return self.add(self.sreg("ctaid", d), self.launch_field(abi.GROUP_BASE + d))
        if struct == SCHED and index == attrs.SCHED_WORK_DIM:
            return self.launch_field(abi.WORK_DIM)
        for (s, base), field_base in _LAUNCH_FIELD.items():
            if s == struct and base <= index < base + 3:
                return self.launch_field(field_base + index - base)
        raise NotSupportedError(f"{PASS}: no NVPTX definition of scheduling field {index}")

    def field(self, struct: int, index: int) -> SSAValue:
        return self.uniform(("field", struct, index), lambda: self._read(struct, index))


# ---------------------------------------------------------------------------------------
# Barriers and fences
# ---------------------------------------------------------------------------------------

_SYNCSCOPES: dict[int, str | None] = {
    mux.MEM_SCOPE_VALUES[mux.MemScope.WORK_ITEM]: "block",  # NVPTX: no singlethread fence
    mux.MEM_SCOPE_VALUES[mux.MemScope.SUB_GROUP]: "block",
    mux.MEM_SCOPE_VALUES[mux.MemScope.WORK_GROUP]: "block",
    mux.MEM_SCOPE_VALUES[mux.MemScope.DEVICE]: "device",
    mux.MEM_SCOPE_VALUES[mux.MemScope.CROSS_DEVICE]: None,
}
_WIDER_THAN_GROUP = (
    mux.MEM_SCOPE_VALUES[mux.MemScope.DEVICE],
    mux.MEM_SCOPE_VALUES[mux.MemScope.CROSS_DEVICE],
)


def fence_ops(scope: int, semantics: int) -> list[Operation]:
    from xmux.dialects import llvmx

    ordering = mux.llvm_ordering(semantics)
    if ordering is None:
        return []
    return [llvmx.FenceOp(ordering, _SYNCSCOPES[scope])]


def expand_work_group_barrier(op: mux.WorkGroupBarrierOp) -> None:
    ops: list[Operation] = []
    if op.scope_value() in _WIDER_THAN_GROUP:  # bar.sync orders memory within the CTA only
        ops += fence_ops(op.scope_value(), op.semantics_value())
    ops.append(llvm.CallIntrinsicOp("llvm.nvvm.barrier0", [], []))
    Rewriter.replace_op(op, ops, [])


def expand_sub_group_barrier(e: NvptxExpander, op: mux.SubGroupBarrierOp) -> None:
    e.ops = []
    mask = warp_mask(e)
    e.ops += fence_ops(op.scope_value(), op.semantics_value())
    e.ops.append(llvm.CallIntrinsicOp("llvm.nvvm.bar.warp.sync", [mask], []))
    Rewriter.insert_op(e.ops, InsertPoint.before(op))
    Rewriter.erase_op(op)


def warp_mask(e: NvptxExpander) -> SSAValue:
    """The lanes of the calling work-item's warp, as an i32 mask: all 32, or the low
    ``sub_group_size`` lanes of the last, partial warp of a work-group."""
    size = e.sub_group_size_query()
    assert isinstance(size, SSAValue)
    size32 = e.emit(arith.TruncIOp(size, i32))
    one = e.emit(arith.ConstantOp(IntegerAttr(1, i32)))
    full = e.emit(arith.ConstantOp(IntegerAttr(-1, i32)))
    # (1 << size) - 1 is poison at 32: select the full mask there
    low = e.emit(arith.SubiOp(e.emit(arith.ShLIOp(one, size32)), one))
    is_full = e.emit(
        arith.CmpiOp(size32, e.emit(arith.ConstantOp(IntegerAttr(abi.WARP_SIZE, i32))), "eq")
    )
    return e.emit(arith.SelectOp(is_full, full, low))


def expand_mem_barrier(op: mux.MemBarrierOp) -> None:
    Rewriter.replace_op(op, fence_ops(op.scope_value(), op.semantics_value()), [])


# ---------------------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------------------


def _not_supported(op: Operation, f: func.FuncOp) -> NotSupportedError:
    hint = ""
    if mux.is_barrier_like(op):
        hint = " (collectives are lowered by lower-*-group-collectives-nvptx before this pass)"
    return NotSupportedError(
        f"{PASS}: '{op.name}' in @{f.sym_name.data} is not supported on the NVPTX target{hint}"
    )


def _check_sub_group_sizes(module: ModuleOp) -> None:
    for f in attrs.functions(module).values():
        size = attrs.get_reqd_sub_group_size(f)
        if size not in (None, 1, abi.WARP_SIZE):
            raise NotSupportedError(
                f"{PASS}: @{f.sym_name.data} requires sub-groups of {size}; the NVPTX target's "
                f"sub-groups are warps of {abi.WARP_SIZE}"
            )


def retarget_scopes(module: ModuleOp) -> None:
    """Fences and atomics that earlier passes wrote for the CPU target with a single-thread
    scope (a work-group ran on one thread there: OpenACC's worker lock, ...) synchronise
    the threads of a CTA here: ``block`` scope (NVPTX has no acquire/release fence at
    ``singlethread``)."""
    from xmux.dialects import llvmx

    for op in module.walk():
        if isinstance(op, llvmx.FenceOp | llvmx.AtomicRMWOp | llvmx.AtomicCmpXchgOp):
            scope = op.properties.get("syncscope")
            if isinstance(scope, StringAttr) and scope.data == "singlethread":
                op.properties["syncscope"] = StringAttr("block")


def define_builtins(f: func.FuncOp) -> None:
    e = NvptxExpander(f, abi.WARP_SIZE)
    dmas: list[mux.DmaOp] = []
    for op in list(f.walk()):
        if isinstance(op, mux.DmaWaitOp):
            Rewriter.replace_op(op, llvm.CallIntrinsicOp("llvm.nvvm.barrier0", [], []), [])
        elif isinstance(op, mux.DmaOp):
            dmas.append(op)
        elif isinstance(op, mux.WorkItemQuery):
            e.ops = []
            expand_query(e, op)
        elif isinstance(op, mux.MemBarrierOp):
            expand_mem_barrier(op)
        elif isinstance(op, mux.WorkGroupBarrierOp):
            expand_work_group_barrier(op)
        elif isinstance(op, mux.SubGroupBarrierOp):
            expand_sub_group_barrier(e, op)
        elif isinstance(op, mux.LaunchOp):
            continue
        elif op.dialect_name() == "mux":
            raise _not_supported(op, f)
    for dma in reversed(dmas):  # users of an event (later transfers) first
        e.ops = []
        expand_dma_strided(dma, f, e.local_linear_id(), e.local_linear_size(), PASS)


@dataclass(frozen=True)
class DefineMuxBuiltinsNvptxPass(ModulePass):
    """Define work-item queries, barriers, fences and DMA for the NVPTX target."""

    name = "define-mux-builtins-nvptx"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check_sub_group_sizes(op)
        for f in attrs.functions(op).values():
            _check_events(f)
        needed = functions_needing_params(op)
        for f in needed.values():
            add_launch_param(f)
        for f in needed.values():
            pass_launch_on(f, needed)
        for f in attrs.functions(op).values():
            if f.body.blocks:
                define_builtins(f)
        retarget_scopes(op)

