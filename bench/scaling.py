#!/usr/bin/env python3
"""Thread scaling: xmux's thread pool against gcc -fopenmp on the same loops, 1 -> N threads.

    .venv/bin/python bench/scaling.py                      # threads 1, 2, 4, ... up to the CPUs
    .venv/bin/python bench/scaling.py --threads 1,4,16 --json out.json
    .venv/bin/python bench/scaling.py --markdown           # the table for bench/RESULTS.md

For each kernel and thread count T it times xmux ``k(..., threads=T, profile=True)`` (kernel
time, as bench/run.py) and the shared ref.c loop with ``omp_set_num_threads(T)`` (wall time),
every backend of one kernel interleaved in one group (``timing.interleaved``: bursts in a
Williams order, so slow drifts hit all alike). It prints per T the median times, xmux ÷ gcc,
and both speed-ups over one thread; **speed-up ratio** = xmux's speed-up ÷ gcc's (issue 16's
goal: ≥ 0.9 on naive matmul at 16 threads). Needs gcc and libgomp; no PoCL, no GPU.

The compute-bound rows are the point (naive and tiled matmul, conv3x3); vecadd is shown as the
memory-bound contrast, where neither side scales past the memory bandwidth.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as R  # noqa: E402  (Outputs, kernel_text, check: the same kernels and data)
import timing  # noqa: E402
import workloads as wl  # noqa: E402

bl = wl.baseline()
KERNELS = ("matmul_naive", "matmul_tiled", "conv3x3", "vecadd")
#: what ref.c runs for each kernel (matmul_tiled's gcc counterpart is the same i-k-j loop)
GCC_CALL = {"matmul_naive": "matmul_naive", "matmul_tiled": "matmul_naive",
            "conv3x3": "conv3x3", "vecadd": "vecadd"}


def thread_counts(spec: str | None) -> list[int]:
    cpus = len(os.sched_getaffinity(0))
    if spec:
        return sorted({int(t) for t in spec.split(",")})
    ts, t = [], 1
    while t < cpus:
        ts.append(t)
        t *= 2
    return [*ts, cpus]


def libgomp() -> ctypes.CDLL:
    """The libgomp ref.c's library uses (loaded by it; the same soname)."""
    name = ctypes.util.find_library("gomp") or "libgomp.so.1"
    lib = ctypes.CDLL(name)
    lib.omp_set_num_threads.argtypes = [ctypes.c_int]
    return lib


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def measure(names: tuple[str, ...], threads: list[int], s: wl.Sizes) -> dict:
    import xmux

    bl.COOLDOWN_S["xmux"] = 0.02  # as bench/run.py
    lib, cmd, _ = bl.build_ref()
    gomp = libgomp()
    d = wl.make_data(s)
    ref = wl.references(d)
    gcc = R.gcc_backends(lib, d, ref, s)
    o = R.Outputs(d, s)
    out: dict = {"threads": threads, "cpus": len(os.sched_getaffinity(0)), "cpu": cpu_model(),
                 "gcc": cmd, "kernels": {}}
    for name in names:
        g, lsz = wl.launch_shape(name, s)
        k = xmux.compile(R.kernel_text(name)).kernel(name)
        args = o.kernel_args(name)
        backends = []
        for t in threads:
            for _ in range(4):  # local-size variant + vector-width tuning settle first
                k(*args, global_size=g, local_size=lsz, threads=t)
            o.reset()
            k(*args, global_size=g, local_size=lsz, threads=t)
            R.check(name, f"xmux-{t}t", o.result(name), ref)

            def xcall(t: int = t, k=k, args=args, g=g, lsz=lsz) -> dict:
                return {"event": k(*args, global_size=g, local_size=lsz, threads=t,
                                   profile=True).seconds}

            gcall = gcc[GCC_CALL[name]].call

            def gcall_t(t: int = t, gcall=gcall) -> None:
                gomp.omp_set_num_threads(t)
                gcall()

            backends.append(bl.Backend(f"xmux-{t}", "xmux", call=xcall))
            backends.append(bl.Backend(f"gcc-{t}", "gcc", call=gcall_t))
        bl.log(f"[scaling] {name}: {len(backends)} backends interleaved")
        res = timing.interleaved(backends)
        gomp.omp_set_num_threads(out["cpus"])
        rows = []
        x1 = res["xmux-1"]["event_ms"]["median"] if 1 in threads else None
        g1 = res["gcc-1"]["wall_ms"]["median"] if 1 in threads else None
        for t in threads:
            x = res[f"xmux-{t}"]["event_ms"]["median"]
            gm = res[f"gcc-{t}"]["wall_ms"]["median"]
            row = {"threads": t, "xmux_ms": x, "gcc_ms": gm,
                   "xmux_vs_gcc": res[f"xmux-{t}"]["ratio_vs"][f"gcc-{t}"]}
            if x1 and g1:
                row["xmux_speedup"] = x1 / x
                row["gcc_speedup"] = g1 / gm
                row["speedup_ratio"] = row["xmux_speedup"] / row["gcc_speedup"]
            rows.append(row)
            bl.log(f"  {t:3d} threads: xmux {x:8.3f} ms  gcc {gm:8.3f} ms  "
                   f"xmux/gcc {row['xmux_vs_gcc']:.2f}  "
                   + (f"speed-up xmux {row['xmux_speedup']:.2f} gcc {row['gcc_speedup']:.2f} "
                      f"ratio {row['speedup_ratio']:.2f}" if "xmux_speedup" in row else ""))
        out["kernels"][name] = {"size": wl.size_label(name, s), "rows": rows}
    return out


def markdown(res: dict) -> str:
    L = [f"Threads 1 → {max(res['threads'])} on {res['cpu']} ({res['cpus']} CPUs); gcc = "
         f"`{res['gcc']}` with `omp_set_num_threads(T)`; xmux = `k(..., threads=T)` kernel time; "
         "medians of one interleaved group per kernel (`bench/scaling.py`).", "",
         "| kernel | size | threads | xmux ms | gcc ms | xmux ÷ gcc | xmux speed-up | "
         "gcc speed-up | speed-up ratio |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, kr in res["kernels"].items():
        for r in kr["rows"]:
            L.append(f"| {name} | {kr['size']} | {r['threads']} | {r['xmux_ms']:.3g} | "
                     f"{r['gcc_ms']:.3g} | {r['xmux_vs_gcc']:.2f}× | "
                     f"{r.get('xmux_speedup', float('nan')):.2f}× | "
                     f"{r.get('gcc_speedup', float('nan')):.2f}× | "
                     f"{r.get('speedup_ratio', float('nan')):.2f} |")
    return "\n".join(L)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", help="comma-separated thread counts (default 1,2,4,...,CPUs)")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--markdown", action="store_true", help="print the RESULTS.md table")
    a = ap.parse_args()
    t0 = time.perf_counter()
    res = measure(tuple(a.kernels.split(",")), thread_counts(a.threads),
                  wl.QUICK if a.quick else wl.FULL)
    res["seconds"] = time.perf_counter() - t0
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if a.markdown:
        print(markdown(res))
    return 0 if all(v["ok"] for v in bl.VERIFY) else 1


if __name__ == "__main__":
    raise SystemExit(main())
