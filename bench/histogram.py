"""256-bin byte histograms with atomics (issue 16 item 3): xmux vs PoCL vs gcc OpenMP vs numpy.

    .venv/bin/python bench/histogram.py            # 2^22 bytes, ~1 minute, prints markdown
    .venv/bin/python bench/histogram.py --quick    # 2^16 bytes smoke run
    .venv/bin/python bench/histogram.py --json out.json

Two kernels, each as xmux MLIR and as OpenCL C (``bench/kernels/histogram.cl``, run on PoCL):

* **global** (``kernels/histogram.mlir``): one global atomic increment per work-item,
  ``bins[data[gid]] += 1`` (``memref.atomic_rmw addi`` / ``atomic_inc``);
* **local** (``kernels/histogram_local.mlir``): a private histogram per work-group in local
  memory (one local atomic per work-item), then one global atomic per non-empty bin and group.

on two inputs: **uniform** bytes over all 256 bins (16 cache lines of counters) and **few**:
bytes in 0..3, so every update hits one cache line (the contended case). Local size 256.

Backends, interleaved per kernel and input with ``bench/timing.py`` (the baseline's bursts and
cool-downs, Williams orders), each verified against ``numpy.bincount`` first:
xmux kernel time (``profile=True``) on the default thread count and on 1 thread; PoCL
profiling-event time from a worker in the PoCL venv (this script with ``--pocl-worker``) on its
default thread count and with ``POCL_MAX_PTHREAD_COUNT=1``; gcc ``-O3 -march=native -fopenmp``
(``bench/histogram_ref.c``) with ``#pragma omp atomic`` per element on 2 threads and 1, and
with private per-thread histograms (the machine's limit for the result); numpy ``bincount``
(one thread). The counts accumulate across timed calls (they wrap modulo 2^32, as the
atomics allow), so no reset is timed.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import timing  # noqa: E402
import workloads as wl  # noqa: E402  (sets PoCL's environment before pyopencl loads)

bl = wl.baseline()

import numpy as np  # noqa: E402

N_FULL, N_QUICK = 1 << 22, 1 << 16
LOCAL = 256
#: kernel label -> (xmux file / function, OpenCL kernel)
KERNELS = {"global": ("histogram", "histogram_global"),
           "local": ("histogram_local", "histogram_local")}
#: input label -> (what, highest byte value + 1)
INPUTS = {"uniform": ("bytes uniform over 256 bins", 256),
          "few": ("bytes in 0..3: one cache line of counters", 4)}
#: the issue's goal: global-atomic histogram kernel time ≤ this × PoCL's
TARGET_VS_POCL = 1.0


def make_inputs(n: int) -> dict[str, np.ndarray]:
    """The same bytes in every process (fixed seed), 64-byte aligned."""
    rng = np.random.default_rng(bl.SEED + 16)
    return {name: wl.aligned(rng.integers(0, hi, n, dtype=np.uint8))
            for name, (_, hi) in INPUTS.items()}


def group_name(kernel: str, inp: str) -> str:
    return f"{kernel}/{inp}"


# ---------------------------------------------------------------------------------------
# PoCL worker (runs in the PoCL venv: no xmux here)
# ---------------------------------------------------------------------------------------


def pocl_worker(quick: bool) -> int:
    """Line protocol: ``verify KERNEL INPUT PATH`` (zeroed bins, one launch, saved to PATH),
    ``run KERNEL INPUT N`` (N timed launches), ``quit``."""
    def reply(obj: object) -> None:
        print(json.dumps(obj), flush=True)

    try:
        import pyopencl as cl
    except ImportError as e:
        reply({"error": f"pyopencl not importable: {e}"})
        return 1
    plats = [p for p in cl.get_platforms() if "Portable Computing Language" in p.name]
    if not plats:
        reply({"error": "no PoCL platform (run ../shared/bench/setup.sh)"})
        return 1
    dev = plats[0].get_devices(device_type=cl.device_type.CPU)[0]
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    t = time.perf_counter()
    prg = cl.Program(ctx, (wl.KERNEL_DIR / "histogram.cl").read_text()).build()
    build_ms = (time.perf_counter() - t) * 1e3
    n = N_QUICK if quick else N_FULL
    mf = cl.mem_flags
    bins = cl.Buffer(ctx, mf.READ_WRITE, 256 * 4)
    data = {k: cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=v)
            for k, v in make_inputs(n).items()}
    ks = {}
    for kl, (_, cl_name) in KERNELS.items():
        for inp, buf in data.items():
            k = cl.Kernel(prg, cl_name)
            k.set_args(buf, bins)
            ks[kl, inp] = k
    reply({"device": dev.name, "platform_version": plats[0].version, "build_ms": build_ms,
           "pid": os.getpid(), "threads": os.environ.get("POCL_MAX_PTHREAD_COUNT", "default")})
    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        try:
            k = ks[cmd[1], cmd[2]]
            if cmd[0] == "verify":
                cl.enqueue_fill_buffer(q, bins, np.uint32(0), 0, bins.size)
                cl.enqueue_nd_range_kernel(q, k, (n,), (LOCAL,)).wait()
                host = np.empty(256, np.uint32)
                cl.enqueue_copy(q, host, bins)
                np.save(cmd[3], host)
                reply({"ok": True})
            elif cmd[0] == "run":
                samples = []
                for _ in range(int(cmd[3])):
                    t = time.perf_counter()
                    e = cl.enqueue_nd_range_kernel(q, k, (n,), (LOCAL,))
                    e.wait()
                    samples.append({"wall": time.perf_counter() - t,
                                    "event": (e.profile.end - e.profile.start) * 1e-9})
                reply(samples)
            else:
                reply({"error": f"unknown command {cmd[0]!r}"})
        except Exception as e:  # report, keep serving
            reply({"error": f"{type(e).__name__}: {e}"})
    return 0


def Pocl(python: str, quick: bool, threads: int | None = None):  # noqa: N802, ANN201
    """This script's PoCL worker (``workloads.PoclProcess``)."""
    return wl.PoclProcess(Path(__file__).resolve(), python, quick, threads)


# ---------------------------------------------------------------------------------------
# gcc
# ---------------------------------------------------------------------------------------


def build_gcc(tmp: Path) -> tuple[ctypes.CDLL, str]:
    so = tmp / "libhistogram_ref.so"
    cmd = ["gcc", "-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-Wall", "-Wextra",
           str(HERE / "histogram_ref.c"), "-o", str(so)]
    subprocess.run(cmd, check=True)
    lib = ctypes.CDLL(str(so))
    for f in (lib.hist_atomic, lib.hist_private):
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_int]
        f.restype = None
    return lib, " ".join(cmd)


# ---------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--no-pocl", action="store_true")
    ap.add_argument("--pocl-python", default=os.environ.get("BENCH_POCL_PYTHON",
                                                            "/tmp/benchvenv/bin/python"))
    ap.add_argument("--only", metavar="GROUPS",
                    help="just these comma-separated kernel/input pairs (e.g. global/uniform)")
    ap.add_argument("--pocl-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.pocl_worker:
        return pocl_worker(args.quick)
    only = set(args.only.split(",")) if args.only else None

    import xmux
    from xmux.runtime import tuning

    if args.quick:
        bl.WARMUP, bl.REPS_MIN, bl.ROUNDS_MIN, bl.BURST_S = 1, 3, 2, 0.01
        timing.WARM_S = 0.001
    bl.COOLDOWN_S["xmux"] = 0.02
    n = N_QUICK if args.quick else N_FULL
    inputs = make_inputs(n)
    refs = {k: np.bincount(v, minlength=256).astype(np.uint32) for k, v in inputs.items()}
    nthreads = len(os.sched_getaffinity(0))
    tmp = Path(tempfile.mkdtemp(prefix="xmux_histogram_"))
    results: dict = {"n": n, "local_size": LOCAL, "threads": nthreads, "verify": {},
                     "steady": {}, "cpu": {}, "loadavg": os.getloadavg()}
    ok = True

    def verify(group: str, label: str, got: np.ndarray, inp: str) -> bool:
        good = bl.check(f"histogram_{group}", label, got.view(np.uint32).astype(np.float64),
                        refs[inp].astype(np.float64), 0.0, 0.0)
        results["verify"][f"{group} {label}"] = good
        return good

    lib, results["gcc_cmd"] = build_gcc(tmp)
    pocls: dict[str, Pocl] = {}
    if not args.no_pocl:
        try:
            pocls["pocl"] = Pocl(args.pocl_python, args.quick)
            pocls["pocl-1t"] = Pocl(args.pocl_python, args.quick, threads=1)
            results["pocl"] = pocls["pocl"].hello
        except (RuntimeError, OSError, json.JSONDecodeError) as e:
            results["pocl_error"] = str(e)
            for p in pocls.values():
                p.close()
            pocls = {}
    try:
        programs = {kl: xmux.compile((wl.KERNEL_DIR / f"{f}.mlir").read_text(), cache=False)[f]
                    for kl, (f, _) in KERNELS.items()}
        for kl in KERNELS:
            for inp, data in inputs.items():
                group = group_name(kl, inp)
                if only is not None and group not in only:
                    continue
                bins = wl.aligned(np.zeros(256, np.int32))
                backends = []
                k, d8 = programs[kl], data.view(np.int8)
                for label, kw in (("xmux", {}), ("xmux-1t", {"threads": 1})):
                    def run(k=k, kw=kw, d8=d8, bins=bins) -> dict:
                        p = k(d8, bins, global_size=(n,), local_size=(LOCAL,), profile=True,
                              **kw)
                        return {"event": p.seconds}

                    for _ in range(1 + tuning.launches_to_settle(len(tuning.variant_builds()))):
                        run()
                    bins[:] = 0
                    run()
                    ok &= verify(group, label, bins, inp)
                    backends.append(bl.Backend(label, "xmux", call=run))
                for label, p in pocls.items():
                    path = tmp / f"pocl_{kl}_{inp}.npy"
                    p.ask(f"verify {kl} {inp} {path}")
                    ok &= verify(group, label, np.load(path), inp)
                    backends.append(bl.Backend(label, "pocl", burst=lambda c, p=p, kl=kl, inp=inp:
                                               p.ask(f"run {kl} {inp} {c}")))
                if kl == "global":
                    pd, pb = data.ctypes.data, bins.ctypes.data
                    gcc = (("gcc", lib.hist_atomic, nthreads), ("gcc-1t", lib.hist_atomic, 1),
                           ("gcc-private", lib.hist_private, nthreads))
                    for label, fn, th in gcc:
                        def call(fn=fn, th=th, pd=pd, pb=pb) -> None:
                            fn(pd, pb, n, th)

                        bins[:] = 0
                        call()
                        ok &= verify(group, label, bins, inp)
                        backends.append(bl.Backend(label, "gcc", call=call))
                    out = np.empty(256, np.int64)

                    def numpy_call(data=data, out=out) -> None:
                        out[:] = np.bincount(data, minlength=256)

                    numpy_call()
                    ok &= verify(group, "numpy", out.astype(np.uint32), inp)
                    backends.append(bl.Backend("numpy", "numpy", call=numpy_call))
                pids = [os.getpid()] + [p.proc.pid for p in pocls.values()]
                before = bl.cpu_snapshot(pids)
                results["steady"][group] = timing.interleaved(backends)
                results["cpu"][group] = bl.cpu_delta(before, bl.cpu_snapshot(pids))
                res = results["steady"][group]
                bl.log(f"  {group:<15} ms: " + ", ".join(
                    f"{lbl} {(v.get('event_ms') or v['wall_ms'])['median']:.3f}"
                    for lbl, v in res.items())
                    + f"  (other CPU {results['cpu'][group]['foreign_pct']:.0f}%)")
    finally:
        for p in pocls.values():
            p.close()
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    return 0 if ok else 1


def ratio(results: dict, group: str, a: str, b: str) -> float | None:
    """Paired median ratio a ÷ b (kernel/event time where a backend has one)."""
    r = results.get("steady", {}).get(group, {}).get(a)
    return None if r is None else r["ratio_vs"].get(b)


def target_value(results: dict) -> float | None:
    """The goal's value: global-atomic histogram (uniform input) xmux ÷ PoCL kernel time."""
    return ratio(results, group_name("global", "uniform"), "xmux", "pocl")


def report(r: dict) -> None:
    def cell(group: str, label: str) -> str:
        o = r["steady"][group].get(label)
        if o is None:
            return "—"
        m = o.get("event_ms", o["wall_ms"])
        return f"{m['median']:.3g} [{m['p10']:.3g}–{m['p90']:.3g}]"

    def fr(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}×"

    n = r["n"]
    print(f"## 256-bin byte histograms with atomics: 2^{n.bit_length() - 1} bytes, local size "
          f"{r['local_size']}\n")
    print("**global** = one global atomic increment per work-item (`bench/kernels/"
          "histogram.mlir`, OpenCL `histogram_global`); **local** = a histogram per work-group "
          "in local memory, then one global atomic per non-empty bin and group "
          "(`histogram_local`). **uniform** = bytes over all 256 bins; **few** = bytes in 0..3 "
          "(one cache line of counters: every update contends). Kernel ms median [p10–p90]: "
          "xmux `profile=True`, PoCL profiling events, gcc/numpy wall; **1t** = one thread "
          "(xmux `threads=1`, `POCL_MAX_PTHREAD_COUNT=1`, gcc `num_threads(1)`); gcc = "
          "`#pragma omp atomic` per element, gcc-private = a private histogram per thread "
          "merged at the end (the limit for the result, no atomic per element); numpy = "
          f"`bincount`. Default thread count {r['threads']}. Ratios: medians of per-round "
          "ratios of the interleaved rounds.\n")
    labels = ["xmux", "xmux-1t", "pocl", "pocl-1t", "gcc", "gcc-1t", "gcc-private", "numpy"]
    print("| kernel / input | " + " | ".join(f"{lb} ms" for lb in labels)
          + " | xmux ÷ PoCL | xmux 1t ÷ PoCL 1t | xmux ÷ gcc | xmux 1t ÷ gcc 1t | other CPU |")
    print("|---|" + "---|" * len(labels) + "---:|---:|---:|---:|---:|")
    for group in r["steady"]:
        print(f"| {group} | " + " | ".join(cell(group, lb) for lb in labels)
              + f" | {fr(ratio(r, group, 'xmux', 'pocl'))} | "
              f"{fr(ratio(r, group, 'xmux-1t', 'pocl-1t'))} | "
              f"{fr(ratio(r, group, 'xmux', 'gcc'))} | "
              f"{fr(ratio(r, group, 'xmux-1t', 'gcc-1t'))} | "
              f"{r['cpu'][group]['foreign_pct']:.0f}% |")
    tv = target_value(r)
    verdict = ("not measured" if tv is None else "**met**" if tv <= TARGET_VS_POCL
               else f"**missed** ({tv / TARGET_VS_POCL:.2f}× off)")
    print(f"\n- goal: global-atomic histogram (uniform) ≤ {TARGET_VS_POCL}× PoCL kernel time: "
          f"{fr(tv)} → {verdict}")
    print(f"- load average at start: {', '.join(f'{x:.2f}' for x in r['loadavg'])}")
    bad = [k for k, v in r["verify"].items() if not v]
    print(f"- verified against numpy.bincount: {len(r['verify']) - len(bad)} of "
          f"{len(r['verify'])}" + (f"; FAILED: {', '.join(bad)}" if bad else ""))
    if "pocl" in r:
        print(f"- PoCL: {r['pocl'].get('platform_version')} on {r['pocl'].get('device')}")
    if "pocl_error" in r:
        print(f"- PoCL not measured: {r['pocl_error']}")


if __name__ == "__main__":
    sys.exit(main())
