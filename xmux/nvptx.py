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
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from xmux.dialects.attrs import KernelInfo, dump_kernel_infos, load_kernel_infos
from xmux.errors import XmuxError
from xmux.runtime import nvptx as _ptx


class NvptxKernel:
    """A kernel of an ``NvptxProgram``; call it like a CPU ``xmux.Kernel``."""

    def __init__(self, program: NvptxProgram, info: KernelInfo) -> None:
        self.program = program
        self.info = info
        self.name = info.name
        self._launcher = None

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
        from xmux.api import LaunchProfile
        from xmux.runtime import cuda

        if spec_constants:
            raise XmuxError(
                f"kernel '{self.name}': specialization constants are not supported on the "
                "nvptx target yet"
            )
        if self._launcher is None:
            self._launcher = cuda.CudaKernel(self.program.cuda_module(), self.info)
        start = time.perf_counter()
        seconds = self._launcher(args, global_size, local_size, global_offset, profile)
        if seconds is None:
            return None
        return LaunchProfile(start, start + seconds)

    def __repr__(self) -> str:
        sig = ", ".join(f"{a.name}: {a.kind} {a.dtype}" for a in self.info.args)
        return f"<xmux nvptx kernel {self.name}({sig})>"


class NvptxProgram:
    """A module compiled for the NVPTX target: PTX text, kernel metadata, the loaded module."""

    target = "nvptx"

    def __init__(self, ptx: _ptx.PtxModule, infos: list[KernelInfo],
                 llvm_ir: str | None) -> None:
        self.ptx = ptx.ptx
        self.arch = ptx.arch
        self.llvm_ir = llvm_ir
        self.infos = {i.name: i for i in infos}
        self._module = None
        self._kernels: dict[str, NvptxKernel] = {}
        self.source = ptx.source

    def cuda_module(self):
        from xmux.runtime import cuda

        if self._module is None:
            self._module = cuda.CudaModule(self.ptx)
        return self._module

    @property
    def kernel_names(self) -> list[str]:
        return list(self.infos)

    def kernel(self, name: str) -> NvptxKernel:
        if name not in self.infos:
            known = ", ".join(self.infos) or "none"
            raise XmuxError(f"no kernel named '{name}' in this program (kernels: {known})")
        if name not in self._kernels:
            self._kernels[name] = NvptxKernel(self, self.infos[name])
        return self._kernels[name]

    __getitem__ = kernel


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
    from xmux.runtime import nvptx_abi

    arch = arch or _ptx.default_arch()
    key = None
    if text is not None and use_cache:
        key = _cache_key(text, f"nvptx/{arch}/{pipeline_spec}")
        hit = _ptx.load_cached(key, arch)
        if hit is not None:
            try:
                infos = load_kernel_infos(hit.kernel_infos_json)
            except (TypeError, ValueError, KeyError, AttributeError):
                infos = None
            if infos is not None:
                return NvptxProgram(hit, infos, None)
    if module is None:
        module = parse(text, name)
    if callable(pipeline):
        pipeline = pipeline()
    infos = run_pipeline(module, pipeline)
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
    compiled = _ptx.compile_ir(
        ir_text, arch=arch, kernel_infos_json=infos_json, cache_key=key,
        disk_cache=use_cache,
    )
    return NvptxProgram(compiled, infos, ir_text)
