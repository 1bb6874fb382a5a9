"""Which memory phase the machine is in: a 64 MiB streaming sum on one thread and on two.

This VM (AMD EPYC KVM guest, 2 vCPUs) switches, minutes apart and without any sign inside the
guest, between two states of its memory system (measured with gcc's OpenMP sum of
``bench/acc_ref.c`` over 2^24 floats):

* **scaling**: two threads stream ~2.6x as fast as one (1.07 -> 0.41 ms; 32 MiB: 0.42 ->
  0.16 ms, more than twice, so each thread's half is served from a cache of its own);
* **saturated**: two threads stream only ~1.3x as fast as one (1.07 -> 0.80 ms).

Memory-bound results depend on it: vecadd/saxpy/conv3x3 against PoCL (each backend gains a
different amount from the second thread's cache) and every 2-threads-vs-1 ratio. The bench
probes before and after each measurement and reports the phase beside the ratios; compare
ratios of one phase.

    .venv/bin/python bench/memprobe.py      # print the phase now
"""

from __future__ import annotations

import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workloads as wl  # noqa: E402

#: floats streamed per probe call (64 MiB: more than this machine's 32 MiB L3)
N = 1 << 24
#: two threads at least this much faster than one: the "scaling" phase
SCALING_AT_LEAST = 1.7
ROUNDS, CALLS = 5, 5


def build_sums(tmp: Path) -> ctypes.CDLL:
    """bench/acc_ref.c (gcc OpenMP sums, f32/f64, all threads and one) as a loaded library."""
    so = tmp / "libacc_ref.so"
    cmd = ["gcc", "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-Wall",
           str(HERE / "acc_ref.c"), "-o", str(so)]
    subprocess.run(cmd, check=True)
    lib = ctypes.CDLL(str(so))
    for t, res in (("f32", ctypes.c_float), ("f64", ctypes.c_double)):
        for suffix in ("", "_1t"):
            fn = getattr(lib, f"acc_ref_sum_{t}{suffix}")
            fn.argtypes = [ctypes.c_void_p, ctypes.c_long]
            fn.restype = res
    return lib


def phase(scaling: float | None) -> str:
    if scaling is None:
        return "—"
    return "scaling" if scaling >= SCALING_AT_LEAST else "saturated"


class Probe:
    """``probe()`` → {"ms_1t", "ms_2t", "scaling": 1-thread ÷ 2-thread time, "phase"}."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.x = wl.aligned(np.ones(N, np.float32))
        self.one = lib.acc_ref_sum_f32_1t
        self.all = lib.acc_ref_sum_f32

    def _median_ms(self, fn) -> float:
        addr = self.x.ctypes.data
        fn(addr, N)  # re-warm after whatever ran before
        ts = []
        for _ in range(CALLS):
            t = time.perf_counter()
            fn(addr, N)
            ts.append(time.perf_counter() - t)
        return statistics.median(ts) * 1e3

    def __call__(self) -> dict:
        one, two = [], []
        for _ in range(ROUNDS):
            one.append(self._median_ms(self.one))
            two.append(self._median_ms(self.all))
        time.sleep(0.05)  # OpenMP's spinning workers go idle before the next measurement
        ms1, ms2 = statistics.median(one), statistics.median(two)
        scaling = ms1 / ms2
        return {"ms_1t": ms1, "ms_2t": ms2, "scaling": scaling, "phase": phase(scaling)}


def describe(probes: list[dict]) -> str:
    """"2.55×/2.61× (scaling)": the probes around a measurement and the phase they agree on
    ("mixed" when they do not)."""
    vals = [p["scaling"] for p in probes if p]
    if not vals:
        return "—"
    phases = {phase(v) for v in vals}
    name = phases.pop() if len(phases) == 1 else "mixed"
    return "/".join(f"{v:.2f}×" for v in vals) + f" ({name})"


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="memprobe_") as tmp:
        probe = Probe(build_sums(Path(tmp)))
        r = probe()
    print(f"64 MiB sum: 1 thread {r['ms_1t']:.3f} ms, {os.environ.get('OMP_NUM_THREADS', 'all')}"
          f" threads {r['ms_2t']:.3f} ms: {r['scaling']:.2f}x -> {r['phase']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
