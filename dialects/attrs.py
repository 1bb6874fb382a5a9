"""Kernel attributes and scheduling-struct layout: the one place that spells their keys.

Passes communicate through discardable attributes on ``func.func`` (and a few on loops and
llvm ops). Every read and write goes through the accessors below, so a key is spelled once.
The kernel-argument metadata that the runtime reads (``ArgInfo``/``KernelInfo``) lives here
too, with its JSON form (stored next to cached objects).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable

from xmux.abi.errors import XmuxError
from xmux.abi.kernel_layout import (  # noqa: F401 - re-exported
    SCHED_CANCEL,
    SCHED_GLOBAL_OFFSET,
    SCHED_GLOBAL_SIZE,
    SCHED_LOCAL_SIZE,
    SCHED_NUM_FIELDS,
    SCHED_SLICE,
    SCHED_TOTAL_SLICES,
    SCHED_WORK_DIM,
    WG_GROUP_ID,
    WG_LOCAL_SIZE,
    WG_NUM_FIELDS,
    WG_NUM_GROUPS,
    WI_LOCAL_ID,
    WI_NUM_FIELDS,
    ArgInfo,
    KernelInfo,
    dump_kernel_infos,
    load_kernel_infos,
)
from xmux.dialects import llvm as llvm_ext
from xmux.dialects.target import DEFAULT_TARGET, TargetAttr

# ---------------------------------------------------------------------------------------
# Attribute keys
# ---------------------------------------------------------------------------------------

KERNEL = "mux.kernel"
REQD_WORK_GROUP_SIZE = "mux.reqd_work_group_size"
MAX_WORK_DIM = "mux.max_work_dim"
WORK_ITEM_ORDER = "mux.work_item_order"
BASE_NAME = "mux.base_name"
ORIG_FN = "mux.orig_fn"
LOCAL_MEM_USAGE = "mux.local_mem_usage"
REQD_SUB_GROUP_SIZE = "mux.reqd_sub_group_size"
VECTORIZED_FROM = "mux.vectorized_from"
VECTORIZED_TO = "mux.vectorized_to"
SCHEDULING_PARAMS = "mux.scheduling_params"
WORK_ITEM_LOOP = "mux.work_item_loop"
PER_WORK_ITEM = "mux.per_work_item"
SINGLE_WORK_ITEM = "mux.single_work_item"
SUB_GROUP_SCOPE = "mux.sub_group_scope"
# upstream's llvm-dialect names (inherent attributes of llvm.load/store/call/atomics and of
# llvm.br/cond_br upstream; discardable ones on xDSL's ops, which upstream's parser accepts)
LOOP_ANNOTATION = "loop_annotation"
ACCESS_GROUPS = "access_groups"
LOOP_VECTORIZE_WIDTH = "xmux.loop_vectorize_width"
VECTOR_SCHEDULE = "mux.vector_schedule"
KERNEL_ABI = "mux.kernel_abi"
MAX_WORK_GROUP_SIZE = "mux.max_work_group_size"
LOCAL_SIZE_LIMITS = "mux.local_size_limits"
WORK_DIMS_USED = "mux.work_dims_used"
KERNEL_TABLE = "xmux.kernel_table"
TARGET = "xmux.target"
SPEC_CONSTANTS_USED = "spec.used_constants"
SPEC_BUFFER_ARG = "spec.buffer_arg"
SPEC_BUFFER_LOAD = "spec.buffer_load"
OACC_DIMS = "oacc.dims"
OACC_LEVEL_DIMS = "oacc.level_dims"
#: upstream acc's discardable attributes (a device routine's function; an `acc declare`d
#: variable's defining op): dropped by convert-acc-to-oacc
ACC_ROUTINE_INFO = "acc.routine_info"
ACC_DECLARE = "acc.declare"
#: A kernel's thread-block cluster shape in blocks (upstream NVVM's llvm.func attribute;
#: emitted as .reqnctapercluster; convert-gpu-to-mux sets it from gpu.launch_func clusters)
CLUSTER_DIM = "nvvm.cluster_dim"

ENTRY_POINT = "entry_point"
SUB_KERNEL = "sub_kernel"

#: Default work-item order: outermost loop first; xyz means x innermost.
DEFAULT_WORK_ITEM_ORDER: tuple[int, int, int] = (2, 1, 0)

# ---------------------------------------------------------------------------------------
# Scheduling structs (all fields i64; their field offsets are in abi/kernel_layout.py)
# ---------------------------------------------------------------------------------------

SCHED_INFO_TYPE = llvm.LLVMArrayType(IntAttr(SCHED_NUM_FIELDS), i64)
WG_INFO_TYPE = llvm.LLVMArrayType(IntAttr(WG_NUM_FIELDS), i64)
WI_INFO_TYPE = llvm.LLVMArrayType(IntAttr(WI_NUM_FIELDS), i64)
"""The structs are flat arrays of i64, indexed by kernel_layout's field offsets."""


# ---------------------------------------------------------------------------------------
# Accessors
# ---------------------------------------------------------------------------------------


def _set_or_clear(op: Operation, key: str, value: Attribute | None) -> None:
    if value is None:
        op.attributes.pop(key, None)
    else:
        op.attributes[key] = value


class MalformedAttributeError(XmuxError, ValueError):
    """An xmux attribute in the IR with a value out of its form or range (written by hand:
    ``mux.reqd_work_group_size = array<i64: 0, 1, 1>``): an ``XmuxError`` naming the op, so
    every pass that reads it reports the user's input rather than crashing; still a
    ``ValueError`` for the passes that catch one to prefix their name."""


def _int_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _get_int_array(op: Operation, key: str) -> tuple[int, ...] | None:
    attr = op.attributes.get(key)
    if attr is None:
        return None
    if not isinstance(attr, DenseArrayBase):
        raise MalformedAttributeError(
            f"{op.name} @{_sym(op)}: attribute {key} must be array<i64: ...>")
    return tuple(int(v) for v in attr.get_values())


def _get_int(op: Operation, key: str) -> int | None:
    attr = op.attributes.get(key)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr):
        raise MalformedAttributeError(f"{op.name} @{_sym(op)}: attribute {key} must be an integer")
    return attr.value.data


def get_target(op: Operation) -> TargetAttr:
    """The target of the innermost module around ``op`` (or ``op`` itself) that has an
    ``xmux.target``, ``DEFAULT_TARGET`` without one: passes read it, never the host
    (dialects/target.py)."""
    scope: Operation | None = op
    while scope is not None and not (isinstance(scope, ModuleOp) and TARGET in scope.attributes):
        scope = scope.parent_op()
    if scope is None:
        return DEFAULT_TARGET
    attr = scope.attributes[TARGET]
    if not isinstance(attr, TargetAttr):
        raise MalformedAttributeError(
            f"module attribute {TARGET} must be a #xmux.target<...>, got {attr}")
    return attr


def set_target(module: ModuleOp, target: TargetAttr) -> None:
    module.attributes[TARGET] = target


def _sym(op: Operation) -> str:
    name = op.attributes.get("sym_name") or op.properties.get("sym_name")
    return name.data if isinstance(name, StringAttr) else "?"


def is_kernel(op: Operation) -> bool:
    return KERNEL in op.attributes


def is_entry_point(op: Operation) -> bool:
    attr = op.attributes.get(KERNEL)
    return isinstance(attr, StringAttr) and attr.data == ENTRY_POINT


def set_kernel(op: Operation, entry: bool = True) -> None:
    op.attributes[KERNEL] = StringAttr(ENTRY_POINT if entry else SUB_KERNEL)


def clear_kernel(op: Operation) -> None:
    op.attributes.pop(KERNEL, None)


def _funcs(module: Operation) -> Iterator[func.FuncOp]:
    """The ``func.func``s of a module and of the modules nested in it, in module order,
    without walking function bodies (passes ask once or more each: a walk of every op of a
    large module per kernel was quadratic, bench/compile_scaling.py)."""
    for region in module.regions:
        for block in region.blocks:
            for inner in block.ops:
                if isinstance(inner, func.FuncOp):
                    yield inner
                elif inner.has_trait(SymbolTable):
                    yield from _funcs(inner)


def functions(module: Operation) -> dict[str, func.FuncOp]:
    """The module's functions by name (``_funcs``)."""
    return {f.sym_name.data: f for f in _funcs(module)}


def entry_points(module: Operation) -> list[func.FuncOp]:
    """Entry-point kernels of a module (and of modules nested in it), in module order."""
    return [f for f in _funcs(module) if is_entry_point(f)]


def get_reqd_work_group_size(op: Operation) -> tuple[int, int, int] | None:
    vals = _get_int_array(op, REQD_WORK_GROUP_SIZE)
    if vals is None:
        return None
    if len(vals) != 3 or any(v < 1 for v in vals):
        raise MalformedAttributeError(
            f"@{_sym(op)}: {REQD_WORK_GROUP_SIZE} must be three positive sizes, got {list(vals)}"
        )
    return (vals[0], vals[1], vals[2])


def set_reqd_work_group_size(op: Operation, size: Sequence[int] | None) -> None:
    if size is not None:
        size = list(size) + [1] * (3 - len(size))
    _set_or_clear(op, REQD_WORK_GROUP_SIZE, None if size is None else _int_array(size))


def get_max_work_dim(op: Operation) -> int | None:
    return _get_int(op, MAX_WORK_DIM)


def set_max_work_dim(op: Operation, dim: int | None) -> None:
    _set_or_clear(op, MAX_WORK_DIM, None if dim is None else IntegerAttr(dim, i64))


def get_work_item_order(op: Operation) -> tuple[int, int, int]:
    vals = _get_int_array(op, WORK_ITEM_ORDER)
    if vals is None:
        return DEFAULT_WORK_ITEM_ORDER
    if sorted(vals) != [0, 1, 2]:
        raise MalformedAttributeError(
            f"@{_sym(op)}: {WORK_ITEM_ORDER} must be a permutation of 0, 1, 2, got {list(vals)}"
        )
    return (vals[0], vals[1], vals[2])


def set_work_item_order(op: Operation, order: Sequence[int] | None) -> None:
    if order is not None and sorted(order) != [0, 1, 2]:
        raise ValueError(f"work-item order must be a permutation of 0, 1, 2, got {list(order)}")
    _set_or_clear(op, WORK_ITEM_ORDER, None if order is None else _int_array(order))


ORDER_NAMES = "xyz"


def parse_work_item_order(text: str) -> tuple[int, int, int]:
    """'xyz' (x innermost) → (2, 1, 0); 'zyx' (z innermost) → (0, 1, 2)."""
    if sorted(text) != ["x", "y", "z"]:
        raise ValueError(f"work-item order must be a permutation of 'xyz', got {text!r}")
    inner_first = [ORDER_NAMES.index(c) for c in text]
    return (inner_first[2], inner_first[1], inner_first[0])


def get_base_name(op: Operation) -> str:
    attr = op.attributes.get(BASE_NAME)
    if isinstance(attr, StringAttr):
        return attr.data
    return _sym(op)


def set_base_name(op: Operation, name: str) -> None:
    op.attributes[BASE_NAME] = StringAttr(name)


def get_orig_fn(op: Operation) -> str | None:
    attr = op.attributes.get(ORIG_FN)
    return attr.root_reference.data if isinstance(attr, SymbolRefAttr) else None


def set_orig_fn(op: Operation, name: str) -> None:
    op.attributes[ORIG_FN] = SymbolRefAttr(name)


def get_local_mem_usage(op: Operation) -> int:
    return _get_int(op, LOCAL_MEM_USAGE) or 0


def set_local_mem_usage(op: Operation, nbytes: int) -> None:
    op.attributes[LOCAL_MEM_USAGE] = IntegerAttr(nbytes, i64)


def get_reqd_sub_group_size(op: Operation) -> int | None:
    return _get_int(op, REQD_SUB_GROUP_SIZE)


def set_reqd_sub_group_size(op: Operation, size: int | None) -> None:
    _set_or_clear(op, REQD_SUB_GROUP_SIZE, None if size is None else IntegerAttr(size, i64))


def get_cluster_dim(op: Operation) -> tuple[int, int, int] | None:
    vals = _get_int_array(op, CLUSTER_DIM)
    if vals is None:
        return None
    if len(vals) != 3 or any(v < 1 for v in vals):
        raise MalformedAttributeError(
            f"@{_sym(op)}: {CLUSTER_DIM} must be three positive sizes, got {list(vals)}")
    return (vals[0], vals[1], vals[2])


def set_cluster_dim(op: Operation, size: Sequence[int] | None) -> None:
    _set_or_clear(op, CLUSTER_DIM, None if size is None else DenseArrayBase.from_list(
        i32, list(size)))


def get_vectorized_from(op: Operation) -> str | None:
    attr = op.attributes.get(VECTORIZED_FROM)
    return attr.root_reference.data if isinstance(attr, SymbolRefAttr) else None


def set_vectorized_link(vector_fn: Operation, scalar_fn: Operation) -> None:
    vector_fn.attributes[VECTORIZED_FROM] = SymbolRefAttr(_sym(scalar_fn))
    scalar_fn.attributes[VECTORIZED_TO] = SymbolRefAttr(_sym(vector_fn))


def has_scheduling_params(op: Operation) -> bool:
    return SCHEDULING_PARAMS in op.attributes


def set_scheduling_params(op: Operation) -> None:
    op.attributes[SCHEDULING_PARAMS] = UnitAttr()


def is_work_item_loop(op: Operation) -> bool:
    return WORK_ITEM_LOOP in op.attributes


def mark_work_item_loop(op: Operation) -> None:
    op.attributes[WORK_ITEM_LOOP] = UnitAttr()


def is_single_work_item(op: Operation) -> bool:
    """An ``scf.if`` whose condition is ``local linear id == 0`` and that does the whole
    group's work (lower-work-group-collectives' combining step): a work-group function may
    run it once, for local id (0, 0, 0), instead of inside a work-item loop."""
    return SINGLE_WORK_ITEM in op.attributes


def mark_single_work_item(op: Operation) -> None:
    op.attributes[SINGLE_WORK_ITEM] = UnitAttr()


def is_sub_group_scope(op: Operation) -> bool:
    """A ``mux.work_group_barrier`` standing in for a sub-group barrier
    (lower-sub-group-collectives at sub-group size N > 1): its control flow need only be
    uniform within each sub-group, not across the work-group."""
    return SUB_GROUP_SCOPE in op.attributes


def mark_sub_group_scope(op: Operation) -> None:
    op.attributes[SUB_GROUP_SCOPE] = UnitAttr()


def is_per_work_item(op: Operation) -> bool:
    """An allocation of per-work-item storage (one slot per work-item, indexed by the
    work-item's linear index), written by work-item-loops and its interchange."""
    return PER_WORK_ITEM in op.attributes


def mark_per_work_item(op: Operation) -> None:
    op.attributes[PER_WORK_ITEM] = UnitAttr()


def get_loop_annotation(op: Operation) -> llvm_ext.LoopAnnotationAttr | None:
    """The ``#llvm.loop_annotation`` of a lowered loop's latch branch (its ``!llvm.loop``)."""
    attr = op.attributes.get(LOOP_ANNOTATION)
    if attr is not None and not isinstance(attr, llvm_ext.LoopAnnotationAttr):
        raise MalformedAttributeError(
            f"{op.name}: attribute {LOOP_ANNOTATION} must be #llvm.loop_annotation")
    return attr


def set_loop_annotation(
    op: Operation, parallel_group: int | None = None, vectorize_width: int | None = None
) -> None:
    """Annotate a latch branch: its loop's accesses in group ``parallel_group`` do not depend
    on each other across iterations (``parallelAccesses``), and the vectorization hint
    ``vectorize_width`` W (see ``get_loop_vectorize_width``): W > 1 vectorizes W wide, not
    forced (LLVM warns about a forced loop it cannot vectorize), with unrolling off (full
    unrolling runs before the loop vectorizer and would leave W scalar copies the SLP
    vectorizer does not pack); 1 neither vectorizes nor interleaves. Loops are
    ``mustProgress``, as every loop in C++/OpenCL C."""
    params: dict[str, Attribute] = {"mustProgress": llvm_ext.bool_attr(True)}
    if parallel_group is not None:
        params["parallelAccesses"] = ArrayAttr([llvm_ext.AccessGroupAttr(parallel_group)])
    if vectorize_width is not None:
        width = llvm_ext.i32_attr(max(vectorize_width, 1))
        if vectorize_width <= 1:
            params["vectorize"] = llvm_ext.LoopVectorizeAttr(
                disable=llvm_ext.bool_attr(True), width=width
            )
            params["interleave"] = llvm_ext.LoopInterleaveAttr(count=llvm_ext.i32_attr(1))
        else:
            params["vectorize"] = llvm_ext.LoopVectorizeAttr(width=width)
            params["unroll"] = llvm_ext.LoopUnrollAttr(disable=llvm_ext.bool_attr(True))
    op.attributes[LOOP_ANNOTATION] = llvm_ext.LoopAnnotationAttr(**params)


def get_loop_parallel(op: Operation) -> tuple[int, ...]:
    """The access groups whose accesses the latch ``op``'s loop runs in parallel."""
    annotation = get_loop_annotation(op)
    groups = None if annotation is None else annotation.get("parallelAccesses")
    if not isinstance(groups, ArrayAttr):
        return ()
    return tuple(g.id.data for g in groups.data if isinstance(g, llvm_ext.AccessGroupAttr))


def get_access_groups(op: Operation) -> tuple[int, ...]:
    """The access groups (``access_groups = [#llvm.access_group<...>]``) of a memory op."""
    attr = op.attributes.get(ACCESS_GROUPS)
    if attr is None:
        return ()
    if not isinstance(attr, ArrayAttr) or not all(
        isinstance(g, llvm_ext.AccessGroupAttr) for g in attr.data
    ):
        raise MalformedAttributeError(
            f"{op.name}: attribute {ACCESS_GROUPS} must be [#llvm.access_group...]")
    return tuple(g.id.data for g in attr.data)


def set_access_groups(op: Operation, groups: Sequence[int]) -> None:
    value = ArrayAttr([llvm_ext.AccessGroupAttr(g) for g in groups]) if groups else None
    _set_or_clear(op, ACCESS_GROUPS, value)


def get_loop_vectorize_width(op: Operation) -> int | None:
    """Vectorization hint of an ``scf.for``: W > 1 asks LLVM to vectorize it W wide
    (``llvm.loop.vectorize.width``), 1 not to vectorize it. Lowering carries it to the
    latch's loop annotation (``set_loop_annotation``)."""
    return _get_int(op, LOOP_VECTORIZE_WIDTH)


def set_loop_vectorize_width(op: Operation, width: int | None) -> None:
    _set_or_clear(op, LOOP_VECTORIZE_WIDTH, None if width is None else IntegerAttr(width, i64))


@dataclass(frozen=True)
class VectorSchedule:
    """How work-item-loops scheduled a kernel's innermost work-item dimension ``dim``:
    ``width`` work-items at a time, then (``tail``) a scalar loop for the remainder. Without
    a tail the launcher must only run groups whose size in ``dim`` is a multiple of width."""

    width: int
    dim: int
    tail: bool


def get_vector_schedule(op: Operation) -> VectorSchedule | None:
    vals = _get_int_array(op, VECTOR_SCHEDULE)
    if vals is None:
        return None
    if len(vals) != 3 or vals[0] < 1 or vals[1] not in (0, 1, 2) or vals[2] not in (0, 1):
        raise MalformedAttributeError(
            f"@{_sym(op)}: {VECTOR_SCHEDULE} must be array<i64: width, dim, tail>, got {list(vals)}"
        )
    return VectorSchedule(vals[0], vals[1], bool(vals[2]))


def set_vector_schedule(op: Operation, schedule: VectorSchedule | None) -> None:
    value = None
    if schedule is not None:
        value = _int_array([schedule.width, schedule.dim, int(schedule.tail)])
    _set_or_clear(op, VECTOR_SCHEDULE, value)


# ---------------------------------------------------------------------------------------
# Launch facts: what the passes record on a kernel for the runtime (xmux/kernel_info.py
# reads them into KernelInfo once the pipeline has run)
# ---------------------------------------------------------------------------------------


#: ``static_strides``' dynamic entries (a static stride may be negative, so not -1)
_DYNAMIC_STRIDE = -(2**63)


def _abi_value(key: str, value: object) -> Attribute:
    if isinstance(value, bool):
        return IntegerAttr(int(value), IntegerType(1))
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, str):
        return StringAttr(value)
    assert isinstance(value, list), value
    if key == "static_strides":
        return _int_array([_DYNAMIC_STRIDE if v is None else v for v in value])
    return _int_array([-1 if v is None else v for v in value])  # a shape: dynamic as -1


def _abi_field(key: str, attr: Attribute) -> object:
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr):
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return bool(attr.value.data)
        return attr.value.data
    assert isinstance(attr, DenseArrayBase), attr
    if key == "static_strides":
        return [None if v == _DYNAMIC_STRIDE else int(v) for v in attr.get_values()]
    return [None if v < 0 else int(v) for v in attr.get_values()]


def set_kernel_abi(op: Operation, name: str, args: Sequence[ArgInfo]) -> None:
    """``mux.kernel_abi = {name = "k", args = [{name = "a", kind = "memref", dtype =
    "float32", shape = array<i64: -1>, strided = false, written = true}, ...]}``: the
    kernel's name and arguments as the launcher sees them (``ArgInfo``'s fields, a field of
    value None or a zero ``offset`` left out), recorded by record-kernel-abi while the
    signature is the user's."""
    records = [
        DictionaryAttr({
            k: _abi_value(k, v) for k, v in asdict(a).items()
            if v is not None and not (k == "offset" and v == 0)
        })
        for a in args
    ]
    op.attributes[KERNEL_ABI] = DictionaryAttr(
        {"name": StringAttr(name), "args": ArrayAttr(records)}
    )


def get_kernel_abi(op: Operation) -> tuple[str, list[ArgInfo]] | None:
    """(name, arguments) of ``set_kernel_abi``, None when the kernel has no record."""
    attr = op.attributes.get(KERNEL_ABI)
    if attr is None:
        return None
    try:
        assert isinstance(attr, DictionaryAttr)
        name, records = attr.data["name"], attr.data["args"]
        assert isinstance(name, StringAttr) and isinstance(records, ArrayAttr)
        args = []
        for r in records.data:
            assert isinstance(r, DictionaryAttr)
            args.append(ArgInfo(**{k: _abi_field(k, v) for k, v in r.data.items()}))  # type: ignore[arg-type]
    except (AssertionError, AttributeError, KeyError, TypeError) as e:
        raise MalformedAttributeError(f"@{_sym(op)}: malformed {KERNEL_ABI}: {attr}") from e
    return name.data, args


def get_max_work_group_size(op: Operation) -> int | None:
    """The largest work-group the compiled kernel supports (None: no limit of its own): set
    by the passes that size storage for a maximal work-group (collectives' scratch)."""
    return _get_int(op, MAX_WORK_GROUP_SIZE)


def set_max_work_group_size(op: Operation, size: int | None) -> None:
    _set_or_clear(op, MAX_WORK_GROUP_SIZE, None if size is None else IntegerAttr(size, i64))


def get_work_dims_used(op: Operation) -> int:
    """1 + the highest NDRange dimension the kernel's work-item queries name (1 when not
    recorded): a launch with a scalar global size is refused for 2 or 3."""
    return _get_int(op, WORK_DIMS_USED) or 1


def set_work_dims_used(op: Operation, dims: int) -> None:
    """``mux.work_dims_used = 2 : i64`` (record-kernel-abi; written only above 1)."""
    _set_or_clear(op, WORK_DIMS_USED, IntegerAttr(dims, i64) if dims > 1 else None)


def get_local_size_limits(op: Operation) -> list[tuple[int, int, str]]:
    """``(dim, most, memory)`` per limit of ``set_local_size_limits`` (empty: none)."""
    attr = op.attributes.get(LOCAL_SIZE_LIMITS)
    if not isinstance(attr, ArrayAttr):
        return []
    out = []
    for entry in attr.data:
        assert isinstance(entry, DictionaryAttr), entry
        dim, most, memory = (entry.data[k] for k in ("dim", "max", "memory"))
        assert isinstance(dim, IntegerAttr) and isinstance(most, IntegerAttr)
        assert isinstance(memory, StringAttr)
        out.append((dim.value.data, most.value.data, memory.data))
    return out


def set_local_size_limits(op: Operation, limits: Sequence[tuple[int, int, str]]) -> None:
    """``mux.local_size_limits = [{dim = 0 : i64, max = 16 : i64, memory = "global @tile"}]``:
    the largest local size per dimension that the kernel's static local memory was written
    for (an access every work-item makes indexes it by the local id; record-kernel-abi,
    ``transforms/local_memory_facts.py``), checked at launch before the kernel runs."""
    value = ArrayAttr([
        DictionaryAttr({
            "dim": IntegerAttr(d, i64), "max": IntegerAttr(m, i64), "memory": StringAttr(w)
        })
        for d, m, w in limits
    ]) if limits else None
    _set_or_clear(op, LOCAL_SIZE_LIMITS, value)


def copy_launch_facts(dst: Operation, src: Operation) -> None:
    """Carry the launch facts of ``src`` (ABI record, work-group limit, vector schedule, local
    size limits) to ``dst``, a function that becomes the entry point in its place."""
    for key in (KERNEL_ABI, MAX_WORK_GROUP_SIZE, VECTOR_SCHEDULE, LOCAL_SIZE_LIMITS,
                WORK_DIMS_USED):
        if key in src.attributes:
            dst.attributes[key] = src.attributes[key]


def launch_entries(module: Operation) -> list[Operation]:
    """The entry points of a module and of the modules nested in it, ``func.func`` or (after
    convert-to-llvm) ``llvm.func``, in module order."""
    found: list[Operation] = []
    for region in module.regions:
        for block in region.blocks:
            for inner in block.ops:
                if is_entry_point(inner):
                    found.append(inner)
                elif inner.has_trait(SymbolTable):
                    found.extend(launch_entries(inner))
    return found


def get_kernel_table(module: Operation) -> list[str]:
    attr = module.attributes.get(KERNEL_TABLE)
    if attr is None:
        return []
    return [s.data for s in attr.data]  # type: ignore[attr-defined]


def set_kernel_table(module: Operation, names: Sequence[str]) -> None:
    from xdsl.dialects.builtin import ArrayAttr

    module.attributes[KERNEL_TABLE] = ArrayAttr([StringAttr(n) for n in names])


def get_spec_constants_used(op: Operation) -> list[str]:
    """Symbolic ids of the specialization constants a kernel reads (lower-spec-constants)."""
    attr = op.attributes.get(SPEC_CONSTANTS_USED)
    if attr is None:
        return []
    return [s.data for s in attr.data]  # type: ignore[attr-defined]


def set_spec_constants_used(op: Operation, ids: Sequence[str]) -> None:
    from xdsl.dialects.builtin import ArrayAttr

    _set_or_clear(op, SPEC_CONSTANTS_USED, ArrayAttr([StringAttr(s) for s in ids]) if ids else None)


def get_spec_buffer_arg(op: Operation) -> int | None:
    """Index of the argument carrying the emulated specialization-constant buffer, if any."""
    return _get_int(op, SPEC_BUFFER_ARG)


def set_spec_buffer_arg(op: Operation, index: int | None) -> None:
    _set_or_clear(op, SPEC_BUFFER_ARG, None if index is None else IntegerAttr(index, i64))


def is_spec_buffer_load(op: Operation) -> bool:
    """An emulated specialization-constant load (invariant: convert-spec-to-llvm hoists it)."""
    return SPEC_BUFFER_LOAD in op.attributes


def set_spec_buffer_load(op: Operation, on: bool = True) -> None:
    _set_or_clear(op, SPEC_BUFFER_LOAD, UnitAttr() if on else None)


# ---------------------------------------------------------------------------------------
# OpenACC kernels (convert-acc-to-oacc writes, expand-oacc-reductions reads)
# ---------------------------------------------------------------------------------------

#: Default mapping of OpenACC levels to NDRange dimensions: gang -> work-group dimension 0,
#: worker -> local dimension 1, vector -> local dimension 0.
DEFAULT_OACC_LEVEL_DIMS: tuple[int, int, int] = (0, 1, 0)

DYNAMIC_DIM = -1


def get_oacc_dims(op: Operation) -> tuple[int, int, int] | None:
    """(num_gangs, num_workers, vector_length) of a kernel outlined from ``acc.parallel``;
    ``DYNAMIC_DIM`` (-1) where the size is only known at run time. None: not an OpenACC
    kernel."""
    dims = _get_int_array(op, OACC_DIMS)
    if dims is None:
        return None
    # checked here: a size of -2^63 made the work-group size computed from it overflow i64
    if len(dims) != 3 or any(d != DYNAMIC_DIM and d < 1 for d in dims):
        raise MalformedAttributeError(
            f"@{_sym(op)}: {OACC_DIMS} must be (num_gangs, num_workers, vector_length), each "
            f"positive or {DYNAMIC_DIM} (known at run time), got {list(dims)}")
    return (dims[0], dims[1], dims[2])


def set_oacc_dims(op: Operation, dims: Sequence[int | None]) -> None:
    _set_or_clear(op, OACC_DIMS, _int_array([DYNAMIC_DIM if d is None else d for d in dims]))


def get_oacc_level_dims(op: Operation) -> tuple[int, int, int]:
    """NDRange dimension of each level (gang: group id dimension; worker, vector: local id
    dimensions) of an OpenACC kernel."""
    dims = _get_int_array(op, OACC_LEVEL_DIMS)
    if dims is None:
        return DEFAULT_OACC_LEVEL_DIMS
    if len(dims) != 3 or any(d not in (0, 1, 2) for d in dims):  # indices into 3 dimensions
        raise MalformedAttributeError(
            f"@{_sym(op)}: {OACC_LEVEL_DIMS} must be three NDRange dimensions (0, 1 or 2: "
            f"gang, worker, vector), got {list(dims)}")
    return (dims[0], dims[1], dims[2])


def set_oacc_level_dims(op: Operation, dims: Sequence[int]) -> None:
    _set_or_clear(
        op, OACC_LEVEL_DIMS, None if tuple(dims) == DEFAULT_OACC_LEVEL_DIMS else _int_array(dims)
    )
