"""NDRange launch: argument marshalling, size checks, work-group slices on a thread pool.

A launch validates the arguments against the kernel's metadata (count, dtype, rank, static
dims, contiguity), normalises the NDRange to three dimensions, splits the work-groups into
slices and calls the compiled entry hook once per slice. Slices run on a process-wide pool of
spinning workers sized to the cores (``runtime/pool.py``: the hand-off of slices is JIT-compiled
code, so neither the GIL nor a condition variable sits between a launch and its workers).
numpy arrays are passed zero-copy through memref descriptors.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from xmux.abi import kernel_layout as layout
from xmux.abi.errors import LaunchError
from xmux.abi.kernel_layout import ArgInfo, KernelInfo
from xmux.runtime import abi, env, interrupt, pool, tuning

#: a thread's share of the work-groups is cut into halving slices down to 1/GUIDED_UNITS of it
GUIDED_UNITS = 32
#: launches smaller than this run on the calling thread (a hand-off costs more than they do)
INLINE_WORK_ITEMS = 2048


#: most threads a launch may use (a thread per slice; 70000 once took 16 s to fail)
MAX_THREADS = 512
#: largest global size (times offset) the 64-bit ids hold
MAX_INDEX = 2**63 - 1


def check_threads(value: object, where: str) -> int:
    """A ``threads=`` value: an integer from 1 to ``MAX_THREADS`` (0 and -3 used to mean the
    default, 1.5 raised a Python-internal error)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or not 1 <= value <= MAX_THREADS
    ):
        raise LaunchError(f"{where}: threads must be an integer from 1 to {MAX_THREADS}, "
                          f"got {value!r}")
    return int(value)


@functools.cache
def default_threads() -> int:
    """The thread count of a launch that names none: ``XMUX_NUM_THREADS``, else the CPUs the
    process may run on. Read once per process, as OpenMP reads ``OMP_NUM_THREADS``: a launch
    (and its replay key, ``runtime/launcher.py``) then depends on no state of the process that
    reading again would cost ~0.8 µs per launch to see."""
    n = env.positive_int("XMUX_NUM_THREADS", MAX_THREADS)
    if n is not None:
        return n
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def _dims(name: str, what: str, value: Sequence[int] | int | None, fill: int) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),)
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise LaunchError(f"kernel '{name}': {what} must be an integer or a sequence of 1 to 3 "
                          f"integers, got {value!r}")
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in value):
        raise LaunchError(f"kernel '{name}': {what} must be integers, got {list(value)!r}")
    vals = tuple(int(v) for v in value)
    if not 1 <= len(vals) <= 3:
        raise LaunchError(f"kernel '{name}': {what} must have 1 to 3 dimensions, got {len(vals)}")
    return vals


class NDRange:
    """A normalised 3-D launch range (unused dimensions are 1 / 0)."""

    def __init__(
        self,
        name: str,
        global_size: Sequence[int] | int,
        local_size: Sequence[int] | int | None,
        global_offset: Sequence[int] | int | None,
        reqd: Sequence[int] | None,
        max_work_dim: int | None = None,
        *,
        max_work_group_size: int | None = None,
        vector: tuple[int, int] | None = None,
        local_limits: Sequence[tuple[int, int, str]] = (),
    ) -> None:
        g = _dims(name, "global_size", global_size, 1)
        if not g:
            raise LaunchError(f"kernel '{name}': global_size is required")
        dim = len(g)
        if max_work_dim is not None and dim > max_work_dim:
            raise LaunchError(
                f"kernel '{name}': launched with {dim} dimensions but its max_work_dim is "
                f"{max_work_dim}"
            )
        loc = _dims(name, "local_size", local_size, 1)
        off = _dims(name, "global_offset", global_offset, 0)
        for what, vals in (("local_size", loc), ("global_offset", off)):
            if vals and len(vals) != dim:
                raise LaunchError(
                    f"kernel '{name}': {what} has {len(vals)} dimensions, global_size has {dim}"
                )
        if any(v < 1 for v in g):
            raise LaunchError(f"kernel '{name}': global_size must be positive, got {list(g)}")
        if any(v < 0 for v in off):
            raise LaunchError(f"kernel '{name}': global_offset must be >= 0, got {list(off)}")
        if math.prod(g) > MAX_INDEX or any(
            gv + ov > MAX_INDEX for gv, ov in zip(g, off + (0,) * (dim - len(off)), strict=True)
        ):
            raise LaunchError(
                f"kernel '{name}': global_size {list(g)} (offset {list(off) or [0]}) exceeds "
                "the 64-bit range of work-item ids"
            )
        if not loc:
            loc = tuple(reqd[:dim]) if reqd is not None else _default_local(g)
        if any(v < 1 for v in loc):
            raise LaunchError(f"kernel '{name}': local_size must be positive, got {list(loc)}")
        if any(lv > gv for lv, gv in zip(loc, g, strict=True)):
            raise LaunchError(
                f"kernel '{name}': local_size {list(loc)} is larger than global_size {list(g)}"
            )
        if max_work_group_size is not None and math.prod(loc) > max_work_group_size:
            raise LaunchError(
                f"kernel '{name}': local_size {list(loc)} has {math.prod(loc)} work-items; "
                f"its work-group collectives support at most {max_work_group_size} without a "
                "reqd_work_group_size"
            )
        if reqd is not None:
            want = tuple(reqd)
            have = tuple(loc) + (1,) * (3 - dim)
            if have != want:
                raise LaunchError(
                    f"kernel '{name}': local_size {list(have)} does not match its "
                    f"reqd_work_group_size {list(want)}"
                )
            # the work-group function is specialised on full groups of the required size
            if any(gv % lv for gv, lv in zip(g, loc, strict=True)):
                raise LaunchError(
                    f"kernel '{name}': global_size {list(g)} is not a multiple of its "
                    f"reqd_work_group_size {list(want)}"
                )
        if vector is not None:
            _check_vector_multiple(name, g, loc, *vector)
        for d, most, memory in local_limits:
            if d < dim and loc[d] > most:
                raise LaunchError(
                    f"kernel '{name}': local_size {list(loc)} is larger than the kernel's local "
                    f"memory was written for: {memory} is indexed by the local id in dimension "
                    f"{d} by every work-item, so at most {most} work-items fit in that "
                    "dimension; this launch would write outside it"
                )
        pad = 3 - dim
        self.work_dim = dim
        self.global_size = g + (1,) * pad
        self.local_size = loc + (1,) * pad
        self.global_offset = (off or (0,) * dim) + (0,) * pad
        self.num_groups = tuple(
            -(-gs // ls) for gs, ls in zip(self.global_size, self.local_size, strict=True)
        )

    @classmethod
    def of(cls, info: KernelInfo, global_size: Sequence[int] | int,
           local_size: Sequence[int] | int | None,
           global_offset: Sequence[int] | int | None) -> NDRange:
        """The launch range of a kernel, checked against everything its ``KernelInfo`` says
        of the sizes it takes."""
        check_scalar_global_size(info, global_size)
        return cls(
            info.name, global_size, local_size, global_offset, info.reqd_work_group_size,
            info.max_work_dim, max_work_group_size=info.max_work_group_size,
            vector=vector_requirement(info), local_limits=info.local_size_limits,
        )

    @property
    def total_groups(self) -> int:
        return math.prod(self.num_groups)


def check_scalar_global_size(info: KernelInfo, global_size: object) -> None:
    """A scalar global size is a 1-D launch: refused for a kernel whose queries name
    dimension 1 or 2 (``info.work_dims_used``), where it is most likely a mistake (its ids
    there would be 0 for every work-item); ``(n,)`` says a 1-D launch is meant."""
    dims = info.work_dims_used
    if dims > 1 and isinstance(global_size, (int, np.integer)) and not isinstance(
            global_size, bool):
        raise LaunchError(
            f"kernel '{info.name}': global_size is the scalar {global_size!r} (a 1-D "
            f"launch), but the kernel uses dimension {dims - 1}: give {dims} sizes, "
            f"global_size=({', '.join('xyz'[:dims])})")


def vector_requirement(info: KernelInfo) -> tuple[int, int] | None:
    """(W, dim) when the kernel was scheduled W work-items at a time in ``dim`` without a
    scalar tail (work-item-loops' force-no-tail): its groups must be multiples of W there."""
    if info.vector_width > 1 and not info.vector_tail:
        return info.vector_width, info.vector_dim
    return None


def _check_vector_multiple(
    name: str, g: tuple[int, ...], loc: tuple[int, ...], width: int, dim: int
) -> None:
    size = loc[dim] if dim < len(loc) else 1
    # the last group along dim is smaller when the global size does not divide evenly
    last = (g[dim] % size or size) if dim < len(g) else 1
    for what, value in (("local_size", size), ("the last work-group's size", last)):
        if value % width:
            raise LaunchError(
                f"kernel '{name}': {what} in dimension {dim} is {value}, not a multiple of "
                f"its vector width {width} (compiled with force-no-tail: no scalar tail loop)"
            )


def _default_local(g: tuple[int, ...]) -> tuple[int, ...]:
    """A local size when the user gives none: x as wide as divides evenly up to 64."""
    x = next(c for c in (64, 32, 16, 8, 4, 2, 1) if g[0] % c == 0)
    return (x,) + (1,) * (len(g) - 1)


@functools.cache
def _dtype(name: str) -> np.dtype:
    return np.dtype(name)


@functools.cache
def _int_range(name: str) -> tuple[int, int]:
    lim = np.iinfo(name)
    return int(lim.min), int(lim.max)


def _item_strides(value: np.ndarray) -> list[int]:
    return [s // value.itemsize for s in value.strides]


def _check_array(kernel: str, pos: int, info: ArgInfo, value: object) -> np.ndarray:
    shape = info.shape or ()
    if (
        isinstance(value, np.ndarray)
        and value.dtype == _dtype(info.dtype)
        and value.ndim == len(shape)
        and (info.strided or value.flags.c_contiguous)
        and all(w is None or w == h for w, h in zip(shape, value.shape, strict=True))
        and not any(st % value.itemsize for st in value.strides)
        and (value.flags.writeable or not info.written)
        and (info.static_strides is None or info.layout_mismatch(_item_strides(value)) is None)
    ):
        return value  # the common case, checked without building a message
    where = f"kernel '{kernel}' argument {pos} ('{info.name}')"
    if isinstance(value, np.ndarray) and info.written and not value.flags.writeable:
        raise LaunchError(
            f"{where}: the array is read-only (numpy's writeable flag is off) and the kernel "
            "may write it"
        )
    if not isinstance(value, np.ndarray):
        got = type(value).__name__
        raise LaunchError(f"{where}: expected a numpy array of {info.dtype}, got {got}")
    if value.dtype != _dtype(info.dtype):
        raise LaunchError(f"{where}: expected dtype {info.dtype}, got {value.dtype}")
    if value.ndim != len(shape):
        raise LaunchError(f"{where}: expected rank {len(shape)}, got an array of rank {value.ndim}")
    for d, (want, have) in enumerate(zip(shape, value.shape, strict=True)):
        if want is not None and want != have:
            raise LaunchError(f"{where}: dimension {d} must be {want}, got {have}")
    if any(s % value.itemsize for s in value.strides):
        raise LaunchError(f"{where}: strides {value.strides} are not multiples of the item size")
    mismatch = info.layout_mismatch(_item_strides(value))
    if mismatch is not None:
        raise LaunchError(f"{where}: {mismatch}")
    raise LaunchError(
        f"{where}: array is not C-contiguous (strides {value.strides}); the kernel's memref "
        "type has an identity layout — pass np.ascontiguousarray(x) or declare the argument "
        "with a strided layout, e.g. memref<?x?xf32, strided<[?, ?], offset: ?>>"
    )


def _check_scalar(kernel: str, pos: int, info: ArgInfo, value: object) -> object:
    where = f"kernel '{kernel}' argument {pos} ('{info.name}')"
    if isinstance(value, np.ndarray) and value.ndim > 0:
        raise LaunchError(f"{where}: expected a scalar {info.dtype}, got an array")
    dt = _dtype(info.dtype)
    if dt.kind == "b":  # 'yes' and None were taken as true and false
        if isinstance(value, np.ndarray):  # 0-d (a flag changed in place between launches)
            value = value[()]
        if not isinstance(value, (bool, np.bool_, int, np.integer)) or value not in (0, 1):
            raise LaunchError(f"{where}: expected a bool (i1: True/False or 0/1), got {value!r}")
        return int(bool(value))
    if isinstance(value, (bool, np.bool_)):
        if not isinstance(value, (int, np.integer)):
            raise LaunchError(f"{where}: expected {info.dtype}, got a bool")
        return int(value)
    if dt.kind in "iu":
        if not isinstance(value, (int, np.integer)):
            raise LaunchError(f"{where}: expected an integer ({info.dtype}), got {value!r}")
        low, high = _int_range(info.dtype)
        v = int(value)
        if dt.kind == "i":  # a signless MLIR integer: either reading (as a spec constant)
            top = 2 * high + 1
            if not low <= v <= top:
                raise LaunchError(
                    f"{where}: {value} does not fit in {info.dtype} (a signless integer takes "
                    f"{low} .. {top})"
                )
            return v if v <= high else v - top - 1
        if not low <= v <= high:
            raise LaunchError(f"{where}: {value} does not fit in {info.dtype}")
        return v
    if dt.kind == "f":
        if not isinstance(value, (int, float, np.integer, np.floating)):
            raise LaunchError(f"{where}: expected a float ({info.dtype}), got {value!r}")
        with np.errstate(over="ignore"):
            converted = dt.type(value)
        if np.isinf(converted) and np.isfinite(value):  # 1e300 became inf as an f32
            raise LaunchError(f"{where}: {value!r} does not fit in {info.dtype}")
        if dt == np.float16:
            return int(converted.view(np.uint16))
        return float(converted)
    raise LaunchError(f"{where}: unsupported scalar type {info.dtype}")


#: bytes of local memory arguments per work-group (the entry hook allocates them on the stack
#: of the thread running a slice, once per slice)
LOCAL_MEMORY_LIMIT = 1 << 20


@dataclass(frozen=True)
class LocalMemory:
    """A work-group local memory argument: ``nbytes`` bytes per work-group execution.

    Pass it for a kernel argument of memref type in memory space 3
    (``%tile: memref<?xf32, 3>``). Each work-group gets its own uninitialised buffer (allocated
    once per slice of work-groups and reused by the groups that slice runs); the one dynamic
    dimension, if any, is ``nbytes`` divided by the size of the others. A static shape needs no
    size (``LocalMemory()``); a size given must match it.
    """

    nbytes: int | None = None


def _itemsize(info: ArgInfo) -> int:
    return np.dtype(info.dtype).itemsize


def _local_shape(kernel: str, pos: int, info: ArgInfo, value: object) -> list[int]:
    where = f"kernel '{kernel}' argument {pos} ('{info.name}')"
    shape = list(info.shape or [])
    if not isinstance(value, LocalMemory):
        dims = ", ".join("?" if d is None else str(d) for d in shape)
        raise LaunchError(
            f"{where} is work-group local memory ({info.dtype}, shape [{dims}]): "
            f"pass xmux.LocalMemory(nbytes), got {type(value).__name__}"
        )
    nbytes = value.nbytes
    if nbytes is not None and (
        isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or nbytes < 1
    ):
        raise LaunchError(f"{where}: LocalMemory needs a positive number of bytes, got {nbytes!r}")
    static = math.prod(d for d in shape if d is not None) * _itemsize(info)
    if None not in shape:
        if nbytes is not None and nbytes != static:
            raise LaunchError(
                f"{where}: its shape {shape} of {info.dtype} takes {static} bytes, "
                f"LocalMemory asks for {nbytes}"
            )
        return shape
    if nbytes is None:
        raise LaunchError(f"{where}: its shape {shape} is dynamic; pass LocalMemory(nbytes)")
    if nbytes % static:
        raise LaunchError(
            f"{where}: {nbytes} bytes is not a multiple of {static} bytes "
            f"({info.dtype}, static dimensions {[d for d in shape if d is not None]})"
        )
    return [int(nbytes) // static if d is None else d for d in shape]


class PackedArgs:
    """The packed-argument struct for one launch, keeping the arrays it points to alive.

    The struct is filled with one ``struct.pack_into`` in the layout of
    ``abi.packed_args_ctype`` (``abi.packed_args_format``): setting ctypes fields one by one
    cost more than a small kernel runs."""

    def __init__(self, kernel: KernelInfo, args: Sequence[object]) -> None:
        if len(args) != len(kernel.args):
            names = ", ".join(a.name for a in kernel.args)
            raise LaunchError(
                f"kernel '{kernel.name}' takes {len(kernel.args)} arguments ({names}), "
                f"got {len(args)}"
            )
        packer, size = _packer(kernel)
        self.struct = (ctypes.c_char * size)()
        self.keepalive: list[object] = []
        values: list[object] = []
        local_bytes = 0
        for i, (info, value) in enumerate(zip(kernel.args, args, strict=True)):
            if info.kind == "memref":
                arr = _check_array(kernel.name, i, info, value)
                self.keepalive.append(arr)
                values += abi.descriptor_fields(arr, info.offset)
            elif info.kind == "scalar":
                values.append(_check_scalar(kernel.name, i, info, value))
            elif info.kind == "local":
                shape = _local_shape(kernel.name, i, info, value)
                local_bytes += math.prod(shape) * _itemsize(info)
                values += abi.local_descriptor_fields(shape)
            else:
                raise LaunchError(
                    f"kernel '{kernel.name}' argument {i} ('{info.name}'): {info.kind} arguments "
                    "are not supported by this pipeline yet"
                )

        if local_bytes > LOCAL_MEMORY_LIMIT:
            raise LaunchError(
                f"kernel '{kernel.name}': local memory arguments take {local_bytes} bytes per "
                f"work-group, more than the {LOCAL_MEMORY_LIMIT} bytes available"
            )
        packer.pack_into(self.struct, 0, *values)

    @property
    def address(self) -> int:
        return ctypes.addressof(self.struct)


def _packer(kernel: KernelInfo) -> tuple[struct.Struct, int]:
    """The packing of ``kernel``'s argument struct (kept on the KernelInfo: a launch of the same
    kernel reuses it)."""
    layout = abi.layout_of(kernel)
    cached = kernel.__dict__.get("_packer")
    if cached is None or cached[0] != layout:
        fmt = struct.Struct(abi.packed_args_format(layout))
        cached = (layout, fmt, ctypes.sizeof(abi.packed_args_ctype(layout)))
        kernel.__dict__["_packer"] = cached
    return cached[1], cached[2]


def guided_slices(groups: int, threads: int) -> list[tuple[int, int]]:
    """``(slice, total_slices)`` of every slice of a launch, ``threads`` home ranges in order.

    A thread's share (``1/threads`` of the work-groups) is cut into halving slices: 1/2, 1/4,
    ... 1/U, 1/U of it (U = ``GUIDED_UNITS``, fewer where there are fewer groups), as a guided
    schedule does: few claims, and a thread that finishes early steals small slices at the end
    of another's range (with four equal slices per thread it idled for up to 1/8 of a launch:
    vecadd / saxpy 2^22 on 2 threads 2-5% slower). Each slice is written as slice ``s`` of
    ``T`` equal ones (what the entry hook runs: groups ``[s·G/T, (s+1)·G/T)``); the ``T`` are
    powers of two times ``threads``, so neighbouring slices meet exactly (``s/T`` is the same
    rational number on both sides)."""
    units = 1
    while units * 2 <= min(GUIDED_UNITS, groups // threads):
        units *= 2
    sizes = [units // 2**k for k in range(1, units.bit_length())] + [1] if units > 1 else [1]
    out = []
    for t in range(threads):
        u = t * units
        for z in sizes:
            out.append((u // z, threads * units // z))
            u += z
    return out


def _schedules(nd: NDRange, threads: int, cancel: int) -> tuple[np.ndarray, int]:
    """One ``schedule_info`` row per slice and the rows' address (cached: a hot loop relaunches
    the same range); ``cancel``: the word the groups poll (``interrupt.cancel_word``)."""
    key = (nd.global_size, nd.global_offset, nd.local_size, nd.work_dim, threads, GUIDED_UNITS,
           cancel)
    cached = _sched_cache.get(key)
    if cached is None:
        base = np.frombuffer(
            abi.schedule_info(nd.global_size, nd.global_offset, nd.local_size, 0, 1, nd.work_dim,
                              cancel),
            dtype=np.int64,
        )
        slices = guided_slices(nd.total_groups, threads)
        rows = np.tile(base, (len(slices), 1))
        rows[:, layout.SCHED_SLICE] = [s for s, _ in slices]
        rows[:, layout.SCHED_TOTAL_SLICES] = [t for _, t in slices]
        if len(_sched_cache) >= 256:
            _sched_cache.clear()
        _sched_cache[key] = cached = (rows, rows.ctypes.data)
    return cached


#: rows and their data pointer (``ndarray.ctypes`` costs µs per launch) per NDRange and threads
_sched_cache: dict[tuple, tuple[np.ndarray, int]] = {}


def run_ndrange(entry: ctypes._CFuncPtr, packed: int, nd: NDRange, threads: int) -> None:
    """Run all work-groups of ``nd`` through ``entry(packed, sched)`` on ``threads`` threads.

    The work-groups are cut into slices; the calling thread and ``threads - 1`` spinning
    workers of ``runtime/pool.py`` claim slices until none is left (a dynamic schedule). A
    launch whose pool run took less than ``SMALL_LAUNCH_S`` is timed on the calling thread
    alone too, and later launches of that entry and range run the faster way (``_ways``).
    Ctrl-C stops the launch between work-groups (``runtime/interrupt.py``).
    """
    interrupt.arm(pool.sigint_handler_address)
    if _on_pool(nd, threads):
        address = _address(entry)
        key = (address, nd.global_size, nd.global_offset, nd.local_size, threads)
        _run_pooled(entry, address, key, packed, nd, threads)
    else:
        _run_inline(entry, packed, nd)


def prepared(entry: ctypes._CFuncPtr, packed: int, nd: NDRange, threads: int) -> Callable[[], None]:
    """A call without arguments that does what ``run_ndrange(entry, packed, nd, threads)``
    does, with what depends on those arguments alone worked out once (a replayed launch,
    ``runtime/launcher.py``): on the calling thread, the call of ``entry`` itself."""
    interrupt.arm(pool.sigint_handler_address)
    if _on_pool(nd, threads):
        address = _address(entry)
        key = (address, nd.global_size, nd.global_offset, nd.local_size, threads)
        # held here (the cache of rows may drop them), for either word a launch may poll
        rows = {w: _schedules(nd, threads, w) for w in interrupt.WORDS}
        return functools.partial(_run_pooled, entry, address, key, packed, nd, threads, rows)
    schedules = {w: _inline_schedule(nd, w) for w in interrupt.WORDS}
    addresses = {w: ctypes.addressof(sched) for w, sched in schedules.items()}
    cancel_word = interrupt.cancel_word

    def run() -> None:
        entry(packed, addresses[cancel_word()])

    run.schedules = schedules  # type: ignore[attr-defined] - alive while the call may come
    return run


def _on_pool(nd: NDRange, threads: int) -> bool:
    return threads > 1 and nd.total_groups > 1 and math.prod(nd.global_size) >= INLINE_WORK_ITEMS


def _address(entry: ctypes._CFuncPtr) -> int:
    address = getattr(entry, "xmux_address", None)
    if address is None:  # cached on the function object: a cast costs ~1 µs per launch
        address = entry.xmux_address = ctypes.cast(entry, ctypes.c_void_p).value
    return address


def _run_pooled(
    entry: ctypes._CFuncPtr, address: int, key: tuple, packed: int, nd: NDRange, threads: int,
    rows: dict[int, tuple[np.ndarray, int]] | None = None,
) -> None:
    """A launch for the pool (``key``: its entry's address, range and threads; ``rows``: its
    ``_schedules`` per cancel word, where the caller has them): on the pool or, where the
    ``_ways`` tuner found
    that faster for a tiny launch, on the calling thread."""
    way = _ways.get(key)
    on_pool, sample = (True, False) if way is None else way.next_launch()
    start = time.perf_counter()
    if on_pool and _run_on_pool(address, packed, nd, threads, rows):
        seconds = time.perf_counter() - start
        if sample:
            way.record(seconds)  # type: ignore[union-attr]
        elif way is None and seconds < SMALL_LAUNCH_S:
            if len(_ways) >= 256:
                _ways.clear()
            _ways[key] = tuning.BuildTuner(
                [lambda: True, lambda: False],
                f"launch of {nd.total_groups} work-groups on {threads} threads",
                ("thread pool", "calling thread"),
            )
        return
    _run_inline(entry, packed, nd)
    if sample:
        way.record(time.perf_counter() - start)  # type: ignore[union-attr]


def _run_on_pool(
    address: int, packed: int, nd: NDRange, threads: int,
    rows: dict[int, tuple[np.ndarray, int]] | None = None,
) -> bool:
    cancel = _cancel_word()
    table, table_address = rows[cancel] if rows else _schedules(nd, threads, cancel)
    return pool.get_pool(threads).run(address, packed, table, table_address, threads)


_cancel_word = interrupt.cancel_word


def _run_inline(entry: ctypes._CFuncPtr, packed: int, nd: NDRange) -> None:
    """All work-groups as one slice on the calling thread (small launches, a pool busy with
    another launch, or a tiny launch that is faster without the hand-off)."""
    entry(packed, ctypes.addressof(_inline_schedule(nd, _cancel_word())))


def _inline_schedule(nd: NDRange, cancel: int) -> ctypes.Array:
    """The one-slice ``schedule_info`` of ``nd`` polling ``cancel`` (kept per NDRange object)."""
    one = _inline_rows.get((nd, cancel))
    if one is None:
        one = abi.schedule_info(
            nd.global_size, nd.global_offset, nd.local_size, 0, 1, nd.work_dim, cancel
        )
        if len(_inline_rows) >= 256:
            _inline_rows.clear()
        _inline_rows[(nd, cancel)] = one
    return one


#: launches whose pool run takes less than this are also tried on the calling thread alone:
#: handing slices to the workers costs about a microsecond each way, more than a second thread
#: saves on a tiny kernel (vecadd 2^14 on 2 threads 2.9 us, on the calling thread 2.0 us)
SMALL_LAUNCH_S = 20e-6

#: pool or calling thread per (entry, range, threads) of a small launch: a tuner
#: (``runtime/tuning.py``) over the two ways, re-checked as the vector width is
_ways: dict[tuple, tuning.BuildTuner] = {}
#: the one-slice schedule of a range run on the calling thread, per NDRange object and word
_inline_rows: dict[tuple[NDRange, int], ctypes.Array] = {}
