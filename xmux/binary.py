"""``xmux.load(path)``: a program saved by ``Program.save`` (CPU) or ``NvptxProgram.save``,
back as the same ``Program`` API without xDSL, a parse or a compile (docs/architecture.md,
"Program binaries"; the format: ``runtime/binary.py``).

A CPU binary's objects are loaded into the JIT as they are (``jit.load_object``), its
local-size variants and value-set specializations put back where the launchers and the
specialization state look for them. A launch needing a variant the file lacks builds it only
when the file carries the source (importing xDSL then, as a compiled program does); without
the source that launch runs the kernel's generic code.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from xmux.abi.errors import user_errors
from xmux.abi.kernel_layout import KernelInfo, dump_kernel_infos
from xmux.runtime import binary as _binary
from xmux.runtime import spec_constants as _spec
from xmux.runtime.launch import NDRange
from xmux.runtime.launcher import LocalSizeVariants

__all__ = ["BinaryError", "load"]

BinaryError = _binary.BinaryError


@user_errors
def load(path: str | Path, *, threads: int | None = None) -> object:
    """The program saved in ``path``: a CPU ``xmux.Program`` or an NVPTX program. Raises
    ``BinaryError`` for a damaged file, another xmux ABI version, or a CPU binary built for
    features this host lacks. ``threads`` overrides the saved program's thread count."""
    notes, blobs = _binary.read(path)
    where = f"program binary {path}"
    target = notes.get("target") or {}
    try:
        infos = [KernelInfo.from_json(k) for k in notes["kernels"]]
        if target.get("name") == "nvptx":
            return _load_nvptx(notes, blobs, infos)
        if target.get("name") != "cpu":
            raise _binary.BinaryError(f"{where}: unknown target {target.get('name')!r}")
        return _load_cpu(notes, blobs, infos, where, threads)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise _binary.BinaryError(f"{where}: notes of another shape ({e!r})") from None


def _spec_state(notes: dict, infos_json: str, key: str | None) -> _spec.SpecState | None:
    saved = notes.get("spec")
    if saved is None:
        return None
    table = _spec.SpecTable.from_json(json.dumps(saved["table"]))
    state = _spec.SpecState(table, key, infos_json, False)  # no disk cache: the file is it
    state.values = {k: bytes.fromhex(v) for k, v in saved["values"].items()}
    state._version += 1
    return state


def _load_cpu(notes: dict, blobs: list[bytes], infos: list[KernelInfo], where: str,
              threads: int | None) -> object:
    from xmux.runtime import abi, jit
    from xmux.targets.cpu import CpuTarget, Program

    _binary.check_cpu(notes["target"], *jit.host_cpu(), where)
    CpuTarget().prepare(None)  # type: ignore[arg-type] # runtime symbols the objects call
    infos_json = dump_kernel_infos(infos)
    modules = [jit.load_object(blob, entry["record"]) for entry, blob in
               zip(notes["objects"], blobs, strict=True)]
    roles = [entry["role"] for entry in notes["objects"]]
    key = notes.get("cache_key")
    spec = _spec_state(notes, infos_json, key)
    saved = notes["program"]
    prog = Program(modules[roles.index("program")], infos,
                   threads if threads is not None else saved["threads"], None, spec)
    prog.checks, prog.tune = bool(saved["checks"]), bool(saved["tune"])
    host = notes.get("host")
    if host is not None and host.get("kernel_table") is not None:
        prog._host_table = list(host["kernel_table"])
    prog._code_options = notes.get("options")  # a re-save keeps the source
    source = notes.get("source")
    if source is not None:  # variants the file lacks are built from it (imports xDSL then)
        prog._source = (source, _pipeline(notes["options"]), key, False)
    for entry, module in zip(notes["objects"], modules, strict=True):
        role = entry["role"]
        if role not in ("variant", "spec-variant") or (role == "spec-variant" and spec is None):
            if role == "spec" and spec is not None:
                spec._modules[bytes.fromhex(entry["values"])] = module
            continue
        kernel = prog.kernel(entry["kernel"])
        variants = kernel._launcher.variants
        if source is None and not isinstance(variants, _SavedVariants):
            variants = kernel._launcher.variants = _SavedVariants(
                kernel.info, None, prog, spec, kernel._launcher.entry)
        local = tuple(entry["local_size"])
        address = module.address(kernel.info.symbol)
        if role == "variant":
            variants.built[local] = abi.EntryHookFn(address)
        else:  # native specialization constants: the spec state keeps it per value set
            variants.built[local] = None
            tag = f"{entry['kernel']}/{local}"  # as LocalSizeVariants._native names it
            spec._variant_entries[(tag, bytes.fromhex(entry["values"]))] = abi.EntryHookFn(
                address)
    return prog


class _SavedVariants(LocalSizeVariants):
    """A kernel's local-size variants from a binary without the source: those it carries run,
    no other is built (a launch of another local size, or value set, runs the generic code:
    the program's entry, or the value set's plain specialization)."""

    def _key(self, nd: NDRange) -> tuple[int, ...] | None:
        local = nd.local_size
        if local not in self.built:
            return None
        if any(g % size for g, size in zip(nd.global_size, local, strict=True)):
            return None
        return local

    def _native(self, local: tuple[int, ...], spec_values: bytes) -> object:
        assert self.spec is not None
        found = self.spec._variant_entries.get((f"{self.info.name}/{local}", spec_values))
        if found is not None:
            return found
        return self.spec.entry(self.info.name, self.info.symbol, spec_values) or self.generic


def _pipeline(options: dict) -> object:
    """The CPU pipeline a variant is lowered with (the saved program's code options), built
    on first use (imports xDSL)."""

    def build() -> object:
        warnings.warn(
            "xmux.load: a local-size variant missing from the binary is built from the source "
            "it carries (xDSL and the passes are imported)", RuntimeWarning, stacklevel=2)
        from xmux.options import CompileOptions
        from xmux.targets.cpu import CpuTarget

        return CompileOptions(**options).passes(CpuTarget())

    return build


def _load_nvptx(notes: dict, blobs: list[bytes], infos: list[KernelInfo]) -> object:
    from xmux.runtime.nvptx import PtxModule
    from xmux.targets.nvptx import NvptxProgram

    arch = notes["target"]["arch"]
    ptx = blobs[[e["role"] for e in notes["objects"]].index("program")].decode()
    module = PtxModule(notes.get("cache_key") or "", ptx, dump_kernel_infos(infos), arch,
                       "binary")
    spec = _spec_state(notes, dump_kernel_infos(infos), notes.get("cache_key"))
    return NvptxProgram(module, infos, None, spec)
