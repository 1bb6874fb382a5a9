"""``convert-mux-launch``: host-side ``mux.launch`` → a call of the runtime's ``xmux_launch``.

Host code (xmux-run's ``@main``) launches kernels with ``mux.launch``. This pass packs the
arguments into the packed-argument struct the kernel wrapper expects (the same layout as
``add-kernel-wrapper``: ``packed_struct_type``), writes the three size arrays, and calls

    void xmux_launch(i64 kernel_index, ptr packed, i64 work_dim,
                     ptr global_size, ptr local_size, ptr global_offset)

``kernel_index`` indexes the module's kernel table (attribute ``xmux.kernel_table``, kernels in
order of first launch), which the runner uses to find each kernel's entry hook. Runs before the
kernel pipeline, so host functions contain no mux ops when the kernel passes see them.

Before:
    mux.launch @vecadd(%a, %b) global_size(%n) local_size(%c4) : (memref<?xf32>, memref<?xf32>)
After (sketch):
    %p = llvm.alloca %one x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, ...)>, ...)>
    %d = builtin.unrealized_conversion_cast %a : memref<?xf32> to !llvm.struct<(ptr, ptr, ...)>
    llvm.store %d, (gep %p[0, 0])        ... (one store per argument, then the size arrays)
    func.call @xmux_launch(%c0_i64, %p, %c1_i64, %g, %l, %o) : (i64, !llvm.ptr, ...) -> ()
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, llvm
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs, mux
from xmux.transforms.add_kernel_wrapper import lowered_arg_type, packed_struct_type

LAUNCH_FN = "xmux_launch"
_SIZES_TYPE = llvm.LLVMArrayType(builtin.IntAttr(3), i64)


def _launch_decl() -> func.FuncOp:
    ptr = llvm.LLVMPointerType()
    return func.FuncOp.external(LAUNCH_FN, [i64, ptr, i64, ptr, ptr, ptr], [])


class _Builder:
    """Inserts ops before the launch and returns their results."""

    def __init__(self, before: Operation) -> None:
        self.point = InsertPoint.before(before)

    def __call__(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, self.point)
        return op.results[0] if op.results else None  # type: ignore[return-value]


def _i64(b: _Builder, v: int) -> SSAValue:
    return b(arith.ConstantOp.from_int_and_width(v, 64))


def _lowered_value(b: _Builder, value: SSAValue) -> SSAValue:
    t = value.type
    lowered = lowered_arg_type(t)
    if isinstance(t, builtin.MemRefType):
        return b(builtin.UnrealizedConversionCastOp.get([value], [lowered]))
    if isinstance(t, IndexType):
        return b(arith.IndexCastOp(value, i64))
    if isinstance(t, IntegerType) and t.width.data == 1:
        return b(arith.ExtUIOp(value, lowered))
    return value


def _size_array(b: _Builder, values: tuple[SSAValue, ...], fill: int) -> SSAValue:
    arr = b(llvm.AllocaOp(_i64(b, 1), _SIZES_TYPE))
    for d in range(3):
        v = b(arith.IndexCastOp(values[d], i64)) if d < len(values) else _i64(b, fill)
        gep = b(llvm.GEPOp(arr, [0, d], pointee_type=_SIZES_TYPE))
        b(llvm.StoreOp(v, gep))
    return arr


@dataclass(frozen=True)
class ConvertMuxLaunch(ModulePass):
    """Lower host-side ``mux.launch`` to a call of the runtime's ``xmux_launch``."""

    name = "convert-mux-launch"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        launches = [o for o in op.walk() if isinstance(o, mux.LaunchOp)]
        if not launches:
            return
        table: list[str] = attrs.get_kernel_table(op)
        symbols = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        for launch in launches:
            name = launch.kernel.root_reference.data
            kernel = symbols.get(name)
            if kernel is None or not attrs.is_entry_point(kernel):
                raise XmuxError(f"mux.launch: no entry-point kernel named '{name}' in the module")
            want = tuple(kernel.function_type.inputs.data)
            have = tuple(a.type for a in launch.args)
            if want != have:
                raise XmuxError(
                    f"mux.launch @{name}: argument types ({', '.join(map(str, have))}) do not "
                    f"match the kernel's ({', '.join(map(str, want))})"
                )
            if name not in table:
                table.append(name)
            self._lower(launch, table.index(name))
        attrs.set_kernel_table(op, table)
        if LAUNCH_FN not in symbols:
            op.body.block.add_op(_launch_decl())

    @staticmethod
    def _lower(launch: mux.LaunchOp, index: int) -> None:
        b = _Builder(launch)
        arg_types = [a.type for a in launch.args]
        struct = packed_struct_type(arg_types)
        packed = b(llvm.AllocaOp(_i64(b, 1), struct))
        for i, arg in enumerate(launch.args):
            gep = b(llvm.GEPOp(packed, [0, i], pointee_type=struct))
            b(llvm.StoreOp(_lowered_value(b, arg), gep))
        g = _size_array(b, tuple(launch.global_size), 1)
        loc = _size_array(b, tuple(launch.local_size), 1)
        off = _size_array(b, tuple(launch.global_offset), 0)
        dim = _i64(b, len(launch.global_size))
        b(func.CallOp(LAUNCH_FN, [_i64(b, index), packed, dim, g, loc, off], []))
        Rewriter.erase_op(launch)
