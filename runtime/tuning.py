"""Pick between builds of one kernel variant by timing the launches that run them.

On a host with 512-bit vectors (AVX-512), LLVM vectorizes work-item loops 16 floats wide.
Whether that beats 256-bit vectors depends on the kernel and on the data it meets (bench, AMD
EPYC: saxpy 0.27 -> 0.25 ms and naive matmul 7.2 -> 6.2 ms at 256 bits, 5.1 -> 4.5 ms on 64-byte
aligned arrays; numpy's own start 16 bytes past a cache line, so every 64-byte access
straddles two), while a stencil that reuses its loads from L1 or a kernel on local memory is
faster at 512 bits (conv3x3 0.50 vs 0.73 ms, tiled matmul 2.3 vs 2.7 ms). No static rule got
both right,
so the local-size variant of a kernel (``runtime/launcher.py``, ``LocalSizeVariants``) is built both
ways and the launches after it alternate between the builds; once each has run ``WARMUP`` +
``SAMPLES`` times, the one with the lower minimum launch time (the first ``WARMUP`` launches of
a build not counted: they follow its compilation, with cold caches and sleeping workers) is
kept. The minimum, not the median: noise on a shared machine only ever adds time. A
one-thread launch (run on the calling thread) is timed by the thread's CPU time, so other
processes' preemptions do not count at all; launches on the pool by wall time.

The faster build can change while a program runs: on the bench's VM the memory system switches
between two phases minutes apart (``bench/memprobe.py``), and saxpy is 4% faster at 512 bits in
one and vecadd 3.5% faster at 256 bits in the other. So a choice is re-checked: once
``RECHECK_S`` seconds and ``RECHECK_FACTOR`` times the launch time the last round of samples
took have passed, the next launches sample every build again (every launch still runs one
build exactly once). The samples of a round all have one global size and thread count, those
the choice was made on: a kernel's one-group test launches between its full-size ones neither
count nor trigger a re-check (they did once, and chose 256 bits for conv3x3 from 2 µs
launches); launches of other sizes replay the choice and look at it again every
``RECHECK_S``. A round costs
``WARMUP + SAMPLES`` launches of each other build, at most 1/``RECHECK_FACTOR`` of the time. A
changed choice is logged (logger ``xmux.runtime.tuning``, level INFO; the first one too,
re-confirmations at DEBUG).

``BuildTuner`` is not tied to vector widths: ``runtime/launch.py`` uses one to choose between
the thread pool and the calling thread alone for launches that take the pool only a few
microseconds (its "builds" are the two ways).

Every launch runs exactly once, on one of the builds; the builds compute the same results
bit for bit unless the code lets LLVM reassociate, contract or approximate floating-point
operations (``reassoc``/``fast``/``contract``/``afn`` flags; work-group reductions have
``reassoc``), whose results may then depend on the vector width (or the constant loop
bounds of a variant): such kernels are not tuned
(``width_dependent``, read from the flags of the lowered module's ops, not from printed IR).

The kernel's generic entry (the code that runs without a variant: compiled already, same packed
arguments) is a candidate too (``variant_builds``): the local-size specialization itself can
lose (bench/TRANSFORMS.md: gather 1.22 and branch_heavy 1.10 at 512 bits, matmul_tiled 1.11 at
256), and whether it does depends on the kernel and the host, so the variant is measured
against it as the widths are against each other, and a variant that loses on this host is
dropped for that kernel. So a variant's tuner has the builds "512-bit", "256-bit", "generic"
on a host with 512-bit vectors and "variant", "generic" elsewhere, and "packed" where
``pack-group-panels`` packs a panel of the variant (its twin with the panels copied per
work-group, at the host's width: it doubles the naive matmul on an Emerald Rapids Xeon and
costs a Zen 4 core 40%; the same loads, so the same bits); a kernel with
``reqd_work_group_size`` has no generic candidate (its generic code has the constant size
already: it is the variant) and is tuned only between widths.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from xmux.runtime import forksafe

__all__ = [
    "RECHECK_FACTOR",
    "RECHECK_S",
    "SAMPLES",
    "WARMUP",
    "BuildTuner",
    "launches_to_settle",
    "variant_builds",
    "width_dependent",
]


#: launches per build that are not counted, then timed launches per build before choosing
#: (vecadd 2^22, where 256 bits are 3% faster by the median: the lower minimum of 4 samples
#: per build picked them in 87% of the rounds, of 8 in 92%)
WARMUP = 1
SAMPLES = 8
#: a choice is sampled again after this many seconds and this many times the round's launch time
RECHECK_S = 2.0
RECHECK_FACTOR = 50.0

#: the clock of the re-check deadlines (tests replace it)
_now = time.perf_counter

#: fast-math flags under which LLVM may compute other bits at another vector width
_WIDTH_DEPENDENT = frozenset({"reassoc", "contract", "afn", "fast"})


def launches_to_settle(builds: int = 2) -> int:
    """Launches of a tuner over ``builds`` builds until it has chosen (``builds`` 0: not
    tuned, nothing to settle)."""
    return builds * (WARMUP + SAMPLES)


def variant_builds(tune: bool = True, required: bool = False) -> tuple[str, ...]:
    """The builds a local-size variant's tuner samples on this host, by name (empty: the
    variant is not tuned): the variant at the host's vector width and, with 512-bit vectors, at
    256 bits, then the kernel's generic entry; a kernel with a ``required`` work-group size has
    no generic candidate (it is the variant's code) and is tuned between widths only. Width-
    dependent kernels (``width_dependent``) are never tuned: the caller checks that."""
    from xmux.runtime import jit

    if not tune:
        return ()
    wide = jit.host_has_wide_vectors()
    if required:
        return ("512-bit", "256-bit") if wide else ()
    return ("512-bit", "256-bit", "generic") if wide else ("variant", "generic")


def width_dependent(module: object) -> bool:
    """Whether builds of this (lowered) module with different vector widths may compute
    different bits: an op carries a ``reassoc``/``contract``/``afn``/``fast`` fast-math flag
    (``arith`` ``fastmath`` or ``llvm`` ``fastmathFlags``)."""
    from xdsl.dialects import arith, llvm

    for op in module.walk():  # type: ignore[attr-defined]
        for attr in (*op.properties.values(), *op.attributes.values()):
            if isinstance(attr, (arith.FastMathFlagsAttr, llvm.FastMathAttr)) and any(
                f.value in _WIDTH_DEPENDENT for f in attr.data
            ):
                return True
    return False


class BuildTuner:
    """Builds of one variant, tried in turn on real launches; the fastest is chosen, and the
    choice re-checked from time to time.

    ``builds`` make the entry hooks (called lazily, the first time a build's turn comes).
    ``next_entry()`` gives the entry for the next launch; while ``sampling``, the caller passes
    that launch's time to ``record(seconds)``, which returns the chosen entry once every build
    has run ``WARMUP + SAMPLES`` times in this round (``names``: the builds' names in logs).
    ``due`` is when the choice is sampled again (``_now()`` clock; None while sampling)."""

    def __init__(
        self,
        builds: Sequence[Callable[[], object]],
        label: str = "variant",
        names: Sequence[str] = ("default", "256-bit"),
    ) -> None:
        self.label = label
        self.names = list(names)
        self._builds = list(builds)
        self._entries: list[object | None] = [None] * len(self._builds)
        self._runs = [0] * len(self._builds)
        self._times: list[list[float]] = [[] for _ in self._builds]
        self._turn = 0
        self._current = 0
        self._chosen: int | None = None
        self._due = 0.0
        self._spent = 0.0
        self._rounds = 0
        self._last = -1
        self._size: object = None
        #: while it returns False, launches run the first build unsampled (``hold``)
        self._held: Callable[[], bool] | None = None
        self._lock = forksafe.lock(self)

    @property
    def sampling(self) -> bool:
        return self._chosen is None

    @property
    def due(self) -> float | None:
        return None if self._chosen is None else self._due

    def replay_until(self, size: object) -> float | None:
        """Until when a launch of ``size`` may be replayed with the chosen build: the re-check
        deadline for the size the choice was made on; for another size (which never starts a
        re-check) a look at the choice again every ``RECHECK_S``. None while sampling."""
        if self._chosen is None:
            return None
        if size == self._size:
            return self._due
        return max(self._due, _now() + RECHECK_S)

    @property
    def chosen_entry(self) -> object | None:
        return None if self._chosen is None else self._entries[self._chosen]

    def next_entry(self) -> object:
        return self.next_launch()[0]

    def next_launch(self, size: object = None) -> tuple[object, bool]:
        """The entry for the next launch, and whether it is a sample (then ``record`` its
        time). Samples of a round all have one ``size`` (the launch's global size and thread
        count: the first round takes the first size launched, a re-check the size of the
        choice); a launch of another size meanwhile runs the last choice (else the first
        build)."""
        chosen = self._chosen
        if chosen is not None and (size != self._size or _now() < self._due):
            return self._entries[chosen], False  # settled: every launch asks, no lock taken
        if self._held is not None:
            if not self._held():
                return self._entry(0), False
            self._held = None
        with self._lock:
            if self._chosen is not None:
                if _now() < self._due or size != self._size:
                    return self._entries[self._chosen], False
                self._start_round()
            elif self._rounds == 0 and not any(self._runs):
                self._size = size
            elif size != self._size:
                return self._entry(max(self._last, 0)), False
            i = self._order(self._turn)
            self._current = i
            return self._entry(i), True

    def _order(self, turn: int) -> int:
        """The build of a round's ``turn``-th launch: forwards, then backwards (A B B A A B B A
        ... for two builds, A B C C B A A B C ... for three), so a drift during the round (the
        machine getting back to speed after a pause: the first launches of a burst are slow)
        favours none."""
        n = len(self._builds)
        cycle, i = divmod(turn, n)
        return n - 1 - i if cycle % 2 else i

    def build_all(self) -> BuildTuner:
        """Build every candidate now (a background build, ``runtime/tiered.py``: no launch
        then compiles one on its first turn); returns the tuner."""
        for i in range(len(self._builds)):
            self._entry(i)
        return self

    def build_first(self) -> BuildTuner:
        """Build the first candidate now (the rest on their turn, or ``build_all``)."""
        self._entry(0)
        return self

    def hold(self, ready: Callable[[], bool]) -> None:
        """Run the first build, unsampled, until ``ready()`` (asked on each launch until it
        is true): the other candidates are being built in the background meanwhile."""
        self._held = ready

    def keep_built(self) -> None:
        """Drop the candidates not built (their background build failed); a single one left
        is chosen for good."""
        keep = [i for i, entry in enumerate(self._entries) if entry is not None]
        with self._lock:
            self._builds = [self._builds[i] for i in keep]
            self._entries = [self._entries[i] for i in keep]
            self.names = [self.names[i] for i in keep]
            self._start_round()
            if len(keep) == 1:
                self._last = self._chosen = 0
                self._due = float("inf")

    def _entry(self, i: int) -> object:
        if self._entries[i] is None:
            self._entries[i] = self._builds[i]()
        return self._entries[i]

    def _start_round(self) -> None:
        self._chosen = None
        self._runs = [0] * len(self._builds)
        self._times = [[] for _ in self._builds]
        self._spent = 0.0
        self._turn = 0

    def record(self, seconds: float) -> object | None:
        with self._lock:
            if self._chosen is not None:
                return None  # a launch of the chosen build that began before the choice
            i = self._current
            self._runs[i] += 1
            self._spent += seconds
            if self._runs[i] > WARMUP:
                self._times[i].append(seconds)
            self._turn += 1
            if min(len(t) for t in self._times) < SAMPLES:
                return None
            best = min(range(len(self._times)), key=lambda i: min(self._times[i]))
            times = zip(self.names, self._times, strict=True)
            summary = ", ".join(f"{n} {min(t) * 1e3:.3f} ms" for n, t in times)
            import logging  # here: ~3 ms of imports a warm start need not pay

            level = logging.INFO if self._rounds == 0 or best != self._last else logging.DEBUG
            again = f" (re-check {self._rounds})" if self._rounds else ""
            logging.getLogger(__name__).log(level, "%s%s: %s -> %s", self.label, again, summary,
                                            self.names[best])
            self._rounds += 1
            self._last = self._chosen = best
            self._due = _now() + max(RECHECK_S, RECHECK_FACTOR * self._spent)
            return self._entries[best]

    @property
    def best_times(self) -> list[float | None]:
        """Fastest counted launch per build in this (or the last) round of samples (None
        before one was counted)."""
        return [min(t) if t else None for t in self._times]
