"""Pick between builds of one kernel variant by timing the launches that run them.

On a host with 512-bit vectors (AVX-512), LLVM vectorizes work-item loops 16 floats wide.
Whether that beats 256-bit vectors depends on the kernel and on the data it meets (bench, AMD
EPYC: saxpy 0.27 -> 0.25 ms and naive matmul 7.2 -> 6.2 ms at 256 bits, 5.1 -> 4.5 ms on 64-byte
aligned arrays; numpy's own start 16 bytes past a cache line, so every 64-byte access
straddles two), while a stencil that reuses its loads from L1 or a kernel on local memory is
faster at 512 bits (conv3x3 0.50 vs 0.73 ms, tiled matmul 2.3 vs 2.7 ms). No static rule got
both right,
so the local-size variant of a kernel (``xmux.api.Program._local_size_variant``) is built both
ways and the launches after it alternate between the builds; once each has run ``WARMUP`` +
``SAMPLES`` times, the one with the lower minimum launch time (the first ``WARMUP`` launches of
a build not counted: they follow its compilation, with cold caches and sleeping workers) is
kept for good. The minimum, not the median: noise on a shared machine only ever adds time.
Each choice is logged (logger ``xmux.runtime.tuning``, level INFO).

Every launch runs exactly once, on one build or the other; the builds compute the same results
bit for bit unless the code lets LLVM reassociate, contract or approximate floating-point
operations (``reassoc``/``fast``/``contract``/``afn`` flags; work-group reductions have
``reassoc``), whose results may then depend on the vector width: such kernels are not tuned
(``may_tune``).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Sequence

__all__ = ["SAMPLES", "WARMUP", "VectorWidthTuner", "may_tune", "launches_to_settle"]

_log = logging.getLogger(__name__)

#: launches per build that are not counted, then timed launches per build before choosing
WARMUP = 1
SAMPLES = 4

_WIDTH_DEPENDENT = re.compile(r"(?<![%@\w.\"])(reassoc|fast|contract|afn)\b")


def launches_to_settle(builds: int = 2) -> int:
    """Launches of a variant until its tuner has chosen."""
    return builds * (WARMUP + SAMPLES)


def may_tune(ir_text: str) -> bool:
    """Whether builds of this LLVM IR with different vector widths compute the same bits."""
    return _WIDTH_DEPENDENT.search(ir_text) is None


class VectorWidthTuner:
    """Builds of one variant, tried in turn on real launches until one is chosen.

    ``builds`` make the entry hooks (called lazily, the first time a build's turn comes).
    ``next_entry()`` gives the entry for the next launch, ``record(seconds)`` its launch time;
    ``record`` returns the chosen entry once every build has run ``WARMUP + SAMPLES`` times."""

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
        self._lock = threading.Lock()

    def next_entry(self) -> object:
        with self._lock:
            i = self._turn % len(self._builds)
            if self._entries[i] is None:
                self._entries[i] = self._builds[i]()
            self._current = i
            return self._entries[i]

    def record(self, seconds: float) -> object | None:
        with self._lock:
            i = self._current
            self._runs[i] += 1
            if self._runs[i] > WARMUP:
                self._times[i].append(seconds)
            self._turn += 1
            if min(len(t) for t in self._times) < SAMPLES:
                return None
            best = min(range(len(self._times)), key=lambda i: min(self._times[i]))
            times = zip(self.names, self._times, strict=True)
            summary = ", ".join(f"{n} {min(t) * 1e3:.3f} ms" for n, t in times)
            _log.info("%s: %s -> %s", self.label, summary, self.names[best])
            return self._entries[best]

    @property
    def best_times(self) -> list[float | None]:
        """Fastest counted launch per build so far (None before one was counted)."""
        return [min(t) if t else None for t in self._times]
