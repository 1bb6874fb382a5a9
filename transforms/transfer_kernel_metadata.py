"""transfer-kernel-metadata: mark every kernel of a module as an entry point.

The analogue of the reference's ``TransferKernelMetadataPass``, which runs over the kernels
listed in ``!opencl.kernels`` if present, else over every function with the SPIR_KERNEL
calling convention. MLIR has neither, so the kernels are, in this order of preference:

1. the functions already marked ``mux.kernel = "entry_point"`` (the analogue of the explicit
   ``!opencl.kernels`` list), if any;
2. else the targets of the module's ``mux.launch`` ops (host code names its kernels);
3. else every public ``func.func`` with a body and no results that no function of the
   module calls, that launches nothing and that is not ``@main`` (the analogue of the kernel
   calling convention: kernels return void; called helpers and host functions are not
   kernels, and ``@main`` is the host entry point mlir-runner and xmux-run call: a host-only
   program taken for a kernel ran once per work-item).

Each kernel gets what encode-kernel-metadata gives one kernel (``mux.kernel =
"entry_point"``, ``mux.reqd_work_group_size`` from ``local-sizes`` unless already set,
``mux.work_item_order`` — xyz by default, stored explicitly —, ``mux.max_work_dim``,
``mux.base_name``); the options apply to every kernel. A module without any kernel is left
unchanged. Errors: bad options (as encode-kernel-metadata), a ``mux.launch`` of a function
the module does not define or only declares.

Options: ``local-sizes: tuple[int, ...]``, ``work-item-order: str``, ``max-work-dim: int``.

Before::

    func.func @helper(%x: f32) -> f32 { ... }
    func.func @k(%a: memref<?xf32>) { ... func.call @helper(...) ... }

After (``-p transfer-kernel-metadata``; @helper is called, so it is not a kernel)::

    func.func @helper(%x: f32) -> f32 { ... }
    func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point",
        mux.work_item_order = array<i64: 2, 1, 0>, mux.base_name = "k"} { ... }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs, mux
from xmux.transforms.encode_kernel_metadata import (
    KernelMetadataOptions,
    apply_kernel_metadata,
    module_functions,
)

#: the host entry point (mlir-runner's and xmux-run's): never a kernel by rule 3
HOST_MAIN = "main"


def find_kernels(
    module: ModuleOp, pass_name: str = "transfer-kernel-metadata"
) -> list[func.FuncOp]:
    """The module's kernels by the rules of the module docstring, in module order."""
    funcs = module_functions(module)
    marked = [f for f in funcs if attrs.is_entry_point(f)]
    if marked:
        return marked

    by_name = {f.sym_name.data: f for f in funcs}
    launched: list[str] = []
    for op in module.walk():
        if isinstance(op, mux.LaunchOp):
            name = op.kernel.string_value()
            if name not in by_name:
                raise XmuxError(f"{pass_name}: mux.launch of @{name}, which the module lacks")
            if name not in launched:
                launched.append(name)
    if launched:
        return [f for f in funcs if f.sym_name.data in launched]

    called = {op.callee.string_value() for op in module.walk() if isinstance(op, func.CallOp)}
    return [
        f
        for f in funcs
        if not f.is_declaration
        and not f.function_type.outputs.data
        and (f.sym_visibility is None or f.sym_visibility.data == "public")
        and f.sym_name.data not in called
        and f.sym_name.data != HOST_MAIN
        and not any(isinstance(o, mux.LaunchOp) for o in f.walk())
    ]


@dataclass(frozen=True)
class TransferKernelMetadataPass(ModulePass):
    """Mark every kernel of the module as an entry point with its metadata."""

    name = "transfer-kernel-metadata"

    local_sizes: tuple[int, ...] | None = None
    work_item_order: str | None = None
    max_work_dim: int | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        opts = KernelMetadataOptions.parse(
            self.name, self.local_sizes, self.work_item_order, self.max_work_dim
        )
        for f in find_kernels(op, self.name):
            apply_kernel_metadata(self.name, f, opts)
