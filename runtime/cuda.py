"""The NVPTX target's runtime: PTX loaded and launched through CuPy.

CuPy is the kept library (docs/architecture.md, "The NVPTX target"): its driver module
(``cupy.cuda.function.Module``: ``cuModuleLoadData`` of the PTX, ``cuLaunchKernel``), its
memory pool and streams, and ``cupy.cuda.Event`` for ``profile=True``. It is imported only
when a kernel is run on the GPU; without it (or without a device) a launch is an error
naming what is missing, and ``available()`` is False so that tests skip.

Arguments: a memref takes a CuPy array, any object with ``__cuda_array_interface__`` or
DLPack (PyTorch CUDA tensors: zero-copy views), or a numpy array (copied to the device, and
back after the launch when the kernel may write it); scalars and ``xmux.LocalMemory`` as on
the CPU. The launch record and the split of a non-uniform NDRange follow
``abi/nvptx_abi.py``.

numpy arrays follow one rule, as one host buffer behaves on the CPU: **views of one host
buffer share one device buffer in a launch**. The numpy arguments of a launch whose memory
overlaps (an array passed twice, ``memref.subview`` windows of one allocation from a host
program) are copied as the one byte range they cover, and each argument is a view into that
device copy, so a kernel writing through one view reads its write through another; after
the launch the whole range comes back if any of them may be written. Nothing is kept between
launches: each launch copies the host's current bytes in and its writes back out, so the
next launch, and the host, see them. A memref type with a static offset
(``strided<[1], offset: 2>``) gets its element 0 at the array's first element, as on the CPU
(``ArgInfo.offset``; issue 36, item 4).

Read-only variants (``abi/nvptx_variants.py``): a kernel whose PTX has an entry
``k__xmux_ro_<positions>`` (those memref arguments ``noalias``: ``ld.global.nc``) runs it when
the device bytes of the marked arguments overlap no other memref argument's at this launch
(``ReadOnlyVariant.applies``, an interval test per pair), else ``k``; ``XMUX_NVPTX_READ_ONLY=0``
always runs ``k``.

32-bit address twins (``narrow-indices-nvptx``): an entry ``e`` (``k`` or its read-only
variant) with a twin ``e__xmux_i32`` (addresses in 32-bit arithmetic) runs the twin when
every memref argument's offset, sizes, strides and largest element offset fit in 31 bits
(``Index32Variant.applies``: ``nvptx_variants.index32_fits`` on the descriptors this launch
passes); so a launch picks among generic / read-only / 32-bit / read-only + 32-bit.
``XMUX_NVPTX_INDEX32=0`` never runs a twin.
"""

from __future__ import annotations

import ctypes
import math
import re
import sys
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from xmux.abi import nvptx_abi as abi
from xmux.abi.errors import LaunchError, XmuxError
from xmux.abi.kernel_layout import ArgInfo, KernelInfo
from xmux.runtime.launch import NDRange, _check_scalar, _local_shape

#: CUDA's limits on a block (threads per dimension, in all) and a grid
MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS = 1024
MAX_GRID = (2**31 - 1, 65535, 65535)
#: dynamic shared memory a launch may use without opting in (cudaFuncSetAttribute)
DEFAULT_SHARED = 48 * 1024


@cache
def _cupy() -> Any | None:
    try:
        import cupy
    except Exception:  # noqa: BLE001 - any failure to import means no GPU runtime
        return None
    return cupy


def available() -> bool:
    """CuPy imports and sees at least one CUDA device."""
    cp = _cupy()
    if cp is None:
        return False
    try:
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no driver, no device
        return False


def device_arch() -> str | None:
    """``sm_XY`` of the current device, None without one."""
    if not available():
        return None
    cp = _cupy()
    return f"sm_{cp.cuda.Device().compute_capability}"


def device_name() -> str:
    cp = _require()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def _require() -> Any:
    cp = _cupy()
    if cp is None:
        raise XmuxError(
            "the nvptx target runs kernels through CuPy, which is not installed (pip install "
            "cupy-cuda12x); xmux.compile(..., target='nvptx') still builds the PTX "
            "(Program.ptx)"
        )
    if not available():
        raise XmuxError("the nvptx target needs a CUDA device; none is visible to CuPy")
    return cp


class CudaModule:
    """A PTX module loaded on the current device.

    ``prints``: it calls ``vprintf`` (``lower-gpu-printf-nvptx``): its launches synchronize
    and flush C's stdout, where CUDA writes the device's printf buffer, so the lines appear
    in program order with Python's. ``checks``: it has the checking mode's device record
    (``define-check-failed-nvptx``), read after each launch (``raise_failed_check``).
    """

    def __init__(self, ptx: str) -> None:
        cp = _require()
        self._module = cp.cuda.function.Module()
        try:
            self._module.load(ptx.encode() + b"\0")
        except cp.cuda.driver.CUDADriverError as e:
            raise XmuxError(f"the CUDA driver rejected the PTX: {e}") from e
        self._functions: dict[str, Any] = {}
        self.prints = re.search(r"^\.extern \.func .*\bvprintf\b", ptx, re.M) is not None
        self.checks = re.search(rf"^\.visible \.global .*\b{abi.CHECK_RECORD}\b", ptx,
                                re.M) is not None
        sized = re.search(rf"\b{abi.CHECK_MESSAGES}\[(\d+)\]", ptx)
        self._messages_size = int(sized.group(1)) if sized else 0
        self._messages: list[str] | None = None
        self._record: int | None = None
        #: the PTX entries (a kernel's read-only variant is found among them by name)
        self.entries = frozenset(re.findall(r"^\.visible \.entry ([^\s(]+)\(", ptx, re.M))

    def function(self, name: str) -> Any:
        fn = self._functions.get(name)
        if fn is None:
            fn = self._functions[name] = self._module.get_function(name)
        return fn

    def global_address(self, name: str) -> int:
        """The device pointer of a module global (CuPy's ``moduleGetGlobal`` gives no size)."""
        cp = _require()
        got = cp.cuda.driver.moduleGetGlobal(self._module.ptr, name)
        return got[0] if isinstance(got, tuple) else got

    def raise_failed_check(self, kernel: str, stream: Any) -> None:
        """After a launch (queued on ``stream``): raise the first failed check it recorded as
        the CPU's ``CheckError`` (same message), clearing the record for the next launch."""
        from xmux.runtime import checks

        cp = _require()
        if self._record is None:
            self._record = self.global_address(abi.CHECK_RECORD)
        ptr = self._record
        record = np.zeros(abi.CHECK_FIELDS, np.int64)
        nbytes = record.nbytes
        kind = cp.cuda.runtime.memcpyDeviceToHost
        cp.cuda.runtime.memcpyAsync(record.ctypes.data, ptr, nbytes, kind, stream.ptr)
        stream.synchronize()
        count = int(record[0])
        if not count:
            return
        cp.cuda.runtime.memsetAsync(ptr, 0, nbytes, stream.ptr)
        if self._messages is None:
            at, size = self.global_address(abi.CHECK_MESSAGES), self._messages_size
            raw = np.zeros(size, np.uint8)
            cp.cuda.runtime.memcpy(raw.ctypes.data, at, size, kind)
            self._messages = raw.tobytes().decode(errors="replace").split("\0")
        site, rank = int(record[1]), min(int(record[2]), 3)
        message = (self._messages[site] if 0 <= site < len(self._messages)
                   else f"kernel @{kernel}: a run-time check failed")
        v = [int(x) for x in record[3:15]]
        failure = checks.Failure(message, tuple(v[0:3][:rank]), tuple(v[3:6][:rank]),
                                 (v[6], v[7], v[8]), (v[9], v[10], v[11]), count - 1)
        raise checks.CheckError(str(failure))


def default_local(g: tuple[int, ...]) -> tuple[int, ...]:
    """A block when the user gives none: x up to 256 dividing the global size, then y."""
    x = next(c for c in (256, 128, 64, 32, 16, 8, 4, 2, 1) if g[0] % c == 0)
    if len(g) == 1:
        return (x,)
    y = next(c for c in (256 // x, 8, 4, 2, 1) if c >= 1 and g[1] % c == 0 and c * x <= 256)
    return (x, y) + (1,) * (len(g) - 2)


def launch_parts(nd: NDRange) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """(group base, grid, block) of each launch covering ``nd``: full groups and, per
    dimension a local size does not divide, the remainder groups with their smaller block."""
    per_dim = []
    for g, ls in zip(nd.global_size, nd.local_size, strict=True):
        full, rest = divmod(g, ls)
        options = []
        if full:
            options.append((0, full, ls))
        if rest:
            options.append((full, 1, rest))
        per_dim.append(options)
    parts = []
    for x in per_dim[0]:
        for y in per_dim[1]:
            for z in per_dim[2]:
                parts.append(((x[0], y[0], z[0]), (x[1], y[1], z[1]), (x[2], y[2], z[2])))
    return parts


def _check_limits(name: str, nd: NDRange) -> None:
    loc = nd.local_size
    if math.prod(loc) > MAX_THREADS or any(v > m for v, m in zip(loc, MAX_BLOCK, strict=True)):
        raise LaunchError(
            f"kernel '{name}': local_size {list(loc[:nd.work_dim])} exceeds a CUDA block "
            f"(at most {MAX_THREADS} work-items, {list(MAX_BLOCK)} per dimension)"
        )
    if any(n > m for n, m in zip(nd.num_groups, MAX_GRID, strict=True)):
        raise LaunchError(
            f"kernel '{name}': {list(nd.num_groups[:nd.work_dim])} work-groups exceed a CUDA "
            f"grid ({list(MAX_GRID)})"
        )


def _is_device_array(value: object) -> bool:
    return hasattr(value, "__cuda_array_interface__") or (
        hasattr(value, "__dlpack__") and not isinstance(value, np.ndarray)
    )


class _Marshalled:
    """A launch's parameters, and the copies back to numpy arrays after it."""

    def __init__(self) -> None:
        self.params: list[Any] = []
        self.copy_back: list[tuple[Any, np.ndarray]] = []
        #: device views of numpy arguments that share memory (``_shared_views``), by position
        self.shared: dict[int, Any] = {}
        self.shared_bytes = 0
        #: the device array of each memref argument, in argument order
        self.arrays: list[Any] = []


_I64 = tuple(np.int64(i) for i in range(1025))


def _i64(v: int) -> np.int64:
    return _I64[v] if 0 <= v <= 1024 else np.int64(v)


def _byte_range(a: np.ndarray) -> tuple[int, int]:
    """The bytes [lo, hi) an array's elements lie in."""
    lo = hi = a.__array_interface__["data"][0]
    for n, st in zip(a.shape, a.strides, strict=True):
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return lo, hi + a.itemsize


def _shared_views(cp: Any, info: KernelInfo, args: Sequence[object], out: _Marshalled) -> None:
    """One device buffer per set of numpy arguments whose bytes overlap (the module's rule);
    ``out.shared[pos]`` is the device view of argument ``pos``. A lone array is left to
    ``_memref`` (a compact device copy of its elements), unless the memref type fixes its
    strides: then the copy keeps the host's layout."""
    ranges = sorted(
        (*_byte_range(v), pos) for pos, (a, v) in enumerate(zip(info.args, args, strict=True))
        if a.kind == "memref" and isinstance(v, np.ndarray) and v.size
        and v.dtype == np.dtype(a.dtype)
    )
    groups: list[list[tuple[int, int, int]]] = []
    for r in ranges:
        if groups and r[0] < max(hi for _, hi, _ in groups[-1]):
            groups[-1].append(r)
        else:
            groups.append([r])
    for group in groups:
        if len(group) < 2 and info.args[group[0][2]].static_strides is None:
            continue  # a device copy of the elements alone will do
        lo, hi = group[0][0], max(h for _, h, _ in group)
        host = np.ctypeslib.as_array((ctypes.c_uint8 * (hi - lo)).from_address(lo))
        device = cp.asarray(host)
        written = False
        for _, _, pos in group:
            a, v = info.args[pos], args[pos]
            assert isinstance(v, np.ndarray)
            start = v.__array_interface__["data"][0]
            out.shared[pos] = cp.ndarray(
                v.shape, v.dtype, memptr=device.data + (start - lo), strides=v.strides
            )
            if a.written:
                _check_writeable(info.name, pos, a, v)
                written = True
        if written:
            out.copy_back.append((device, host))


def _check_writeable(kernel: str, pos: int, info: ArgInfo, host: np.ndarray) -> None:
    if info.written and not host.flags.writeable:
        raise LaunchError(
            f"kernel '{kernel}' argument {pos} ('{info.name}'): the array is read-only "
            "(numpy's writeable flag is off) and the kernel may write it"
        )


def _memref(cp: Any, kernel: str, pos: int, info: ArgInfo, value: object,
            out: _Marshalled) -> None:
    if type(value) is cp.ndarray and _fits(value, info):  # the common case, checked quickly
        _descriptor(value, info, out)
        return
    where = f"kernel '{kernel}' argument {pos} ('{info.name}')"
    if pos in out.shared:
        arr = out.shared[pos]
    elif isinstance(value, np.ndarray):
        _check_writeable(kernel, pos, info, value)
        arr = cp.asarray(value)  # a contiguous device copy
        if info.written:
            out.copy_back.append((arr, value))
    elif _is_device_array(value):
        try:
            arr = cp.asarray(value) if hasattr(value, "__cuda_array_interface__") else (
                cp.from_dlpack(value))
        except Exception as e:  # noqa: BLE001 - a foreign array CuPy cannot view
            raise LaunchError(f"{where}: cannot view the device array: {e}") from e
    else:
        raise LaunchError(
            f"{where}: expected a CuPy array, a CUDA array (__cuda_array_interface__ / "
            f"DLPack) or a numpy array of {info.dtype}, got {type(value).__name__}"
        )
    shape = info.shape or []
    if arr.dtype != np.dtype(info.dtype):
        raise LaunchError(f"{where}: expected dtype {info.dtype}, got {arr.dtype}")
    if arr.ndim != len(shape):
        raise LaunchError(f"{where}: expected rank {len(shape)}, got an array of rank {arr.ndim}")
    for d, (want, have) in enumerate(zip(shape, arr.shape, strict=True)):
        if want is not None and want != have:
            raise LaunchError(f"{where}: dimension {d} must be {want}, got {have}")
    if any(s % arr.itemsize for s in arr.strides):
        raise LaunchError(f"{where}: strides {arr.strides} are not multiples of the item size")
    mismatch = info.layout_mismatch([s // arr.itemsize for s in arr.strides])
    if mismatch is not None:
        raise LaunchError(f"{where}: {mismatch}")
    if not info.strided and not arr.flags.c_contiguous:
        raise LaunchError(
            f"{where}: array is not C-contiguous (strides {arr.strides}); the kernel's memref "
            "type has an identity layout"
        )
    _descriptor(arr, info, out)


def _descriptor(arr: Any, info: ArgInfo, out: _Marshalled) -> None:
    """A device array's parameters: pointer, offset, sizes, strides. With a static offset
    in the memref type the pointer is that many elements before the array (the kernel adds
    it back)."""
    item = arr.itemsize
    out.arrays.append(arr)
    if info.offset:
        out.params.append(np.uint64(arr.data.ptr - info.offset * item))
        out.params.append(_i64(info.offset))
    else:
        out.params.append(arr)
        out.params.append(_I64[0])
    out.params += [_i64(v) for v in arr.shape]
    out.params += [_i64(v // item) for v in arr.strides]


def _fits(arr: Any, info: ArgInfo) -> bool:
    shape = info.shape or ()
    return (
        arr.dtype == np.dtype(info.dtype)
        and arr.ndim == len(shape)
        and (info.strided or arr.flags.c_contiguous)
        and all(w is None or w == h for w, h in zip(shape, arr.shape, strict=True))
        and not any(st % arr.itemsize for st in arr.strides)
        and info.layout_mismatch([st // arr.itemsize for st in arr.strides]) is None
    )


def _local(kernel: str, pos: int, info: ArgInfo, value: object, out: _Marshalled) -> None:
    shape = _local_shape(kernel, pos, info, value)
    itemsize = np.dtype(info.dtype).itemsize
    offset = -(-out.shared_bytes // abi.LOCAL_ARG_ALIGN) * abi.LOCAL_ARG_ALIGN
    out.params.append(_i64(offset))
    out.params.append(_I64[0])
    out.params += [_i64(s) for s in shape]
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= s
    out.params += [_i64(s) for s in reversed(strides)]
    out.shared_bytes = offset + math.prod(shape) * itemsize


def _scalar(kernel: str, pos: int, info: ArgInfo, value: object, out: _Marshalled) -> None:
    checked = _check_scalar(kernel, pos, info, value)
    if info.dtype == "bool":
        out.params.append(np.int8(checked))
    elif info.dtype == "float16":
        out.params.append(np.uint16(checked))  # _check_scalar gives the bits
    else:
        out.params.append(np.dtype(info.dtype).type(checked))


def marshal(info: KernelInfo, args: Sequence[object], cp: Any) -> _Marshalled:
    if len(args) != len(info.args):
        raise LaunchError(
            f"kernel '{info.name}' takes {len(info.args)} arguments, got {len(args)}"
        )
    out = _Marshalled()
    arrays = [a for a, v in zip(info.args, args, strict=True) if isinstance(v, np.ndarray)]
    if len(arrays) > 1 or any(a.static_strides is not None for a in arrays):
        _shared_views(cp, info, args, out)
    for pos, (a, value) in enumerate(zip(info.args, args, strict=True)):
        if a.kind == "memref":
            _memref(cp, info.name, pos, a, value, out)
        elif a.kind == "local":
            _local(info.name, pos, a, value, out)
        else:
            _scalar(info.name, pos, a, value, out)
    return out


def _hashable(v: object) -> object:
    if isinstance(v, list | tuple):
        return tuple(int(x) if isinstance(x, np.integer) else x for x in v)
    return int(v) if isinstance(v, np.integer) else v


def _device_range(arr: Any) -> tuple[int, int]:
    """The device bytes [lo, hi) a CuPy array's elements lie in (empty for no elements)."""
    lo = arr.data.ptr
    if arr.size == 0:
        return lo, lo
    if arr.flags.c_contiguous:
        return lo, lo + arr.nbytes
    hi = lo
    for n, st in zip(arr.shape, arr.strides, strict=True):
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return lo, hi + arr.itemsize


class ReadOnlyVariant:
    """A kernel's read-only entry (``abi/nvptx_variants.py``) and the check that picks it:
    the arguments it marks ``noalias`` must not overlap any other memref argument."""

    def __init__(self, module: CudaModule, info: KernelInfo, symbol: str,
                 marked: tuple[int, ...]) -> None:
        self.function = module.function(symbol)
        self.symbol = symbol
        memrefs = [i for i, a in enumerate(info.args) if a.kind == "memref"]
        #: indices into ``_Marshalled.arrays``: the marked arguments and the others
        self.marked = [k for k, i in enumerate(memrefs) if i in marked]
        self.others = [k for k, i in enumerate(memrefs) if i not in marked]

    def applies(self, arrays: Sequence[Any]) -> bool:
        from xmux.abi.nvptx_variants import disjoint

        if not self.others:
            return True
        return disjoint([_device_range(arrays[k]) for k in self.marked],
                        [_device_range(arrays[k]) for k in self.others])


def read_only_variant(module: CudaModule, info: KernelInfo) -> ReadOnlyVariant | None:
    """The read-only variant of ``info``'s kernel in ``module`` (None: there is none, or
    ``XMUX_NVPTX_READ_ONLY=0`` asks for the generic entry always, for A/B timings)."""
    import os

    from xmux.abi.nvptx_variants import parse_variant

    if os.environ.get("XMUX_NVPTX_READ_ONLY", "1") == "0":
        return None
    for symbol in module.entries:
        marked = parse_variant(symbol, info.symbol)
        if marked is not None and all(
            p < len(info.args) and info.args[p].kind == "memref" for p in marked
        ):
            return ReadOnlyVariant(module, info, symbol, marked)
    return None


class Index32Variant:
    """The 32-bit address twins of a kernel's entries (``abi/nvptx_variants.py``) and the
    test that picks them: every memref argument's descriptor fits in 31 bits."""

    def __init__(self, generic: Any | None, read_only: Any | None, info: KernelInfo) -> None:
        #: the twins of the generic entry and of the read-only variant (None: none)
        self.generic, self.read_only = generic, read_only
        #: the element offset each memref argument's descriptor carries (``_descriptor``)
        self.offsets = [a.offset or 0 for a in info.args if a.kind == "memref"]

    def applies(self, arrays: Sequence[Any]) -> bool:
        from xmux.abi.nvptx_variants import index32_fits

        return index32_fits(
            (off, arr.shape, [st // arr.itemsize for st in arr.strides])
            for off, arr in zip(self.offsets, arrays, strict=True))


def index32_variant(module: CudaModule, info: KernelInfo,
                    read_only: ReadOnlyVariant | None) -> Index32Variant | None:
    """The 32-bit twins of ``info``'s entries in ``module`` (None: there are none, or
    ``XMUX_NVPTX_INDEX32=0`` asks for the 64-bit entries always, for A/B timings)."""
    import os

    from xmux.abi.nvptx_variants import index32_name

    if os.environ.get("XMUX_NVPTX_INDEX32", "1") == "0":
        return None
    generic = index32_name(info.symbol)
    ro = index32_name(read_only.symbol) if read_only is not None else None
    found = [module.function(n) if n in module.entries else None for n in (generic, ro)]
    if found == [None, None]:
        return None
    return Index32Variant(found[0], found[1], info)


def launch_record(nd: NDRange, base: Sequence[int]) -> list[np.int64]:
    fields = [0] * abi.LAUNCH_FIELDS
    for d in range(3):
        fields[abi.GLOBAL_SIZE + d] = nd.global_size[d]
        fields[abi.GLOBAL_OFFSET + d] = nd.global_offset[d]
        fields[abi.ENQUEUED_LOCAL_SIZE + d] = nd.local_size[d]
        fields[abi.GROUP_BASE + d] = base[d]
        fields[abi.NUM_GROUPS + d] = nd.num_groups[d]
    fields[abi.WORK_DIM] = nd.work_dim
    return [_i64(v) for v in fields]


class CudaKernel:
    """Launches one kernel of a ``CudaModule``."""

    def __init__(self, module: CudaModule, info: KernelInfo,
                 extra_params: Callable[[], list[Any]] | None = None) -> None:
        self.module = module
        self.info = info
        self.function = module.function(info.symbol)
        self.read_only = read_only_variant(module, info)
        self.index32 = index32_variant(module, info, self.read_only)
        #: the entry the last launch used (tests: which one a launch picked)
        self.last_function = self.function
        self._shared_opt_in = DEFAULT_SHARED
        self._extra = extra_params
        #: (global, local, offset) → (NDRange, [(grid, block, launch record)]): a repeated
        #: launch skips the checks and the split
        self._ranges: dict[tuple, tuple[NDRange, list[tuple]]] = {}

    def entry_for(self, arrays: Sequence[Any]) -> Any:
        """The entry a launch with these memref arguments runs: the read-only variant when
        they are disjoint, else the generic one; its 32-bit twin when they fit in 31 bits."""
        function, twin = self.function, None
        if self.read_only is not None and self.read_only.applies(arrays):
            function = self.read_only.function
            twin = self.index32.read_only if self.index32 is not None else None
        elif self.index32 is not None:
            twin = self.index32.generic
        if twin is not None and self.index32.applies(arrays):  # type: ignore[union-attr]
            function = twin
        return function

    def _range(self, global_size, local_size, global_offset) -> tuple[NDRange, list[tuple]]:
        key = (_hashable(global_size), _hashable(local_size), _hashable(global_offset))
        found = self._ranges.get(key)
        if found is None:
            nd = self.ndrange(global_size, local_size, global_offset)
            parts = [(grid, block, tuple(launch_record(nd, base)))
                     for base, grid, block in launch_parts(nd)]
            if len(self._ranges) > 64:
                self._ranges.clear()
            found = self._ranges[key] = (nd, parts)
        return found

    def ndrange(self, global_size, local_size, global_offset) -> NDRange:
        info = self.info
        if local_size is None and info.reqd_work_group_size is None:
            from xmux.runtime.launch import _dims

            g = _dims(info.name, "global_size", global_size, 1)
            if g and all(v >= 1 for v in g):
                local_size = default_local(g)
        nd = NDRange.of(info, global_size, local_size, global_offset)
        _check_limits(info.name, nd)
        return nd

    def __call__(self, args: Sequence[object], global_size, local_size, global_offset,
                 profile: bool = False, extra: Sequence[Any] = ()) -> float | None:
        """Launch; ``extra``: hidden parameters after the user's (the emulated
        specialization-constant buffer), before the launch record."""
        cp = _require()
        _, parts = self._range(global_size, local_size, global_offset)
        m = marshal(self.info, args, cp)
        if self._extra is not None:
            m.params += self._extra()
        m.params += extra
        function = self.last_function = self.entry_for(m.arrays)
        if m.shared_bytes > self._shared_opt_in:
            driver = cp.cuda.driver
            attribute = getattr(driver, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", 8)
            functions = [self.function] + ([self.read_only.function] if self.read_only else [])
            if self.index32 is not None:
                functions += [f for f in (self.index32.generic, self.index32.read_only) if f]
            try:
                for f in functions:
                    driver.funcSetAttribute(f.ptr, attribute, m.shared_bytes)
            except Exception as e:  # noqa: BLE001 - the device's limit
                raise LaunchError(
                    f"kernel '{self.info.name}': local memory arguments take {m.shared_bytes} "
                    f"bytes per work-group, more than the device allows: {e}"
                ) from e
            self._shared_opt_in = m.shared_bytes
        stream = cp.cuda.get_current_stream()
        if self.module.prints:
            sys.stdout.flush()  # what Python printed before comes first
        start = end = None
        if profile:
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record(stream)
        for grid, block, record in parts:
            function(grid, block, (*m.params, *record), shared_mem=m.shared_bytes,
                     stream=stream)
        if profile:
            end.record(stream)
        for device, host in m.copy_back:
            if host.flags.c_contiguous:
                device.get(out=host)
            else:
                host[...] = device.get()
        if self.module.prints:
            stream.synchronize()  # CUDA writes the printf buffer to C's stdout now
            _flush_c_stdout()
        if self.module.checks:
            self.module.raise_failed_check(self.info.name, stream)
        if profile:
            end.synchronize()
            return cp.cuda.get_elapsed_time(start, end) / 1e3
        return None


@cache
def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None)


def _flush_c_stdout() -> None:
    try:
        _libc().fflush(None)
    except (OSError, AttributeError):  # no C library to flush: nothing buffered there
        pass
