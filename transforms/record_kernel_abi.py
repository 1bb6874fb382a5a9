"""record-kernel-abi: write each entry kernel's arguments, as the launcher sees them, on it.

A kernel's argument list is the user's until a pass rewrites its signature (the emulated
specialization-constant buffer, the packed-argument wrapper, the PTX entry's flattened
parameters), so this pass records it while it still is: ``mux.kernel_abi`` holds the kernel's
name and, per argument, its kind (``memref``, ``scalar``, or ``local``: a memref in memory
space 3, work-group local memory sized at launch), the numpy dtype, a memref's shape (-1:
dynamic), whether its layout is strided and the offset and strides a strided layout fixes
(the launcher passes an array of that layout so that its element 0 is the memref's: issue
36, item 4), and whether the kernel may write it
(``transforms/arg_access.py``: a read-only numpy array is refused only where it may). Beside
it, ``mux.local_size_limits``: the local sizes the kernel's static local arrays were written
for (``transforms/local_memory_facts.py``), which the launcher checks; and
``mux.work_dims_used`` (only when above 1): 1 + the highest dimension the work-item queries of
the kernel and its callees name, so that the launcher refuses a scalar global size (a 1-D
launch) for a kernel written for two or three. The
passes that give a kernel a new entry point carry the record over (``attrs.copy_launch_facts``)
and ``xmux/kernel_info.py`` reads it into the program's ``KernelInfo``. A kernel that already
has a record keeps it (the pass may run twice: ``xmux.compile`` adds one at the start of a user
pipeline without it, for kernels marked in the source).

Errors: an argument type the launcher cannot pass (``i3``, ``ui32``, an unranked memref, a
local memref with a layout or two dynamic dimensions), naming the kernel and the argument.

Expects: kernels marked (transfer-kernel-metadata / encode-kernel-metadata), signatures not
yet rewritten. Before / after::

    func.func @k(%a: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point"} {...}
    // ==>
    func.func @k(%a: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point",
        mux.kernel_abi = {name = "k", args = [{name = "a", kind = "memref", dtype = "float32",
        shape = array<i64: -1>, strided = false, written = false}, {name = "n", kind =
        "scalar", dtype = "int64", strided = false, written = true}]}} {...}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ComplexType,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    Signedness,
    StridedLayoutAttr,
)
from xdsl.ir import Attribute, BlockArgument
from xdsl.passes import ModulePass

from xmux.abi.errors import NotSupportedError
from xmux.abi.kernel_layout import ArgInfo
from xmux.dialects import attrs
from xmux.transforms.arg_access import may_write
from xmux.transforms.local_memory_facts import local_size_limits
from xmux.transforms.replace_local_module_scope_variables import is_local_memref

_FLOATS = {Float16Type: "float16", Float32Type: "float32", Float64Type: "float64"}
#: complex<f32> / complex<f64>: numpy's complex64 / complex128 layout
_COMPLEXES = {Float32Type: "complex64", Float64Type: "complex128"}


def _dtype(where: str, elem: Attribute) -> str:
    """The numpy dtype name of a scalar or element type."""
    if isinstance(elem, IndexType):
        return "int64"
    if isinstance(elem, IntegerType):
        width = elem.width.data
        if width == 1:
            return "bool"
        if width not in (8, 16, 32, 64):
            raise NotSupportedError(f"{where}: i{width} is not supported")
        if elem.signedness.data != Signedness.SIGNLESS:
            raise NotSupportedError(
                f"{where}: {elem} is not supported; use a signless integer type (arith ops "
                "are signless)"
            )
        return f"int{width}"
    if type(elem) in _FLOATS:
        return _FLOATS[type(elem)]
    if isinstance(elem, ComplexType) and type(elem.element_type) in _COMPLEXES:
        return _COMPLEXES[type(elem.element_type)]
    raise NotSupportedError(f"{where}: type {elem} is not supported")


def arg_info(kernel: str, index: int, arg: BlockArgument) -> ArgInfo:
    """What the launcher needs of argument ``index`` of ``kernel`` (``written`` aside)."""
    name = arg.name_hint or f"arg{index}"
    where = f"kernel '{kernel}' argument {index} ('{name}')"
    t = arg.type
    if not isinstance(t, MemRefType):
        return ArgInfo(name, "scalar", _dtype(where, t))
    shape = [None if s < 0 else int(s) for s in t.get_shape()]
    if is_local_memref(t):
        # work-group local buffer: allocated per work-group execution, sized at launch
        where = f"{where}: local memory {t}"
        if not isinstance(t.layout, NoneAttr):
            raise NotSupportedError(f"{where} must have an identity layout")
        if shape.count(None) > 1:
            raise NotSupportedError(
                f"{where} may have one dynamic dimension at most (its size comes from the "
                "byte size given at launch)"
            )
        return ArgInfo(name, "local", _dtype(where, t.element_type), shape)
    info = ArgInfo(name, "memref", _dtype(where, t.element_type), shape)
    if isinstance(t.layout, StridedLayoutAttr):
        info.strided = True
        info.offset = t.layout.get_offset() or 0  # dynamic: read from the descriptor
        strides = list(t.layout.get_strides())
        if any(v is not None for v in strides):
            info.static_strides = strides
    return info


def kernel_args(kernel: func.FuncOp, symbols: dict[str, func.FuncOp]) -> list[ArgInfo]:
    """The arguments of ``kernel`` as the launcher sees them; ``symbols``: the module's
    functions (a memref passed to a callee is written if the callee may write it)."""
    name = kernel.sym_name.data
    block_args = kernel.body.blocks[0].args
    args = [arg_info(name, i, a) for i, a in enumerate(block_args)]
    for info, a in zip(args, block_args, strict=True):
        if info.kind == "memref":
            info.written = may_write(a, symbols)
    return args


def work_dims_used(kernel: func.FuncOp, symbols: dict[str, func.FuncOp]) -> int:
    """1 + the highest dimension a work-item query of ``kernel`` or of a function it calls
    names (``mux.get_global_id 1`` → 2): ``mux.work_dims_used``, so that a launch with a
    scalar global size (one dimension) of a kernel written for two or three is refused."""
    from xmux.dialects.mux import DimQueryOp
    from xmux.transforms.lower_work_group_collectives import reachable_functions

    highest = 0
    for name in reachable_functions(kernel, symbols):
        for op in symbols[name].walk():
            if isinstance(op, DimQueryOp):
                highest = max(highest, op.dim.value.data)
    return highest + 1


@dataclass(frozen=True)
class RecordKernelAbi(ModulePass):
    """Record each entry kernel's name and arguments (``mux.kernel_abi``)."""

    name = "record-kernel-abi"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels = [f for f in attrs.entry_points(op) if attrs.get_kernel_abi(f) is None]
        if not kernels:
            return
        symbols = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        for f in kernels:
            if f.body.blocks:
                attrs.set_kernel_abi(f, f.sym_name.data, kernel_args(f, symbols))
                attrs.set_local_size_limits(f, local_size_limits(f))
                attrs.set_work_dims_used(f, work_dims_used(f, symbols))
