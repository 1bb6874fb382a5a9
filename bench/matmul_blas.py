"""Naive SIMT matmul against OpenBLAS (issue 33, item 3): xmux's ``bench/kernels/matmul_naive.mlir``
(one output per work-item, 16×16 work-groups, no user tiling) and numpy's ``A @ B`` on the same
number of threads, at 1024² and 2048² by default.

    .venv/bin/python bench/matmul_blas.py                    # every core, 1024 and 2048
    .venv/bin/python bench/matmul_blas.py --threads 16       # the 16-core device machine
    .venv/bin/python bench/matmul_blas.py --threads 1 --sizes 1024 --peak 96

Per size: the median and minimum of interleaved rounds (a burst of xmux launches, then a
burst of numpy calls, alternating which goes first; xmux after the launches its vector-width
tuner takes to choose), xmux ÷ numpy of the medians, GFLOP/s
(2n³ flops) and the percentage of the FMA peak: ``--peak`` GFLOP/s when given, else measured
here as ``bench/roofline.py`` does (the shared ``ref.c``'s 16 independent FMA chains per
thread, gcc -O3 -march=native -fopenmp, at 512 and 256 bits; the higher one is the peak).
With ``--threads 1`` every time (kernels and peak) is the calling thread's CPU time
(``time.thread_time``: both libraries run on it), which other processes on a busy VM do not
inflate; with more threads, wall time. numpy's OpenBLAS gets the thread count through
``OPENBLAS_NUM_THREADS`` (set before numpy
loads, and through threadpoolctl when installed). Results are checked against numpy
(relative error of the float32 sums). The machine's load average is printed with each size:
on a shared VM compare the columns of one row, not across runs. ``--plain`` also times the
kernel built with add-entry-hook's x-fastest group order (``group_band=0``) in the same rounds
(and checks that both give the same bits). ``--json FILE`` keeps the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path


def _args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                   help="threads of xmux and of OpenBLAS (default: every core this process "
                   "may use)")
    p.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    p.add_argument("--local", type=int, nargs=2, default=[16, 16], metavar=("LX", "LY"))
    p.add_argument("--rounds", type=int, default=7, help="interleaved rounds per size")
    p.add_argument("--peak", type=float, default=None,
                   help="FMA peak in GFLOP/s for the %% column (default: measured, as roofline.py)")
    p.add_argument("--plain", action="store_true",
                   help="also time xmux with add-entry-hook's x-fastest group order "
                   "(group_band=0) in the same rounds")
    p.add_argument("--json", type=Path, default=None)
    return p.parse_args()


ARGS = _args()
# before numpy (and its OpenBLAS) is loaded
os.environ["OPENBLAS_NUM_THREADS"] = str(ARGS.threads)
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)

import numpy as np  # noqa: E402

import xmux  # noqa: E402
from xmux.runtime.tuning import launches_to_settle, variant_builds  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads as wl  # noqa: E402


def _blas_limit():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return threadpool_limits(ARGS.threads, user_api="blas")


def fma_peak(threads: int) -> tuple[float, str]:
    """The FMA peak (GFLOP/s) on ``threads`` threads, as bench/roofline.py measures it."""
    import tempfile

    bl = wl.baseline()
    bl.NTHREADS = threads
    os.environ["OMP_NUM_THREADS"] = str(threads)
    bl.BUILD_DIR = tempfile.mkdtemp(prefix="xmux_mm_blas_")
    lib, _, _ = bl.build_ref()
    best, where = 0.0, ""
    for bits, fn, lanes in ((512, lib.peak_fma_512, 16), (256, lib.peak_fma_256, 8)):
        iters = bl.PEAK_ITERS // 4
        flops = 2.0 * 16 * lanes * iters * threads
        if threads == 1:  # the calling thread's CPU time, as the kernels are timed
            fn(iters // 10)
            secs = min(_timed(lambda fn=fn, iters=iters: fn(iters)) for _ in range(5))
        else:
            secs = bl.series(lambda fn=fn, iters=iters: fn(iters), reps_min=5)[
                "wall_ms"]["median"] * 1e-3
        gf = flops / secs / 1e9
        print(f"FMA peak at {bits} bits: {gf:.0f} GFLOP/s ({threads} threads)", flush=True)
        if gf > best:
            best, where = gf, f"measured, {bits}-bit"
    return best, where


#: one thread: the calling thread's CPU time (xmux's threads=1 launch and OpenBLAS on one
#: thread run on it), which a busy shared VM's preemptions do not inflate; else wall time
CLOCK = time.thread_time if ARGS.threads == 1 else time.perf_counter


def _timed(fn) -> float:
    t = CLOCK()
    fn()
    return CLOCK() - t


def burst(fn, min_s: float = 0.15, min_reps: int = 3) -> list[float]:
    """Seconds of each call of ``fn`` in a burst of at least ``min_s`` and ``min_reps`` calls,
    after one untimed call."""
    fn()
    out: list[float] = []
    start = time.perf_counter()
    while len(out) < min_reps or time.perf_counter() - start < min_s:
        out.append(_timed(fn))
    return out


def plain_kernel(src: str):
    """The kernel built with the x-fastest group order (``--plain``)."""
    import dataclasses

    from xmux import pipelines
    from xmux.transforms.add_entry_hook import AddEntryHook

    passes = [dataclasses.replace(p, group_band=0) if isinstance(p, AddEntryHook) else p
              for p in pipelines.cpu()]
    return xmux.compile(src, pipeline=passes, wait=True).kernel("matmul_naive")


def measure(k, n: int, plain=None) -> dict:
    rng = np.random.default_rng(20240611)
    a = wl.aligned(rng.random((n, n), dtype=np.float32))
    b = wl.aligned(rng.random((n, n), dtype=np.float32))
    c = wl.aligned(np.zeros((n, n), np.float32))
    c_np = wl.aligned(np.zeros((n, n), np.float32))
    gsz, lsz = (n, n), tuple(ARGS.local)

    def run_x() -> None:
        k(np.int32(n), a, b, c, global_size=gsz, local_size=lsz, threads=ARGS.threads)

    def run_np() -> None:
        np.matmul(a, b, out=c_np)

    t0 = time.perf_counter()
    run_x()  # the first launch builds the local-size variant (waited for: wait=True)
    first = time.perf_counter() - t0
    # the variant's tuner alternates its builds (512-bit, 256-bit, the generic entry) until it
    # has chosen: those launches are not the steady state
    for _ in range(launches_to_settle(len(variant_builds())) + 2):
        run_x()
    run_np()
    err = float(np.abs(c - c_np).max() / np.abs(c_np).max())
    if err > 1e-5:
        raise SystemExit(f"matmul {n}: xmux differs from numpy (max relative error {err:.2e})")
    xs: list[float] = []
    ns: list[float] = []
    ps: list[float] = []
    order = [(xs, run_x), (ns, run_np)]
    if plain is not None:
        c_plain = wl.aligned(np.zeros((n, n), np.float32))

        def run_plain() -> None:
            plain(np.int32(n), a, b, c_plain, global_size=gsz, local_size=lsz,
                  threads=ARGS.threads)

        for _ in range(launches_to_settle(len(variant_builds())) + 3):
            run_plain()
        if c_plain.tobytes() != c.tobytes():
            raise SystemExit(f"matmul {n}: the two group orders differ in bits")
        order.append((ps, run_plain))
    load0 = os.getloadavg()[0]
    for r in range(ARGS.rounds):
        for acc, fn in order if r % 2 == 0 else order[::-1]:
            acc.extend(burst(fn))
    flops = 2.0 * n**3
    xm, nm = float(np.median(xs)), float(np.median(ns))
    extra = {}
    if ps:
        extra = {"plain_ms": float(np.median(ps)) * 1e3, "plain_min_ms": min(ps) * 1e3,
                 "plain_gflops": flops / float(np.median(ps)) / 1e9}
    return {**extra, "n": n, "threads": ARGS.threads, "local": list(lsz), "first_launch_s": first,
            "xmux_ms": xm * 1e3, "xmux_min_ms": min(xs) * 1e3, "numpy_ms": nm * 1e3,
            "numpy_min_ms": min(ns) * 1e3, "ratio": xm / nm, "ratio_min": min(xs) / min(ns),
            "xmux_gflops": flops / xm / 1e9, "numpy_gflops": flops / nm / 1e9,
            "load_avg": [load0, os.getloadavg()[0]], "max_rel_err": err}


def main() -> None:
    limit = _blas_limit()
    if ARGS.peak:
        peak, peak_src = ARGS.peak, "given"
    else:
        try:
            peak, peak_src = fma_peak(ARGS.threads)
        except SystemExit as e:  # no shared baseline (ref.c) here: --peak gives the number
            print(f"no FMA peak: {e}; pass --peak GFLOPS for the % column", flush=True)
            peak, peak_src = float("nan"), "not measured"
    src = (wl.KERNEL_DIR / "matmul_naive.mlir").read_text()
    k = xmux.compile(src, wait=True).kernel("matmul_naive")
    plain = plain_kernel(src) if ARGS.plain else None
    rows = []
    print(f"\nnaive SIMT matmul vs numpy (OpenBLAS), {ARGS.threads} threads, local "
          f"{ARGS.local[0]}×{ARGS.local[1]}, FMA peak {peak:.0f} GFLOP/s ({peak_src})")
    print("| n | xmux ms (min) | numpy ms (min) | xmux ÷ numpy (of mins) | xmux GFLOP/s "
          "| numpy GFLOP/s | xmux % of FMA peak | numpy % | load avg |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in ARGS.sizes:
        r = measure(k, n, plain)
        r["peak_gflops"], r["peak_source"] = peak, peak_src
        r["xmux_pct_peak"] = 100 * r["xmux_gflops"] / peak
        r["numpy_pct_peak"] = 100 * r["numpy_gflops"] / peak
        rows.append(r)
        print(f"| {n} | {r['xmux_ms']:.2f} ({r['xmux_min_ms']:.2f}) | {r['numpy_ms']:.2f} "
              f"({r['numpy_min_ms']:.2f}) | {r['ratio']:.2f}× ({r['ratio_min']:.2f}×) | "
              f"{r['xmux_gflops']:.0f} | {r['numpy_gflops']:.0f} | {r['xmux_pct_peak']:.0f}% | "
              f"{r['numpy_pct_peak']:.0f}% | {r['load_avg'][0]:.1f}–{r['load_avg'][1]:.1f} |",
              flush=True)
    for r in rows:
        if "plain_ms" in r:
            print(f"n={r['n']}: x-fastest group order (group_band=0) {r['plain_ms']:.2f} ms "
                  f"(min {r['plain_min_ms']:.2f}), {r['plain_gflops']:.0f} GFLOP/s: band order "
                  f"{r['plain_ms'] / r['xmux_ms']:.2f}× faster")
    if ARGS.json:
        ARGS.json.write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                                         "rows": rows}, indent=1))
    del limit


if __name__ == "__main__":
    main()
