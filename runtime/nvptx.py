"""LLVM IR → PTX with llvmlite's NVPTX backend (no GPU needed), cached on disk like objects.

``ptx(ir_text, arch)`` runs the O3 pipeline with the NVPTX target machine (the same
``runtime/jit.py`` settings, contained in a forked child with its CPU budget) and emits
PTX text; ``PtxModule`` keeps it with the kernel metadata. The cache lives beside the host
objects (``$XMUX_CACHE_DIR/nvptx/<key>.ptx`` + ``.json``); the CUDA driver keeps its own
cache of the machine code it builds from the PTX.

Floating-point contraction: ``a * b + c`` may become one ``fma`` (``-nvptx-fma-level=1``), as
nvcc and NVRTC do by default and OpenCL C allows by default (``FP_CONTRACT ON``).

The architecture is ``XMUX_NVPTX_ARCH`` (``sm_90`` ...), else that of the current CUDA device
when CuPy sees one, else ``sm_90`` (H100/H200).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from xmux.abi import nvptx_abi as abi
from xmux.abi.errors import XmuxError
from xmux.runtime import disk_cache, jit

_lock = threading.Lock()
_memory: dict[str, PtxModule] = {}


@dataclass
class PtxModule:
    """PTX text of a module and the kernel metadata stored with it."""

    key: str
    ptx: str
    kernel_infos_json: str
    arch: str
    source: str  # "compiled" | "disk"


@cache
def _init_targets() -> None:
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def default_arch() -> str:
    """``XMUX_NVPTX_ARCH``, else the current device's ``sm_XY``, else ``sm_90``."""
    arch = os.environ.get("XMUX_NVPTX_ARCH")
    if arch:
        if not arch.startswith("sm_") or not arch[3:].rstrip("a").isdigit():
            raise XmuxError(f"XMUX_NVPTX_ARCH={arch}: expected an NVPTX arch like sm_90")
        return arch
    from xmux.runtime import cuda

    found = cuda.device_arch()
    return found or abi.DEFAULT_ARCH


@cache
def machine(arch: str):
    """The NVPTX target machine for ``arch`` (``sm_90`` → PTX ISA 8.0)."""
    import llvmlite.binding as llvm

    _init_targets()
    # fuse a*b+c into fma as CUDA's compilers do by default (OpenCL C's FP_CONTRACT is on by
    # default too): NVPTX contracts only when asked on the command line or with unsafe math
    llvm.set_option("", "-nvptx-fma-level=1")
    target = llvm.Target.from_triple(abi.TRIPLE)
    return target.create_target_machine(cpu=arch, features=abi.PTX_FEATURES, opt=3)


def ptx(ir_text: str, arch: str = abi.DEFAULT_ARCH, what: str = "LLVM IR",
        link: Sequence[str] = ()) -> str:
    """PTX of ``ir_text`` (with the modules of ``link`` linked in, as ``jit.compile_ir``)
    after LLVM's O3 pipeline for ``arch``."""
    tm = machine(arch)

    def work(settings: jit.Settings) -> str:
        with jit._lock:
            mod = jit._parse_linked(ir_text, link, tm)
            jit._optimize(mod, tm, settings)
            return tm.emit_assembly(mod)

    return jit._contained(work, what, len(ir_text) + sum(map(len, link)))


def optimized_ir(ir_text: str, arch: str = abi.DEFAULT_ARCH) -> str:
    """The NVPTX module after O3 (tests and debugging)."""
    tm = machine(arch)

    def work(settings: jit.Settings) -> str:
        with jit._lock:
            mod = jit._parse_linked(ir_text, (), tm)
            jit._optimize(mod, tm, settings)
            return str(mod)

    return jit._contained(work, "LLVM IR", len(ir_text))


def _cache_dir() -> Path | None:
    base = jit.default_cache_dir()
    return base / "nvptx" if base is not None else None


def _key(parts: Sequence[str]) -> str:
    import llvmlite

    h = hashlib.sha256()
    for part in (*parts, llvmlite.__version__):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _read(directory: Path, key: str) -> PtxModule | None:
    record = disk_cache.read_sealed(directory / f"{key}.json")
    if record is None:
        return None
    infos, arch = record.get("kernel_infos"), record.get("arch")
    if not isinstance(infos, str) or not isinstance(arch, str):
        disk_cache.damaged(directory / f"{key}.json", "not a record of this xmux")
        return None
    try:
        text = (directory / f"{key}.ptx").read_text()
    except (OSError, ValueError):
        return None
    if record.get("sha256") != hashlib.sha256(text.encode()).hexdigest():
        disk_cache.damaged(directory / f"{key}.ptx", "checksum mismatch")
        return None
    return PtxModule(key, text, infos, arch, "disk")


def _write(directory: Path, module: PtxModule) -> None:
    """PTX first, then the record whose seal covers the PTX's digest (runtime/disk_cache.py)."""
    record = {
        "arch": module.arch,
        "kernel_infos": module.kernel_infos_json,
        "sha256": hashlib.sha256(module.ptx.encode()).hexdigest(),
    }
    if disk_cache.write_atomic(directory / f"{module.key}.ptx", module.ptx.encode()):
        disk_cache.write_atomic(directory / f"{module.key}.json", disk_cache.dumps_sealed(record))


def load_cached(cache_key: str, arch: str) -> PtxModule | None:
    key = _key(("key", cache_key, arch))
    with _lock:
        hit = _memory.get(key)
        if hit is None and (directory := _cache_dir()) is not None:
            hit = _read(directory, key)
            if hit is not None:
                _memory[key] = hit
        return hit


def compile_ir(
    ir_text: str,
    *,
    arch: str,
    kernel_infos_json: str = "",
    cache_key: str | None = None,
    disk_cache: bool = True,
    link: Sequence[str] = (),
) -> PtxModule:
    """PTX for ``ir_text`` (from the caches when built before); ``cache_key`` as for
    ``jit.compile_ir`` (a caller's key standing for its whole input)."""
    parts = ("key", cache_key, arch) if cache_key is not None else (
        "ir", ir_text, *link, kernel_infos_json, arch)
    key = _key(parts)
    directory = _cache_dir() if disk_cache else None
    with _lock:
        hit = _memory.get(key)
        if hit is None and directory is not None:
            hit = _read(directory, key)
    if hit is not None:
        return hit
    text = ptx(ir_text, arch, jit._kernel_names(kernel_infos_json), link)
    module = PtxModule(key, text, kernel_infos_json, arch, "compiled")
    with _lock:
        _memory[key] = module
    if directory is not None:
        _write(directory, module)
    return module
