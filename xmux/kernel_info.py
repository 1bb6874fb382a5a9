"""The kernels' launch metadata (``KernelInfo``), read from the attributes the passes record.

``collect_kernel_infos`` is the last step of every compile, after the pass pipeline: each
entry point of the lowered module carries what the launcher needs, written by the passes
that knew it (docs/architecture.md, "Targets"):

=========================  ================================================================
``mux.kernel_abi``         name and arguments (kind, dtype, shape, strided, written):
                           record-kernel-abi, while the signature is the user's
``mux.reqd_work_group_size``  the source, encode-kernel-metadata, convert-gpu-to-mux,
                           expand-oacc-reductions (host: 1x1x1), a local-size variant
``mux.max_work_dim``       the source, encode/transfer-kernel-metadata
``mux.max_work_group_size``  passes that size storage for the largest work-group:
                           lower-(sub|work)-group-collectives[-nvptx],
                           expand-oacc-reductions (vector buffers)
``mux.local_mem_usage``    replace-local-module-scope-variables
``mux.vector_schedule``    work-item-loops{vector-width=W}
``mux.work_dims_used``     record-kernel-abi: 1 + the highest dimension the queries name
                           (a scalar global size is refused above 1)
``mux.local_size_limits``  record-kernel-abi: the local sizes the static local memory
                           indexed by the local id was written for
=========================  ================================================================

The passes that give a kernel a new entry point (add-kernel-wrapper, add-entry-hook,
add-kernel-wrapper-nvptx) carry these over, so the entry's own symbol is the one the runtime
calls. A function, not a pass: what it makes is Python data for the ``Program``, not IR.

``kernel_infos`` is the same metadata for a module that no pipeline has run on (the reference
interpreter's, tests'): the arguments as record-kernel-abi reads them, the work-group limit as
the collectives passes would set it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xmux.abi.kernel_layout import KernelInfo
from xmux.errors import XmuxError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

__all__ = ["collect_kernel_infos", "kernel_infos"]


def collect_kernel_infos(module: ModuleOp) -> list[KernelInfo]:
    """The launch metadata of the entry points of a module the pipeline has run on."""
    from xmux.dialects import attrs

    infos = []
    for entry in attrs.launch_entries(module):
        symbol = entry.sym_name.data  # type: ignore[attr-defined]
        record = attrs.get_kernel_abi(entry)
        if record is None:
            raise XmuxError(
                f"entry point @{symbol} has no mux.kernel_abi: run record-kernel-abi once the "
                "kernels are marked, before their signatures change (xmux.pipelines.cpu() "
                "and nvptx() do)"
            )
        name, args = record
        reqd = attrs.get_reqd_work_group_size(entry)
        schedule = attrs.get_vector_schedule(entry)
        infos.append(KernelInfo(
            name=name,
            symbol=symbol,
            args=args,
            reqd_work_group_size=list(reqd) if reqd else None,
            max_work_dim=attrs.get_max_work_dim(entry),
            local_mem_usage=attrs.get_local_mem_usage(entry),
            # a required size is checked first, and it is what the storage was sized for
            max_work_group_size=None if reqd else attrs.get_max_work_group_size(entry),
            vector_width=schedule.width if schedule else 1,
            vector_dim=schedule.dim if schedule else 0,
            vector_tail=schedule.tail if schedule else True,
            local_size_limits=attrs.get_local_size_limits(entry),
            work_dims_used=attrs.get_work_dims_used(entry),
        ))
    return infos


def kernel_infos(module: ModuleOp, sub_group_size: int = 1) -> list[KernelInfo]:
    """Launch metadata of the module's entry-point kernels before any pipeline has run;
    ``sub_group_size`` is that of lower-sub-group-collectives."""
    from xdsl.dialects import func

    from xmux.dialects import attrs
    from xmux.runtime.abi import ENTRY_HOOK_SUFFIX
    from xmux.transforms.lower_sub_group_collectives import uses_sub_group_scratch
    from xmux.transforms.lower_work_group_collectives import (
        MAX_WORK_GROUP_SIZE,
        uses_work_group_collectives,
    )
    from xmux.transforms.record_kernel_abi import kernel_args, work_dims_used

    symbols = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    infos = []
    for f in attrs.entry_points(module):
        reqd = attrs.get_reqd_work_group_size(f)
        limited = reqd is None and (
            uses_work_group_collectives(module, f)
            or uses_sub_group_scratch(module, f, sub_group_size)
        )
        infos.append(KernelInfo(
            name=f.sym_name.data,
            symbol=f.sym_name.data + ENTRY_HOOK_SUFFIX,  # the CPU pipeline's entry
            args=kernel_args(f, symbols),
            reqd_work_group_size=list(reqd) if reqd else None,
            max_work_dim=attrs.get_max_work_dim(f),
            max_work_group_size=MAX_WORK_GROUP_SIZE if limited else None,
            work_dims_used=work_dims_used(f, symbols),
        ))
    return infos
