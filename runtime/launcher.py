"""A kernel's launches: which compiled code runs a launch, and the replay of a repeated one.

``KernelLauncher`` is the runtime object behind ``xmux.Kernel.__call__``. It owns, for one
kernel:

* the checked ``NDRange`` per size triple (a loop launches the same one);
* the local-size variants (``LocalSizeVariants``: the work-group function compiled again with
  the launch's local size as a constant, as PoCL does, tuned by timing launches against the
  generic entry and, on a host with 512-bit vectors, between 512- and 256-bit builds:
  ``runtime/tuning.py``; a variant that loses on this host is dropped), and with native
  specialization constants the entry specialized for the launch's value set
  (``SpecState.entry`` / ``variant_entry``);
* the replay of the last launch (``Replay``): its packed-argument struct, NDRange, entry and a
  prepared call of the run (``launch.prepared``).

Why a replay: a loop relaunches a kernel with the same arguments, and checking and packing them
costs ~15 µs of Python per launch, more than a small kernel runs (vecadd 2^10: ~2 µs whole
when replayed), and after a kernel that streamed through the caches each step of it costs more.

What it guarantees: a launch is replayed only when every input it depends on is as it was when
the replay was made. ``LaunchKey`` names them all:

* ``arguments``, per kernel argument: an array by identity (a weak reference: a dead array
  never matches, even if a new one gets its address) with its dtype *object* (``arr.dtype =
  np.int32`` reassigns it in place, keeping shape and strides), shape and strides (``arr.shape
  = ...`` / ``arr.strides = ...`` in place); its data pointer and contiguity follow from these
  (numpy refuses ``resize`` of an array with weak references, ``.data`` is read-only, and its
  flags are computed from shape and strides; the writeable flag is not looked at by a launch,
  so it is not part of the key). A scalar by type and value (``1`` vs ``1.0`` vs
  ``np.float32(1)``; ``-0.0`` vs ``0.0``; a 0-d array never matches: it may have changed in
  place). ``LocalMemory`` by its byte count and the count's type;
* ``sizes``: global size, local size and global offset as given, or as tuples of ints when
  given in a mutable object (a list changed in place must not match itself);
* ``threads``: the launch's thread count (``threads=``, else ``Program.threads``, else the
  process default, ``launch.default_threads``);
* ``spec_values``: the specialization-constant value set the launch resolves to (the blob of
  the values the kernel reads: resolved, and checked, on every launch, as they may come from a
  mutated array or a new ``set_spec_constant``); it picks the native entry and the emulated
  buffer whose address is in the packed struct.

Besides the key, a replay holds until ``until``: when the build choice of its variant (widths,
or the generic entry) is due for a re-check (``tuning.BuildTuner.replay_until``). Only a
settled launch is kept for replay: its variant built, its tuner not sampling.

Tiered compilation (``runtime/tiered.py``): a variant, a variant's value set and a native value
set's specialization are built in the background while launches run what exists (the generic
entry; for a new native value set the program's generic form, which reads the values from
memory: ``SpecState.generic_entry``);
a launch that finds the ``Job`` done swaps the result in (a failed one is reported, and the
generic code kept). A launch while a build is under way is not kept for replay, so the launch
after the build's end sees it. ``Settings.wait`` (``xmux.compile(wait=True)``) or
``XMUX_SYNC_BUILDS=1``: the launch that needs a build makes it, as before tiering.
"""

from __future__ import annotations

import hashlib
import math
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from xmux.abi.errors import XmuxError
from xmux.abi.kernel_layout import KernelInfo
from xmux.runtime import abi, launch, pool, tiered, tuning
from xmux.runtime import spec_constants as _spec

if TYPE_CHECKING:
    import threading

    from xmux.runtime.counters import Meter

__all__ = [
    "KernelLauncher", "LaunchKey", "LocalSizeVariants", "Lowered", "Replay", "VariantSource"
]

Sizes = tuple[object, object, object]
#: the key of an argument that never matches (a 0-d array given for a scalar)
_NEVER = object()
#: ``LaunchKey.views`` entry of a ``LocalMemory`` argument
_LOCAL = ("local",)
#: a variant whose background build is under way
_PENDING = object()


def synchronous(settings: object) -> bool:
    """Whether a program's launches build what they need themselves (``wait=True``,
    ``XMUX_SYNC_BUILDS``) rather than in the background."""
    return bool(getattr(settings, "wait", False)) or tiered.synchronous()


def _prebuilt(built: object) -> object:
    """A variant with every tuning candidate compiled (``warm``)."""
    if isinstance(built, tuning.BuildTuner):
        built.build_all()
    return built


def _first_built(built: object, label: str) -> object:
    """A background build's variant, ready for launches once its first tuning candidate is
    compiled: the others are compiled by a further background job, and the tuner samples them
    once that is done (until then the first runs; should that job fail, the candidates it
    compiled are kept). A variant reaches its launches one candidate's build after the
    launch that asked for it rather than all of them (the naive matmul's four: ~4×)."""
    if not isinstance(built, tuning.BuildTuner):
        return built
    built.build_first()
    job = tiered.submit(f"{label}, its tuning candidates", built.build_all)

    def ready() -> bool:  # asked on the launching thread
        if not job.done:
            return False
        if job.error is not None:
            tiered.finished(job, keeps="the candidates built", stacklevel=6)
            built.keep_built()
        return True

    built.hold(ready)
    return built


class Settings(Protocol):
    """The program-wide settings a launch reads (``xmux.Program``)."""

    threads: int | None
    tune: bool
    #: builds made by the launch that needs them (no background builds)
    wait: bool


class Lowered(NamedTuple):
    """A variant's LLVM IR and whether its float results may depend on the vector width
    (``tuning.width_dependent`` of its lowered module: then it is not tuned); ``packed``: the
    IR of its twin with ``pack-group-panels`` (None: the pass packs nothing in it), a build
    the variant's tuner samples too."""

    ir: str
    width_dependent: bool
    packed: str | None = None


@dataclass(frozen=True)
class VariantSource:
    """How to build a kernel's local-size variants: ``lower(local_size)`` lowers the program
    with the kernel's required work-group size set to it; ``cache_key`` (None: no caching)
    and ``disk_cache`` as for the program's own object."""

    lower: Callable[[tuple[int, ...]], Lowered]
    cache_key: str | None
    disk_cache: bool
    #: run in the background at a size's first launch (its variant comes with the second):
    #: gets the variant's builder ready (``targets/cpu.py:_prepare_variants``)
    prepare: Callable[[], None] | None = None


def _frozen_size(v: object) -> object:
    """A size given in a mutable object (a list, an array) as a tuple of ints."""
    if v is None or isinstance(v, (int, np.integer)):
        return v
    return tuple(int(x) for x in v)  # type: ignore[attr-defined]


def _same_zero(a: object, old: object) -> bool:
    """Two equal zero scalars are the same value unless one is -0.0."""
    return math.copysign(1.0, a) == math.copysign(1.0, old)  # type: ignore[arg-type]


def _same_local(a: object, old: launch.LocalMemory) -> bool:
    return (
        type(a) is launch.LocalMemory
        and type(a.nbytes) is type(old.nbytes)
        and a.nbytes == old.nbytes
    )


class LaunchKey:
    """What a launch depends on (the module docstring lists it and why each part is there):
    ``matches`` is True only when another launch would pack the same struct and run the same
    code over the same range."""

    __slots__ = ("arguments", "views", "sizes", "frozen", "threads", "spec_values", "written")

    def __init__(
        self, info: KernelInfo, args: Sequence[object], sizes: Sizes, frozen: bool, threads: int,
        spec_values: bytes,
    ) -> None:
        refs: list[object] = []
        views: list[object] = []
        written: list[int] = []
        for arg_info, a in zip(info.args, args, strict=True):
            if arg_info.kind == "memref":
                refs.append(weakref.ref(a))
                views.append((a.dtype, a.shape, a.strides))  # type: ignore[attr-defined]
                if arg_info.written:  # the flag can be turned off on the same array
                    written.append(len(refs) - 1)
            elif arg_info.kind == "local":
                refs.append(a)
                views.append(_LOCAL)
            else:
                refs.append(_NEVER if isinstance(a, np.ndarray) else a)
                views.append(None)
        #: per argument: an array's weak reference, else the value itself
        self.arguments = tuple(refs)
        #: positions of the arrays the kernel may write
        self.written = tuple(written)
        #: per argument: an array's (dtype, shape, strides), ``_LOCAL`` or None (a scalar)
        self.views = tuple(views)
        #: (global size, local size, global offset) as given (hashable: ints or tuples of
        #: them), else (``frozen``: a list, an array) as tuples of ints
        self.sizes = tuple(_frozen_size(s) for s in sizes) if frozen else sizes
        self.frozen = frozen
        self.threads = threads
        self.spec_values = spec_values

    def matches(self, args: tuple, sizes: Sizes, threads: int, spec_values: bytes) -> bool:
        if threads != self.threads or spec_values != self.spec_values:
            return False
        try:
            if sizes != self.sizes and not (
                self.frozen and tuple(_frozen_size(s) for s in sizes) == self.sizes
            ):
                return False
        except (ValueError, TypeError):  # an array compared, a size that is no size
            return False
        if len(args) != len(self.arguments):
            return False
        for a, old, view in zip(args, self.arguments, self.views):  # noqa: B905 - same length
            if view is None:  # a scalar: same type, equal, same sign of a zero
                if a is not old and (
                    type(a) is not type(old) or not a == old or not (a or _same_zero(a, old))
                ):
                    return False
            elif view is _LOCAL:
                if a is not old and not _same_local(a, old):  # type: ignore[arg-type]
                    return False
            elif old() is not a or (a.dtype, a.shape, a.strides) != view:  # type: ignore[operator]
                return False
        for i in self.written:
            if not args[i].flags.writeable:  # type: ignore[attr-defined]
                return False
        return True


class Replay:
    """A settled launch, ready to run again: its key, packed struct, NDRange, entry and the
    prepared run; ``until``: see the module docstring; ``keep``: the emulated
    specialization-constant buffer its packed struct points to."""

    __slots__ = ("key", "packed", "nd", "entry", "until", "keep", "prepared")

    def __init__(
        self, key: LaunchKey, packed: launch.PackedArgs, nd: launch.NDRange, entry: object,
        until: float | None, keep: object,
    ) -> None:
        self.key = key
        self.packed = packed
        self.nd = nd
        self.entry = entry
        self.until = until
        self.keep = keep
        #: the run, prepared on the first replay (most full launches get none)
        self.prepared: Callable[[], None] | None = None

    def prepare(self) -> Callable[[], None]:
        self.prepared = launch.prepared(
            self.entry, self.packed.address, self.nd, self.key.threads  # type: ignore[arg-type]
        )
        return self.prepared


class LocalSizeVariants:
    """A kernel's work-group functions compiled for one local size each.

    As PoCL does, the work-group function is compiled again with the local size as a constant
    (``mux.reqd_work_group_size``): constant work-item loop bounds let LLVM unroll and
    vectorize without remainders (conv3x3: 1.3x faster). Only for uniform launches (every
    group full), and only from the second launch with the same local size, so a one-off launch
    does not pay a second compilation. The specialization can also lose (gather 1.22x slower
    at 512 bits, matmul_tiled 1.11x at 256: bench/TRANSFORMS.md), so with ``tune`` the
    variant's launches are timed against the kernel's ``generic`` entry (compiled already, same
    packed arguments) and, on a host with 512-bit vectors, between its 512- and 256-bit
    builds; the fastest stays (``tuning.variant_builds``, ``tuning.BuildTuner``). A kernel
    with a required size is compiled for it already (its generic entry is the variant): it
    gets a variant only on a host with 512-bit vectors, to run the faster vector width
    (vecadd 2^22 with ``reqd_work_group_size``: 0.515 ms at 512 bits, 0.487 tuned). Width-
    dependent kernels (``tuning.width_dependent``) always run the variant, untuned. With
    native specialization constants the variant is specialized for the launch's value set too
    (``SpecState.variant_entry``, tuned per value set against that value set's generic
    entry); emulated ones need nothing: same arguments. ``built``: local size → entry,
    ``tuning.BuildTuner`` or None (native specialization constants: kept by the
    ``SpecState``)."""

    def __init__(
        self, info: KernelInfo, source: VariantSource | None, settings: Settings,
        spec: _spec.SpecState | None, generic: object = None,
    ) -> None:
        self.info = info
        self.source = source
        self.settings = settings
        self.spec = spec
        #: the kernel's own entry hook (the program's code, no variant): a tuning candidate
        self.generic = generic
        self.native_spec = spec is not None and spec.table.mode == "native"
        self.built: dict[tuple[int, ...], object] = {}
        self.launches: dict[tuple[int, ...], int] = {}
        #: background builds under way (``runtime/tiered.py``): local size, or (local size,
        #: value set) with native specialization constants -> job
        self.pending: dict[object, tiered.Job] = {}
        #: (local size, value set) whose background build failed: the generic code stays
        self.failed: set[tuple[tuple[int, ...], bytes]] = set()
        #: whether the last ``entry`` found a background build under way (no replay then)
        self.building = False

    def entry(
        self, nd: launch.NDRange, spec_values: bytes, threads: int
    ) -> tuple[object | None, tuning.BuildTuner | None, bool]:
        """The entry hook for a launch over ``nd`` (None: no variant), its build tuner
        (None: not tuned) and whether the launch (on ``threads`` threads) is one of its samples
        (its time goes to ``tuner.record``). ``building`` says whether a background build
        for this launch is under way (it runs without the variant meanwhile)."""
        self.building = False
        local = self._key(nd)
        if local is None:
            return None, None, False
        if local not in self.built:
            job = self.pending.get(local)
            if job is None:
                seen = self.launches.get(local, 0) + 1
                self.launches[local] = seen
                if seen < 2:
                    source = self.source
                    if (source is not None and source.prepare is not None
                            and not synchronous(self.settings)):
                        tiered.submit("the variants' builder", source.prepare)
                    return None, None, False
                if self.native_spec:
                    self.built[local] = None
                elif synchronous(self.settings):
                    self.built[local] = self._compile(local)
                else:
                    label = self._label(local)
                    self.pending[local] = tiered.submit(
                        label, lambda: _first_built(self._compile(local), label))
                    self.building = True
                    return None, None, False
            elif not job.done:
                self.building = True
                return None, None, False
            else:
                del self.pending[local]
                self.built[local] = tiered.finished(job)
        variant = self._native(local, spec_values) if self.native_spec else self.built[local]
        if variant is _PENDING:
            self.building = True
            return None, None, False
        if isinstance(variant, tuning.BuildTuner):
            # samples are comparable launches: one global size and thread count
            entry, sample = variant.next_launch((nd.global_size, threads))  # may start a round
            return entry, variant, sample
        return variant, None, False

    def warm(self, local: tuple[int, ...], spec_values: bytes | None) -> bool:
        """Build the variant for ``local`` (a 3-D local size; with native specialization
        constants for the value set ``spec_values``) now, every tuning candidate included, so
        that a launch of that size runs it at once; False when the kernel takes no variant
        there."""
        if self.source is None or (
            self.info.reqd_work_group_size is not None
            and (not self.builds() or tuple(self.info.reqd_work_group_size) != local)
        ):
            return False
        job = self.pending.pop(local, None)
        if job is not None:
            tiered.run_now(job)
            self.built[local] = tiered.finished(job)
        if local not in self.built:
            self.built[local] = None if self.native_spec else _prebuilt(self._compile(local))
        if self.native_spec and spec_values is not None:
            job = self.pending.pop((local, spec_values), None)
            if job is not None:
                tiered.run_now(job)
                tiered.finished(job)
            _prebuilt(self._native_now(local, spec_values))
        return True

    def settled(self, nd: launch.NDRange) -> bool:
        """Whether the later launches over ``nd`` run the variant (or plain kernel) this one
        ran, as far as compiling goes: False while its variant is still to be built (the
        build tuner's state is the caller's to check)."""
        local = self._key(nd)
        return local is None or (local in self.built and not self.building)

    def _key(self, nd: launch.NDRange) -> tuple[int, ...] | None:
        """The local size of the variant a launch over ``nd`` may get (None: never)."""
        if self.source is None:
            return None
        if self.info.reqd_work_group_size is not None and not self.builds():
            return None  # already compiled for its one local size: a variant would only tune
        if any(g % loc for g, loc in zip(nd.global_size, nd.local_size, strict=True)):
            return None
        return nd.local_size

    def builds(self) -> tuple[str, ...]:
        """The builds a variant's tuner samples (``tuning.variant_builds``; empty: not tuned;
        a width-dependent kernel's variant is not tuned whatever this says)."""
        return tuning.variant_builds(
            bool(self.settings.tune), self.info.reqd_work_group_size is not None
        )

    def _label(self, local: tuple[int, ...]) -> str:
        return f"kernel '{self.info.name}' local size {local}"

    def _native(self, local: tuple[int, ...], spec_values: bytes) -> object:
        """The value set's variant, or ``_PENDING`` while it is built in the background
        (None: its build failed; the value set's plain specialization runs)."""
        key = (local, spec_values)
        job = self.pending.get(key)
        if job is not None:
            if not job.done:
                return _PENDING
            del self.pending[key]
            if tiered.finished(job) is None:
                self.failed.add(key)
        if key in self.failed:
            return None
        spec = self.spec
        assert spec is not None
        ready = spec._variant_entries.get((f"{self.info.name}/{local}", spec_values))
        if ready is not None or synchronous(self.settings):
            return ready if ready is not None else self._native_now(local, spec_values)
        label = f"{self._label(local)} for a value set"
        self.pending[key] = tiered.submit(
            label, lambda: _first_built(self._native_now(local, spec_values), label))
        return _PENDING

    def _native_now(self, local: tuple[int, ...], spec_values: bytes) -> object:
        source = self.source
        spec = self.spec
        assert source is not None and spec is not None
        info = self.info

        def generic() -> object:  # the value set's plain specialization (None: the defaults)
            return spec.entry(info.name, info.symbol, spec_values) or self.generic

        return spec.variant_entry(
            info.symbol, f"{info.name}/{local}", spec_values, lambda: source.lower(local),
            builds=self.builds(), generic=generic, label=self._label(local),
        )

    def _compile(self, local: tuple[int, ...]) -> object:
        """The variant's entry hook, or (``builds``) a tuner over its builds and the generic
        entry that keeps the fastest. A variant the caches hold (its key, with
        ``width_dependent`` noted in its record) is not lowered again: a warm start's
        variants need no xDSL."""
        from xmux.runtime import jit

        source = self.source
        assert source is not None
        key = None
        if source.cache_key:
            key = hashlib.sha256(
                f"{source.cache_key}/{self.info.name}/{local}".encode()
            ).hexdigest()
        symbol = self.info.symbol
        lowered: list[Lowered] = []

        def lower() -> Lowered:  # once, and only for a build the caches do not hold
            if not lowered:
                lowered.append(source.lower(local))
            return lowered[0]

        def cached(vector_bits: int | None = None) -> object | None:
            # the key stands for the source, options, target and local size: a hit (a warm
            # start, another program of the same text) needs no xDSL lowering
            if key is None:
                return None
            return jit.load_cached(key, disk_cache=source.disk_cache, vector_bits=vector_bits)

        def notes() -> dict[str, bool]:
            return {"width_dependent": lower().width_dependent,
                    "packed": lower().packed is not None}

        def build(vector_bits: int | None = None) -> object:
            compiled = cached(vector_bits) or jit.compile_ir(
                lower().ir, cache_key=key, disk_cache=source.disk_cache,
                vector_bits=vector_bits, notes=notes())
            return abi.EntryHookFn(compiled.address(symbol))  # type: ignore[attr-defined]

        def build_packed() -> object:  # the twin with pack-group-panels, at the host's width
            twin = None if key is None else hashlib.sha256(f"{key}/packed".encode()).hexdigest()
            compiled = (twin is not None and jit.load_cached(
                twin, disk_cache=source.disk_cache)) or jit.compile_ir(
                lower().packed or "", cache_key=twin, disk_cache=source.disk_cache)
            return abi.EntryHookFn(compiled.address(symbol))  # type: ignore[attr-defined]

        hit = cached()
        facts = {} if hit is None else hit.notes  # type: ignore[attr-defined]
        width_dependent, packed = facts.get("width_dependent"), facts.get("packed")
        if not isinstance(width_dependent, bool) or not isinstance(packed, bool):
            width_dependent = lower().width_dependent  # no hit, or a record without the notes
            packed = lower().packed is not None

        names = self.builds()
        if not names or width_dependent:
            return build()
        makers = {"512-bit": build, "variant": build, "256-bit": lambda: build(256),
                  "generic": lambda: self.generic, "packed": build_packed}
        if packed:
            names = (*names, "packed")
        return tuning.BuildTuner([makers[n] for n in names], self._label(local), names)


class KernelLauncher:
    """Runs one kernel's launches: replays the last one when its ``LaunchKey`` matches, else
    checks and packs the arguments, picks the entry (local-size variant, specialization) and
    runs it, keeping it for replay once settled."""

    def __init__(
        self, info: KernelInfo, entry: object, settings: Settings,
        spec: _spec.SpecState | None = None, source: VariantSource | None = None,
    ) -> None:
        self.info = info
        self.entry = entry
        self.settings = settings
        self.spec = spec
        # emulated specialization constants: the buffer's address is a hidden last argument
        self.spec_info = _spec.launch_info(info) if spec is not None else info
        self.variants = LocalSizeVariants(info, source, settings, spec, entry)
        self.ndranges: dict[tuple, launch.NDRange] = {}
        self.replay: Replay | None = None
        #: native value sets specialized in the background: blob -> job
        self.spec_jobs: dict[bytes, tiered.Job] = {}
        #: the last launch ran the generic form while its specialization is built
        self.spec_building = False
        #: the first launch's ``_prime`` has run
        self.primed = False
        #: the entry the last launch on the full path ran (replays run ``replay.entry``)
        self.last_entry: object = None
        #: launches the program's generic form ran (values read from memory: a new value
        #: set's specialization under way; tests and benchmarks)
        self.emulated_launches = 0

    def __call__(
        self, args: tuple, sizes: Sizes, threads: int | None, spec_constants: dict | None,
        profile: bool, counters: Meter | None = None,
    ) -> tuple[float, float] | None:
        """Launch; ``(start, end)`` around the run of the work-groups when ``profile`` or
        ``counters`` (``runtime/counters.py``: it reads the launch's threads' counters just
        outside that span)."""
        if threads is not None:
            n = launch.check_threads(threads, f"kernel '{self.info.name}'")
        else:
            n = self.settings.threads or launch.default_threads()
        spec = self.spec
        target = None
        if spec is not None:  # the values are read (and checked) on every launch
            target = spec.resolve(self.info.name, spec_constants)
            values = target.buffer
        else:
            if spec_constants:
                _spec.reject_values(f"kernel '{self.info.name}'", spec_constants)
            values = b""
        replay = self.replay
        if (
            replay is not None
            and replay.key.matches(args, sizes, n, values)
            and (replay.until is None or tuning._now() < replay.until)
        ):
            run = replay.prepared or replay.prepare()
            if not profile and counters is None:
                run()
                return None
            if counters is not None:
                counters.begin(_pool_participants(replay.nd, n))
            start = time.perf_counter()
            run()
            end = time.perf_counter()
            if counters is not None:
                counters.end()
            return start, end
        return self._launch(args, sizes, n, target, counters)

    def _launch(
        self, args: tuple, sizes: Sizes, n: int, target: _spec.LaunchTarget | None,
        counters: Meter | None = None,
    ) -> tuple[float, float]:
        """The full path: check, pack, pick the entry, run; keep it for replay if settled."""
        nd, frozen = self._ndrange(sizes)
        packed, keep, values = self._pack(args, target)
        self.spec_building = False
        if not self.primed:
            self._prime()
        entry, tuner, sample = self.variants.entry(nd, values, n)
        in_place = None
        if entry is None and self.variants.native_spec:
            entry = self._spec_entry(values)
            if entry is _PENDING:  # a new value set, specialized in the background
                spec = self.spec
                entry = spec.generic_entry(self.info.symbol)  # type: ignore[union-attr]
                in_place = spec.values_in_place(values)  # type: ignore[union-attr]
                self.emulated_launches += 1
        entry = self.last_entry = entry or self.entry
        # a one-thread launch runs on this thread: its sample is the thread's CPU time, which
        # other processes' preemptions do not inflate (on a busy host they hit most samples)
        if counters is not None:  # opens the counters (once per thread): before the timing
            counters.begin(_pool_participants(nd, n))
        cpu = time.thread_time() if sample and n == 1 else 0.0
        start = time.perf_counter()
        if in_place is None:
            launch.run_ndrange(entry, packed.address, nd, n)  # type: ignore[arg-type]
        else:
            with in_place:  # the generic form's variables hold this launch's values
                launch.run_ndrange(entry, packed.address, nd, n)  # type: ignore[arg-type]
        end = time.perf_counter()
        if counters is not None:
            counters.end()
        if sample:  # a tuning sample
            tuner.record(time.thread_time() - cpu if n == 1 else end - start)  # type: ignore[union-attr]
        elif (self.variants.settled(nd) and (tuner is None or not tuner.sampling)
              and not self.spec_building):
            until = tuner.replay_until((nd.global_size, n)) if tuner is not None else None
            key = LaunchKey(self.info, args, sizes, frozen, n, values)
            self.replay = Replay(key, packed, nd, entry, until, keep)
        del keep  # the emulated buffer lives until the launch has finished
        return start, end

    def _spec_entry(self, values: bytes) -> object:
        """Native specialization constants: the value set's entry (None: the defaults, the
        program's own), or ``_PENDING`` while it is built in the background and the program's
        generic form runs the launch meanwhile. With ``wait``, built now. Before that form is
        built, the launch finishes its build (the rest of it where the builder is on it, else
        here: never more than a specialization would cost, and every later new value set then
        waits for nothing); only where it failed is the value set specialized now. A failed
        background build is built again here: its error is the launch's, as a synchronous
        build's would be."""
        spec = self.spec
        assert spec is not None
        info = self.info
        if values == spec.table.default_values:
            return None
        ready = spec._entries.get((info.name, values))
        if ready is not None:
            return ready
        job = self.spec_jobs.get(values)
        if job is None:
            if synchronous(self.settings) or not self._generic_form(spec):
                return spec.entry(info.name, info.symbol, values)
            if len(self.spec_jobs) >= 64:  # done ones are in ``spec._entries``
                self.spec_jobs = {v: j for v, j in self.spec_jobs.items() if not j.done}
            job = self.spec_jobs[values] = tiered.submit(
                f"kernel '{info.name}' specialized for a value set",
                lambda: spec.entry(info.name, info.symbol, values))
        if not job.done:
            self.spec_building = True
            return _PENDING
        del self.spec_jobs[values]
        if job.error is None:
            return job.result
        job.reported = True  # raised again by the build here, as the launch's error
        return spec.entry(info.name, info.symbol, values)

    @staticmethod
    def _generic_form(spec: _spec.SpecState) -> bool:
        """Whether the program's generic form can run a new value set: built, or finished now
        (its job run here if still queued, else waited for)."""
        if spec.generic_ready():
            return True
        job = spec.generic_job
        if job is None or job.done:  # none queued (not native) or failed: reported once
            return False
        tiered.run_now(job)
        return spec.generic_ready()

    def _prime(self) -> None:
        """First launch: a native program whose kernel reads constants has its generic form
        built in the background, ready before a new value set needs it (``xmux.compile``
        queues it already; this covers ``xmux.load``'s programs)."""
        from xmux.runtime import jit

        reason = jit.cannot_run_here()
        if reason is not None:
            raise XmuxError(f"kernel '{self.info.name}': {reason}")
        self.primed = True
        spec = self.spec
        if spec is None or spec.table.mode != "native" or synchronous(self.settings):
            return
        use = spec.table.kernels.get(self.info.name)
        if use is not None and use.uses:
            spec.queue_generic()

    def _spec_entry_now(self, values: bytes) -> object:
        """``prog.warm``: the value set's specialization, built now (None: the defaults)."""
        spec = self.spec
        if spec is None or spec.table.mode != "native" or values == spec.table.default_values:
            return None
        return spec.entry(self.info.name, self.info.symbol, values)

    def _pack(
        self, args: tuple, target: _spec.LaunchTarget | None
    ) -> tuple[launch.PackedArgs, object, bytes]:
        """The checked packed struct, the object it needs alive and the spec value set."""
        if target is None:
            return launch.PackedArgs(self.info, args), None, b""
        _, extra, keep, values = target
        if not extra:
            return launch.PackedArgs(self.info, args), keep, values
        if len(args) != len(self.info.args):
            launch.PackedArgs(self.info, args)  # raises the argument-count error
        return launch.PackedArgs(self.spec_info, (*args, *extra)), keep, values

    def ndrange(self, global_size, local_size, global_offset) -> launch.NDRange:  # noqa: ANN001
        """The checked NDRange of these sizes."""
        return self._ndrange((global_size, local_size, global_offset))[0]

    def _ndrange(self, sizes: Sizes) -> tuple[launch.NDRange, bool]:
        """The checked NDRange, kept per size triple, as a loop launches the same one; and
        whether the sizes are given in mutable objects (unhashable: lists, arrays)."""
        frozen = False
        try:
            nd = self.ndranges.get(sizes)  # type: ignore[arg-type]
            key: tuple | None = sizes
        except TypeError:  # a list or an array: cached under a copy
            frozen = True
            key = tuple(_hashable(s) for s in sizes)
            try:
                nd = self.ndranges.get(key)
            except TypeError:  # not a size: NDRange reports what is wrong with it
                key, nd = None, None
        if nd is None:
            nd = self._checked(*sizes)
            if key is not None:
                if len(self.ndranges) >= 64:
                    self.ndranges.clear()
                self.ndranges[key] = nd
        return nd, frozen

    def _checked(self, global_size, local_size, global_offset) -> launch.NDRange:  # noqa: ANN001
        return launch.NDRange.of(self.info, global_size, local_size, global_offset)


def _pool_participants(nd: launch.NDRange, threads: int) -> tuple[threading.Thread, ...]:
    """The pool workers that take part in a launch over ``nd`` on ``threads`` threads (none
    when it runs on the calling thread alone: the rule of ``launch.run_ndrange``)."""
    if not launch._on_pool(nd, threads):
        return ()
    return pool.get_pool(threads).workers[: threads - 1]


def _hashable(v: object) -> object:
    if v is None or isinstance(v, (int, np.integer)):
        return v
    try:
        return tuple(v)  # type: ignore[call-overload]
    except TypeError:
        return [v]  # unhashable: no caching, NDRange reports what is wrong with it
