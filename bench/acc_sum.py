"""OpenACC reduction benchmark (issue 5): a 2^24-element f32 and f64 sum as a gang+worker+vector
reduction on the cpu expansion, vs numpy and the gcc OpenMP reduction loop.

    .venv/bin/python bench/acc_sum.py            # 2^24 elements, ~30 s, prints markdown
    .venv/bin/python bench/acc_sum.py --quick    # 2^16 smoke run
    .venv/bin/python bench/acc_sum.py --json out.json

The program is upstream MLIR ``acc`` input (``#pragma acc parallel loop gang worker vector
num_gangs(G) num_workers(4) vector_length(32) reduction(+:sum)``); ``xmux.compile`` runs
convert-acc-to-oacc, expand-oacc-reductions{expansion=cpu} and the kernel pipeline, and the outlined
kernel ``acc_sum_acc_parallel_0`` is launched from Python over G work-groups of 32 x 4 work-items
(the launch ``convert-acc-to-oacc`` would make), with ``sum`` reset to 0 before each launch.
Backends, interleaved with ``bench/timing.py`` (bursts, order balanced for carry-over):

* **xmux** (default threads = cores) and **xmux 1 thread** (``threads=1``);
* **gcc**: ``bench/acc_ref.c`` (``omp parallel for simd reduction(+:s)``, ``-O3 -march=native
  -fopenmp``, OMP_NUM_THREADS as the baseline sets it = cores), and the same loop on one
  thread (**gcc 1 thread**: how much a second thread can gain on this machine's memory);
* **numpy**: ``np.sum`` (pairwise, one thread).

Targets: xmux ÷ gcc ≤ 1.5; xmux 1 thread ÷ xmux ≥ 1.7 (two threads).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import memprobe  # noqa: E402
import timing  # noqa: E402
import workloads as wl  # noqa: E402

bl = wl.baseline()

import numpy as np  # noqa: E402

NUM_WORKERS = 4
VECTOR_LENGTH = 32

#: upstream acc input, formatted with the element type and the three level sizes
SOURCE = (HERE / "kernels" / "acc_sum.mlir.in").read_text()

KERNEL = "acc_sum_acc_parallel_0"
DTYPES = {"f32": np.float32, "f64": np.float64}


def measure(t: str, n: int, gangs: int, lib: ctypes.CDLL) -> dict:
    import xmux

    dtype = DTYPES[t]
    rng = np.random.default_rng(5)
    # values in [0, 1): every backend's sum is well conditioned; compare with a relative tolerance
    x = wl.aligned(rng.random(n).astype(dtype))  # 64-byte aligned, as in bench/run.py
    exact = float(np.sum(x, dtype=np.float64))
    text = SOURCE.format(t=t, gangs=gangs, workers=NUM_WORKERS, vl=VECTOR_LENGTH)
    k = xmux.compile(text)[KERNEL]
    total = np.zeros((), dtype)
    gsz, lsz = (gangs * VECTOR_LENGTH, NUM_WORKERS), (VECTOR_LENGTH, NUM_WORKERS)
    names = [a.name for a in k.info.args]
    values = {"x": x, "sum": total, "n": n}
    args = [values[nm] if nm in values else None for nm in names]
    if any(a is None for a in args):
        # arguments named after captured values are an implementation detail: fall back to order
        args = [x, total, n][: len(names)]

    def run(threads: int | None = None):
        total[...] = 0
        k(*args, global_size=gsz, local_size=lsz, threads=threads)

    fn = getattr(lib, f"acc_ref_sum_{t}")
    fn1 = getattr(lib, f"acc_ref_sum_{t}_1t")
    got = {}
    run()
    got["xmux"] = float(total)
    run(1)
    got["xmux 1 thread"] = float(total)
    got["gcc"] = float(fn(x.ctypes.data, n))
    got["gcc 1 thread"] = float(fn1(x.ctypes.data, n))
    got["numpy"] = float(np.sum(x))
    rtol = 1e-5 if t == "f32" else 1e-12
    verify = {b: abs(v - exact) <= rtol * abs(exact) for b, v in got.items()}
    backends = [
        bl.Backend("xmux", "gcc", call=run),
        bl.Backend("xmux 1 thread", "gcc", call=lambda: run(1)),
        bl.Backend("gcc", "gcc", call=lambda: fn(x.ctypes.data, n)),
        bl.Backend("gcc 1 thread", "gcc", call=lambda: fn1(x.ctypes.data, n)),
        bl.Backend("numpy", "numpy", call=lambda: np.sum(x)),
    ]
    before = bl.cpu_snapshot([os.getpid()])
    steady = timing.interleaved(backends)
    cpu = bl.cpu_delta(before, bl.cpu_snapshot([os.getpid()]))
    return {"n": n, "gangs": gangs, "steady": steady, "verify": verify, "got": got,
            "exact": exact, "rtol": rtol, "cpu": cpu, "args": names}


def report(r: dict) -> None:
    print(f"## OpenACC gang+worker+vector sum (issue 5): {r['gangs']} gangs x "
          f"{NUM_WORKERS} workers x vector length {VECTOR_LENGTH}, cpu expansion\n")
    print("| type | n | xmux ms | xmux 1 thread ms | gcc ms | gcc 1 thread ms | numpy ms | "
          "xmux ÷ gcc | xmux 1 thread ÷ xmux | gcc 1 thread ÷ gcc | xmux ÷ numpy | verified | "
          "other CPU |")
    print("|---|---|---|---|---|---|---|---:|---:|---:|---:|---|---:|")
    for t, o in r["types"].items():
        st = o["steady"]

        def c(label: str, st=st) -> str:
            m = st[label]["wall_ms"]
            return f"{m['median']:.3g} [{m['p10']:.3g}–{m['p90']:.3g}]"

        ok = "yes" if all(o["verify"].values()) else \
            "NO: " + ", ".join(b for b, v in o["verify"].items() if not v)
        print(f"| {t} | 2^{o['n'].bit_length() - 1} | {c('xmux')} | {c('xmux 1 thread')} | "
              f"{c('gcc')} | {c('gcc 1 thread')} | {c('numpy')} | "
              f"{st['xmux']['ratio_vs']['gcc']:.2f}× | "
              f"{st['xmux 1 thread']['ratio_vs']['xmux']:.2f}× | "
              f"{st['gcc 1 thread']['ratio_vs']['gcc']:.2f}× | "
              f"{st['xmux']['ratio_vs']['numpy']:.2f}× | {ok} | "
              f"{o['cpu']['foreign_pct']:.0f}% |")
    print("\nTargets: xmux ÷ gcc ≤ 1.5×, 1 thread ÷ 2 threads ≥ 1.7×. The sums stream 64 / "
          "128 MiB from memory: **gcc 1 thread ÷ gcc** (the same OpenMP loop on one thread) "
          "shows how much a second thread can gain on this machine at all. Ratios are "
          "medians of per-round median ratios (interleaved rounds). Sums verified against a "
          "float64 sum with relative tolerance 1e-5 (f32) / 1e-12 (f64).")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--gangs", type=int, default=64)
    ap.add_argument("--json")
    args = ap.parse_args()
    n = 1 << (16 if args.quick else 24)
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"acc_sum_{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    lib = memprobe.build_sums(tmp)
    r = {"gangs": args.gangs, "types": {t: measure(t, n, args.gangs, lib) for t in DTYPES}}
    report(r)
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1, default=str))
    return 0 if all(all(o["verify"].values()) for o in r["types"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
