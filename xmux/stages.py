"""The steps of a compile that do not depend on the target: read the source, parse it, run a
pass pipeline (verified, and inspected on request: ``Inspection``, ``PassTimings``), and
``compile_to_llvm_ir`` for the CPU's LLVM IR of a module (``xmux-run``, local-size
variants, tests). ``xmux/targets/driver.py`` strings them together with a target's caches,
emission and loading. xDSL is imported when a step needs it: a compile answered from the
disk cache reads its source and nothing else here.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from xmux.abi.errors import XmuxError, user_errors  # not xmux.errors: that imports xDSL's
from xmux.abi.kernel_layout import KernelInfo
from xmux.gc_tuning import fewer_collections
from xmux.runtime import env

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from xmux.ir_snapshot import Snapshot
    from xmux.options import CompileOptions

#: ``observe(pass, module)``: called after each pass (to read what it recorded)
Observer = Callable[["ModulePass", "ModuleOp"], None]


def read_source(source: object) -> tuple[str | None, ModuleOp | None, str]:
    """(text, module, name) of what the user passed: MLIR text, a path (``Path``, or one line
    of text ending in ``.mlir``) or a ``ModuleOp`` (cloned; its text is None)."""
    if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and source.endswith(".mlir")
    ):
        from xmux.sources import read_source_file  # here: it imports xDSL's exceptions

        return read_source_file(Path(source)), None, str(source)
    if isinstance(source, str):
        return source, None, "<source>"
    from xdsl.dialects.builtin import ModuleOp  # only here: text hitting the cache needs no xDSL

    if isinstance(source, ModuleOp):
        return None, source.clone(), "<source>"
    got = type(source).__name__
    raise XmuxError(f"xmux.compile expects MLIR text, a path or a ModuleOp, got {got}")


def parse(text: str, name: str = "<source>", locations: bool = False) -> ModuleOp:
    """Parse MLIR text with xmux's dialects; errors carry the location. ``locations``: each
    op gets its file/line/column (debug builds)."""
    from xdsl.utils.exceptions import ParseError, VerifyException

    from xmux.registry import make_context
    from xmux.sources import parse_module, verify_module

    if not text.strip():
        raise XmuxError(f"{name} is empty: expected an MLIR module")
    with fewer_collections():  # xmux.gc_tuning: the collector walked the growing module
        try:
            module = parse_module(make_context(), text, name, locations=locations)
        except ParseError as e:
            raise XmuxError(f"cannot parse {name}:\n{e}") from e
        except VerifyException as e:  # raised while the parser built an op or attribute
            raise XmuxError(str(e)) from e
        try:
            verify_module(module, name)
        except XmuxError:  # at the op refused: file:line:col, the source line (xmux.sources)
            raise
        except VerifyException as e:
            raise XmuxError(f"{name} does not verify:\n{e}") from e
    return module  # type: ignore[return-value]


@user_errors
def parse_source(source: str | Path, name: str | None = None) -> ModuleOp:
    """``xmux.parse``: MLIR text, or a path (a ``Path``, or one line ending in ``.mlir``),
    as a verified ``builtin.ModuleOp``, parsed with xmux's dialects (and xDSL's) registered.
    A bad input raises an ``XmuxError`` with ``name:line:column`` (``name``: default the
    path, or ``<source>``)."""
    if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and source.endswith(".mlir")
    ):
        from xmux.sources import read_source_file

        return parse(read_source_file(Path(source)), name or str(source))
    if not isinstance(source, str):
        raise XmuxError(f"xmux.parse expects MLIR text or a path, got {type(source).__name__}")
    return parse(source, name or "<source>")


class PassTimings(list[tuple[str, float]]):
    """``prog.pass_timings`` of ``xmux.compile(..., timing=True)``: one ``(pass name,
    seconds)`` row per pass run, in pipeline order. A row is the pass's own time: the
    verification between passes (``verify_each``: ``checks=True``, ``XMUX_VERIFY_EACH=1``)
    is not in it but summed in ``verify_seconds``, and the inspection (printing, the
    callback) is in neither. ``str(timings)`` is a table."""

    def __init__(self) -> None:
        super().__init__()
        self.verify_seconds = 0.0

    @property
    def total(self) -> float:
        """The passes' time, summed."""
        return sum(t for _, t in self)

    def table(self) -> str:
        """The rows as a report in the manner of mlir-opt's ``--mlir-timing``."""
        total = self.total
        lines = ["===- Pass execution timing report -===",
                 f"  Total: {total * 1e3:.3f} ms in {len(self)} passes"
                 + (f" (+ {self.verify_seconds * 1e3:.3f} ms verifying between them)"
                    if self.verify_seconds else ""),
                 "         ms       %  pass"]
        for name, t in self:
            share = 100 * t / total if total > 0 else 0.0
            lines.append(f"  {t * 1e3:9.3f}  {share:5.1f}%  {name}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


class Inspection:
    """What ``xmux.compile``'s inspection options ask of a pipeline run: print the IR after
    the passes of ``print_ir_after`` (names, or True: all) to ``stream`` (default stderr),
    call ``callback(pass, module)`` after each pass, time the passes into ``timings``."""

    def __init__(self, print_ir_after: tuple[str, ...] | bool | None = None,
                 stream: TextIO | None = None, callback: Observer | None = None,
                 timing: bool = False) -> None:
        self.print_ir_after = print_ir_after
        self.stream = stream
        self.callback = callback
        self.timings = PassTimings() if timing else None

    @classmethod
    def of(cls, options: CompileOptions) -> Inspection | None:
        """The inspection ``options`` ask for; None without any."""
        if not options.inspects:
            return None
        return cls(options.print_ir_after, options.print_ir_stream, options.pass_callback,
                   options.timing)

    def check(self, passes: Sequence[ModulePass]) -> None:
        """A name in ``print_ir_after`` that no pass has is a typo: say so before running."""
        if isinstance(self.print_ir_after, tuple):
            names = [p.name for p in passes]
            unknown = [n for n in self.print_ir_after if n not in names]
            if unknown:
                raise XmuxError(f"xmux.compile: print_ir_after names {unknown[0]!r}, which is "
                                f"not in the pipeline ({', '.join(names)})")

    def dump(self, done: ModulePass, module: ModuleOp) -> None:
        """The IR after ``done``, if asked for (before it is verified: IR that does not verify
        is what one wants to see)."""
        if self.print_ir_after is True or (
                isinstance(self.print_ir_after, tuple) and done.name in self.print_ir_after):
            from xdsl.printer import Printer

            stream = self.stream if self.stream is not None else sys.stderr
            print(f"// -----// IR Dump After {done.name} //----- //", file=stream)
            Printer(stream=stream).print_op(module)
            print(file=stream, flush=True)


class _Watch:
    """xDSL ``PassPipeline``'s callback: verifies what each pass changed (``verify_each``),
    hands the module to ``inspect`` and ``observe``, times the passes (``inspect.timings``:
    from the end of one callback to the start of the next, so the verification and the
    inspection are outside a pass's time) and knows which pass runs (to name it in an
    error)."""

    def __init__(self, observe: Observer | None, verify_each: bool,
                 inspect: Inspection | None = None) -> None:
        self.observe = observe
        self.verify_each = verify_each
        self.inspect = inspect
        self.timings = inspect.timings if inspect is not None else None
        self.verified: Snapshot | None = None  # the IR as last verified
        self.running: ModulePass | None = None
        self.started = time.perf_counter()

    def __call__(self, done: ModulePass | None, module: ModuleOp,
                 following: ModulePass | None) -> None:
        if done is not None:
            if self.timings is not None:
                self.timings.append((done.name, time.perf_counter() - self.started))
            self._after(done, module)
        self.running = following
        self.started = time.perf_counter()

    def _after(self, done: ModulePass, module: ModuleOp) -> None:
        from xdsl.utils.exceptions import VerifyException

        from xmux.ir_snapshot import verify_changes

        if self.inspect is not None:
            self.inspect.dump(done, module)
        if self.verify_each:  # only what the pass changed: the rest is verified already
            begun = time.perf_counter()
            try:
                self.verified = verify_changes(module, self.verified)
            except VerifyException as e:  # at the op refused, where the source has it
                from xmux.sources import verify_error_text

                why = verify_error_text(module, "the IR", e)
                raise XmuxError(f"pass '{done.name}' failed: {why}") from e
            if self.timings is not None:
                self.timings.verify_seconds += time.perf_counter() - begun
        if self.inspect is not None and self.inspect.callback is not None:
            self.inspect.callback(done, module)
        if self.observe is not None:
            self.observe(done, module)


#: xmux passes that change nothing in a module without ops of these dialects or names (each
#: begins by walking the whole module for them): pass name → (its module, the dialects and
#: op names). Most modules have none of them, and their walks were ~0.5 s of the passes at
#: 24k ops (bench/compile_scaling.py).
SKIPPED_WITHOUT: dict[str, tuple[str, frozenset[str]]] = {
    "lower-affine-upstream": ("xmux.transforms.lower_affine_upstream", frozenset({"affine"})),
    "lower-vector-contract": ("xmux.transforms.lower_vector_contract",
                              frozenset({"vector.contract"})),
    "lower-vector-transfers": ("xmux.transforms.lower_vector_transfers",
                               frozenset({"vector"})),
    "lower-scf-forall": ("xmux.transforms.lower_scf_forall", frozenset({"scf.forall"})),
    "gpu-launch-outlining": ("xmux.transforms.gpu_launch_outlining", frozenset({"gpu"})),
    "convert-gpu-to-mux": ("xmux.transforms.convert_gpu_to_mux", frozenset({"gpu"})),
    "lower-subgroup-mma": ("xmux.transforms.lower_subgroup_mma", frozenset({"gpu"})),
    "convert-acc-to-oacc": ("xmux.transforms.convert_acc_to_oacc", frozenset({"acc"})),
    "lower-generic-atomic-rmw": ("xmux.transforms.lower_generic_atomic_rmw",
                                 frozenset({"memref.generic_atomic_rmw"})),
}


def _needs(p: ModulePass) -> frozenset[str] | None:
    """The dialects and op names without which xmux's pass ``p`` changes nothing; None:
    always run it."""
    entry = SKIPPED_WITHOUT.get(p.name)
    if entry is None or type(p).__module__ != entry[0]:
        return None  # not one of the passes above (a user's pass of the same name)
    return entry[1]


def _apply(passes: tuple[ModulePass, ...], watch: _Watch, ctx: object, module: ModuleOp,
           skip: bool) -> None:
    """xDSL's ``PassPipeline(passes, watch).apply(ctx, module)``, the callback called as it
    calls it, but with ``skip`` a pass of ``SKIPPED_WITHOUT`` whose dialects and op names are
    absent from the module is not run: one walk naming the dialects and ops present serves
    every such pass up to the next pass that runs."""
    present: set[str] | None = None  # the module's op names and dialects, while known
    watch(None, module, passes[0] if passes else None)
    for i, p in enumerate(passes):
        needs = _needs(p) if skip else None
        if needs is not None:
            if present is None:
                present = {o.name for o in module.walk()}
                present |= {n.split(".", 1)[0] for n in present}
            if needs.isdisjoint(present):
                watch(p, module, passes[i + 1] if i + 1 < len(passes) else None)
                continue
        p.apply(ctx, module)  # type: ignore[arg-type]
        present = None
        watch(p, module, passes[i + 1] if i + 1 < len(passes) else None)


def run_pipeline(module: ModuleOp, passes: Sequence[ModulePass],
                 observe: Observer | None = None, verify_each: bool | None = None,
                 inspect: Inspection | None = None) -> None:
    """Apply ``passes`` as one xDSL ``PassPipeline``; ``observe(pass, module)``, when given,
    runs after each pass, and so does ``inspect`` (print the IR, a user's callback, timing:
    after each pass, the IR is printed, then verified, then handed to the callback).

    The IR is verified after the last pass; after every pass (naming the pass whose output
    does not verify) with ``verify_each``, by default in the checking mode (``XMUX_CHECKS=1``)
    and with ``XMUX_VERIFY_EACH=1`` (the test suite sets it): xDSL's verifier run after each
    of the ~20 passes cost as much as the whole pipeline otherwise (bench/compile_scaling.py).
    Only the top-level ops a pass changed (and those referring to a symbol it changed) are
    verified again (``xmux.ir_snapshot``). A pass of ``SKIPPED_WITHOUT`` whose ops the module
    lacks is not run (it would change nothing), unless ``inspect`` has a callback; parse and
    passes run with fewer collections of Python's collector (``xmux.gc_tuning``).
    """
    from xdsl.utils.exceptions import PassFailedException, VerifyException

    from xmux.registry import make_context

    if verify_each is None:
        verify_each = env.flag("XMUX_VERIFY_EACH", False) or env.flag("XMUX_CHECKS", False)
    if inspect is not None:
        inspect.check(passes)
    watch = _Watch(observe, verify_each, inspect)
    # a user's callback may change the module between passes: then every pass runs
    skip = inspect is None or inspect.callback is None
    with fewer_collections():  # xmux.gc_tuning: the collector walked the whole module
        try:
            _apply(tuple(passes), watch, make_context(), module, skip)
        except (VerifyException, PassFailedException) as e:
            name = watch.running.name if watch.running is not None else "?"
            raise XmuxError(f"pass '{name}' failed: {e}") from e
        if not verify_each and passes:
            try:
                module.verify()
            except VerifyException as e:
                names = ", ".join(p.name for p in passes)
                raise XmuxError(
                    f"the IR after the pass pipeline ({names}) does not verify "
                    "(XMUX_VERIFY_EACH=1 or checks=True verifies after every pass and names "
                    f"the pass): {e}"
                ) from e


def compile_to_llvm_ir(module: ModuleOp, pipeline: Sequence[ModulePass] | None = None,
                       observe: Observer | None = None, verify_each: bool | None = None
                       ) -> tuple[str, list[KernelInfo]]:
    """The CPU's LLVM IR of ``module`` and its kernels' launch metadata: ``pipeline``
    (default ``pipelines.cpu()``; completed as ``xmux.compile`` completes one: the host
    attached, the kernels' ABI recorded), then ``collect_kernel_infos``."""
    from xmux import pipelines
    from xmux.kernel_info import collect_kernel_infos
    from xmux.runtime.emit import emit_text
    from xmux.runtime.jit import host_target

    passes = pipelines.cpu() if pipeline is None else pipeline
    run_pipeline(module, pipelines.complete(passes, host_target()), observe, verify_each)
    return emit_text(module), collect_kernel_infos(module)
