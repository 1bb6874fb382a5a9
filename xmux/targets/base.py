"""What every target implements (``Target``), what the driver hands it (``Build``), and what a
launch returns (``LaunchProfile``). No xDSL, no LLVM: a compile answered from the disk cache
loads this module."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

from xmux.abi.kernel_layout import KernelInfo

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from xmux.options import CompileOptions
    from xmux.runtime.jit import TargetDescription
    from xmux.runtime.spec_constants import SpecState, SpecTable


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


@dataclass
class Build:
    """A compiled module as the driver hands it to ``Target.load``."""

    #: what ``Target.build`` or ``Target.lookup`` returned (has ``kernel_infos_json``)
    artifact: object
    infos: list[KernelInfo]
    #: the specialization constants' values and specializations (None: the module has none)
    spec: SpecState | None
    #: the LLVM IR (None when the build came from the cache)
    llvm_ir: str | None
    #: the source text, or a clone of the ModuleOp: what a rebuild (a local-size variant) starts
    #: from
    source: object
    #: the pass pipeline, built on first call (a cache hit never builds it: it imports xDSL)
    passes: Callable[[], list[ModulePass]]
    #: the cache key (None: not cached) and whether the disk cache is on
    key: str | None
    disk_cache: bool


class Target(Protocol):
    """A target: a kind of machine ``xmux.compile`` builds for (docs/architecture.md,
    "Targets", has the recipe for a new one). The driver (``xmux/targets/driver.py``) calls
    ``prepare``, then ``cache_key`` and ``lookup``; on a miss it runs ``pipeline``'s passes
    (completed by ``CompileOptions.passes``), collects the kernels' launch facts, and calls
    ``emit``, ``specialize`` (modules with specialization constants), ``build``; then
    ``load``."""

    #: the name ``xmux.compile(target=...)`` takes and errors use
    name: str
    #: the target-specific ``CompileOptions`` fields it reads (``target`` in their
    #: metadata); the others must keep their defaults (``CompileOptions.check_target``)
    target_options: frozenset[str]

    def attribute(self) -> TargetDescription:
        """The machine, as the module's ``#xmux.target`` describes it (attach-target)."""
        ...

    def pipeline(self, options: CompileOptions) -> list[ModulePass]:
        """The default pass pipeline for ``options``, from MLIR to the llvm dialect."""
        ...

    def cache_key(self, options: CompileOptions, source_text: str) -> str | None:
        """The key of the compiled form of ``source_text`` (``driver.cache_key``); None when
        it cannot be cached."""
        ...

    def prepare(self, options: CompileOptions) -> None:
        """Work before any compile, hit or miss (the CPU: JIT symbols, the launch code)."""
        ...

    def lookup(self, key: str) -> object | None:
        """The compiled form cached under ``key`` (with ``kernel_infos_json``), or None."""
        ...

    def emit(self, module: ModuleOp) -> str:
        """The LLVM IR text of a module in the llvm dialect, for this target."""
        ...

    def specialize(self, table: SpecTable, ir: str) -> None:
        """Native specialization constants: make ``table.template`` (what each value set's
        values are linked into) of the module's IR."""
        ...

    def build(self, ir: str, infos_json: str, key: str | None, disk_cache: bool,
              native: SpecTable | None) -> object:
        """Compile ``ir`` (with native specialization constants: the template linked with
        the default values) and cache it under ``key``."""
        ...

    def load(self, build: Build, options: CompileOptions) -> object:
        """The runnable program (``prog.kernel(name)``, ``prog[name]``) of a build."""
        ...
