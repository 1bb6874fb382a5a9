"""The CPU target: kernels scheduled into work-item loops, JIT-compiled by llvmlite for this
host and run on the slice thread pool (``xmux.compile(src)``, ``target="cpu"``).

``CpuTarget`` is what the driver asks (pipeline, cache key, emission, the JIT build);
``Program`` and ``Kernel`` are what it gives back. A program keeps what a local-size variant is
rebuilt from (the source and the pipeline, built lazily after a cache hit): see
docs/architecture.md, "Local-size variants and vector-width tuning".
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING

from xmux.abi.errors import user_errors
from xmux.abi.kernel_layout import KernelInfo
from xmux.runtime import abi
from xmux.runtime import checks as _checks
from xmux.runtime import spec_constants as _spec
from xmux.runtime.launcher import KernelLauncher, Lowered, VariantSource
from xmux.spec_api import KernelTable, NotCopyable, SpecConstantsAPI
from xmux.targets.base import Build, LaunchProfile

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from xmux.options import CompileOptions
    from xmux.runtime.counters import LaunchCounters
    from xmux.runtime.jit import TargetDescription


class CpuTarget:
    """This CPU, through llvmlite's JIT. ``description``: the machine the passes plan for
    (vector unit, registers); default the JIT's own (the host, or ``XMUX_CPU``'s model)."""

    name = "cpu"
    target_options = frozenset(
        {"threads", "sub_group_size", "vector_width", "force_no_tail", "oacc_expansion"}
    )

    def __init__(self, description: TargetDescription | None = None) -> None:
        self._description = description

    def attribute(self) -> TargetDescription:
        if self._description is None:
            from xmux.runtime.jit import host_target

            self._description = host_target()
        return self._description

    def pipeline(self, options: CompileOptions) -> list[ModulePass]:
        from xmux import pipelines

        return pipelines.cpu(
            target=self.attribute(),
            spec_constants=options.spec_constants,
            spec_padding=options.spec_padding,
            sub_group_size=options.sub_group_size,
            vector_width=options.vector_width,
            force_no_tail=options.force_no_tail,
            oacc_expansion=options.oacc_expansion,
            checks=options.checks,
            check_plan=options.check_plan,
        )

    def cache_key(self, options: CompileOptions, source_text: str) -> str | None:
        from xmux.runtime.jit import target_fingerprint
        from xmux.targets import driver  # here: it imports xmux.errors (xDSL's)

        return driver.cache_key(self, options, source_text, target_fingerprint())

    def prepare(self, options: CompileOptions) -> None:
        from xmux.runtime import pool
        from xmux.runtime.host_symbols import provide_runtime_symbols

        pool.prepare_native()  # LLVM builds the launch code while the front end runs
        # host code that prints or launches, the checking mode's callbacks (also for a user
        # pipeline with the checking passes): registered when code calling them loads
        provide_runtime_symbols()

    def lookup(self, key: str) -> object | None:
        from xmux.runtime import jit

        return jit.load_cached(key)

    def emit(self, module: ModuleOp) -> str:
        from xmux.runtime.emit import emit_text

        return emit_text(module)

    def specialize(self, table: _spec.SpecTable, ir: str) -> None:
        table.template = ir  # specialized by linking in each value set's values

    def build(self, ir: str, infos_json: str, key: str | None, disk_cache: bool,
              native: _spec.SpecTable | None) -> object:
        from xmux.runtime import jit

        link = (native.values_module(native.default_values),) if native is not None else ()
        return jit.compile_ir(
            ir, kernel_infos_json=infos_json, cache_key=key, disk_cache=disk_cache, link=link
        )

    def load(self, build: Build, options: CompileOptions) -> Program:
        prog = Program(build.artifact, build.infos, options.threads, build.llvm_ir, build.spec)
        prog.checks = bool(options.checks)
        prog.tune = bool(options.tune)
        if options.specialize:
            prog._source = (build.source, build.passes, build.key, build.disk_cache)
            prog._compiled_here = build.llvm_ir is not None  # not a cache hit
        if options.pipeline is None:  # a saved binary rebuilds variants with these
            prog._code_options = {f.name: getattr(options, f.name) for f in fields(options)
                                  if f.metadata["code"] and f.name != "pipeline"}
            prog._target = self  # the background server lowers variants for it
        return prog


class Kernel(NotCopyable):
    """A compiled kernel; call it with the kernel's arguments and an NDRange. Its launches run
    through a ``runtime.launcher.KernelLauncher`` (which code runs, the replay of a repeated
    launch and what that replay depends on)."""

    _what = "kernel"

    def __init__(self, program: Program, info: KernelInfo) -> None:
        self.program = program
        self.info = info
        self.name = info.name
        entry = abi.EntryHookFn(program.jit.address(info.symbol))
        self._launcher = KernelLauncher(
            info, entry, program, program._spec, program._variant_source(info)
        )

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
        """Run the kernel. ``spec_constants={symbolic id: value}`` overrides the program's
        values (``Program.set_spec_constant``) for this launch; ids of the program that this
        kernel does not read are accepted and ignored. ``profile=True`` returns the launch's
        ``LaunchProfile`` (kernel start and end, without the Python side of the call); without
        ``profile`` or ``counters`` the call returns None.

        ``counters=("task-clock", "page-faults", "cycles", ...)`` (names as ``perf stat``'s,
        ``runtime.counters.KNOWN``) returns a ``LaunchCounters`` instead: the launch's
        counts through Linux's ``perf_event_open``, ``total[name]`` summed over the threads
        that ran it and ``per_thread`` (participant 0: this thread; then the pool workers
        it used), with ``start`` / ``end`` / ``seconds`` as ``LaunchProfile``'s.
        ``task-clock`` is in ns. A counter this machine does not expose (hardware ones in
        most VMs) raises ``CounterUnavailableError`` naming it, before the launch runs;
        ``xmux.counters.available()`` lists those that work."""
        meter = None
        if counters is not None:
            from xmux.runtime.counters import Meter

            meter = Meter(counters)
        span = self._launcher(
            args, (global_size, local_size, global_offset), threads, spec_constants, profile,
            meter,
        )
        _checks.raise_pending()  # a failed check of the checking mode (runtime/checks.py)
        if meter is not None:
            return meter.result(*span)  # type: ignore[misc]
        # the full launch path times every launch (the tuner's samples): return it on request
        return LaunchProfile(*span) if profile and span is not None else None

    def __repr__(self) -> str:
        sig = ", ".join(f"{a.name}: {a.kind} {a.dtype}" for a in self.info.args)
        return f"<xmux kernel {self.name}({sig})>"


class Program(KernelTable, SpecConstantsAPI):
    """A compiled module: its kernels by name, the LLVM IR and the JIT module."""

    _kernel_class = Kernel

    target = "cpu"

    def __init__(
        self,
        jit: object,
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
        #: local-size variants (runtime/launcher.py, LocalSizeVariants): (source text or
        #: ModuleOp, the pipeline or a function building it, cache key, disk cache)
        self._source: tuple[object, object, str | None, bool] | None = None
        #: its code was compiled in this process (not a cache hit): its variants are not
        #: cached either, so the background server is started at their first launch
        self._compiled_here = False
        #: build a variant with two vector widths and keep the faster (runtime/tuning.py)
        self.tune = True
        #: the host code's kernel table (``mux.launch`` index -> kernel name): given by
        #: ``xmux.load``, else computed from the source on first ``run_main``
        self._host_table: list[str] | None = None
        #: the options that shape the code (``CompileOptions`` fields with ``code``), for a
        #: binary's variants rebuilt from its source; None: a user's pipeline (not saved)
        self._code_options: dict[str, object] | None = None
        #: the target it was compiled for (with ``_code_options``: a variant can be lowered
        #: in another process, ``_variant_ir``)
        self._target: CpuTarget | None = None

    def save(self, path: str | Path, *, source: bool = True) -> None:
        """Write this program as one binary file (``runtime/binary.py``; docs/architecture.md,
        "Program binaries") that ``xmux.load(path)`` runs without xDSL or a compile: the
        program's object, the object of every local-size variant and specialization built so
        far, the kernels' metadata, the specialization-constant table and values, the target
        and its CPU features. ``source``: keep the source text too (when the program has it),
        so that a loaded program builds the variants it lacks (then importing xDSL)."""
        from xmux.runtime import binary
        from xmux.runtime.jit import host_target, module_at

        t = host_target()
        jit = self.jit
        objects: list[dict] = [{"role": "program", "record": jit.record}]  # type: ignore[attr-defined]
        blobs: list[bytes] = [jit.object_code]  # type: ignore[attr-defined]
        for name, kernel in self._kernels.items():
            for local, built in kernel._launcher.variants.built.items():
                module = module_at(_address(_settled_entry(built)))
                if module is not None and module is not jit:
                    objects.append({"role": "variant", "kernel": name, "local_size": list(local),
                                    "record": module.record})
                    blobs.append(module.object_code)
        spec = None
        if self._spec is not None:
            table = self._spec.table
            spec = {
                "table": json.loads(table.to_json()),
                "values": {k: v.hex() for k, v in self._spec.values.items()},
                # for readers of the file (sycl-post-link's sets); ``table`` is what loads
                "property_sets": binary.jsonable(table.property_sets()),
            }
            for values, module in self._spec._modules.items():
                if isinstance(values, bytes):  # a value set's specialization (not a variant's)
                    objects.append({"role": "spec", "values": values.hex(),
                                    "record": module.record})  # type: ignore[attr-defined]
                    blobs.append(module.object_code)  # type: ignore[attr-defined]
            # a variant specialized for a value set (native mode): tag "kernel/(local size)"
            for (tag, values), built in self._spec._variant_entries.items():
                module = module_at(_address(_settled_entry(built)))
                name, _, local = tag.partition("/")
                if module is not None and name in self.infos:
                    objects.append({"role": "spec-variant", "kernel": name, "values": values.hex(),
                                    "local_size": list(ast.literal_eval(local)),
                                    "record": module.record})
                    blobs.append(module.object_code)
        text = self._source[0] if self._source is not None else None
        host = None
        if "main" in jit.exports:  # type: ignore[attr-defined]
            table_ = self._host_table
            if table_ is None and isinstance(text, str):
                table_ = self._kernel_table()
            host = {"entry": "main", "kernel_table": table_}
        from xmux.runtime.jit import target_fingerprint

        notes = {
            "format": "xmux-binary",
            "abi_version": binary.ABI_VERSION,
            "xmux_version": binary.xmux_version(),
            "target": {"name": "cpu", "triple": t.triple, "cpu": t.chip,
                       "features": t.features, "vector_bits": t.vector_bits,
                       "fingerprint": target_fingerprint()},
            "kernels": [i.to_json() for i in self.infos.values()],
            "program": {"threads": self.threads, "checks": self.checks, "tune": self.tune},
            "spec": spec,
            "host": host,
            # the source only with the options that rebuild its code: no user pipeline
            "source": text if source and isinstance(text, str) and self._code_options
            is not None else None,
            "options": self._code_options,
            "cache_key": self._source[2] if self._source is not None else None,
            "objects": objects,
        }
        binary.write(path, notes, blobs)

    def run_main(self, entry: str = "main") -> None:
        """Run the module's host function ``@entry`` (as ``xmux-run`` does): its
        ``mux.launch`` ops run this program's kernels."""
        from xmux.abi.errors import LaunchError, XmuxError
        from xmux.runtime.host_symbols import call_host

        if entry not in self.jit.exports:  # type: ignore[attr-defined]
            raise XmuxError(f"no host function @{entry} in this program")
        host = _Host(self, self._host_table or self._kernel_table())
        call_host(host, self.jit.address(entry))  # type: ignore[attr-defined]
        if host.errors:
            first = host.errors[0]
            if isinstance(first, XmuxError):
                raise first
            raise LaunchError(f"kernel launch failed: {first}") from first

    def _kernel_table(self) -> list[str]:
        """The host code's kernel table, from the source: the pipeline run again (xDSL)."""
        from xmux.abi.errors import XmuxError
        from xmux.dialects import attrs
        from xmux.stages import parse, run_pipeline

        if self._source is None or not isinstance(self._source[0], str):
            raise XmuxError("this program has no source text to find its host code's kernels")
        text, pipeline, _, _ = self._source
        module = parse(text)
        run_pipeline(module, pipeline() if callable(pipeline) else pipeline)  # type: ignore[arg-type]
        self._host_table = attrs.get_kernel_table(module)
        return self._host_table

    def _variant_source(self, info: KernelInfo) -> VariantSource | None:
        """How the launcher builds ``info``'s local-size variants (None: it builds none)."""
        if self._source is None:
            return None
        text, _, base_key, use_cache = self._source
        prepare = None
        if (isinstance(text, str) and self._compiled_here and self._target is not None
                and self._code_options is not None):
            # compiled here, not loaded from the caches (whose variants are likely cached
            # too): its variants will be lowered by the background server
            prepare = _prepare_variants
        return VariantSource(
            lambda local: self._variant_ir(info, local), base_key or None, use_cache, prepare
        )

    def _variant_ir(self, info: KernelInfo, local: tuple[int, ...]) -> Lowered:
        from xmux.runtime import interrupt, tiered

        text = self._source[0]  # type: ignore[index]
        if (tiered.in_background() and isinstance(text, str) and self._target is not None
                and self._code_options is not None):
            # a background build lowers in the background server: xDSL's CPU time and its
            # garbage collections (which hold the GIL) stay out of the launching process
            from xmux.runtime import compile_server

            done, lowered = compile_server.call(
                "xmux.targets.cpu:lower_variant",
                (text, self._target, self._code_options, info.name, local), None,
                background=True)
            if done:
                return lowered  # type: ignore[return-value]
        # a launch compiles this: Ctrl-C waits for its end (it may import xDSL for the first
        # time, which an exception in the middle leaves broken: interrupt.sigint_deferred)
        with interrupt.sigint_deferred():
            _, pipeline, _, _ = self._source  # type: ignore[misc]
            if callable(pipeline):  # built lazily: a cache hit does not import the passes
                pipeline = pipeline()
            return _lower_variant(text, pipeline, info.name, local)


#: the warm-up's kernel: the shape of the bench's naive matmul (a loop carrying a value,
#: loads and a store by global ids), so that most passes run once
_WARM_UP_KERNEL = """
func.func @warm_up(%n: index, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f32
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}
"""


def _prepare_variants() -> None:
    """Start the background compile server, warmed up (``warm_up_server``), for the variants
    a program compiled from text will ask for."""
    from xmux.runtime import compile_server

    compile_server.prestart("xmux.targets.cpu:warm_up_server")


def warm_up_server() -> None:
    """The background compile server's warm-up: LLVM set up and a small kernel lowered for
    a local size, with the host target and the default options, so that a program's first
    variant finds xDSL's imports and first-use caches ready."""
    from xmux.runtime import jit

    jit._target()
    try:
        lower_variant(_WARM_UP_KERNEL, CpuTarget(), {}, "warm_up", (8, 2, 1))
    except Exception:  # noqa: BLE001, S110 - a warm-up only: the real build reports its errors
        pass


def lower_variant(text: str, target: CpuTarget, options: dict[str, object], kernel: str,
                  local: tuple[int, ...]) -> Lowered:
    """``kernel`` of the program ``text`` compiled with ``options`` (its code options) for
    ``target``, lowered for the local size ``local`` (run by the background compile server:
    ``Program._variant_ir``)."""
    from xmux.options import CompileOptions

    return _lower_variant(text, CompileOptions(**options).passes(target), kernel, local)


def _lower_variant(source: object, pipeline: object, kernel: str,
                   local: tuple[int, ...]) -> Lowered:
    """The program's ``source`` (text or ModuleOp) with ``kernel`` alone, its required
    work-group size set to ``local``, through ``pipeline`` to LLVM IR."""
    from xmux.dialects import attrs
    from xmux.runtime import tuning
    from xmux.stages import compile_to_llvm_ir, parse

    module = parse(source) if isinstance(source, str) else source.clone()  # type: ignore[attr-defined]
    kernels = {f.sym_name.data: f for f in attrs.entry_points(module)}
    if kernel in kernels:
        attrs.set_reqd_work_group_size(kernels[kernel], local)
        _keep_only_kernel(module, kernel)
    from xmux.transforms import pack_group_panels as pack

    twin = pack.twin_pipeline(pipeline, module)  # type: ignore[arg-type]
    clone = module.clone() if twin is not None else None
    ir_text = compile_to_llvm_ir(module, pipeline)[0]  # type: ignore[arg-type]
    packed = None
    if clone is not None and twin is not None:
        try:
            packed = compile_to_llvm_ir(clone, twin)[0]
        except pack.NothingToPack:
            pass
    return Lowered(ir_text, tuning.width_dependent(module), packed)




class _Host:
    """The host program ``call_host`` runs: each ``mux.launch`` of ``@main`` launches one of
    the program's kernels through its generic entry (as ``xmux-run`` does)."""

    def __init__(self, program: Program, table: list[str]) -> None:
        self.program = program
        self.table = table
        self.errors: list[BaseException] = []

    def _launch(self, index: int, packed: int, dim: int, g, loc, off) -> None:  # noqa: ANN001
        from xmux.runtime import launch

        if self.errors:
            return
        try:
            info = self.program.infos[self.table[index]]
            nd = launch.NDRange.of(info, [g[d] for d in range(dim)],
                                   [loc[d] for d in range(dim)], [off[d] for d in range(dim)])
            entry = abi.EntryHookFn(self.program.jit.address(info.symbol))  # type: ignore[attr-defined]
            threads = self.program.threads or launch.default_threads()
            launch.run_ndrange(entry, packed, nd, threads)
            _checks.raise_pending()
        except BaseException as e:  # noqa: BLE001 - reported after @main returns
            self.errors.append(e)


def _settled_entry(built: object) -> object:
    """The entry a local-size variant runs: a tuner's choice (else its first build)."""
    from xmux.runtime import tuning

    if isinstance(built, tuning.BuildTuner):
        chosen = built.chosen_entry
        return chosen if chosen is not None else next(
            (e for e in built._entries if e is not None), None)
    return built


def _address(entry: object) -> int:
    import ctypes

    return ctypes.cast(entry, ctypes.c_void_p).value or 0 if entry is not None else 0


def _keep_only_kernel(module: ModuleOp, name: str) -> None:
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
