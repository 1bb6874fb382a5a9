"""encode-kernel-metadata: mark one kernel, named by the user, as an entry point.

The analogue of the reference's ``EncodeKernelMetadataPass`` (runs on one kernel supplied by
name; ``transfer-kernel-metadata`` is its many-kernels sibling). On the ``func.func`` named
``kernel-name`` it sets, through ``dialects/attrs.py``:

* ``mux.kernel = "entry_point"``;
* ``mux.reqd_work_group_size`` from ``local-sizes`` (1 to 3 positive sizes, padded with 1),
  unless the kernel already has one (an existing *different* size is an error);
* ``mux.work_item_order`` from ``work-item-order`` ("xyz": x innermost, the default, stored
  explicitly; "zyx": z innermost; any permutation of "xyz"). A kernel's existing order is kept
  when the option is not given; a different one given is an error;
* ``mux.max_work_dim`` from ``max-work-dim`` (1..3), when given; local sizes other than 1 in
  dimensions at or beyond it are an error;
* ``mux.base_name`` = the symbol name, unless already set.

Errors (``XmuxError``): an unknown kernel name (the message lists the module's functions), a
declaration without body, a bad order string, non-positive or more than three sizes.

Options: ``kernel-name: str`` (required), ``local-sizes: tuple[int, ...]``,
``work-item-order: str``, ``max-work-dim: int``.

Before (``-p 'encode-kernel-metadata{kernel-name=k local-sizes=64,2 work-item-order=zyx}'``)::

    func.func @k(%a: memref<?xf32>) { ... }

After::

    func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point",
        mux.reqd_work_group_size = array<i64: 64, 2, 1>,
        mux.work_item_order = array<i64: 0, 1, 2>, mux.base_name = "k"} { ... }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs


@dataclass(frozen=True)
class KernelMetadataOptions:
    """The metadata options shared by encode- and transfer-kernel-metadata, validated."""

    local_sizes: tuple[int, int, int] | None
    work_item_order: tuple[int, int, int] | None
    max_work_dim: int | None

    @staticmethod
    def parse(
        pass_name: str,
        local_sizes: Sequence[int] | None,
        work_item_order: str | None,
        max_work_dim: int | None,
    ) -> KernelMetadataOptions:
        sizes: tuple[int, int, int] | None = None
        if local_sizes is not None and len(local_sizes) > 0:
            if len(local_sizes) > 3:
                raise XmuxError(
                    f"{pass_name}: local-sizes takes 1 to 3 sizes, got {list(local_sizes)}"
                )
            if any(s < 1 for s in local_sizes):
                raise XmuxError(
                    f"{pass_name}: local-sizes must be positive, got {list(local_sizes)}"
                )
            padded = [*local_sizes, 1, 1][:3]
            sizes = (padded[0], padded[1], padded[2])
        order: tuple[int, int, int] | None = None
        if work_item_order is not None:
            try:
                order = attrs.parse_work_item_order(work_item_order.strip().lower())
            except ValueError:
                raise XmuxError(
                    f"{pass_name}: work-item-order must be a permutation of 'xyz' "
                    f"(innermost dimension first, e.g. 'xyz' or 'zyx'), got {work_item_order!r}"
                ) from None
        if max_work_dim is not None:
            if not 1 <= max_work_dim <= 3:
                raise XmuxError(f"{pass_name}: max-work-dim must be 1, 2 or 3, got {max_work_dim}")
            if sizes is not None and any(s != 1 for s in sizes[max_work_dim:]):
                raise XmuxError(
                    f"{pass_name}: local-sizes {list(local_sizes or ())} use dimensions beyond "
                    f"max-work-dim={max_work_dim}"
                )
        return KernelMetadataOptions(sizes, order, max_work_dim)


def _order_name(order: Sequence[int]) -> str:
    """(2, 1, 0) → 'xyz' (innermost first), the spelling of the option."""
    return "".join(attrs.ORDER_NAMES[d] for d in reversed(order))


def apply_kernel_metadata(pass_name: str, f: func.FuncOp, opts: KernelMetadataOptions) -> None:
    """Mark ``f`` as an entry point and encode ``opts`` on it (see the module docstring)."""
    name = f.sym_name.data
    if f.is_declaration:
        raise XmuxError(f"{pass_name}: kernel @{name} is a declaration without a body")
    attrs.set_kernel(f, entry=True)

    try:
        existing = attrs.get_reqd_work_group_size(f)
    except ValueError as e:
        raise XmuxError(f"{pass_name}: {e}") from None
    if opts.local_sizes is not None:
        if existing is not None and existing != opts.local_sizes:
            raise XmuxError(
                f"{pass_name}: kernel @{name} already requires work-group size "
                f"{list(existing)}, local-sizes asks for {list(opts.local_sizes)}"
            )
        attrs.set_reqd_work_group_size(f, opts.local_sizes)

    try:
        current_order = attrs.get_work_item_order(f)
    except ValueError as e:
        raise XmuxError(f"{pass_name}: {e}") from None
    has_order = attrs.WORK_ITEM_ORDER in f.attributes
    if opts.work_item_order is not None:
        if has_order and current_order != opts.work_item_order:
            raise XmuxError(
                f"{pass_name}: kernel @{name} already has work-item order "
                f"'{_order_name(current_order)}', work-item-order asks for "
                f"'{_order_name(opts.work_item_order)}'"
            )
        attrs.set_work_item_order(f, opts.work_item_order)
    else:
        # Stored explicitly so later passes (and readers of the IR) need no default.
        attrs.set_work_item_order(f, current_order)

    if opts.max_work_dim is not None:
        attrs.set_max_work_dim(f, opts.max_work_dim)
    if attrs.BASE_NAME not in f.attributes:
        attrs.set_base_name(f, name)


def module_functions(module: ModuleOp) -> list[func.FuncOp]:
    """The module's functions in module order (``attrs.functions``: bodies are not walked)."""
    return list(attrs.functions(module).values())


@dataclass(frozen=True)
class EncodeKernelMetadataPass(ModulePass):
    """Mark the kernel ``kernel-name`` as an entry point with its metadata."""

    name = "encode-kernel-metadata"

    kernel_name: str | None = None
    """Required; optional here only so that a missing name gets a clear error."""
    local_sizes: tuple[int, ...] | None = None
    work_item_order: str | None = None
    max_work_dim: int | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        opts = KernelMetadataOptions.parse(
            self.name, self.local_sizes, self.work_item_order, self.max_work_dim
        )
        funcs = module_functions(op)
        if not self.kernel_name:
            names = ", ".join(f"@{f.sym_name.data}" for f in funcs) or "none"
            raise XmuxError(f"{self.name}: the option kernel-name is required (functions: {names})")
        target = next((f for f in funcs if f.sym_name.data == self.kernel_name), None)
        if target is None:
            names = ", ".join(f"@{f.sym_name.data}" for f in funcs) or "none"
            raise XmuxError(
                f"{self.name}: no function named @{self.kernel_name} in the module "
                f"(functions: {names})"
            )
        apply_kernel_metadata(self.name, target, opts)
