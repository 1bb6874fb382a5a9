#!/usr/bin/env python3
"""xmux vs PoCL vs gcc -O3 vs numpy on the shared reference kernels, in one run.

    .venv/bin/python bench/run.py                   # full sizes (BASELINE.md), ~2-3 min
    .venv/bin/python bench/run.py --quick           # smoke run: small sizes, few reps
    .venv/bin/python bench/run.py --write-results   # also write bench/RESULTS.md

What is measured (README.md has the details):
  * steady-state kernel time, every backend of one kernel interleaved in short bursts
    (the shared baseline's ``interleaved``): xmux = wall time of the blocking launch call,
    PoCL = profiling-event time (its launch wall time is shown too), gcc/numpy = wall time;
  * xmux naive matmul on 1 vs 2 threads;
  * xmux text -> first result: in this process with the disk cache off (XMUX_CACHE=0), in a
    fresh process with the cache off, and in a fresh process with a warm on-disk cache;
  * every result is checked against a float64 numpy reference.

PoCL runs in ``bench/pocl_worker.py`` under the PoCL venv of ``../shared/bench/setup.sh``
(``--pocl-python``, default $BENCH_POCL_PYTHON or /tmp/benchvenv/bin/python); without it the
PoCL columns are skipped with a note. Exit status 1 when a result fails verification or an
xmux kernel fails to compile or run.
"""

from __future__ import annotations

import os
import sys

# OpenBLAS reads these when numpy loads; the shared baseline measured numpy's matmul without
# them (this machine's environment pins an older core type), so drop them and start again.
_BLAS_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
if any(k in os.environ for k in _BLAS_ENV):
    _env = {k: v for k, v in os.environ.items() if k not in _BLAS_ENV}
    _env["BENCH_DROPPED_ENV"] = ",".join(f"{k}={os.environ[k]}" for k in _BLAS_ENV
                                         if k in os.environ)
    os.execve(sys.executable, [sys.executable, *sys.argv], _env)

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memprobe  # noqa: E402
import numpy as np  # noqa: E402
import roofline  # noqa: E402
import timing  # noqa: E402
import workloads as wl  # noqa: E402  (loads the shared baseline: sets OMP/PoCL env)

bl = wl.baseline()
REPO = wl.BENCH_DIR.parent
RESULTS_MD = wl.BENCH_DIR / "RESULTS.md"
#: one line per full run written with --write-results: the target ratios and memory phases
HISTORY = wl.BENCH_DIR / "history.jsonl"
DEFAULT_POCL_PY = os.environ.get("BENCH_POCL_PYTHON", "/tmp/benchvenv/bin/python")

#: xmux/PoCL kernel-time targets (issue): at most this ratio
TARGET_VS_POCL = {"vecadd": 1.0, "saxpy": 1.0, "matmul_naive": 0.5, "conv3x3": 1.0,
                  "matmul_tiled": 0.3, "reduce_local": 0.15}
#: issue 3: work_group_reduce vs the gcc block sums (PoCL cannot build it): at most this ratio
TARGET_WG_VS_GCC = {"reduce_wg": 1.5}
TARGET_BARRIER_NS = 30.0      # ns per barrier per 256-item work-group: at most
#: issue 4 (bench/spec_conv.py): re-specialization and cached-launch overheads, at most
TARGET_RESPEC_MS = 50.0
TARGET_CACHED_LAUNCH_MS = 1.0
#: issue 5 (bench/acc_sum.py): the OpenACC f32/f64 sums on the cpu expansion vs gcc, at most
TARGET_ACC_VS_GCC = 1.5
#: kernels compiled and timed text -> first result
COMPILE_KERNELS = (*wl.KERNELS, *wl.KERNELS_WG)
#: pocl_worker.py's kernels (everything but reduce_wg)
POCL_NAMES = (*wl.KERNELS, wl.SMALL, "matmul_tiled", "reduce_local", *wl.PROBES)
TARGET_THREAD_SPEEDUP = 1.7   # 2 threads vs 1 on naive matmul: at least
TARGET_COLD_MS = 500.0        # text -> first result, disk cache off: at most
TARGET_WARM_MS = 50.0         # text -> first result, warm disk cache: at most
#: a measurement during which other processes used more CPU than this (% of the machine) is
#: repeated (--retries); also the "quiet" threshold of --wait-idle
BUSY_LIMIT_PCT = 10.0

WARMUP_KERNEL = """\
func.func @bench_warmup(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = arith.addf %x, %x : f32
  memref.store %y, %a[%i] : memref<?xf32>
  func.return
}
"""

log = bl.log


class _LogHandler(logging.Handler):
    """xmux's vector-width choices (runtime/tuning.py) in the benchmark's log (and kept for
    the roofline's vector width)."""

    lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
        log(f"  [tuning] {record.getMessage()}")


_tuning_log = logging.getLogger("xmux.runtime.tuning")
_tuning_log.addHandler(_LogHandler())
_tuning_log.setLevel(logging.INFO)
median = bl.median


def host_has_512() -> bool:
    """AVX-512F in the host's flags (the roofline's default vector width)."""
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


def kernel_text(name: str, reqd: tuple[int, ...] | None = None) -> str:
    """The kernel's MLIR; with ``reqd`` the entry point also gets mux.reqd_work_group_size."""
    text = (wl.KERNEL_DIR / f"{name}.mlir").read_text()
    if reqd is None:
        return text
    r = (tuple(reqd) + (1, 1))[:3]
    attr = (f'mux.kernel = "entry_point", '
            f"mux.reqd_work_group_size = array<i64: {r[0]}, {r[1]}, {r[2]}>")
    new, n = re.subn(r'mux\.kernel = "entry_point"', attr, text)
    assert n == 1, name
    return new


class Outputs:
    """Per-backend output arrays and the argument lists of each kernel."""

    def __init__(self, d: dict[str, np.ndarray], s: wl.Sizes) -> None:
        self.d, self.s = d, s
        self.c = wl.empty(d["a"].shape)
        self.y = wl.aligned(d["y0"])
        self.C = wl.empty(d["A"].shape)
        self.out = wl.empty((s.conv_h, s.conv_w))
        self.part = wl.empty(s.n_red // s.lsz_red[0])
        self.probe = wl.aligned(d["probe"])

    def reset(self) -> None:
        """NaN outputs so a stale correct result can never pass verification."""
        for a in (self.c, self.C, self.out, self.part):
            a.fill(np.nan)
        self.y[:] = self.d["y0"]
        self.probe[:] = self.d["probe"]

    def result(self, name: str) -> np.ndarray:
        if name.startswith(wl.PROBE):
            return self.probe
        return {"matmul_tiled": self.C, "reduce_local": self.part, "reduce_wg": self.part,
                "vecadd": self.c, "saxpy": self.y, "matmul_naive": self.C,
                "conv3x3": self.out, wl.SMALL: self.c[:wl.N_SMALL]}[name]

    def kernel_args(self, name: str) -> list[object]:
        """Arguments in the order of bench/kernels/<name>.mlir."""
        d = self.d
        if name == "vecadd":
            return [d["a"], d["b"], self.c]
        if name == wl.SMALL:
            n = wl.N_SMALL
            return [d["a"][:n], d["b"][:n], self.c[:n]]
        if name == "saxpy":
            return [d["alpha"], d["x"], self.y]
        if name in ("matmul_naive", "matmul_tiled"):
            return [np.int32(self.s.n_mm), d["A"], d["B"], self.C]
        if name in ("reduce_local", "reduce_wg"):
            return [d["r"], self.part]
        if name.startswith(wl.PROBE):
            return [self.probe, np.int32(wl.probe_iters(name))]
        if name == "conv3x3":
            return [d["img_pad"], self.out, d["w"]]
        raise KeyError(name)


def check(name: str, backend: str, got: np.ndarray, ref: dict[str, np.ndarray]) -> bool:
    return bl.check(name, backend, got, ref[name], *bl.TOL[wl.TOL_KEY[name]])


# --------------------------------------------------------------------------------------------
# gcc (shared ref.c) and numpy
# --------------------------------------------------------------------------------------------
def gcc_backends(lib, d, ref, s: wl.Sizes) -> dict[str, bl.Backend]:
    o = Outputs(d, s)
    o.reset()
    p = bl.ptr
    pa, pb, pc, px, py = p(d["a"]), p(d["b"]), p(o.c), p(d["x"]), p(o.y)
    pA, pB, pC = p(d["A"]), p(d["B"]), p(o.C)
    pP, po, pw = p(d["img_pad"]), p(o.out), p(d["w"])
    pr, pp = p(d["r"]), p(o.part)
    n, m = s.n_vec, s.n_mm
    wg = s.lsz_red[0]
    calls: dict[str, Callable[[], None]] = {
        "vecadd": lambda: lib.ref_vecadd(pa, pb, pc, n),
        wl.SMALL: lambda: lib.ref_vecadd(pa, pb, pc, wl.N_SMALL),
        "saxpy": lambda: lib.ref_saxpy(d["alpha"], px, py, n),
        "matmul_naive": lambda: lib.ref_matmul(m, pA, pB, pC),
        "conv3x3": lambda: lib.ref_conv3x3(s.conv_w, s.conv_h, s.conv_w + 2, pP, po, pw),
        "matmul_tiled": lambda: lib.ref_matmul(m, pA, pB, pC),
        "reduce_local": lambda: lib.ref_block_sums(pr, pp, s.n_red // wg, wg),
        "reduce_wg": lambda: lib.ref_block_sums(pr, pp, s.n_red // wg, wg),
    }
    out = {}
    for name, call in calls.items():
        call()
        check(name, "gcc", o.result(name), ref)
        out[name] = bl.Backend("gcc", "gcc", call=call)
    out["_keep"] = o  # the pointers above point into o
    return out


def numpy_backends(d, ref, s: wl.Sizes) -> dict[str, bl.Backend]:
    o = Outputs(d, s)
    o.reset()
    tmp = wl.empty(d["x"].shape)
    t2 = wl.empty(o.out.shape)
    P, w, H, W = d["img_pad"], d["w"], s.conv_h, s.conv_w

    def saxpy() -> None:  # two passes, as in the baseline
        np.multiply(d["x"], d["alpha"], out=tmp)
        np.add(o.y, tmp, out=o.y)

    rv = d["r"].reshape(-1, s.lsz_red[0])

    def reduce() -> None:  # the same per-group partial sums
        np.sum(rv, axis=1, out=o.part)

    def conv() -> None:
        np.multiply(P[0:H, 0:W], w[0], out=o.out)
        for k in range(1, 9):
            j, i = divmod(k, 3)
            np.multiply(P[j:j + H, i:i + W], w[k], out=t2)
            np.add(o.out, t2, out=o.out)

    calls = {
        "vecadd": (lambda: np.add(d["a"], d["b"], out=o.c), "numpy"),
        wl.SMALL: (lambda: np.add(d["a"][:wl.N_SMALL], d["b"][:wl.N_SMALL],
                                  out=o.c[:wl.N_SMALL]), "numpy"),
        "saxpy": (saxpy, "numpy"),
        "matmul_naive": (lambda: np.matmul(d["A"], d["B"], out=o.C), "numpy-blas"),
        "conv3x3": (conv, "numpy"),
        "matmul_tiled": (lambda: np.matmul(d["A"], d["B"], out=o.C), "numpy-blas"),
        "reduce_local": (reduce, "numpy"),
        "reduce_wg": (reduce, "numpy"),
    }
    out = {}
    for name, (call, kind) in calls.items():
        call()
        check(name, "numpy", o.result(name), ref)
        out[name] = bl.Backend("numpy", kind, call=call)
    out["_keep"] = o
    return out


# --------------------------------------------------------------------------------------------
# PoCL (worker process in the PoCL venv)
# --------------------------------------------------------------------------------------------
class PoclWorker:
    def __init__(self, python: str, quick: bool) -> None:
        cmd = [python, str(wl.BENCH_DIR / "pocl_worker.py")] + (["--quick"] if quick else [])
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        self.hello = self._read()
        if "error" in self.hello:
            self.close()
            raise RuntimeError(self.hello["error"])

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"PoCL worker exited (status {self.proc.poll()})")
        return json.loads(line)

    def ask(self, cmd: str):
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        r = self._read()
        if isinstance(r, dict) and "error" in r:
            raise RuntimeError(f"PoCL worker: {r['error']}")
        return r

    def backend(self, name: str) -> bl.Backend:
        return bl.Backend("pocl", "pocl", burst=lambda n: self.ask(f"run {name} {n}"))

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()


def start_pocl(args, tmp: Path, ref) -> tuple[PoclWorker | None, dict]:
    info: dict = {}
    if args.no_pocl:
        info["note"] = "PoCL skipped (--no-pocl)"
        return None, info
    if not os.path.exists(args.pocl_python):
        info["note"] = (f"PoCL skipped: {args.pocl_python} not found "
                        "(run `bash ../shared/bench/setup.sh` to create the PoCL venv)")
        return None, info
    try:
        w = PoclWorker(args.pocl_python, args.quick)
    except (RuntimeError, OSError, json.JSONDecodeError) as e:
        info["note"] = f"PoCL skipped: {e}"
        return None, info
    info.update(w.hello)
    log(f"[pocl] {w.hello['device']}: kernels.cl built in {w.hello['build_ms']:.0f} ms (cache off)")
    vdir = tmp / "pocl_out"
    vdir.mkdir()
    info["first_launch_ms"] = w.ask(f"verify {vdir}")["first_launch_ms"]
    for name in POCL_NAMES:
        check(name, "pocl", np.load(vdir / f"{name}.npy"), ref)
    return w, info


# --------------------------------------------------------------------------------------------
# xmux
# --------------------------------------------------------------------------------------------
def xmux_backends(d, ref, s: wl.Sizes, reps_cold: int, errors: list[str]):
    """Compile every kernel (timing text -> first result, cache off) and build backends.

    Returns (backends by label per kernel, compile stats, one-time init stats)."""
    import xmux
    from xmux.runtime import tuning

    bk: dict[str, dict[str, bl.Backend]] = {}
    stats: dict[str, dict] = {}
    o = Outputs(d, s)
    # one-time costs of the first compile in a process (pass registry, LLVM target set-up)
    warm_buf = np.zeros(1024, np.float32)
    t0 = time.perf_counter()
    try:
        xmux.compile(WARMUP_KERNEL).kernel("bench_warmup")(warm_buf, global_size=(1024,))
    except Exception as e:
        errors.append(f"xmux: warm-up kernel failed: {type(e).__name__}: {e}")
        return bk, stats, {}
    init = {"first_compile_and_launch_ms": (time.perf_counter() - t0) * 1e3}
    log(f"[xmux] first compile+launch in the process (tiny kernel): "
        f"{init['first_compile_and_launch_ms']:.0f} ms")

    def backend(label: str, kern, kname: str, threads: int | None = None) -> bl.Backend:
        """Verified backend for one launch variant of ``kname``.

        Its checked launch comes after the launches that compile xmux's local-size variant
        (``runtime/launcher.py``, ``LocalSizeVariants``) and pick its vector width
        (``runtime/tuning.py``), so timing starts on the code that stays."""
        a = o.kernel_args(kname)
        g_, l_ = wl.launch_shape(kname, s)
        kw = {} if threads is None else {"threads": threads}
        # the kernel's second launch compiles the local-size variant, the next ones time its
        # vector-width builds (runtime/tuning.py); the checked launch runs the chosen one
        for _ in range(1 + tuning.launches_to_settle(len(tuning.variant_builds()))):
            kern(*a, global_size=g_, local_size=l_, **kw)
        o.reset()
        kern(*a, global_size=g_, local_size=l_, **kw)
        check(kname, label, o.result(kname), ref)

        def call() -> dict:  # the kernel time, as PoCL's profiling events give theirs
            p = kern(*a, global_size=g_, local_size=l_, profile=True, **kw)
            return {"event": p.seconds}

        return bl.Backend(label, "xmux", call=call)

    for name in COMPILE_KERNELS:
        g, lsz = wl.launch_shape(name, s)
        kargs = o.kernel_args(name)
        st: dict = {"compile_ms": [], "first_launch_ms": [], "total_ms": []}
        try:
            k = None
            for i in range(reps_cold):
                o.reset()
                t0 = time.perf_counter()
                prog = xmux.compile(kernel_text(name), cache=False)
                k = prog.kernel(name)
                t1 = time.perf_counter()
                k(*kargs, global_size=g, local_size=lsz)
                t2 = time.perf_counter()
                st["compile_ms"].append((t1 - t0) * 1e3)
                st["first_launch_ms"].append((t2 - t1) * 1e3)
                st["total_ms"].append((t2 - t0) * 1e3)
                if i == 0:
                    st["verified"] = check(name, "xmux", o.result(name), ref)
                    st["llvm_ir"] = prog.llvm_ir
            labels: dict[str, bl.Backend] = {"xmux": backend("xmux", k, name)}
            # same kernel with mux.reqd_work_group_size = its local size (constant WI loops);
            # kernels whose text already requires a size (the barrier kernels) have no such row
            if "mux.reqd_work_group_size" not in kernel_text(name):
                kr = xmux.compile(kernel_text(name, lsz), cache=False).kernel(name)
                labels["xmux-reqd"] = backend("xmux-reqd", kr, name)
            if name in ("matmul_naive", "vecadd"):
                for t in (1, 2):
                    labels[f"xmux-{t}t"] = backend(f"xmux-{t}t", k, name, threads=t)
            if name == "vecadd":  # launch overhead: 16 work-groups
                bk[wl.SMALL] = {"xmux": backend("xmux", k, wl.SMALL),
                                "xmux-1t": backend("xmux-1t", k, wl.SMALL, 1)}
        except Exception as e:
            msg = f"xmux {name}: {type(e).__name__}: {str(e).strip()[:400]}"
            errors.append(msg)
            log("  " + msg)
            stats[name] = st
            continue
        bk[name] = labels
        stats[name] = st
        log(f"  {name:<13} cold compile {median(st['compile_ms']):6.0f} ms + first launch "
            f"{median(st['first_launch_ms']):6.1f} ms (median of {reps_cold}, cache off)")
    try:  # barrier-cost probe: one program, launched with 0 / 16 / 64 barriers
        kp = xmux.compile(kernel_text(wl.PROBE), cache=False).kernel(wl.PROBE)
        bk[wl.PROBE] = {f"xmux-{wl.probe_iters(p)}": backend(f"xmux-{wl.probe_iters(p)}", kp, p)
                        for p in wl.PROBES}
    except Exception as e:
        msg = f"xmux {wl.PROBE}: {type(e).__name__}: {str(e).strip()[:400]}"
        errors.append(msg)
        log("  " + msg)
    bk["_keep"] = o  # type: ignore[assignment]
    return bk, stats, init


def compile_child(name: str, quick: bool) -> int:
    """Fresh-process text -> first result (run by the parent with XMUX_CACHE* set)."""
    s = wl.QUICK if quick else wl.FULL
    d = wl.make_data(s)
    ref = wl.references(d)
    o = Outputs(d, s)
    o.reset()
    g, lsz = wl.launch_shape(name, s)
    kargs = o.kernel_args(name)
    text = kernel_text(name)
    t0 = time.perf_counter()
    import xmux
    t1 = time.perf_counter()
    k = xmux.compile(text).kernel(name)
    t2 = time.perf_counter()
    k(*kargs, global_size=g, local_size=lsz)
    t3 = time.perf_counter()
    ok = bool(np.allclose(o.result(name), ref[name], *bl.TOL[wl.TOL_KEY[name]]))
    print(json.dumps({"import_ms": (t1 - t0) * 1e3, "compile_ms": (t2 - t1) * 1e3,
                      "first_launch_ms": (t3 - t2) * 1e3, "ok": ok}), flush=True)
    return 0 if ok else 1


def fresh_process(name: str, quick: bool, env_extra: dict[str, str]) -> dict:
    env = dict(os.environ, **env_extra)
    cmd = [sys.executable, os.path.abspath(__file__), "--compile-child", name]
    if quick:
        cmd.append("--quick")
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    wall = (time.perf_counter() - t) * 1e3
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        tail = (p.stderr.strip().splitlines() or ["?"])[-1]
        raise RuntimeError(f"fresh-process compile of {name} failed ({p.returncode}): {tail}")
    r = json.loads(lines[-1])
    r["process_wall_ms"] = wall
    return r


def fresh_compile_times(names, quick: bool, reps: int, tmp: Path, errors: list[str]) -> dict:
    out = {}
    for name in names:
        cache_dir = tmp / f"xmux_cache_{name}"
        try:
            cold = [fresh_process(name, quick, {"XMUX_CACHE": "0"}) for _ in range(reps)]
            populate = fresh_process(name, quick, {"XMUX_CACHE": "1",
                                                   "XMUX_CACHE_DIR": str(cache_dir)})
            warm = [fresh_process(name, quick, {"XMUX_CACHE": "1",
                                                "XMUX_CACHE_DIR": str(cache_dir)})
                    for _ in range(reps)]
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            errors.append(str(e))
            log("  " + str(e))
            continue

        def med(rs, key):
            return median([r[key] for r in rs])
        res = {}
        for tag, rs in (("cold", cold), ("warm", warm), ("populate", [populate])):
            res[tag] = {k: med(rs, k) for k in ("import_ms", "compile_ms", "first_launch_ms",
                                                "process_wall_ms")}
            res[tag]["text_to_result_ms"] = res[tag]["compile_ms"] + res[tag]["first_launch_ms"]
            res[tag]["all_ok"] = all(r["ok"] for r in rs)
        files = [p for p in cache_dir.rglob("*") if p.is_file()] if cache_dir.exists() else []
        res["cache_files"] = len(files)
        res["cache_bytes"] = sum(p.stat().st_size for p in files)
        out[name] = res
        log(f"  {name:<13} fresh process: import {res['cold']['import_ms']:.0f} ms; "
            f"text->result cold {res['cold']['text_to_result_ms']:.0f} ms, warm disk cache "
            f"{res['warm']['text_to_result_ms']:.1f} ms ({len(files)} cache files)")
    return out


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------
def xmux_commit() -> str:
    """HEAD of the repo, marked when xmux's own sources differ from it."""
    commit = bl.sh(f"git -C {REPO} rev-parse --short HEAD")
    dirty = bl.sh(f"git -C {REPO} status --porcelain -- xmux dialects transforms lowering runtime")
    return commit + (" (+ uncommitted changes)" if dirty else "")


def software_line(pocl_info: dict, commit: str) -> dict:
    from importlib.metadata import version

    import llvmlite
    import llvmlite.binding as llvm
    import xdsl  # noqa: F401
    sh = bl.sh
    return {
        "cpu": sh("lscpu | sed -n 's/^Model name: *//p'"),
        "hypervisor": sh("lscpu | sed -n 's/^Hypervisor vendor: *//p'"),
        "cores": len(os.sched_getaffinity(0)),
        "l3": sh("lscpu | sed -n 's/^L3 cache: *//p'"),
        "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "xdsl": version("xdsl"),
        "llvmlite": llvmlite.__version__,
        "llvm": ".".join(map(str, llvm.llvm_version_info)),
        "gcc": sh("gcc -dumpfullversion"),
        "pocl": pocl_info.get("platform_version", "not measured"),
        "pocl_device": pocl_info.get("device", ""),
        "xmux_commit": commit,
        "dropped_env": os.environ.get("BENCH_DROPPED_ENV", ""),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "loadavg": os.getloadavg(),
    }


def fmt(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "—"
    return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:.0f}"


def cell(r: dict | None, key: str = "wall_ms") -> str:
    if not r:
        return "—"
    m = r[key]
    return f"{fmt(m['median'])} [{fmt(m['p10'])}–{fmt(m['p90'])}]"


def ratio(r: dict | None, other: str) -> float | None:
    """Paired ratio of the backends' judged times: kernel (event) time where a backend has
    one (xmux ``profile=True``, PoCL events), else wall time."""
    if not r:
        return None
    return r.get("ratio_vs", {}).get(other)


def wratio(r: dict | None, other: str) -> float | None:
    """Like ``ratio`` with this backend's wall time (the whole launch call) instead."""
    if not r:
        return None
    return r.get("wall_ratio_vs", r.get("ratio_vs", {})).get(other)


def kcell(r: dict | None) -> str:
    """Kernel time where the backend reports one, else wall time."""
    return cell(r, "event_ms" if r and "event_ms" in r else "wall_ms")


def shown_argv(argv: list[str]) -> list[str]:
    """The command-line options worth showing in the report (not the --json path)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--json":
            skip = True
        elif not a.startswith("--json="):
            out.append(a)
    return out


def wait_idle(max_s: float) -> str:
    """Wait (up to max_s) for three consecutive quiet seconds on this shared machine."""
    t0, quiet = time.perf_counter(), 0
    while time.perf_counter() - t0 < max_s:
        a = bl.cpu_snapshot([])
        time.sleep(1.0)
        if bl.cpu_delta(a, bl.cpu_snapshot([]))["busy_pct"] < BUSY_LIMIT_PCT:
            quiet += 1
            if quiet >= 3:
                return f"machine quiet after {time.perf_counter() - t0:.0f} s"
        else:
            quiet = 0
    return f"machine still busy after {max_s:.0f} s"


def other_cpu(R: dict, group: str) -> str:
    c = R.get("cpu_by_group", {}).get(group)
    return f"{c['foreign_pct']:.0f}%" if c else "—"


def memory(R: dict, group: str) -> str:
    """The memory probes around a measurement (bench/memprobe.py)."""
    return memprobe.describe(R.get("memprobe", {}).get(group, []))


def verdict(value: float | None, limit: float, at_most: bool, unit: str = "×") -> str:
    """met / missed; a miss says by how much (a factor for ratios, the excess for ms)."""
    if value is None:
        return "not measured"
    if (value <= limit) if at_most else (value >= limit):
        return "**met**"
    if unit in ("ms", "ns"):
        return f"**missed** (+{value - limit:.1f} {unit})"
    factor = value / limit if at_most else limit / value
    return f"**missed** ({factor:.2f}× off)"


def make_report(R: dict) -> str:
    s = R["sizes"]
    S = wl.Sizes(**{k: tuple(v) if isinstance(v, list) else v for k, v in s.items()})
    sw = R["software"]
    L = []
    L.append("# xmux benchmark results\n")
    L.append(f"Generated by `{' '.join(['.venv/bin/python bench/run.py', *R['argv']])}` on "
             f"{R['date']} "
             f"(whole run {R['total_s']:.0f} s).\n")
    L.append("## Reproduce\n")
    L.append("```sh\nbash ../shared/bench/setup.sh          # once: PoCL + /tmp/benchvenv "
             "(the PoCL columns need it)\n"
             ".venv/bin/python bench/run.py --write-results   # or: make bench\n```\n")
    L.append("## Machine and software\n")
    load = ", ".join(f"{x:.2f}" for x in sw["loadavg"])
    L.append(f"{sw['cpu']} ({sw['hypervisor'] or 'bare metal'} guest), {sw['cores']} cores "
             f"used, L3 {sw['l3']}, {sw['mem_gib']} GiB RAM, Linux {sw['kernel']}; "
             f"Python {sw['python']}, numpy {sw['numpy']}, xDSL {sw['xdsl']}, "
             f"llvmlite {sw['llvmlite']} (LLVM {sw['llvm']}), gcc {sw['gcc']}; "
             f"PoCL: `{sw['pocl']}` {sw['pocl_device']}; xmux at {sw['xmux_commit']}. "
             f"OMP_NUM_THREADS={sw['omp_num_threads']}; xmux uses its default thread count "
             f"({sw['cores']}). Load average at start {load}."
             + (f" Removed from the environment before numpy loaded: {sw['dropped_env']}."
                if sw["dropped_env"] else "") + "\n")

    L.append("## Kernel time\n")
    L.append("Median [p10–p90] ms. xmux kernel = `k(..., profile=True).seconds`: the thread "
             "pool's run of the work-groups, hand-off and join included (as PoCL's profiling "
             "events time its kernels); xmux wall = the whole blocking launch call "
             "(`k(*args, global_size=…, local_size=…)`: argument checks and packing too); "
             "**xmux reqd** = the same kernel with "
             "`mux.reqd_work_group_size` = its local size; PoCL kernel = profiling-event time, "
             "PoCL wall = enqueue→`wait()`; gcc (ref.c, `-O3 -march=native -fopenmp`) and numpy "
             "= wall time. Ratios are medians over interleaving rounds of per-round median "
             "ratios: xmux ÷ PoCL kernel time to kernel time (the target), xmux wall ÷ PoCL "
             "kernel beside it, xmux ÷ gcc and ÷ numpy wall to wall. From the second launch "
             "with a given "
             "local size xmux runs the work-group function compiled for that size "
             "(`runtime/launcher.py`), and on a host with 512-bit vectors the next "
             "launches time it built with 512- and 256-bit vectors and keep the faster "
             "(`runtime/tuning.py`); each backend's untimed set-up runs those launches before "
             "its verification launch, so every timed call runs the code that stays.\n")
    L.append("| kernel | size (global / local) | xmux kernel ms | xmux wall ms | xmux reqd "
             "kernel ms | PoCL kernel ms | PoCL wall ms | gcc -O3 ms | numpy ms | xmux ÷ PoCL | "
             "xmux wall ÷ PoCL | xmux reqd ÷ PoCL | xmux ÷ gcc | xmux ÷ numpy | target xmux ÷ "
             "PoCL | verdict | memory 2t÷1t | other CPU |")
    L.append("|---|---|---|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---:|")
    for name in wl.KERNELS:
        g = R["steady"].get(name, {})
        x, xr, p = g.get("xmux"), g.get("xmux-reqd"), g.get("pocl")
        tgt = TARGET_VS_POCL[name]
        rp = ratio(x, "pocl")
        L.append(
            f"| {name} | {wl.size_label(name, S)} | {kcell(x)} | {cell(x)} | {kcell(xr)} | "
            f"{cell(p, 'event_ms') if p else '—'} | {fmt(p['wall_ms']['median']) if p else '—'} | "
            f"{cell(g.get('gcc'))} | {cell(g.get('numpy'))} | {fmt(rp)}× | "
            f"{fmt(wratio(x, 'pocl'))}× | {fmt(ratio(xr, 'pocl'))}× | {fmt(wratio(x, 'gcc'))}× | "
            f"{fmt(wratio(x, 'numpy'))}× | "
            f"≤ {tgt}× | {verdict(rp, tgt, True)} | {memory(R, name)} | {other_cpu(R, name)} |")
    L.append("\n**other CPU** = CPU time used by other processes on this machine while the row "
             "was measured, in % of the machine (a busy neighbour on 2 cores distorts that row). "
             "**memory 2t÷1t** = `bench/memprobe.py` right before and right after the row was "
             "measured: how much faster gcc sums 64 MiB on 2 threads than on 1. This VM switches "
             "between a *scaling* phase (≈2.6×: each vCPU streams from a cache of its own) and "
             "a *saturated* one (≈1.3×) minutes apart; memory-bound ratios differ between the "
             "two, so compare rows of one phase (the section *Runs recorded* lists every run).\n")

    L.append("## Threads\n")
    L.append("xmux `k(..., threads=1)` vs `threads=2` (kernel times), interleaved. The target "
             "is for naive "
             "matmul; vecadd (memory-bound, ≈1 ms) is shown for comparison.\n")
    L.append("| kernel | 1 thread ms | 2 threads ms | speed-up (1t ÷ 2t) | target | verdict | "
             "memory 2t÷1t | other CPU |")
    L.append("|---|---|---|---:|---:|---|---|---:|")
    for name, grp in (("matmul_naive", "threads"), ("vecadd", "threads_vecadd")):
        th = R["steady"].get(grp)
        if not th:
            L.append(f"| {name} | — | — | — | | not measured | |")
            continue
        sp = ratio(th["xmux-1t"], "xmux-2t")
        tgt = (f"≥ {TARGET_THREAD_SPEEDUP}× | {verdict(sp, TARGET_THREAD_SPEEDUP, False)}"
               if grp == "threads" else "— | (no target)")
        L.append(f"| {name} {wl.size_label(name, S)} | {kcell(th['xmux-1t'])} | "
                 f"{kcell(th['xmux-2t'])} | {fmt(sp)}× | {tgt} | {memory(R, grp)} | "
                 f"{other_cpu(R, grp)} |")
    L.append("")

    L.append("## Launch overhead\n")
    sm = R["steady"].get(wl.SMALL)
    if sm:
        x, p = sm.get("xmux"), sm.get("pocl")
        L.append(f"vecadd on {wl.size_label(wl.SMALL, S)}: almost no work, so this is the "
                 "cost of one launch. xmux wall on its default thread count and on 1 thread "
                 "(1 thread runs the single slice on the calling thread, no pool); PoCL event "
                 "and enqueue→`wait()` wall; gcc = one OpenMP parallel loop; numpy = one "
                 "`np.add`.\n")
        L.append("| xmux ms | xmux 1 thread ms | PoCL kernel ms | PoCL wall ms | gcc ms | "
                 "numpy ms | other CPU |")
        L.append("|---|---|---|---|---|---|---:|")
        L.append(f"| {cell(x)} | {cell(sm.get('xmux-1t'))} | "
                 f"{cell(p, 'event_ms') if p else '—'} | {cell(p) if p else '—'} | "
                 f"{cell(sm.get('gcc'))} | {cell(sm.get('numpy'))} | "
                 f"{other_cpu(R, wl.SMALL)} |\n")
    else:
        L.append("not measured\n")

    L.extend(report_wg(R, S))
    L.extend(roofline.section(R, S))
    L.append("## Compile time: MLIR text → first result\n")
    L.append("compile = `xmux.compile(text)` + `prog.kernel(name)`; first launch = the first "
             "`k(...)` call (includes one run of the kernel at the benchmark size; the "
             "steady-state time is in the table above). **In-process** = this process, disk "
             "cache off (`XMUX_CACHE=0`), after one tiny warm-up kernel took the one-time set-up "
             f"({fmt(R['xmux_init'].get('first_compile_and_launch_ms'))} ms); median of "
             f"{R['reps_cold']}. **Fresh process** = a new python "
             "(`bench/run.py --compile-child`): "
             "`import xmux` is shown separately and not counted in text→result; cold = "
             "`XMUX_CACHE=0`, warm = `XMUX_CACHE_DIR` populated by one earlier process; median "
             f"of {R['reps_fresh']}.\n")
    L.append("| kernel | in-process cold: compile + first launch = total ms | fresh cold: import / "
             "compile + first launch = text→result ms | fresh warm cache: import / compile + "
             "first launch = text→result ms | PoCL cold: build (whole kernels.cl) / first launch "
             "ms | target cold ≤ 500 ms | target warm ≤ 50 ms |")
    L.append("|---|---|---|---|---|---|---|")
    pocl = R["pocl"]
    for name in COMPILE_KERNELS:
        c = R["xmux_compile"].get(name)
        f = R["fresh"].get(name)
        ip = "—"
        cold_val = None
        if c and c.get("total_ms"):
            cm, fm, tm = (median(c[k]) for k in ("compile_ms", "first_launch_ms", "total_ms"))
            ip = f"{fmt(cm)} + {fmt(fm)} = {fmt(tm)}"
            cold_val = tm
        fc = fw = "—"
        warm_val = None
        if f:
            a, b = f["cold"], f["warm"]
            fc = (f"{fmt(a['import_ms'])} / {fmt(a['compile_ms'])} + {fmt(a['first_launch_ms'])} "
                  f"= {fmt(a['text_to_result_ms'])}")
            fw = (f"{fmt(b['import_ms'])} / {fmt(b['compile_ms'])} + {fmt(b['first_launch_ms'])} "
                  f"= {fmt(b['text_to_result_ms'])}")
            cold_val = max(cold_val or 0.0, a["text_to_result_ms"])
            warm_val = b["text_to_result_ms"]
        pc = "—"
        if name == "reduce_wg":
            pc = "cannot build"
        elif pocl.get("build_ms") is not None:
            pc = f"{fmt(pocl['build_ms'])} / {fmt(pocl['first_launch_ms'].get(name))}"
        L.append(f"| {name} | {ip} | {fc} | {fw} | {pc} | "
                 f"{verdict(cold_val, TARGET_COLD_MS, True, 'ms')} | "
                 f"{verdict(warm_val, TARGET_WARM_MS, True, 'ms')} |")
    L.append("\nThe cold verdict takes the worse of in-process and fresh-process text→result.\n")

    L.extend(report_spec(R))
    L.extend(report_acc(R))
    L.extend(report_histogram(R))
    L.append("## Targets\n")
    for t in R["targets"]:
        L.append(f"- {t}")
    L.append("")
    L.extend(report_history(R.get("history", [])))

    L.append("## Verification\n")
    bad = [v for v in R["verification"] if not v["ok"]]
    L.append(f"{len(R['verification'])} checks against float64 numpy references "
             f"(`numpy.testing.assert_allclose`, tolerances of the shared baseline), "
             f"**{len(bad)} mismatches**. Outputs are NaN-filled before each checked run.\n")
    for v in bad:
        L.append(f"- {v['kernel']} {v['backend']}: {v['detail']}")
    if R["errors"] or R["notes"]:
        L.append("## Errors and notes\n")
        for e in R["errors"]:
            L.append(f"- error: {e}")
        for n in R["notes"]:
            L.append(f"- {n}")
        L.append("")
    L.append("## Method\n")
    L.append(
        "The PoCL kernels are the shared `kernels.cl` (`vecadd`, `saxpy`, `matmul_naive`, "
        "`conv3x3_const`, `matmul_tiled`, `reduce_local`, `barrier_probe`) run by "
        "`bench/pocl_worker.py` in the PoCL venv (kernel cache off); "
        "the xmux kernels are `bench/kernels/*.mlir` with the same arithmetic. The host arrays "
        "of xmux, gcc and numpy are 64-byte aligned (`workloads.aligned`), as PoCL's own "
        "buffers are: numpy's large arrays start 16 bytes into a cache line, which cost every "
        "vectorizing backend (naive matmul 7.2 vs 5.1 ms, vecadd/saxpy 2-7%). Per kernel, all "
        f"backends run interleaved in bursts of ≈{R['settings']['BURST_S'] * 1e3:.0f} ms "
        "(`bench/timing.py`: the shared baseline's bursts and cool-down pauses, so spinning "
        f"OpenMP/OpenBLAS threads go idle, with ≥ {R['settings'].get('WARM_S', 0) * 1e3:.0f} ms "
        "of untimed calls at the start of each burst, as this VM needs a few ms to get back "
        "to speed after a pause, and rounds in orders where every backend follows every other "
        "equally often, where the baseline's cyclic order always seats a backend after the "
        "same one), ≥ "
        f"{R['settings']['REPS_MIN']} timed calls and ≥ {R['settings']['ROUNDS_MIN']} rounds; "
        f"a kernel measured while other processes used > {BUSY_LIMIT_PCT:.0f}% of the CPU is "
        f"measured again, up to {R['settings']['retries']} times, and the quietest attempt is "
        "kept (re-measured: "
        + (", ".join(f"{g} ×{n}" for g, n in R.get("retried", {}).items() if n) or "none")
        + "). "
        "This is a small shared VM: compare columns of one row, not across runs. CPU used by "
        "other processes during the steady-state phase: "
        + ", ".join(f"{k} {v['foreign_pct']:.1f}%" for k, v in R["cpu_by_group"].items())
        + f"; hypervisor steal {R['cpu_all']['steal_pct']:.1f}%. 512-bit FMA calibration "
        f"{R['calibration'][0]:.0f} GFLOP/s before, {R['calibration'][1]:.0f} after.\n")
    return "\n".join(L) + "\n"


def barrier_ns(R: dict, backend: str) -> float | None:
    """ns per barrier per work-group: (64-barrier time - 0-barrier time) / 64 / groups."""
    g = R["steady"].get(wl.PROBE, {})
    a, b = g.get(f"{backend}-0"), g.get(f"{backend}-64")
    if not a or not b:
        return None
    key = "event_ms" if "event_ms" in a else "wall_ms"
    groups = R["sizes"]["n_probe"] // R["sizes"]["lsz_red"][0]
    return (b[key]["median"] - a[key]["median"]) * 1e6 / (64 * groups)


def report_wg(R: dict, S: wl.Sizes) -> list[str]:
    """Issue 3 section: local memory, barriers, work-group collectives, barrier cost."""
    L = ["## Barriers, local memory, work-group collectives (issue 3)\n",
         "Same method and columns as the kernel-time table. `matmul_tiled` and `reduce_local` "
         "stage data in work-group local memory (`memref.global` in memory space 3) with "
         "`mux.work_group_barrier`s and require their local size (16×16, 256), as in "
         "kernels.cl; `reduce_wg` uses `mux.work_group_reduce fadd` and has no required size "
         "(**xmux reqd** = with one). PoCL 3.1 cannot build the OpenCL counterpart "
         "(`work_group_reduce_add`: \"Cannot find symbol _Z21work_group_reduce_addf in kernel "
         "library\", BASELINE.md), so `reduce_wg` is compared with the gcc block sums "
         "(`ref_block_sums`, OpenMP + `omp simd` reduction) instead. gcc/numpy compute the "
         "same result with plain loops (i-k-j matmul, per-block sums), no local memory.\n",
         "| kernel | size (global / local) | xmux kernel ms | xmux wall ms | xmux reqd "
         "kernel ms | PoCL kernel ms | PoCL wall ms | gcc -O3 ms | numpy ms | xmux ÷ PoCL | "
         "xmux ÷ gcc | xmux ÷ numpy | target | verdict | other CPU |",
         "|---|---|---|---|---|---|---|---|---|---:|---:|---:|---:|---|---:|"]
    for name in wl.KERNELS_WG:
        g = R["steady"].get(name, {})
        x, xr, p = g.get("xmux"), g.get("xmux-reqd"), g.get("pocl")
        if name in TARGET_VS_POCL:
            tv, tgt, tl = ratio(x, "pocl"), TARGET_VS_POCL[name], "PoCL"
        else:
            tv, tgt, tl = wratio(x, "gcc"), TARGET_WG_VS_GCC[name], "gcc"
        tl = f"≤ {tgt}× {tl}"
        pk = cell(p, "event_ms") if p else ("cannot build" if name == "reduce_wg" else "—")
        L.append(
            f"| {name} | {wl.size_label(name, S)} | {kcell(x)} | {cell(x)} | "
            f"{kcell(xr) if xr else 'n/a'} | "
            f"{pk} | {fmt(p['wall_ms']['median']) if p else '—'} | {cell(g.get('gcc'))} | "
            f"{cell(g.get('numpy'))} | {fmt(ratio(x, 'pocl'))}× | {fmt(wratio(x, 'gcc'))}× | "
            f"{fmt(wratio(x, 'numpy'))}× | {tl} | {verdict(tv, tgt, True)} | "
            f"{other_cpu(R, name)} |")
    L.append("")
    pr = R["steady"].get(wl.PROBE, {})
    L.append("### Barrier cost\n")
    L.append(f"`barrier_probe` ({wl.size_label(wl.PROBE + '_0', S)}): a loop of 0 / 16 / 64 "
             "iterations of `buf[lid] = buf[lid] * 0.5 + 1` (work-group local memory) each "
             "followed by a work-group barrier; xmux (`bench/kernels/barrier_probe.mlir`, kernel "
             "time) and PoCL (`kernels.cl` `barrier_probe`, event time) measured "
             "interleaved in one group. ns per barrier per 256-item work-group = (64-barrier "
             "median − 0-barrier median) ÷ 64 ÷ work-groups; it includes the trivial update "
             "of 256 floats between barriers (launch costs cancel out).\n")
    L.append("| backend | 0 barriers ms | 16 barriers ms | 64 barriers ms | ns per barrier per "
             f"group | target ≤ {TARGET_BARRIER_NS:.0f} ns | other CPU |")
    L.append("|---|---|---|---|---:|---|---:|")
    for b in ("xmux", "pocl"):
        if f"{b}-0" not in pr:
            continue
        key = "event_ms" if "event_ms" in pr[f"{b}-0"] else "wall_ms"
        ns = barrier_ns(R, b)
        L.append(f"| {b} | " + " | ".join(cell(pr.get(f"{b}-{i}"), key) for i in wl.PROBE_ITERS)
                 + f" | {fmt(ns)} | "
                 + (verdict(ns, TARGET_BARRIER_NS, True, "ns") if b == "xmux" else "")
                 + f" | {other_cpu(R, wl.PROBE)} |")
    xn, pn = barrier_ns(R, "xmux"), barrier_ns(R, "pocl")
    if xn is not None:
        tiled = 2 * (S.n_mm // 16) * (S.n_mm // 16) ** 2
        groups = S.n_red // S.lsz_red[0]
        # the source's barriers: 1 + 8 tree rounds; xmux runs 2 (vectorize-local-reduction-
        # trees makes the tree one step of work-item 0 between two barriers)
        red, red_x = 9 * groups, 2 * groups

        def xms(name: str) -> str:
            x = R["steady"].get(name, {}).get("xmux")
            return fmt(x.get("event_ms", x["wall_ms"])["median"]) if x else "—"
        L.append(f"\nAt this cost, matmul_tiled's {tiled} work-group barriers take ≈"
                 f"{fmt(tiled * xn * 1e-6)} ms of its {xms('matmul_tiled')} ms; reduce_local's "
                 f"source has {red} barriers, of which xmux runs {red_x} "
                 f"(vectorize-local-reduction-trees): ≈{fmt(red_x * xn * 1e-6)} ms of its "
                 f"{xms('reduce_local')} ms"
                 + (f" (PoCL: ≈{fmt(tiled * pn * 1e-6)} ms and ≈{fmt(red * pn * 1e-6)} ms)"
                    if pn is not None else "") + ".")
    L.append("")
    return L


def targets_wg(R: dict) -> list[str]:
    out = []
    for name in wl.KERNELS_WG:
        x = R["steady"].get(name, {}).get("xmux")
        if name in TARGET_VS_POCL:
            r, t, w = ratio(x, "pocl"), TARGET_VS_POCL[name], "PoCL"
        else:
            r, t = wratio(x, "gcc"), TARGET_WG_VS_GCC[name]
            w = "gcc block sums (PoCL cannot build it; wall to wall)"
        out.append(f"{name}: xmux ÷ {w} = {fmt(r)}× (target ≤ {t}×) → {verdict(r, t, True)}")
    xn, pn = barrier_ns(R, "xmux"), barrier_ns(R, "pocl")
    out.append(f"barrier cost: xmux {fmt(xn)} ns per barrier per 256-item group (target ≤ "
               f"{TARGET_BARRIER_NS:.0f} ns; PoCL {fmt(pn)} ns in the same run) → "
               f"{verdict(xn, TARGET_BARRIER_NS, True, 'ns')}")
    return out


def run_spec_conv(args, tmp: Path, errors: list[str]) -> dict:
    """bench/spec_conv.py in a child process: its markdown and its raw numbers."""
    out = tmp / "spec_conv.json"
    cmd = [sys.executable, str(wl.BENCH_DIR / "spec_conv.py"), "--json", str(out),
           "--pocl-python", args.pocl_python]
    cmd += (["--quick"] if args.quick else []) + (["--no-pocl"] if args.no_pocl else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0 or not out.exists():
        tail = (p.stderr.strip().splitlines() or ["?"])[-1]
        errors.append(f"spec_conv.py failed ({p.returncode}): {tail}")
        log("  " + errors[-1])
        if not out.exists():
            return {}
    # its stdout: verification log lines, then the markdown report from the first heading on
    md = p.stdout[p.stdout.find("## "):] if "## " in p.stdout else ""
    return {"markdown": md.strip(), "data": json.loads(out.read_text())}


def spec_values(R: dict) -> tuple[float | None, float | None, float | None]:
    """(specialized ÷ emulated, re-specialization ms, cached-launch overhead ms)."""
    d = R.get("spec_conv", {}).get("data")
    if not d:
        return None, None, None
    return (d["steady"]["xmux-jit"]["ratio_vs"]["xmux-emulated"],
            d["respecialize"]["first_launch_minus_steady_ms"],
            d["cached_launch_overhead_us"] * 1e-3)


def report_spec(R: dict) -> list[str]:
    sc = R.get("spec_conv")
    if sc is None:
        return []
    L = ["## Specialization constants (issue 4, `bench/spec_conv.py`)\n",
         "Run by `bench/run.py` as `bench/spec_conv.py --json …` after the steady-state phase "
         "(PoCL worker of its own); its report, unchanged except for the heading level:\n"]
    if "markdown" in sc:
        L.append(re.sub(r"^## ", "### ", sc["markdown"], flags=re.M))
    r, rs, cl = spec_values(R)
    L.append(f"\nMemory probe (`bench/memprobe.py`) before / after: "
             f"{memprobe.describe(sc.get('memprobe', []))}.")
    L.append("")
    L.append("| issue-4 target | value | verdict |")
    L.append("|---|---:|---|")
    L.append(f"| specialized ≤ emulated (xmux-jit ÷ xmux-emulated, paired) | {fmt(r)}× | "
             f"{verdict(r, 1.0, True)} |")
    L.append(f"| re-specialization ≤ {TARGET_RESPEC_MS:.0f} ms (first launch with new values "
             f"− steady kernel time) | {fmt(rs)} ms | "
             f"{verdict(rs, TARGET_RESPEC_MS, True, 'ms')} |")
    L.append(f"| cached repeat launch adds ≤ {TARGET_CACHED_LAUNCH_MS:.0f} ms | {fmt(cl)} ms | "
             f"{verdict(cl, TARGET_CACHED_LAUNCH_MS, True, 'ms')} |")
    wst = sc.get("data", {}).get("width", {}).get("steady")
    if wst:
        L.append(f"| (no target) image width as a constant, divisions by it: xmux-jit ÷ "
                 f"xmux-emulated | {fmt(wst['xmux-jit']['ratio_vs']['xmux-emulated'])}× | |")
    L.append("")
    return L


def targets_spec(R: dict) -> list[str]:
    if "spec_conv" not in R:
        return []
    r, rs, cl = spec_values(R)
    return [f"conv3x3 spec constant: specialized ÷ emulated = {fmt(r)}× (≤ 1×) → "
            f"{verdict(r, 1.0, True)}; re-specialization {fmt(rs)} ms (≤ "
            f"{TARGET_RESPEC_MS:.0f}) → {verdict(rs, TARGET_RESPEC_MS, True, 'ms')}; cached "
            f"repeat launch adds {fmt(cl)} ms (≤ {TARGET_CACHED_LAUNCH_MS:.0f}) → "
            f"{verdict(cl, TARGET_CACHED_LAUNCH_MS, True, 'ms')}"]


def run_acc_sum(args, tmp: Path, errors: list[str]) -> dict:
    """bench/acc_sum.py in a child process: its markdown and its raw numbers."""
    out = tmp / "acc_sum.json"
    cmd = [sys.executable, str(wl.BENCH_DIR / "acc_sum.py"), "--json", str(out)]
    cmd += ["--quick"] if args.quick else []
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0 or not out.exists():
        tail = (p.stderr.strip().splitlines() or ["?"])[-1]
        errors.append(f"acc_sum.py failed ({p.returncode}): {tail}")
        log("  " + errors[-1])
        if not out.exists():
            return {}
    md = p.stdout[p.stdout.find("## "):] if "## " in p.stdout else ""
    return {"markdown": md.strip(), "data": json.loads(out.read_text())}


def acc_values(R: dict, t: str) -> tuple[float | None, float | None, float | None]:
    """(xmux ÷ gcc, xmux 1 thread ÷ 2 threads, gcc 1 thread ÷ 2 threads) of the OpenACC sum
    of type ``t``."""
    d = R.get("acc_sum", {}).get("data", {}).get("types", {}).get(t)
    if not d:
        return None, None, None
    st = d["steady"]
    gcc1 = st.get("gcc 1 thread", {}).get("ratio_vs", {}).get("gcc")
    return st["xmux"]["ratio_vs"]["gcc"], st["xmux 1 thread"]["ratio_vs"]["xmux"], gcc1


def report_acc(R: dict) -> list[str]:
    sc = R.get("acc_sum")
    if sc is None:
        return []
    L = ["## OpenACC reductions (issue 5, `bench/acc_sum.py`)\n",
         "Run by `bench/run.py` as `bench/acc_sum.py --json …`; its report, unchanged except for "
         "the heading level:\n"]
    if "markdown" in sc:
        L.append(re.sub(r"^## ", "### ", sc["markdown"], flags=re.M))
    L.append(f"\nMemory probe (`bench/memprobe.py`) before / after: "
             f"{memprobe.describe(sc.get('memprobe', []))}.")
    L.append("")
    return L


def targets_acc(R: dict) -> list[str]:
    if "acc_sum" not in R:
        return []
    out = []
    for t in ("f32", "f64"):
        g, sp, gsp = acc_values(R, t)
        n = R["acc_sum"].get("data", {}).get("types", {}).get(t, {}).get("n", 0)
        out.append(f"OpenACC {t} sum (2^{n.bit_length() - 1}, gang+worker+vector, cpu): "
                   f"xmux ÷ gcc = {fmt(g)}× "
                   f"(≤ {TARGET_ACC_VS_GCC}×) → {verdict(g, TARGET_ACC_VS_GCC, True)}; 2 threads "
                   f"vs 1: {fmt(sp)}× (≥ {TARGET_THREAD_SPEEDUP}×) → "
                   f"{verdict(sp, TARGET_THREAD_SPEEDUP, False)} (gcc's own loop: "
                   f"{fmt(gsp)}×; memory {memprobe.describe(R['acc_sum'].get('memprobe', []))})")
    return out


def run_histogram(args, tmp: Path, errors: list[str]) -> dict:
    """bench/histogram.py in a child process (issue 16 item 3): its markdown and raw numbers."""
    out = tmp / "histogram.json"
    cmd = [sys.executable, str(wl.BENCH_DIR / "histogram.py"), "--json", str(out),
           "--pocl-python", args.pocl_python]
    cmd += (["--quick"] if args.quick else []) + (["--no-pocl"] if args.no_pocl else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0 or not out.exists():
        tail = (p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or ["?"])[-1]
        errors.append(f"histogram.py failed ({p.returncode}): {tail}")
        log("  " + errors[-1])
        if not out.exists():
            return {}
    md = p.stdout[p.stdout.find("## "):] if "## " in p.stdout else ""
    return {"markdown": md.strip(), "data": json.loads(out.read_text())}


def report_histogram(R: dict) -> list[str]:
    sc = R.get("histogram")
    if sc is None:
        return []
    L = ["## Atomics: 256-bin histograms (issue 16, `bench/histogram.py`)\n",
         "Run by `bench/run.py` as `bench/histogram.py --json …`; its report, unchanged except "
         "for the heading level:\n"]
    if "markdown" in sc:
        L.append(re.sub(r"^## ", "### ", sc["markdown"], flags=re.M))
    L.append("")
    return L


def targets_histogram(R: dict) -> list[str]:
    d = R.get("histogram", {}).get("data")
    if not d:
        return []
    st = d.get("steady", {}).get("global/uniform", {})

    def r(a: str, b: str) -> float | None:
        return st.get(a, {}).get("ratio_vs", {}).get(b)

    v = r("xmux", "pocl")
    return [f"global-atomic histogram (2^{d['n'].bit_length() - 1} bytes, uniform): xmux ÷ PoCL "
            f"= {fmt(v)}× (target ≤ 1.0×) → {verdict(v, 1.0, True)}; 1 thread each: "
            f"{fmt(r('xmux-1t', 'pocl-1t'))}×"]


#: history columns: (key, heading, target, at most)
HISTORY_COLUMNS = (
    ("vecadd", "vecadd ÷ PoCL", 1.0, True),
    ("saxpy", "saxpy ÷ PoCL", 1.0, True),
    ("conv3x3", "conv3x3 ÷ PoCL", 1.0, True),
    ("matmul_naive", "matmul ÷ PoCL", 0.5, True),
    ("threads", "matmul 2t ÷ 1t", TARGET_THREAD_SPEEDUP, False),
    ("spec", "spec jit ÷ emulated", 1.0, True),
    ("acc_f32", "OpenACC f32 2t ÷ 1t (gcc)", TARGET_THREAD_SPEEDUP, False),
    ("acc_f64", "OpenACC f64 2t ÷ 1t (gcc)", TARGET_THREAD_SPEEDUP, False),
    ("histogram", "atomic histogram ÷ PoCL", 1.0, True),
)


def history_entry(R: dict) -> dict:
    """This run's line of bench/history.jsonl: per target its value, where one exists a
    comparison value (gcc's own 2t ÷ 1t), and the memory probes around it."""
    def scalings(probes: list) -> list[float]:
        return [round(p["scaling"], 2) for p in probes if p]

    mp = R.get("memprobe", {})
    vals: dict[str, dict] = {}
    for name in ("vecadd", "saxpy", "conv3x3", "matmul_naive"):
        vals[name] = {"value": ratio(R["steady"].get(name, {}).get("xmux"), "pocl"),
                      "memory": scalings(mp.get(name, []))}
    th = R["steady"].get("threads")
    vals["threads"] = {"value": ratio(th["xmux-1t"], "xmux-2t") if th else None,
                       "memory": scalings(mp.get("threads", []))}
    vals["spec"] = {"value": spec_values(R)[0],
                    "memory": scalings(R.get("spec_conv", {}).get("memprobe", []))}
    for t in ("f32", "f64"):
        _, sp, gsp = acc_values(R, t)
        vals[f"acc_{t}"] = {"value": sp, "gcc": gsp,
                            "memory": scalings(R.get("acc_sum", {}).get("memprobe", []))}
    hd = R.get("histogram", {}).get("data", {})
    hu = hd.get("steady", {}).get("global/uniform", {}).get("xmux")
    vals["histogram"] = {"value": hu["ratio_vs"].get("pocl") if hu else None}
    return {"date": R["date"], "commit": R["commit"], "xmux_time": "kernel", "targets": vals}


def report_history(entries: list[dict]) -> list[str]:
    if not entries:
        return []
    L = ["## Runs recorded on this machine\n",
         f"Every full run written with `--write-results` appends its target ratios to "
         f"`bench/{HISTORY.name}`; all of them, oldest first. In brackets: the memory probes "
         f"around the measurement (gcc 64 MiB sum, 2 threads ÷ 1 thread; ≥ "
         f"{memprobe.SCALING_AT_LEAST}× = *scaling* phase, below = *saturated*). "
         "**Bold** = target met. xmux ÷ PoCL is kernel time ÷ kernel time, except in runs "
         "marked † (before `profile=True`): xmux wall time ÷ PoCL kernel time.\n"]
    L.append("| run (UTC) | commit | " + " | ".join(
        f"{h} (target {'≤' if le else '≥'} {t}×)" for _, h, t, le in HISTORY_COLUMNS) + " |")
    L.append("|---|---|" + "---:|" * len(HISTORY_COLUMNS))
    for e in entries:
        cells = []
        for key, _, tgt, le in HISTORY_COLUMNS:
            v = e["targets"].get(key, {})
            x = v.get("value")
            if x is None:
                cells.append("—")
                continue
            met = x <= tgt if le else x >= tgt
            txt = f"**{x:.2f}×**" if met else f"{x:.2f}×"
            if v.get("gcc") is not None:
                txt += f" ({v['gcc']:.2f}×)"
            if v.get("memory"):
                txt += " [" + "/".join(f"{m:.1f}" for m in v["memory"]) + "]"
            cells.append(txt)
        mark = "" if e.get("xmux_time") == "kernel" else " †"
        L.append(f"| {e['date'][:16]} | {e['commit']}{mark} | " + " | ".join(cells) + " |")
    L.append("")
    return L


def read_history() -> list[dict]:
    if not HISTORY.exists():
        return []
    return [json.loads(line) for line in HISTORY.read_text().splitlines() if line.strip()]


def targets_summary(R: dict) -> list[str]:
    out = []
    for name in wl.KERNELS:
        r = ratio(R["steady"].get(name, {}).get("xmux"), "pocl")
        out.append(f"{name}: xmux ÷ PoCL = {fmt(r)}× (target ≤ {TARGET_VS_POCL[name]}×) → "
                   f"{verdict(r, TARGET_VS_POCL[name], True)} (memory {memory(R, name)})")
    th = R["steady"].get("threads")
    sp = ratio(th["xmux-1t"], "xmux-2t") if th else None
    out.append(f"matmul_naive 2 threads vs 1: {fmt(sp)}× (target ≥ {TARGET_THREAD_SPEEDUP}×) → "
               f"{verdict(sp, TARGET_THREAD_SPEEDUP, False)} (memory {memory(R, 'threads')})")
    out.extend(targets_wg(R))
    out.extend(targets_spec(R))
    out.extend(targets_acc(R))
    out.extend(targets_histogram(R))
    for name in COMPILE_KERNELS:
        c = R["xmux_compile"].get(name, {})
        f = R["fresh"].get(name)
        vals = [median(c["total_ms"])] if c.get("total_ms") else []
        if f:
            vals.append(f["cold"]["text_to_result_ms"])
        cold = max(vals) if vals else None
        warm = f["warm"]["text_to_result_ms"] if f else None
        x = R["steady"].get(name, {}).get("xmux")
        run_ms = x["wall_ms"]["median"] if x else None
        imp = (f", {fmt(f['cold']['import_ms'] + f['cold']['text_to_result_ms'])} ms with a "
               "fresh process's `import xmux`" if f else "")
        out.append(f"{name}: cold text→result {fmt(cold)} ms{imp} (≤ {TARGET_COLD_MS:.0f}) → "
                   f"{verdict(cold, TARGET_COLD_MS, True, 'ms')}; warm disk cache {fmt(warm)} ms "
                   f"(≤ {TARGET_WARM_MS:.0f}) → {verdict(warm, TARGET_WARM_MS, True, 'ms')}"
                   + (f" (of which the first kernel run ≈ {fmt(run_ms)} ms)" if run_ms else ""))
    return out


# --------------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, few reps (smoke test)")
    ap.add_argument("--write-results", action="store_true", help=f"write {RESULTS_MD}")
    ap.add_argument("--json", help="also write the raw results to this JSON file")
    ap.add_argument("--no-pocl", action="store_true", help="skip the PoCL columns")
    ap.add_argument("--pocl-python", default=DEFAULT_POCL_PY,
                    help="python of the PoCL venv (default %(default)s)")
    ap.add_argument("--no-fresh", action="store_true",
                    help="skip the fresh-process compile-time measurements")
    ap.add_argument("--retries", type=int, default=None,
                    help="re-measure a kernel up to N times while other processes use more "
                    f"than {BUSY_LIMIT_PCT:.0f}%% of the CPU, keeping the quietest "
                    "(default 2, --quick 0)")
    ap.add_argument("--wait-idle", type=float, default=0.0, metavar="S",
                    help="first wait up to S seconds for the machine to be quiet")
    ap.add_argument("--no-spec-conv", action="store_true",
                    help="skip bench/spec_conv.py (specialization constants, issue 4)")
    ap.add_argument("--no-acc-sum", action="store_true",
                    help="skip bench/acc_sum.py (OpenACC reductions, issue 5)")
    ap.add_argument("--no-histogram", action="store_true",
                    help="skip bench/histogram.py (atomics, issue 16)")
    ap.add_argument("--rounds", type=int, default=None, metavar="N",
                    help="at least N interleaving rounds per group (the baseline's default 5); "
                    "more rounds steady the ratios of memory-bound kernels on a noisy machine")
    ap.add_argument("--only", metavar="GROUPS",
                    help="measure only these comma-separated steady-state groups (kernel names, "
                    "threads, threads_vecadd, barrier_probe); skips the other phases")
    ap.add_argument("--compile-child", metavar="KERNEL", help=argparse.SUPPRESS)
    ap.add_argument("--gpu", action="store_true",
                    help="the NVPTX target against NVRTC-compiled CUDA C++ instead (bench/gpu.py;"
                    " needs an NVIDIA GPU and CuPy; --quick and --json apply)")
    args = ap.parse_args()
    if args.gpu:
        import gpu

        result = gpu.run(args.quick)
        gpu.report(result)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1))
        return 0 if all(r["ok"] for r in result["rows"]) else 1
    if args.compile_child:
        return compile_child(args.compile_child, args.quick)

    if args.retries is None:
        args.retries = 0 if args.quick else 2
    if args.wait_idle > 0:
        log(f"[wait] {wait_idle(args.wait_idle)}")
    t_start = time.perf_counter()
    os.environ["XMUX_CACHE"] = "0"   # this process never reads or writes the disk cache
    s = wl.QUICK if args.quick else wl.FULL
    if args.quick:
        bl.WARMUP, bl.REPS_MIN, bl.ROUNDS_MIN, bl.BURST_S = 1, 3, 2, 0.01
        timing.WARM_S = 0.001
    bl.COOLDOWN_S["xmux"] = 0.02
    if args.rounds:
        bl.ROUNDS_MIN = args.rounds
    reps_cold = 1 if args.quick else 3
    reps_fresh = 1 if args.quick else 3
    tmp = Path(tempfile.mkdtemp(prefix="xmux_bench_"))
    bl.BUILD_DIR = str(tmp)          # where build_ref puts libref.so
    errors: list[str] = []
    notes: list[str] = []
    R: dict = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "quick": args.quick,
               "argv": shown_argv(sys.argv[1:]), "commit": xmux_commit(),
               "sizes": s.as_dict(), "reps_cold": reps_cold, "reps_fresh": reps_fresh}
    pocl = None
    try:
        lib, R["gcc_cmd"], _ = bl.build_ref()
        d = wl.make_data(s)
        ref = wl.references(d)
        log(f"sizes: {s}")

        pocl, R["pocl"] = start_pocl(args, tmp, ref)
        if "note" in R["pocl"]:
            notes.append(R["pocl"]["note"])
            log(R["pocl"]["note"])
        log("[xmux] compile (disk cache off) + first launch + verify")
        xm, R["xmux_compile"], R["xmux_init"] = xmux_backends(d, ref, s, reps_cold, errors)
        np_bk = numpy_backends(d, ref, s)
        gcc_bk = gcc_backends(lib, d, ref, s)
        if not args.only:
            R["roofline"] = roofline.measure(lib, args.quick)

        log("[steady state] xmux / PoCL / gcc / numpy interleaved per kernel")
        R["steady"], R["cpu_by_group"] = {}, {}
        pids = [os.getpid()] + ([pocl.proc.pid] if pocl else [])
        cal0 = bl.calibrate(lib)
        snap0 = bl.cpu_snapshot(pids)
        groups: list[tuple[str, list[bl.Backend]]] = []
        for name in (*wl.KERNELS, wl.SMALL, *wl.KERNELS_WG):
            xb = xm.get(name, {})
            bks = [xb[k] for k in ("xmux", "xmux-reqd", "xmux-1t") if k in xb and (
                name == wl.SMALL or k != "xmux-1t")]
            if pocl and name in POCL_NAMES:
                bks.append(pocl.backend(name))
            bks += [gcc_bk[name], np_bk[name]]
            groups.append((name, bks))
        # barrier probe: xmux and PoCL with 0 / 16 / 64 barriers, all interleaved
        bks = list(xm.get(wl.PROBE, {}).values())
        if pocl:
            bks += [bl.Backend(f"pocl-{wl.probe_iters(p)}", "pocl",
                               burst=lambda n, p=p: pocl.ask(f"run {p} {n}")) for p in wl.PROBES]
        if bks:
            groups.append((wl.PROBE, bks))
        for name, grp in (("matmul_naive", "threads"), ("vecadd", "threads_vecadd")):
            if name in xm:
                groups.append((grp, [xm[name]["xmux-1t"], xm[name]["xmux-2t"]]))
        if args.only:
            wanted = set(args.only.split(","))
            groups = [(g, b) for g, b in groups if g in wanted]
            args.no_fresh = args.no_spec_conv = args.no_acc_sum = True
            args.no_histogram = True
        R["retried"], R["memprobe"] = {}, {}
        probe = memprobe.Probe(memprobe.build_sums(tmp))
        for grp, bks in groups:
            for attempt in range(1 + args.retries):
                if attempt:
                    log(f"    other processes were busy: measuring {grp} again "
                        f"({wait_idle(30)})")
                g0 = bl.cpu_snapshot(pids)
                before = probe()
                res = timing.interleaved(bks)
                probes = [before, probe()]
                cpu = bl.cpu_delta(g0, bl.cpu_snapshot(pids))
                best = R["cpu_by_group"].get(grp)
                if best is None or cpu["foreign_pct"] < best["foreign_pct"]:
                    R["steady"][grp], R["cpu_by_group"][grp] = res, cpu
                    R["memprobe"][grp] = probes
                txt = ", ".join(f"{lbl} {(v.get('event_ms') or v['wall_ms'])['median']:.3f}"
                                for lbl, v in res.items())
                log(f"  {grp:<13} ms: {txt}  ({next(iter(res.values()))['rounds']} rounds, "
                    f"other CPU {cpu['foreign_pct']:.0f}%, memory {memprobe.describe(probes)})")
                if cpu["foreign_pct"] <= BUSY_LIMIT_PCT:
                    break
            R["retried"][grp] = attempt
        R["cpu_all"] = bl.cpu_delta(snap0, bl.cpu_snapshot(pids))
        R["calibration"] = (cal0, bl.calibrate(lib))
        if pocl:
            pocl.close()
            pocl = None

        R["fresh"] = {}
        if not args.no_fresh and xm:
            log("[xmux] fresh-process text -> first result (cache off, then warm disk cache)")
            names = [n for n in COMPILE_KERNELS if n in xm][:1 if args.quick else None]
            R["fresh"] = fresh_compile_times(names, args.quick, reps_fresh, tmp, errors)
        if not args.no_spec_conv:
            log("[spec_conv] bench/spec_conv.py (conv3x3 with a specialization constant)")
            R["spec_conv"], R["retried"]["spec_conv"] = {}, 0
            for attempt in range(1 + args.retries):
                if attempt:
                    log(f"    other processes were busy: running spec_conv.py again "
                        f"({wait_idle(60)})")
                before = probe()
                sc = run_spec_conv(args, tmp, errors if attempt == args.retries else [])
                if sc:
                    sc["memprobe"] = [before, probe()]
                busy = sc.get("data", {}).get("cpu_steady", {}).get("foreign_pct", 1e9)
                if busy < R["spec_conv"].get("data", {}).get("cpu_steady", {}).get(
                        "foreign_pct", 1e9) or not R["spec_conv"]:
                    R["spec_conv"] = sc
                R["retried"]["spec_conv"] = attempt
                if sc and busy <= BUSY_LIMIT_PCT:
                    break
            for t in targets_spec(R):
                log("  " + t)
        if not args.no_acc_sum:
            log("[acc_sum] bench/acc_sum.py (OpenACC gang+worker+vector sums)")
            R["acc_sum"], R["retried"]["acc_sum"] = {}, 0
            for attempt in range(1 + args.retries):
                if attempt:
                    log(f"    other processes were busy: running acc_sum.py again "
                        f"({wait_idle(60)})")
                before = probe()
                sc = run_acc_sum(args, tmp, errors if attempt == args.retries else [])
                if sc:
                    sc["memprobe"] = [before, probe()]
                types = sc.get("data", {}).get("types", {})
                busy = max((o["cpu"]["foreign_pct"] for o in types.values()), default=1e9)
                old = R["acc_sum"].get("data", {}).get("types", {})
                if busy < max((o["cpu"]["foreign_pct"] for o in old.values()), default=1e9):
                    R["acc_sum"] = sc
                R["retried"]["acc_sum"] = attempt
                if sc and busy <= BUSY_LIMIT_PCT:
                    break
            for t in targets_acc(R):
                log("  " + t)
        if not args.no_histogram:
            log("[histogram] bench/histogram.py (global and local-memory atomics)")
            R["histogram"], R["retried"]["histogram"] = {}, 0
            for attempt in range(1 + args.retries):
                if attempt:
                    log(f"    other processes were busy: running histogram.py again "
                        f"({wait_idle(60)})")
                sc = run_histogram(args, tmp, errors if attempt == args.retries else [])
                busy = max((c["foreign_pct"] for c in sc.get("data", {}).get("cpu", {}).values()),
                           default=1e9)
                old = R["histogram"].get("data", {}).get("cpu", {})
                if busy < max((c["foreign_pct"] for c in old.values()), default=1e9):
                    R["histogram"] = sc
                R["retried"]["histogram"] = attempt
                if sc and busy <= BUSY_LIMIT_PCT:
                    break
            for t in targets_histogram(R):
                log("  " + t)
    finally:
        if pocl:
            pocl.close()
    R["software"] = software_line(R.get("pocl", {}), R["commit"])
    R["verification"] = bl.VERIFY
    R["errors"], R["notes"] = errors, notes
    R["settings"] = {"REPS_MIN": bl.REPS_MIN, "ROUNDS_MIN": bl.ROUNDS_MIN,
                     "BURST_S": bl.BURST_S, "WARMUP": bl.WARMUP, "WARM_S": timing.WARM_S,
                     "retries": args.retries}
    R["vector_widths"] = roofline.widths(_LogHandler.lines, host_has_512())
    R["total_s"] = time.perf_counter() - t_start
    R["targets"] = targets_summary(R)
    for st in R["xmux_compile"].values():
        st.pop("llvm_ir", None)
    R["history"] = read_history()
    if args.write_results and not args.quick and not args.only:
        R["history"].append(history_entry(R))
        with HISTORY.open("a") as f:
            f.write(json.dumps(R["history"][-1]) + "\n")
    report = make_report(R)
    print("\n" + report)
    if args.write_results:
        RESULTS_MD.write_text(report)
        log(f"wrote {RESULTS_MD}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(R, f, indent=1, default=str)
    shutil.rmtree(tmp, ignore_errors=True)
    bad = [v for v in bl.VERIFY if not v["ok"]]
    if bad or errors:
        log(f"FAILED: {len(bad)} verification failure(s), {len(errors)} error(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
