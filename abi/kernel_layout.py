"""The kernel ABI's plain data, without xDSL: the runtime imports this, not ``attrs``.

The scheduling structs' field offsets (``runtime/abi.py`` builds them; add-entry-hook and
add-kernel-wrapper read them) and the kernel metadata the runtime launches by (``KernelInfo``,
stored as JSON with a compiled object). ``xmux.dialects.attrs`` re-exports all of it; kept
apart so that a launch, or a compile answered from the disk cache, does not import xDSL
(about 190 ms of a fresh process).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

# ---------------------------------------------------------------------------------------
# Scheduling structs (all fields i64). Keep in sync with runtime/abi.py.
# ---------------------------------------------------------------------------------------

SCHED_GLOBAL_SIZE = 0
SCHED_GLOBAL_OFFSET = 3
SCHED_LOCAL_SIZE = 6  # enqueued local size
SCHED_SLICE = 9
SCHED_TOTAL_SLICES = 10
SCHED_WORK_DIM = 11
#: the address of an i64 the entry hook reads before each work-group: non-zero = skip the
#: remaining groups (a cancelled launch, runtime/interrupt.py); 0 = no such word
SCHED_CANCEL = 12
SCHED_NUM_FIELDS = 13

WG_GROUP_ID = 0
WG_NUM_GROUPS = 3
WG_LOCAL_SIZE = 6  # actual local size of this group
WG_NUM_FIELDS = 9

WI_LOCAL_ID = 0
WI_NUM_FIELDS = 3


# ---------------------------------------------------------------------------------------
# Kernel-argument metadata for the runtime
# ---------------------------------------------------------------------------------------


@dataclass
class ArgInfo:
    """One kernel argument as the launcher sees it.

    kind: "memref" (numpy array), "scalar", or "local" (work-group local buffer: a memref in
        memory space 3, launched with ``xmux.LocalMemory(nbytes)``).
    dtype: numpy dtype name of the element / scalar ("float32", "int8", "bool", ...).
    shape: memref shape with None for dynamic dims (memref only).
    strided: True when the memref type has a non-identity (strided) layout, so any numpy
        strides are accepted; otherwise the array must be C-contiguous.
    written: False when the kernel provably only reads the memref (``transforms/
        arg_access.py``), so a read-only numpy array may be passed.
    offset: the static offset (elements) of a strided layout (``strided<[1], offset: 2>``),
        else 0. The lowering adds it to every access without reading the descriptor, so the
        launcher passes an array's element 0 as ``aligned + offset``: element 0 of the array
        given is element 0 of the memref.
    static_strides: the strides (elements) a strided layout fixes, None where dynamic; None
        when it fixes none. An array must have them: the lowering uses them, not the array's.
    """

    name: str
    kind: str
    dtype: str
    shape: list[int | None] | None = None
    strided: bool = False
    written: bool = True
    offset: int = 0
    static_strides: list[int | None] | None = None

    def layout_mismatch(self, item_strides: Sequence[int]) -> str | None:
        """Why an array with these element strides cannot be passed for this argument's static
        layout (None: it can)."""
        if self.static_strides is None:
            return None
        for d, (want, have) in enumerate(zip(self.static_strides, item_strides, strict=True)):
            if want is not None and want != have:
                return (
                    f"dimension {d} has stride {have} elements, but the memref type's layout "
                    f"fixes it at {want}"
                )
        return None


@dataclass
class KernelInfo:
    name: str
    symbol: str  # exported entry hook
    args: list[ArgInfo] = field(default_factory=list)
    reqd_work_group_size: list[int] | None = None
    max_work_dim: int | None = None
    local_mem_usage: int = 0
    max_work_group_size: int | None = None
    """Largest work-group (local size product) the compiled kernel supports; None: no limit
    (set when work-group collectives are sized for a maximum, see
    lower-work-group-collectives)."""
    vector_width: int = 1
    """work-item-loops' vector width W for dimension ``vector_dim`` (1: scalar loops)."""
    vector_dim: int = 0
    vector_tail: bool = True
    """False: no scalar tail loop, so every group's size in ``vector_dim`` must be a multiple
    of ``vector_width`` (force-no-tail)."""
    local_size_limits: list[tuple[int, int, str]] = field(default_factory=list)
    """(dim, most, memory): the local size in ``dim`` may be at most ``most``, as the static
    local ``memory`` that every work-item indexes by its local id there was written for
    (record-kernel-abi; a larger launch is refused before it runs)."""
    work_dims_used: int = 1
    """1 + the highest dimension the kernel's work-item queries name (record-kernel-abi):
    a launch with a scalar global size is refused when it is 2 or 3."""

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(data: dict) -> KernelInfo:
        args = [ArgInfo(**a) for a in data.get("args", [])]
        limits = [tuple(v) for v in data.get("local_size_limits", [])]
        return KernelInfo(**{**data, "args": args, "local_size_limits": limits})


def dump_kernel_infos(infos: Sequence[KernelInfo]) -> str:
    return json.dumps([i.to_json() for i in infos])


def load_kernel_infos(text: str) -> list[KernelInfo]:
    return [KernelInfo.from_json(d) for d in json.loads(text)]
