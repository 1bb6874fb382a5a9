"""The Python API: ``xmux.compile(source)`` → ``Program``; ``prog.kernel(name)(*args, ...)``.

```python
prog = xmux.compile(source)                       # MLIR text, a path, or a builtin.ModuleOp
k = prog.kernel("vecadd")                         # also prog["vecadd"]
k(a, b, c, global_size=(n,), local_size=(256,))  # blocks until every work-group has run
```

Compilation runs the kernel pipeline (``xmux.pipelines.cpu()`` unless ``pipeline=`` is given),
verifying its input and output IR (after every pass in the checking mode or with
``XMUX_VERIFY_EACH=1``), emits LLVM IR and JIT-compiles it. Compiled objects are
cached in memory and on disk, keyed on the source text and the pipeline, so a warm cache skips
the xDSL pipeline entirely.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import NamedTuple

from xmux.dialects.kernel_layout import ArgInfo, KernelInfo, dump_kernel_infos, load_kernel_infos
from xmux.errors import NotSupportedError, XmuxError
from xmux.runtime import abi, env
from xmux.runtime import checks as _checks
from xmux.runtime import spec_constants as _spec
from xmux.runtime.launcher import KernelLauncher, Lowered, VariantSource
from xmux.sources import read_source_file  # re-exported: callers import it from here too
from xmux.spec_api import KernelTable, SpecConstantsAPI

__all__ = ["Kernel", "Program", "compile", "compile_to_llvm_ir", "kernel_infos"]


def _read_source(source: object) -> tuple[str | None, object]:
    """(text, module-or-None) of what the user passed."""
    if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and source.endswith(".mlir")
    ):
        return read_source_file(Path(source)), None
    if isinstance(source, str):
        return source, None
    from xdsl.dialects.builtin import ModuleOp  # only here: text hitting the cache needs no xDSL

    if isinstance(source, ModuleOp):
        return None, source.clone()
    got = type(source).__name__
    raise XmuxError(f"xmux.compile expects MLIR text, a path or a ModuleOp, got {got}")


def parse(text: str, name: str = "<source>"):
    """Parse MLIR text with xmux's dialects; errors carry the location."""
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError, VerifyException

    from xmux.registry import make_context

    if not text.strip():
        raise XmuxError(f"{name} is empty: expected an MLIR module")
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
        ComplexType,
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

    from xmux.transforms.replace_local_module_scope_variables import is_local_memref

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
        complexes = {Float32Type: "complex64", Float64Type: "complex128"}
        if isinstance(elem, ComplexType) and type(elem.element_type) in complexes:
            # complex<f32> / complex<f64>: numpy's complex64 / complex128 layout
            return complexes[type(elem.element_type)]
        raise NotSupportedError(
            f"kernel '{kernel}' argument {index} ('{name}'): type {elem} is not supported"
        )

    if isinstance(t, MemRefType):
        shape = [None if s < 0 else int(s) for s in t.get_shape()]
        strided = isinstance(t.layout, StridedLayoutAttr) and not isinstance(t.layout, NoneAttr)
        if is_local_memref(t):
            # work-group local buffer: allocated per work-group execution, sized at launch
            where = f"kernel '{kernel}' argument {index} ('{name}'): local memory {t}"
            if not isinstance(t.layout, NoneAttr):
                raise NotSupportedError(f"{where} must have an identity layout")
            if shape.count(None) > 1:
                raise NotSupportedError(
                    f"{where} may have one dynamic dimension at most (its size comes from "
                    "the byte size given at launch)"
                )
            return ArgInfo(name, "local", dtype_of(t.element_type), shape)
        return ArgInfo(name, "memref", dtype_of(t.element_type), shape, strided)
    return ArgInfo(name, "scalar", dtype_of(t))


def kernel_infos(module, sub_group_size: int = 1) -> list[KernelInfo]:
    """Launch metadata of the module's entry-point kernels (before scheduling);
    ``sub_group_size`` is that of the pipeline's lower-sub-group-collectives."""
    from xdsl.dialects import func

    from xmux.dialects import attrs
    from xmux.transforms.arg_access import may_write
    from xmux.transforms.lower_sub_group_collectives import uses_sub_group_scratch
    from xmux.transforms.lower_work_group_collectives import (
        MAX_WORK_GROUP_SIZE,
        uses_work_group_collectives,
    )

    symbols = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    infos = []
    for f in attrs.entry_points(module):
        name = f.sym_name.data
        args = [_arg_info(name, i, a) for i, a in enumerate(f.body.blocks[0].args)]
        for info, a in zip(args, f.body.blocks[0].args, strict=True):
            if info.kind == "memref":
                info.written = may_write(a, symbols)
        reqd = attrs.get_reqd_work_group_size(f)
        # collectives' scratch storage is sized for a maximum unless the size is required
        max_wg = None
        if reqd is None and (
            uses_work_group_collectives(module, f)
            or uses_sub_group_scratch(module, f, sub_group_size)
        ):
            max_wg = MAX_WORK_GROUP_SIZE
        infos.append(
            KernelInfo(
                name=name,
                symbol=name + abi.ENTRY_HOOK_SUFFIX,
                args=args,
                reqd_work_group_size=list(reqd) if reqd else None,
                max_work_dim=attrs.get_max_work_dim(f),
                max_work_group_size=max_wg,
            )
        )
    return infos


def run_pipeline(module, passes, observe=None, verify_each: bool | None = None
                 ) -> list[KernelInfo]:
    """Apply ``passes``; returns kernel metadata taken after marking. ``observe(pass,
    module)``, when given, runs after each pass (to read records).

    The IR is verified after the last pass; after every pass (naming the pass whose output
    does not verify) with ``verify_each``, by default in the checking mode (``XMUX_CHECKS=1``)
    and with ``XMUX_VERIFY_EACH=1`` (the test suite sets it): xDSL's verifier run after each
    of the ~20 passes cost as much as the whole pipeline otherwise (bench/compile_scaling.py).
    Only the top-level ops a pass changed (and those referring to a symbol it changed) are
    verified again (``xmux.ir_snapshot``).
    """
    from xdsl.utils.exceptions import PassFailedException, VerifyException

    from xmux.ir_snapshot import Snapshot, verify_changes
    from xmux.pipelines import METADATA_PASSES
    from xmux.registry import make_context

    ctx = make_context()
    infos: list[KernelInfo] | None = None
    sub_group_size = next(
        (getattr(p, "sub_group_size", 1) for p in passes
         if p.name == "lower-sub-group-collectives"),
        1,
    )
    if verify_each is None:
        verify_each = env.flag("XMUX_VERIFY_EACH", False) or env.flag("XMUX_CHECKS", False)
    verified: Snapshot | None = None  # the IR as last verified
    for p in passes:
        if infos is None and p.name not in METADATA_PASSES:
            infos = kernel_infos(module, sub_group_size)
        try:
            p.apply(ctx, module)
            if verify_each:  # only what the pass changed: the rest is verified already
                verified = verify_changes(module, verified)
        except (VerifyException, PassFailedException) as e:
            raise XmuxError(f"pass '{p.name}' failed: {e}") from e
        if p.name == "expand-oacc-reductions" and infos is not None:
            _refresh_work_group_limits(module, infos)
        if observe is not None:
            observe(p, module)
        if p.name == "work-item-loops" and infos is not None:
            _record_vector_schedules(module, infos)
    if not verify_each and passes:
        try:
            module.verify()
        except VerifyException as e:
            names = ", ".join(p.name for p in passes)
            raise XmuxError(
                f"the IR after the pass pipeline ({names}) does not verify (XMUX_VERIFY_EACH=1 "
                f"or checks=True verifies after every pass and names the pass): {e}"
            ) from e
    return infos if infos is not None else kernel_infos(module, sub_group_size)


def _record_vector_schedules(module, infos: list[KernelInfo]) -> None:
    """work-item-loops' vector schedule (``mux.vector_schedule``) into the launch metadata:
    without a tail the launcher checks the local size."""
    from xmux.dialects import attrs

    by_name = {i.name: i for i in infos}
    for f in attrs.entry_points(module):
        info = by_name.get(f.sym_name.data)
        schedule = attrs.get_vector_schedule(f)
        if info is not None and schedule is not None:
            info.vector_width = schedule.width
            info.vector_dim = schedule.dim
            info.vector_tail = schedule.tail


def _refresh_work_group_limits(module, infos: list[KernelInfo]) -> None:
    """expand-oacc-reductions may set a kernel's required work-group size (host: 1x1x1) or
    give it a buffer sized for the largest work-group: update the launch metadata."""
    from xmux.dialects import attrs
    from xmux.transforms.expand_oacc_reductions import uses_capacity_buffer
    from xmux.transforms.lower_work_group_collectives import MAX_WORK_GROUP_SIZE

    kernels = {f.sym_name.data: f for f in attrs.entry_points(module)}
    for info in infos:
        f = kernels.get(info.name)
        if f is None or attrs.get_oacc_dims(f) is None:
            continue
        reqd = attrs.get_reqd_work_group_size(f)
        info.reqd_work_group_size = list(reqd) if reqd else None
        if reqd is None and uses_capacity_buffer(module, f):
            info.max_work_group_size = MAX_WORK_GROUP_SIZE


def compile_to_llvm_ir(module, pipeline=None, observe=None, verify_each: bool | None = None
                       ) -> tuple[str, list[KernelInfo]]:
    from xmux import pipelines
    from xmux.lowering.emit import emit_text

    passes = pipelines.cpu() if pipeline is None else list(pipeline)
    infos = run_pipeline(module, passes, observe, verify_each)
    return emit_text(module), infos


class LaunchProfile(NamedTuple):
    """A launch's timestamps (``time.perf_counter`` seconds), as OpenCL's profiling events
    give COMMAND_START / COMMAND_END: ``start`` right before the work-groups are handed to the
    thread pool (argument checks and packing done), ``end`` once all have finished."""

    start: float
    end: float

    @property
    def seconds(self) -> float:
        """The kernel's run time: the work-groups on the pool, hand-off and join included."""
        return self.end - self.start


class Kernel:
    """A compiled kernel; call it with the kernel's arguments and an NDRange. Its launches run
    through a ``runtime.launcher.KernelLauncher`` (which code runs, the replay of a repeated
    launch and what that replay depends on)."""

    def __init__(self, program: Program, info: KernelInfo) -> None:
        self.program = program
        self.info = info
        self.name = info.name
        entry = abi.EntryHookFn(program.jit.address(info.symbol))
        self._launcher = KernelLauncher(
            info, entry, program, program._spec, program._variant_source(info)
        )

    def __call__(
        self,
        *args: object,
        global_size: Sequence[int] | int,
        local_size: Sequence[int] | int | None = None,
        global_offset: Sequence[int] | int | None = None,
        threads: int | None = None,
        spec_constants: dict | None = None,
        profile: bool = False,
    ) -> LaunchProfile | None:
        """Run the kernel. ``spec_constants={symbolic id: value}`` overrides the program's
        values (``Program.set_spec_constant``) for this launch; ids of the program that this
        kernel does not read are accepted and ignored. ``profile=True`` returns the launch's
        ``LaunchProfile`` (kernel start and end, without the Python side of the call)."""
        span = self._launcher(
            args, (global_size, local_size, global_offset), threads, spec_constants, profile
        )
        _checks.raise_pending()  # a failed check of the checking mode (runtime/checks.py)
        return LaunchProfile(*span) if span is not None else None

    def __repr__(self) -> str:
        sig = ", ".join(f"{a.name}: {a.kind} {a.dtype}" for a in self.info.args)
        return f"<xmux kernel {self.name}({sig})>"


class Program(KernelTable, SpecConstantsAPI):
    """A compiled module: its kernels by name, the LLVM IR and the JIT module."""

    _kernel_class = Kernel

    def __init__(
        self,
        jit,
        infos: list[KernelInfo],
        threads: int | None,
        llvm_ir: str | None,
        spec: _spec.SpecState | None = None,
    ):
        self.jit = jit
        self.infos = {i.name: i for i in infos}
        self.threads = threads
        self.llvm_ir = llvm_ir
        self._spec = spec
        self._kernels: dict[str, Kernel] = {}
        #: the checking mode (compile's ``checks``): launches raise failed run-time checks
        self.checks = False
        # local-size variants (runtime/launcher.py, LocalSizeVariants); set by compile()
        self._source: tuple[str, object, str, bool] | None = None
        #: build a variant with two vector widths and keep the faster (runtime/tuning.py)
        self.tune = True

    def _variant_source(self, info: KernelInfo) -> VariantSource | None:
        """How the launcher builds ``info``'s local-size variants (None: it builds none)."""
        if self._source is None:
            return None
        _, _, base_key, use_cache = self._source
        return VariantSource(
            lambda local: self._variant_ir(info, local), base_key or None, use_cache
        )

    def _variant_ir(self, info: KernelInfo, local: tuple[int, ...]) -> Lowered:
        from xmux.runtime import interrupt

        # a launch compiles this: Ctrl-C waits for its end (it may import xDSL for the first
        # time, which an exception in the middle leaves broken: interrupt.sigint_deferred)
        with interrupt.sigint_deferred():
            return self._variant_ir_now(info, local)

    def _variant_ir_now(self, info: KernelInfo, local: tuple[int, ...]) -> Lowered:
        from xdsl.dialects.builtin import ModuleOp

        from xmux.dialects import attrs

        text, pipeline, _, _ = self._source  # type: ignore[misc]
        if callable(pipeline):  # built lazily: a cache hit does not import the passes
            pipeline = pipeline()
        module = parse(text) if isinstance(text, str) else text.clone()  # type: ignore[union-attr]
        assert isinstance(module, ModuleOp)
        kernels = {f.sym_name.data: f for f in attrs.entry_points(module)}
        if info.name in kernels:
            attrs.set_reqd_work_group_size(kernels[info.name], local)
            _keep_only_kernel(module, info.name)
        from xmux.runtime import tuning

        ir_text = compile_to_llvm_ir(module, pipeline)[0]
        return Lowered(ir_text, tuning.width_dependent(module))



def _keep_only_kernel(module, name: str) -> None:
    """A local-size variant is built for one kernel: the module's other kernels and its host
    code are dropped first (``drop-host-code`` from ``@name``), so specializing one kernel of a
    large module does not compile all of them again. Modules with specialization constants
    keep everything (their leaves and tables are the program's)."""
    from xmux.dialects import attrs
    from xmux.registry import make_context
    from xmux.transforms.drop_host_code import DropHostCode

    if any(op.name.startswith("spec.") for op in module.walk()):
        return
    for f in attrs.entry_points(module):
        if f.sym_name.data != name:
            attrs.clear_kernel(f)
    DropHostCode().apply(make_context(), module)


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
    spec_constants: str = "native",
    specialize: bool | None = None,
    tune: bool | None = None,
    sub_group_size: int = 1,
    vector_width: int = 0,
    force_no_tail: bool = False,
    oacc_target: str = "cpu",
    checks: bool | None = None,
    spec_padding: str = "dpcpp",
    target: str = "cpu",
) -> Program:
    """Compile MLIR text / a path / a ModuleOp to a runnable ``Program``.

    ``pipeline`` replaces the default pass pipeline: a list of passes
    (``xmux.pipelines.cpu()`` with your own spliced in) or the textual form ``xmux-opt -p``
    takes (``"lower-spec-constants{mode=emulated},...,convert-to-llvm"``); it must end in the
    llvm dialect. ``threads`` is the default number of worker threads of this program's
    launches (default: the cores; a launch's ``threads=`` overrides it). ``cache`` (default
    ``XMUX_CACHE``, on) keeps compiled objects in memory and on disk (``XMUX_CACHE_DIR``,
    default ``~/.cache/xmux``), keyed on the source, the pipeline, the host CPU and xmux's
    own code.

    ``spec_constants`` picks how specialization constants are lowered by the default
    pipeline: ``"native"`` (the kernel is JIT-specialized for each distinct value set, so LLVM
    sees the values as literals) or ``"emulated"`` (a runtime buffer, one compiled kernel);
    ``spec_padding`` the form of their property sets: ``"dpcpp"`` (sycl-post-link's) or
    ``"gaps"`` (xmux's: a padding descriptor for every gap; docs/architecture.md).
    ``specialize`` (default on, ``XMUX_SPECIALIZE=0`` turns it off) lets a kernel launched
    repeatedly with one local size be recompiled for that size (``runtime/launcher.py``,
    ``LocalSizeVariants``).
    ``tune`` (default on, ``XMUX_TUNE=0`` turns it off): on a host with 512-bit vectors that
    variant is built with 512- and 256-bit vectors and the next launches, timed, pick the
    faster (``runtime/tuning.py``; not for code whose float results could depend on it).
    ``sub_group_size`` is the emulated sub-group size of kernels without
    ``mux.reqd_sub_group_size`` (default pipeline only; ``pipelines.cpu(sub_group_size=)``
    builds a pipeline with it).
    ``vector_width`` / ``force_no_tail`` (default pipeline only) are work-item-loops' vector +
    scalar tail scheduling (``xmux.pipelines.cpu``).
    ``oacc_target`` picks the expansion of OpenACC kernels (expand-oacc-reductions): ``"cpu"``
    (gangs on the thread pool) or ``"host"`` (one thread); default pipeline only.
    ``checks`` (default ``XMUX_CHECKS=1``) is the checking mode: every memref access
    bounds-checked and trapping integer divisions reported at run time
    (``insert-bounds-checks``), the launch raising ``xmux.CheckError`` naming the kernel,
    op, indices, work-item and group; and work-item-loops' storage plan check. With
    ``pipeline=`` add ``pipelines.cpu(checks=True)``'s passes yourself.
    ``target`` is ``"cpu"`` (default: the JIT on this host) or ``"nvptx"``: PTX for an NVIDIA
    GPU, run through CuPy (``xmux/nvptx.py``; ``pipelines.nvptx()``); the CPU-only options
    (``threads``, ``vector_width``, ``force_no_tail``, ``oacc_target``, ``sub_group_size``)
    must keep their defaults there; ``checks`` works there too (failures recorded on the
    device, raised after the launch).
    """
    if target not in ("cpu", "nvptx"):
        raise XmuxError(f"xmux.compile: target must be 'cpu' or 'nvptx', got {target!r}")
    if isinstance(pipeline, str):
        from xmux import pipelines as _pipelines

        pipeline = _pipelines.parse(pipeline)
    if target == "nvptx":
        return _compile_nvptx(  # type: ignore[return-value]
            source, pipeline, cache, spec_constants, spec_padding,
            {"threads": (threads, None), "vector_width": (vector_width, 0),
             "force_no_tail": (force_no_tail, False), "oacc_target": (oacc_target, "cpu"),
             "sub_group_size": (sub_group_size, 1)}, checks,
        )
    from xmux import pipelines
    from xmux.runtime import jit, pool
    from xmux.runtime.runner import install_runtime_symbols

    pool.prepare_native()  # LLVM builds the launch code while the front end runs
    install_runtime_symbols()  # a module may carry host code that prints or launches
    if threads is not None:
        from xmux.runtime.launch import check_threads

        threads = check_threads(threads, "xmux.compile")
    if checks is None:
        checks = env.flag("XMUX_CHECKS", False)
    _checks.install()  # also for a user pipeline with the checking passes
    text, module = _read_source(source)
    name = str(source) if isinstance(source, (str, Path)) and text != source else "<source>"
    use_cache = cache if cache is not None else env.flag("XMUX_CACHE", True)
    if specialize is None:
        specialize = env.flag("XMUX_SPECIALIZE", True)
    if tune is None:
        tune = env.flag("XMUX_TUNE", True)
    if not isinstance(sub_group_size, int) or sub_group_size < 1:
        raise XmuxError(
            f"xmux.compile: sub_group_size must be a positive integer, got {sub_group_size!r}"
        )
    if pipeline is not None and sub_group_size != 1:
        raise XmuxError(
            "xmux.compile: sub_group_size applies to the default pipeline; with pipeline= use "
            "xmux.pipelines.cpu(sub_group_size=...)"
        )
    if pipeline is not None and spec_padding != "dpcpp":
        raise XmuxError(
            "xmux.compile: spec_padding applies to the default pipeline; with pipeline= use "
            "xmux.pipelines.cpu(spec_padding=...)"
        )
    if pipeline is not None and oacc_target != "cpu":
        raise XmuxError(
            "xmux.compile: oacc_target applies to the default pipeline; with pipeline= use "
            "xmux.pipelines.cpu(oacc_target=...)"
        )
    if pipeline is None:
        if spec_constants not in ("native", "emulated"):
            raise XmuxError(
                f"xmux.compile: spec_constants must be one of ('native', 'emulated'), got "
                f"{spec_constants!r}"
            )
        if spec_padding not in ("dpcpp", "gaps"):
            raise XmuxError(
                f"xmux.compile: spec_padding must be one of ('dpcpp', 'gaps'), got "
                f"{spec_padding!r}"
            )
        if oacc_target not in ("cpu", "host"):
            raise XmuxError(
                f"xmux.compile: oacc_target must be one of ('cpu', 'host'), got {oacc_target!r}"
            )
        mode, target = spec_constants, oacc_target
        if not pipelines.valid_vector_width(vector_width):
            raise XmuxError(
                "xmux.compile: vector_width must be 0, 1 or a power of two, got "
                f"{vector_width!r}"
            )

        # built only on a cache miss: importing every pass costs ~80 ms a warm hit avoids
        def pipeline():  # noqa: F811 - a factory standing in for the pass list
            return pipelines.cpu(
                spec_constants=mode,
                sub_group_size=sub_group_size,
                vector_width=vector_width,
                force_no_tail=force_no_tail,
                oacc_target=target,
                checks=checks,
                spec_padding=spec_padding,
            )

        pipeline_spec = "default" if mode == "native" else f"default/spec-constants={mode}"
        if spec_padding != "dpcpp":
            pipeline_spec += f"/spec-padding={spec_padding}"
        if sub_group_size != 1:
            pipeline_spec += f"/sub-group-size={sub_group_size}"
        if vector_width > 1 or force_no_tail:  # part of the cache key
            pipeline_spec += f"/vector-width={vector_width}/force-no-tail={force_no_tail}"
        if target != "cpu":
            pipeline_spec += f"/oacc-target={target}"
        if checks:  # the checking mode's passes (pipelines.cpu)
            pipeline_spec += "/checks"
        elif env.flag("XMUX_CHECK_PLAN", False):
            pipeline_spec += "/check-plan"
    else:
        if vector_width or force_no_tail:
            raise XmuxError(
                "xmux.compile: vector_width/force_no_tail apply to the default pipeline; with "
                "pipeline=, pass xmux.pipelines.cpu(vector_width=...) instead"
            )
        fingerprint = pipelines.fingerprint(pipeline)
        if fingerprint is None:  # a pass without readable source: no safe key
            use_cache = False
        pipeline_spec = fingerprint or pipelines.spec(pipeline)
    cache_dir = jit.default_cache_dir() if use_cache else None
    key = None
    if text is not None and use_cache:
        key = _cache_key(text, pipeline_spec)
        hit = jit.load_cached(key)
        table = _spec.load_table(key, cache_dir) if hit is not None else None
        if hit is not None and (table is not None or not _spec.may_have_markers(text)):
            spec = None
            if table is not None:
                spec = _spec.SpecState(table, key, hit.kernel_infos_json, use_cache)
            try:
                infos = load_kernel_infos(hit.kernel_infos_json)
            except (TypeError, ValueError, KeyError, AttributeError):
                infos = None  # a cache record of another shape: compile again
            if infos is not None:
                prog = Program(hit, infos, threads, None, spec)
                prog.checks = checks
                prog.tune = tune
                if specialize:
                    prog._source = (text, pipeline, key, use_cache)
                return prog
    source_for_variants = text if text is not None else module.clone()  # type: ignore[union-attr]
    if module is None:
        module = parse(text, name)
    if callable(pipeline):
        pipeline = pipeline()
    collector = _spec.Collector()
    ir_text, infos = compile_to_llvm_ir(module, pipeline, collector, True if checks else None)
    table = collector.table
    link: tuple[str, ...] = ()
    if table is not None:
        if table.mode == "native":
            if collector.defined_leaves:
                raise XmuxError(
                    "xmux.compile: the pipeline defines the specialization constants' leaf "
                    f"globals (@\"{collector.defined_leaves[0]}\", ...) with their defaults, "
                    "so no value could be set; lower them with convert-spec-to-llvm"
                    "{declare-leaves=true} (xmux.pipelines.cpu() does in native mode)"
                )
            table.template = ir_text  # specialized by linking in each value set's values
            link = (table.values_module(table.default_values),)
        if key is not None:
            _spec.save_table(key, table, cache_dir)  # before the object: a hit has both
    if not infos:
        raise XmuxError(
            "the module has no entry-point kernel: mark one with attributes "
            '{mux.kernel = "entry_point"} or run encode-kernel-metadata{kernel-name=...}'
        )
    infos_json = dump_kernel_infos(infos)
    compiled = jit.compile_ir(
        ir_text, kernel_infos_json=infos_json, cache_key=key, disk_cache=use_cache, link=link
    )
    spec = _spec.SpecState(table, key, infos_json, use_cache) if table is not None else None
    prog = Program(compiled, infos, threads, ir_text, spec)
    prog.checks = checks
    prog.tune = tune
    if specialize:
        prog._source = (source_for_variants, pipeline, key, use_cache)
    return prog


def _compile_nvptx(source, pipeline, cache, spec_constants, spec_padding,
                   cpu_only: dict[str, tuple[object, object]], checks: bool | None):
    from xmux import pipelines
    from xmux.nvptx import compile_nvptx

    for option, (value, default) in cpu_only.items():
        if value != default:
            raise XmuxError(f"xmux.compile: {option} applies to the cpu target, not nvptx")
    if checks is None:
        checks = env.flag("XMUX_CHECKS", False)
    text, module = _read_source(source)
    name = str(source) if isinstance(source, (str, Path)) and text != source else "<source>"
    use_cache = cache if cache is not None else env.flag("XMUX_CACHE", True)
    if pipeline is None:
        if spec_constants not in ("native", "emulated"):
            raise XmuxError(
                f"xmux.compile: spec_constants must be one of ('native', 'emulated'), got "
                f"{spec_constants!r}"
            )

        def pipeline():  # noqa: F811 - built on a cache miss only
            return pipelines.nvptx(spec_constants=spec_constants, spec_padding=spec_padding,
                                   checks=checks)

        pipeline_spec = f"default/spec-constants={spec_constants}/spec-padding={spec_padding}"
        if checks:
            pipeline_spec += "/checks"
    else:
        fingerprint = pipelines.fingerprint(pipeline)
        if fingerprint is None:
            use_cache = False
        pipeline_spec = fingerprint or pipelines.spec(pipeline)
    return compile_nvptx(text, module, name, pipeline, pipeline_spec, use_cache)
