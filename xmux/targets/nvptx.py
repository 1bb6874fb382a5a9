"""The NVPTX target: ``xmux.compile(source, target="nvptx")``, the same kernels on an NVIDIA GPU.

The module runs ``pipelines.nvptx()``, is emitted as NVPTX LLVM IR (``nvptx64-nvidia-cuda``
and its data layout, kernels as ``ptx_kernel`` functions), optimized at O3 and turned into
PTX by llvmlite (``runtime/nvptx.py``; no GPU needed, so CI tests the PTX), then loaded and
launched through CuPy (``runtime/cuda.py``) on first use::

    prog = xmux.compile(src, target="nvptx")
    prog.ptx                                   # the PTX text
    prog["vecadd"](a, b, c, global_size=(n,), local_size=(256,))   # CuPy or numpy arrays

A launch returns when the kernel is queued on CuPy's current stream (as CuPy's kernels do);
numpy arguments are copied in before and back after it (which waits for it), and
``profile=True`` waits and returns the kernel time measured by CUDA events.

Specialization constants (``runtime/cuda_spec.py``) have the CPU program's API
(``set_spec_constant``, ``spec_constants={...}`` per launch, the property sets): in native
mode a launch runs the PTX specialized for its value set (built once per distinct set,
cached in memory and on disk), in emulated mode it passes a device buffer holding the blob.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xmux.abi.errors import LaunchError, NotSupportedError, user_errors
from xmux.abi.kernel_layout import KernelInfo
from xmux.runtime import nvptx as _ptx
from xmux.runtime import spec_constants as _spec
from xmux.spec_api import KernelTable, NotCopyable, SpecConstantsAPI
from xmux.targets.base import Build, LaunchProfile

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from xmux.options import CompileOptions
    from xmux.runtime.counters import LaunchCounters
    from xmux.runtime.jit import TargetDescription


class NvptxTarget:
    """An NVIDIA GPU of architecture ``arch`` (``sm_90``); default ``XMUX_NVPTX_ARCH``, else
    the current device's, else sm_90. The hardware runs the work-items: no CPU-only options
    (threads, vector_width, force_no_tail, oacc_expansion, sub_group_size)."""

    name = "nvptx"
    target_options: frozenset[str] = frozenset()

    def __init__(self, arch: str | None = None) -> None:
        self._arch = arch

    @property
    def arch(self) -> str:
        if self._arch is None:
            self._arch = _ptx.default_arch()
        return self._arch

    def attribute(self) -> TargetDescription:
        from xmux.pipelines import nvptx_target

        return nvptx_target(self.arch)  # type: ignore[return-value]

    def pipeline(self, options: CompileOptions) -> list[ModulePass]:
        from xmux import pipelines

        return pipelines.nvptx(target=self.attribute(), spec_constants=options.spec_constants,
                               spec_padding=options.spec_padding, checks=options.checks)

    def cache_key(self, options: CompileOptions, source_text: str) -> str | None:
        import llvmlite

        from xmux.targets import driver  # here: it imports xmux.errors (xDSL's)

        return driver.cache_key(self, options, source_text, f"llvmlite {llvmlite.__version__}")

    def prepare(self, options: CompileOptions) -> None:
        pass

    def lookup(self, key: str) -> object | None:
        return _ptx.load_cached(key, self.arch)

    def emit(self, module: ModuleOp) -> str:
        from xmux.abi import nvptx_abi
        from xmux.runtime.emit import emit_text

        return emit_text(module, triple=nvptx_abi.TRIPLE,
                         data_layout=str(_ptx.machine(self.arch).target_data))

    def specialize(self, table: _spec.SpecTable, ir: str) -> None:
        # the template, optimized once for this arch; each value set links its values in
        table.template, table.optimized = _ptx.optimized_ir(ir, self.arch), True

    def build(self, ir: str, infos_json: str, key: str | None, disk_cache: bool,
              native: _spec.SpecTable | None) -> object:
        link = (native.values_module(native.default_values),) if native is not None else ()
        return _ptx.compile_ir(
            native.template if native is not None else ir, arch=self.arch,  # type: ignore[arg-type]
            kernel_infos_json=infos_json, cache_key=key, disk_cache=disk_cache, link=link,
        )

    def load(self, build: Build, options: CompileOptions) -> NvptxProgram:
        return NvptxProgram(build.artifact, build.infos, build.llvm_ir, build.spec)  # type: ignore[arg-type]


class NvptxKernel(NotCopyable):
    """A kernel of an ``NvptxProgram``; call it like a CPU ``xmux.Kernel``."""

    _what = "kernel"

    def __init__(self, program: NvptxProgram, info: KernelInfo) -> None:
        self.program = program
        self.info = info
        self.name = info.name
        self._launchers: dict[int, object] = {}  # id(CudaModule) -> CudaKernel

    @user_errors
    def __call__(
        self,
        *args: object,
        global_size: Sequence[int] | int,
        local_size: Sequence[int] | int | None = None,
        global_offset: Sequence[int] | int | None = None,
        threads: int | None = None,
        spec_constants: dict | None = None,
        profile: bool = False,
        counters: Iterable[str] | str | None = None,
    ) -> LaunchProfile | LaunchCounters | None:
        """Run the kernel on the current CUDA device (``spec_constants`` as on the CPU:
        values over the program's for this launch; ``threads`` is the CPU's and ignored).
        ``counters=("gpu-time",)`` returns a ``LaunchCounters`` whose one counter is the
        kernel's time in ns from CUDA events (what ``profile=True`` measures); the CPU's
        counters count host threads, and the GPU's own need a profiler (CUPTI): any other
        name raises ``NotSupportedError`` naming this target, before the launch."""
        gpu_time = counters is not None and _gpu_counters(self.name, counters)
        from xmux.runtime import cuda

        module, extra = None, []
        spec = self.program._gpu_spec
        if spec is not None:
            module, extra = spec.launch(self.name, spec_constants)
        elif spec_constants:
            _spec.reject_values(f"kernel '{self.name}'", spec_constants)
        if module is None:
            module = self.program.cuda_module()
        launcher = self._launchers.get(id(module))
        if launcher is None:  # modules live as long as the program: their ids stay unique
            launcher = self._launchers[id(module)] = cuda.CudaKernel(module, self.info)
        start = time.perf_counter()
        seconds = launcher(  # type: ignore[operator]
            args, global_size, local_size, global_offset, profile or gpu_time, extra
        )
        if seconds is None:
            return None
        if gpu_time:
            from xmux.runtime.counters import LaunchCounters

            return LaunchCounters(start, start + seconds, {GPU_TIME: round(seconds * 1e9)}, (),
                                  {GPU_TIME: "cuda-events"})
        return LaunchProfile(start, start + seconds)

    def __repr__(self) -> str:
        sig = ", ".join(f"{a.name}: {a.kind} {a.dtype}" for a in self.info.args)
        return f"<xmux nvptx kernel {self.name}({sig})>"


class NvptxProgram(KernelTable, SpecConstantsAPI):
    """A module compiled for the NVPTX target: PTX text, kernel metadata, the loaded module,
    the specialization constants' values (``xmux.spec_api``). ``prog.ptx`` is the PTX text
    (made without a GPU), ``prog.arch`` the architecture it is built for (``sm_90``)."""

    _kernel_class = NvptxKernel

    target = "nvptx"

    def __init__(self, ptx: _ptx.PtxModule, infos: list[KernelInfo],
                 llvm_ir: str | None, spec: _spec.SpecState | None = None) -> None:
        from xmux.runtime.cuda_spec import GpuSpec

        self.ptx = ptx.ptx
        self.arch = ptx.arch
        self.llvm_ir = llvm_ir
        self.infos = {i.name: i for i in infos}
        self._module = None
        self._kernels: dict[str, NvptxKernel] = {}
        self.source = ptx.source
        self._spec = spec
        self._gpu_spec = GpuSpec(spec, ptx.arch, _load) if spec is not None else None

    def save(self, path: str | Path, *, source: bool = True) -> None:
        """Write this program as one binary file that ``xmux.load(path)`` loads without xDSL
        or LLVM (``runtime/binary.py``; docs/architecture.md, "Program binaries"): the PTX
        (the program's blob), the kernels' metadata, the arch, the specialization-constant
        table and values (native mode: each value set's PTX is built from the table's
        template when a launch needs it, with llvmlite). ``source`` is accepted for the CPU
        program's signature: an NVPTX program keeps no source."""
        import json

        import llvmlite

        from xmux.runtime import binary

        spec = None
        if self._spec is not None:
            table = self._spec.table
            spec = {"table": json.loads(table.to_json()),
                    "values": {k: v.hex() for k, v in self._spec.values.items()},
                    "property_sets": binary.jsonable(table.property_sets())}
        notes = {
            "format": "xmux-binary",
            "abi_version": binary.ABI_VERSION,
            "xmux_version": binary.xmux_version(),
            "target": {"name": "nvptx", "arch": self.arch,
                       "fingerprint": f"nvptx|{self.arch}|llvmlite {llvmlite.__version__}"},
            "kernels": [i.to_json() for i in self.infos.values()],
            "spec": spec,
            "source": None,
            "cache_key": None,
            "objects": [{"role": "program"}],
        }
        binary.write(path, notes, [self.ptx.encode()])

    def cuda_module(self) -> object:
        if self._module is None:
            self._module = _load(self.ptx)
        return self._module


#: the one counter of an NVPTX launch: the kernel's time in ns, from CUDA events
GPU_TIME = "gpu-time"


def _gpu_counters(kernel: str, counters: Iterable[str] | str) -> bool:
    """Check an NVPTX launch's ``counters=`` (True: it asks for ``gpu-time``)."""
    names = (counters,) if isinstance(counters, str) else tuple(counters)
    if not names:
        raise LaunchError("counters= names no counter")
    other = [n for n in names if n != GPU_TIME]
    if other:
        raise NotSupportedError(
            f"kernel '{kernel}': counter(s) {', '.join(map(repr, other))} not on target "
            f"'nvptx': perf_event_open counts host threads, and the GPU's hardware counters "
            f"need a profiler (CUPTI, Nsight Compute); this target gives {GPU_TIME!r} "
            "(CUDA events)"
        )
    return True


def _load(ptx: str) -> object:
    from xmux.runtime import cuda

    return cuda.CudaModule(ptx)
