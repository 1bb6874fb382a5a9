"""The Python API: ``xmux.compile(source)`` → ``Program``; ``prog.kernel(name)(*args, ...)``.

```python
prog = xmux.compile(source)                       # MLIR text, a path, or a builtin.ModuleOp
k = prog.kernel("vecadd")                         # also prog["vecadd"]
k(a, b, c, global_size=(n,), local_size=(256,))  # blocks until every work-group has run
```

Compilation runs the kernel pipeline (``xmux.pipelines.cpu()`` unless ``pipeline=`` is given),
verifying the IR after every pass, emits LLVM IR and JIT-compiles it. Compiled objects are
cached in memory and on disk, keyed on the source text and the pipeline, so a warm cache skips
the xDSL pipeline entirely.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from xmux.dialects.attrs import ArgInfo, KernelInfo, dump_kernel_infos, load_kernel_infos
from xmux.errors import NotSupportedError, XmuxError
from xmux.runtime import abi, launch

__all__ = ["Kernel", "Program", "compile", "compile_to_llvm_ir", "kernel_infos"]


def _read_source(source: object) -> tuple[str | None, object]:
    """(text, module-or-None) of what the user passed."""
    from xdsl.dialects.builtin import ModuleOp

    if isinstance(source, ModuleOp):
        return None, source.clone()
    if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and source.endswith(".mlir")
    ):
        path = Path(source)
        if not path.exists():
            raise XmuxError(f"no such file: {path}")
        return path.read_text(), None
    if isinstance(source, str):
        return source, None
    got = type(source).__name__
    raise XmuxError(f"xmux.compile expects MLIR text, a path or a ModuleOp, got {got}")


def parse(text: str, name: str = "<source>"):
    """Parse MLIR text with xmux's dialects; errors carry the location."""
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError, VerifyException

    from xmux.registry import make_context

    try:
        module = Parser(make_context(), text, name).parse_module()
    except ParseError as e:
        raise XmuxError(f"cannot parse {name}:\n{e}") from e
    try:
        module.verify()
    except VerifyException as e:
        raise XmuxError(f"{name} does not verify:\n{e}") from e
    return module


def _arg_info(kernel: str, index: int, arg) -> ArgInfo:
    from xdsl.dialects.builtin import (
        Float16Type,
        Float32Type,
        Float64Type,
        IndexType,
        IntegerType,
        MemRefType,
        NoneAttr,
        Signedness,
        StridedLayoutAttr,
    )

    name = arg.name_hint or f"arg{index}"
    t = arg.type

    def dtype_of(elem) -> str:
        if isinstance(elem, IndexType):
            return "int64"
        if isinstance(elem, IntegerType):
            width = elem.width.data
            if width == 1:
                return "bool"
            if width not in (8, 16, 32, 64):
                raise NotSupportedError(
                    f"kernel '{kernel}' argument {index} ('{name}'): i{width} is not supported"
                )
            if elem.signedness.data != Signedness.SIGNLESS:
                raise NotSupportedError(
                    f"kernel '{kernel}' argument {index} ('{name}'): {elem} is not supported; "
                    "use a signless integer type (arith ops are signless)"
                )
            return f"int{width}"
        floats = {Float16Type: "float16", Float32Type: "float32", Float64Type: "float64"}
        if type(elem) in floats:
            return floats[type(elem)]
        raise NotSupportedError(
            f"kernel '{kernel}' argument {index} ('{name}'): type {elem} is not supported"
        )

    if isinstance(t, MemRefType):
        shape = [None if s < 0 else int(s) for s in t.get_shape()]
        strided = isinstance(t.layout, StridedLayoutAttr) and not isinstance(t.layout, NoneAttr)
        return ArgInfo(name, "memref", dtype_of(t.element_type), shape, strided)
    return ArgInfo(name, "scalar", dtype_of(t))


def kernel_infos(module) -> list[KernelInfo]:
    """Launch metadata of the module's entry-point kernels (before scheduling)."""
    from xmux.dialects import attrs

    infos = []
    for f in attrs.entry_points(module):
        name = f.sym_name.data
        args = [_arg_info(name, i, a) for i, a in enumerate(f.body.blocks[0].args)]
        reqd = attrs.get_reqd_work_group_size(f)
        infos.append(
            KernelInfo(
                name=name,
                symbol=name + abi.ENTRY_HOOK_SUFFIX,
                args=args,
                reqd_work_group_size=list(reqd) if reqd else None,
                max_work_dim=attrs.get_max_work_dim(f),
            )
        )
    return infos


def run_pipeline(module, passes) -> list[KernelInfo]:
    """Apply ``passes`` verifying after each; returns kernel metadata taken after marking."""
    from xdsl.utils.exceptions import PassFailedException, VerifyException

    from xmux.pipelines import METADATA_PASSES
    from xmux.registry import make_context

    ctx = make_context()
    infos: list[KernelInfo] | None = None
    for p in passes:
        if infos is None and p.name not in METADATA_PASSES:
            infos = kernel_infos(module)
        try:
            p.apply(ctx, module)
            module.verify()
        except (VerifyException, PassFailedException) as e:
            raise XmuxError(f"pass '{p.name}' failed: {e}") from e
    return infos if infos is not None else kernel_infos(module)


def compile_to_llvm_ir(module, pipeline=None) -> tuple[str, list[KernelInfo]]:
    from xmux import pipelines
    from xmux.lowering.emit import emit_text

    passes = pipelines.cpu() if pipeline is None else list(pipeline)
    infos = run_pipeline(module, passes)
    return emit_text(module), infos


class Kernel:
    """A compiled kernel; call it with the kernel's arguments and an NDRange."""

    def __init__(self, program: Program, info: KernelInfo) -> None:
        self.program = program
        self.info = info
        self.name = info.name
        addr = program.jit.address(info.symbol)
        self._entry = abi.EntryHookFn(addr)

    def __call__(
        self,
        *args: object,
        global_size: Sequence[int] | int,
        local_size: Sequence[int] | int | None = None,
        global_offset: Sequence[int] | int | None = None,
        threads: int | None = None,
        spec_constants: dict | None = None,
    ) -> None:
        if spec_constants:
            raise NotSupportedError(
                f"kernel '{self.name}': spec_constants are not supported by this pipeline yet"
            )
        info = self.info
        nd = launch.NDRange(
            info.name,
            global_size,
            local_size,
            global_offset,
            info.reqd_work_group_size,
            info.max_work_dim,
        )
        packed = launch.PackedArgs(info, args)
        n = threads or self.program.threads or launch.default_threads()
        launch.run_ndrange(self._entry, packed.address, nd, n)

    def __repr__(self) -> str:
        sig = ", ".join(f"{a.name}: {a.kind} {a.dtype}" for a in self.info.args)
        return f"<xmux kernel {self.name}({sig})>"


class Program:
    """A compiled module: its kernels by name, the LLVM IR and the JIT module."""

    def __init__(self, jit, infos: list[KernelInfo], threads: int | None, llvm_ir: str | None):
        self.jit = jit
        self.infos = {i.name: i for i in infos}
        self.threads = threads
        self.llvm_ir = llvm_ir
        self._kernels: dict[str, Kernel] = {}

    @property
    def kernel_names(self) -> list[str]:
        return list(self.infos)

    def kernel(self, name: str) -> Kernel:
        if name not in self.infos:
            known = ", ".join(self.infos) or "none"
            raise XmuxError(f"no kernel named '{name}' in this program (kernels: {known})")
        if name not in self._kernels:
            self._kernels[name] = Kernel(self, self.infos[name])
        return self._kernels[name]

    __getitem__ = kernel


def _cache_key(text: str, pipeline_spec: str) -> str:
    from xmux.runtime.jit import target_fingerprint

    h = hashlib.sha256()
    for part in (text, pipeline_spec, target_fingerprint(), _code_hash()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


@cache
def _code_hash() -> str:
    """Hash of xmux's own sources: a changed pass must not reuse stale cached objects."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for sub in ("xmux", "dialects", "transforms", "lowering", "runtime"):
        for p in sorted((root / sub).rglob("*.py")):
            h.update(p.read_bytes())
    return h.hexdigest()


def compile(  # noqa: A001 - the public name in the contract
    source: object,
    *,
    pipeline=None,
    threads: int | None = None,
    cache: bool | None = None,
) -> Program:
    """Compile MLIR text / a path / a ModuleOp to a runnable ``Program``."""
    from xmux.runtime import jit
    from xmux.runtime.runner import install_runtime_symbols

    install_runtime_symbols()  # a module may carry host code that prints or launches
    text, module = _read_source(source)
    use_cache = cache if cache is not None else os.environ.get("XMUX_CACHE", "1") != "0"
    key = None
    if text is not None and use_cache:
        from xmux import pipelines

        spec = "default" if pipeline is None else pipelines.spec(pipeline)
        key = _cache_key(text, spec)
        hit = jit.load_cached(key)
        if hit is not None:
            return Program(hit, load_kernel_infos(hit.kernel_infos_json), threads, None)
    if module is None:
        module = parse(text)
    ir_text, infos = compile_to_llvm_ir(module, pipeline)
    if not infos:
        raise XmuxError(
            "the module has no entry-point kernel: mark one with attributes "
            '{mux.kernel = "entry_point"} or run encode-kernel-metadata{kernel-name=...}'
        )
    compiled = jit.compile_ir(
        ir_text, kernel_infos_json=dump_kernel_infos(infos), cache_key=key, disk_cache=use_cache
    )
    return Program(compiled, infos, threads, ir_text)
