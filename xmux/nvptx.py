"""``xmux.compile(source, target="nvptx")``: the same kernels on an NVIDIA GPU.

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
from collections.abc import Sequence

from xmux.dialects.kernel_layout import KernelInfo, dump_kernel_infos, load_kernel_infos
from xmux.errors import XmuxError
from xmux.runtime import nvptx as _ptx
from xmux.runtime import spec_constants as _spec
from xmux.spec_api import KernelTable, SpecConstantsAPI


class NvptxKernel:
    """A kernel of an ``NvptxProgram``; call it like a CPU ``xmux.Kernel``."""

    def __init__(self, program: NvptxProgram, info: KernelInfo) -> None:
        self.program = program
        self.info = info
        self.name = info.name
        self._launchers: dict[int, object] = {}  # id(CudaModule) -> CudaKernel

    def __call__(
        self,
        *args: object,
        global_size: Sequence[int] | int,
        local_size: Sequence[int] | int | None = None,
        global_offset: Sequence[int] | int | None = None,
        threads: int | None = None,
        spec_constants: dict | None = None,
        profile: bool = False,
    ):
        """Run the kernel on the current CUDA device (``spec_constants`` as on the CPU:
        values over the program's for this launch; ``threads`` is the CPU's and ignored)."""
        from xmux.api import LaunchProfile
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
        seconds = launcher(args, global_size, local_size, global_offset, profile, extra)
        if seconds is None:
            return None
        return LaunchProfile(start, start + seconds)

    def __repr__(self) -> str:
        sig = ", ".join(f"{a.name}: {a.kind} {a.dtype}" for a in self.info.args)
        return f"<xmux nvptx kernel {self.name}({sig})>"


class NvptxProgram(KernelTable, SpecConstantsAPI):
    """A module compiled for the NVPTX target: PTX text, kernel metadata, the loaded module,
    the specialization constants' values (``xmux.spec_api``)."""

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

    def cuda_module(self):
        if self._module is None:
            self._module = _load(self.ptx)
        return self._module



def _load(ptx: str):
    from xmux.runtime import cuda

    return cuda.CudaModule(ptx)


def compile_nvptx(
    text: str | None,
    module,
    name: str,
    pipeline,
    pipeline_spec: str,
    use_cache: bool,
    arch: str | None = None,
) -> NvptxProgram:
    """The NVPTX half of ``xmux.compile`` (its argument checks done there)."""
    from xmux.api import _cache_key, parse, run_pipeline
    from xmux.lowering.emit import emit_text
    from xmux.runtime import jit, nvptx_abi

    arch = arch or _ptx.default_arch()
    key = None
    cache_dir = jit.default_cache_dir() if use_cache else None
    if text is not None and use_cache:
        key = _cache_key(text, f"nvptx/{arch}/{pipeline_spec}")
        hit = _ptx.load_cached(key, arch)
        table = _spec.load_table(key, cache_dir) if hit is not None else None
        if hit is not None and (table is not None or not _spec.may_have_markers(text)):
            try:
                infos = load_kernel_infos(hit.kernel_infos_json)
            except (TypeError, ValueError, KeyError, AttributeError):
                infos = None
            if infos is not None:
                spec = None
                if table is not None:
                    spec = _spec.SpecState(table, key, hit.kernel_infos_json, use_cache)
                return NvptxProgram(hit, infos, None, spec)
    if module is None:
        module = parse(text, name)
    if callable(pipeline):
        pipeline = pipeline()
    collector = _spec.Collector()
    infos = run_pipeline(module, pipeline, collector)
    if not infos:
        raise XmuxError(
            "the module has no entry-point kernel: mark one with attributes "
            '{mux.kernel = "entry_point"} or run encode-kernel-metadata{kernel-name=...}'
        )
    for info in infos:
        info.symbol = info.name  # the PTX entry is named after the kernel
    ir_text = emit_text(module, triple=nvptx_abi.TRIPLE,
                        data_layout=str(_ptx.machine(arch).target_data))
    infos_json = dump_kernel_infos(infos)
    table = collector.table
    link: tuple[str, ...] = ()
    if table is not None:
        if table.mode == "native":
            if collector.defined_leaves:
                raise XmuxError(
                    "xmux.compile: the pipeline defines the specialization constants' leaf "
                    f"globals (@\"{collector.defined_leaves[0]}\", ...) with their defaults, "
                    "so no value could be set; lower them with convert-spec-to-llvm"
                    "{declare-leaves=true} (xmux.pipelines.nvptx() does in native mode)"
                )
            # the template, optimized once for this arch; each value set links its values in
            table.template, table.optimized = _ptx.optimized_ir(ir_text, arch), True
            link = (table.values_module(table.default_values),)
        if key is not None:
            _spec.save_table(key, table, cache_dir)  # before the PTX: a hit has both
    compiled = _ptx.compile_ir(
        table.template if link else ir_text, arch=arch, kernel_infos_json=infos_json,
        cache_key=key, disk_cache=use_cache, link=link,
    )
    spec = _spec.SpecState(table, key, infos_json, use_cache) if table is not None else None
    return NvptxProgram(compiled, infos, ir_text, spec)
