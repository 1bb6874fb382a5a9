#!/usr/bin/env python3
"""Every optional transform on ÷ off, per bench kernel (issue 30 item 6), in one process.

    .venv/bin/python bench/transforms_onoff.py                      # full sizes, prints markdown
    .venv/bin/python bench/transforms_onoff.py --quick --no-pocl    # smoke run (< 60 s)
    .venv/bin/python bench/transforms_onoff.py --only conv3x3_bounds --transforms specialize,tune
    XMUX_CPU=znver3 .venv/bin/python bench/transforms_onoff.py      # AVX2 code (Zen 3) on this host
    .venv/bin/python bench/transforms_onoff.py --cpu-time           # 1 thread, CPU time (busy host)

Kernels: the reference set of bench/run.py (vecadd, saxpy, matmul_naive, conv3x3,
matmul_tiled, reduce_local, reduce_wg) and the shapes that lost (``NEW``; MLIR in
``kernels/<name>.mlir``, OpenCL twins in ``kernels/transforms.cl`` for PoCL):

* ``conv3x3_bounds``: 3x3 convolution of an unpadded 2048x2048 f32 image, zero padding by an
  ``scf.if`` on the image edges inside the two tap loops, local 64x4;
* ``gather``: ``out[i] = x[idx[i]]``, random indices, 2^22;
* ``spmv_csr``: CSR sparse matrix x dense vector, one row per work-item (2^18 rows of 8-24
  random columns): a gather in a loop whose bounds are data;
* ``spmv_ell``: the same in ELLPACK form (K = 16 entries per row, column-major): a gather in a
  small loop with uniform bounds;
* ``branch_heavy``: ``x > 0 ? sqrt(x) * poly8(x) / (1 + x^2) : x/2 - 1`` on random signs, 2^22;
* ``mandelbrot``: escape-time count per pixel (``scf.while``, at most 64 iterations),
  1024x1024, local 64x4.

Transforms, each turned off alone against the default pipeline (``on``), compiled with
``xmux.compile(text, pipeline=passes, cache=False)``:

* ``work-item-unroll-and-jam``: ``pipelines.cpu(unroll_jam=1)`` (default 0: its cost model);
* ``work-item-loop-interchange``, ``hoist-uniform-loads``, ``work-item-loop-vectorize-hints``,
  ``vectorize-local-reduction-trees``: the pass removed from ``pipelines.cpu()``'s list;
* ``specialize``: ``xmux.compile(..., specialize=False)`` (no local-size variant);
* ``tune``: ``xmux.compile(..., tune=False)`` (the variant always runs at the host's width:
  no 512- vs 256-bit choice and no timing against the generic entry).

A removed pass whose program compiles to the same LLVM IR as ``on`` (the generic kernel and
its local-size variant alike) cannot change the time: its cell says ``=`` and it is not timed
(``--time-same`` times it anyway). Every other build is checked against numpy first, then all
builds of one kernel (and PoCL's, for the new kernels) are timed in interleaved rounds
(``bench/timing.py``: bursts after warm-up calls, cool-downs, Williams orders) and each is
judged by its **minimum** kernel time (xmux ``profile=True``, PoCL profiling events) over all
rounds: on ÷ off = min(on) ÷ min(off); a ratio above 1 means the transform costs time. The
median of the per-round ratios is printed as a second table. An A/A control (``on'``: a
second default build, compiled, specialized and tuned anew, timed beside the first;
``--no-control`` skips it) shows each kernel's noise floor: on ÷ on' is 1 but for noise and
the width tuner's choice. ``--cpu-time`` runs everything on one thread and judges it by CPU
time (xmux: the launching thread, which runs a one-thread launch itself; PoCL:
``POCL_MAX_PTHREAD_COUNT=1`` and its worker process's CPU time): on a machine shared with other
jobs, their preemptions then do not count (cache and memory contention still do). PoCL runs
in a worker process of the PoCL venv (this script with ``--pocl-worker``;
``bash ../shared/bench/setup.sh`` once).
Exit status 1 when a result fails verification or a build fails.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import workloads as wl  # noqa: E402  (sets PoCL's environment before pyopencl loads)

bl = wl.baseline()

import numpy as np  # noqa: E402

#: bench/run.py's reference kernels (barrier_probe, a probe, is left out)
OLD = ("vecadd", "saxpy", "matmul_naive", "conv3x3", "matmul_tiled", "reduce_local",
       "reduce_wg")
#: the shapes that lost (kernels/<name>.mlir + kernels/transforms.cl)
NEW = ("conv3x3_bounds", "gather", "spmv_csr", "spmv_ell", "branch_heavy", "mandelbrot")
#: optional transform -> short column label
TRANSFORMS = {
    "work-item-unroll-and-jam": "unroll-jam",
    "work-item-loop-interchange": "interchange",
    "hoist-uniform-loads": "hoist",
    "work-item-loop-vectorize-hints": "vec-hints",
    "vectorize-local-reduction-trees": "local-trees",
    "specialize": "specialize",
    "tune": "tune",
}
#: transforms that are a pass removed from pipelines.cpu()'s list
PASS_REMOVED = ("work-item-loop-interchange", "hoist-uniform-loads",
                "work-item-loop-vectorize-hints", "vectorize-local-reduction-trees")
#: on ÷ off above this is a loss (the issue's acceptance)
LOSS = 1.03
#: bounds-checked conv3x3 on an AVX2 host: xmux ÷ PoCL at most
TARGET_CONV_BOUNDS_VS_POCL = 0.7
CL_FILE = wl.KERNEL_DIR / "transforms.cl"


@dataclass(frozen=True)
class NewSizes:
    conv_w: int
    conv_h: int
    n_gather: int
    n_rows: int        # spmv rows (= columns, = len(x))
    ell_k: int         # ELLPACK entries per row
    n_branch: int
    mb_w: int
    mb_h: int
    maxit: int
    row_min: int = 8   # CSR row lengths, uniform in [row_min, row_max]
    row_max: int = 24
    lsz_2d: tuple[int, ...] = (64, 4)
    lsz_1d: tuple[int, ...] = (256,)


FULL = NewSizes(conv_w=2048, conv_h=2048, n_gather=1 << 22, n_rows=1 << 18, ell_k=16,
                n_branch=1 << 22, mb_w=1024, mb_h=1024, maxit=64)
QUICK = NewSizes(conv_w=256, conv_h=64, n_gather=1 << 14, n_rows=1 << 12, ell_k=8,
                 n_branch=1 << 14, mb_w=128, mb_h=64, maxit=32)
#: the Mandelbrot window: x in [MB_X0, MB_X0 + 3), y in [MB_Y0, MB_Y0 + 3)
MB_X0, MB_Y0, MB_SPAN = -2.0, -1.5, 3.0


def mb_params(s: NewSizes) -> tuple[np.float32, np.float32, np.float32, np.float32]:
    return (np.float32(MB_X0), np.float32(MB_SPAN / s.mb_w), np.float32(MB_Y0),
            np.float32(MB_SPAN / s.mb_h))


def new_data(s: NewSizes) -> dict[str, np.ndarray]:
    """Inputs of the new kernels, the same in every process (fixed seed), 64-byte aligned."""
    rng = np.random.default_rng(bl.SEED + 30)
    d: dict[str, np.ndarray] = {}
    d["img"] = rng.random((s.conv_h, s.conv_w), dtype=np.float32)
    d["w"] = bl.GAUSS3.copy()
    d["gidx"] = rng.integers(0, s.n_gather, s.n_gather, dtype=np.int32)
    d["gx"] = rng.random(s.n_gather, dtype=np.float32)
    lens = rng.integers(s.row_min, s.row_max + 1, s.n_rows)
    rowptr = np.zeros(s.n_rows + 1, np.int64)
    np.cumsum(lens, out=rowptr[1:])
    d["rowptr"] = rowptr.astype(np.int32)
    nnz = int(rowptr[-1])
    d["cols"] = rng.integers(0, s.n_rows, nnz, dtype=np.int32)
    d["vals"] = rng.random(nnz, dtype=np.float32)
    d["sx"] = rng.random(s.n_rows, dtype=np.float32)
    d["ecols"] = rng.integers(0, s.n_rows, s.ell_k * s.n_rows, dtype=np.int32)
    d["evals"] = rng.random(s.ell_k * s.n_rows, dtype=np.float32)
    d["bx"] = (rng.random(s.n_branch, dtype=np.float32) * 2 - 1).astype(np.float32)
    return {k: wl.aligned(v) for k, v in d.items()}


def branch_ref(v: np.ndarray) -> np.ndarray:
    """kernels/branch_heavy.mlir in f32, op by op (numpy's sqrt and division are correctly
    rounded, as LLVM's are)."""
    f = np.float32
    p = f(0.0625) * v + f(-0.125)
    for a in (0.1875, -0.25, 0.3125, -0.375, 0.4375, -0.5, 1.0):
        p = p * v + f(a)
    with np.errstate(invalid="ignore"):
        heavy = np.sqrt(v) * p / (f(1.0) + v * v)
    return np.where(v > 0, heavy, v * f(0.5) - f(1.0)).astype(np.float32)


def mandelbrot_ref(s: NewSizes) -> np.ndarray:
    """Escape counts in f32 with the kernel's operation order (no fused multiply-adds)."""
    x0, dx, y0, dy = mb_params(s)
    cx = (x0 + np.arange(s.mb_w, dtype=np.int32).astype(np.float32) * dx)[None, :]
    cy = (y0 + np.arange(s.mb_h, dtype=np.int32).astype(np.float32) * dy)[:, None]
    cx, cy = np.broadcast_to(cx, (s.mb_h, s.mb_w)), np.broadcast_to(cy, (s.mb_h, s.mb_w))
    zx = np.zeros((s.mb_h, s.mb_w), np.float32)
    zy = np.zeros_like(zx)
    k = np.zeros((s.mb_h, s.mb_w), np.int32)
    active = np.ones((s.mb_h, s.mb_w), bool)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(s.maxit):
            xx, yy = zx * zx, zy * zy
            active &= (xx + yy) <= np.float32(4.0)
            if not active.any():
                break
            xy = zx * zy
            zx = np.where(active, (xx - yy) + cx, zx)
            zy = np.where(active, (xy + xy) + cy, zy)
            k += active
    return k


def new_refs(d: dict[str, np.ndarray], s: NewSizes) -> dict[str, np.ndarray]:
    """References of the new kernels (float64 where the kernel sums, else the exact values)."""
    pad = np.pad(d["img"], 1)
    rows = np.repeat(np.arange(s.n_rows), np.diff(d["rowptr"]))
    csr = np.zeros(s.n_rows, np.float64)
    np.add.at(csr, rows, d["vals"].astype(np.float64) * d["sx"][d["cols"]])
    ell = (d["evals"].astype(np.float64) * d["sx"][d["ecols"]]).reshape(s.ell_k, s.n_rows)
    return {
        "conv3x3_bounds": bl.conv_ref64(pad, d["w"]),
        "gather": d["gx"][d["gidx"]].astype(np.float64),
        "spmv_csr": csr,
        "spmv_ell": ell.sum(axis=0),
        "branch_heavy": branch_ref(d["bx"]).astype(np.float64),
        "mandelbrot": mandelbrot_ref(s),
    }


#: new kernel -> (rtol, atol); mandelbrot: the fraction of pixels whose count may differ
TOL_NEW = {"conv3x3_bounds": bl.TOL["conv"], "gather": (0.0, 0.0), "spmv_csr": (1e-5, 1e-6),
           "spmv_ell": (1e-5, 1e-6), "branch_heavy": (2e-6, 1e-6)}
MB_MISMATCH_MAX = 1e-3


def new_launch(name: str, s: NewSizes) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if name == "conv3x3_bounds":
        return (s.conv_w, s.conv_h), s.lsz_2d
    if name == "gather":
        return (s.n_gather,), s.lsz_1d
    if name in ("spmv_csr", "spmv_ell"):
        return (s.n_rows,), s.lsz_1d
    if name == "branch_heavy":
        return (s.n_branch,), s.lsz_1d
    if name == "mandelbrot":
        return (s.mb_w, s.mb_h), s.lsz_2d
    raise KeyError(name)


def new_size_label(name: str, s: NewSizes) -> str:
    g, lsz = new_launch(name, s)
    what = {"conv3x3_bounds": f"{s.conv_h}×{s.conv_w} f32",
            "gather": f"2^{s.n_gather.bit_length() - 1}",
            "spmv_csr": f"2^{s.n_rows.bit_length() - 1} rows × {s.row_min}-{s.row_max}",
            "spmv_ell": f"2^{s.n_rows.bit_length() - 1} rows × {s.ell_k}",
            "branch_heavy": f"2^{s.n_branch.bit_length() - 1}",
            "mandelbrot": f"{s.mb_h}×{s.mb_w}, ≤ {s.maxit} it"}[name]
    return f"{what} ({'×'.join(map(str, g))} / {'×'.join(map(str, lsz))})"


def check_new(name: str, backend: str, got: np.ndarray, ref: dict[str, np.ndarray]) -> bool:
    if name == "mandelbrot":
        bad = int(np.count_nonzero(np.asarray(got) != ref[name]))
        frac = bad / ref[name].size
        ok = frac <= MB_MISMATCH_MAX
        bl.VERIFY.append({"kernel": name, "backend": backend, "ok": ok,
                          "detail": f"{bad} of {ref[name].size} counts differ"})
        bl.log(f"  verify {name:<22} {backend:<6} {'OK ' if ok else 'FAIL'} "
               f"{bad} of {ref[name].size} escape counts differ")
        return ok
    return bl.check(name, backend, got, ref[name], *TOL_NEW[name])


# ---------------------------------------------------------------------------------------
# PoCL worker (runs in the PoCL venv: no xmux here)
# ---------------------------------------------------------------------------------------


def pocl_worker(quick: bool) -> int:
    """Line protocol: ``verify NAME PATH`` (NaN/-1-filled output, one launch, saved to PATH),
    ``run NAME N`` (N timed launches: [{"wall", "event"}]), ``quit``."""
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
    prg = cl.Program(ctx, CL_FILE.read_text()).build()
    build_ms = (time.perf_counter() - t) * 1e3
    s = QUICK if quick else FULL
    d = new_data(s)
    mf = cl.mem_flags
    buf = {k: cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=v) for k, v in d.items()}
    outs = {  # output buffer key -> (shape, dtype)
        "conv_out": ((s.conv_h, s.conv_w), np.float32), "gout": ((s.n_gather,), np.float32),
        "sy": ((s.n_rows,), np.float32), "by": ((s.n_branch,), np.float32),
        "mb": ((s.mb_h, s.mb_w), np.int32)}
    for k, (shape, dt) in outs.items():
        buf[k] = cl.Buffer(ctx, mf.READ_WRITE, int(np.prod(shape)) * np.dtype(dt).itemsize)
    i32 = np.int32
    x0, dx, y0, dy = mb_params(s)
    table = {  # name -> (kernel, args, output key)
        "conv3x3_bounds": ("conv3x3_bounds", [i32(s.conv_w), i32(s.conv_h), buf["img"],
                                              buf["conv_out"], buf["w"]], "conv_out"),
        "gather": ("gather", [buf["gidx"], buf["gx"], buf["gout"]], "gout"),
        "spmv_csr": ("spmv_csr", [buf["rowptr"], buf["cols"], buf["vals"], buf["sx"],
                                  buf["sy"]], "sy"),
        "spmv_ell": ("spmv_ell", [i32(s.ell_k), i32(s.n_rows), buf["ecols"], buf["evals"],
                                  buf["sx"], buf["sy"]], "sy"),
        "branch_heavy": ("branch_heavy", [buf["bx"], buf["by"]], "by"),
        "mandelbrot": ("mandelbrot", [x0, dx, y0, dy, i32(s.maxit), i32(s.mb_w), buf["mb"]],
                       "mb"),
    }
    gos = {}
    for name, (kname, kargs, _) in table.items():
        k = cl.Kernel(prg, kname)
        k.set_args(*kargs)
        g, lsz = new_launch(name, s)
        gos[name] = (lambda k=k, g=g, lsz=lsz: cl.enqueue_nd_range_kernel(q, k, g, lsz))
    reply({"device": dev.name, "platform_version": plats[0].version, "build_ms": build_ms,
           "pid": os.getpid()})
    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        try:
            if cmd[0] == "verify":
                key = table[cmd[1]][2]
                shape, dt = outs[key]
                fill = np.int32(-1) if dt is np.int32 else np.float32(np.nan)
                cl.enqueue_fill_buffer(q, buf[key], fill, 0, buf[key].size)
                gos[cmd[1]]().wait()
                host = np.empty(shape, dt)
                cl.enqueue_copy(q, host, buf[key])
                np.save(cmd[2], host)
                reply({"ok": True})
            elif cmd[0] == "run":  # run NAME N [cpu]: with cpu, "event" = the process's CPU time
                samples, cpu = [], cmd[3:] == ["cpu"]
                for _ in range(int(cmd[2])):
                    c, t = time.process_time(), time.perf_counter()
                    e = gos[cmd[1]]()
                    e.wait()
                    wall, c = time.perf_counter() - t, time.process_time() - c
                    ev = (e.profile.end - e.profile.start) * 1e-9
                    samples.append({"wall": wall, "event": c, "profile_event": ev} if cpu
                                   else {"wall": wall, "event": ev})
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
# xmux side
# ---------------------------------------------------------------------------------------


class NewOutputs:
    """Output arrays and argument lists of the new kernels."""

    def __init__(self, d: dict[str, np.ndarray], s: NewSizes) -> None:
        self.d, self.s = d, s
        self.conv = wl.empty((s.conv_h, s.conv_w))
        self.gout = wl.empty(s.n_gather)
        self.sy = wl.empty(s.n_rows)
        self.by = wl.empty(s.n_branch)
        self.mb = wl.empty((s.mb_h, s.mb_w), np.int32)

    def reset(self) -> None:
        for a in (self.conv, self.gout, self.sy, self.by):
            a.fill(np.nan)
        self.mb.fill(-1)

    def result(self, name: str) -> np.ndarray:
        return {"conv3x3_bounds": self.conv, "gather": self.gout, "spmv_csr": self.sy,
                "spmv_ell": self.sy, "branch_heavy": self.by, "mandelbrot": self.mb}[name]

    def kernel_args(self, name: str) -> list[object]:
        d, s = self.d, self.s
        if name == "conv3x3_bounds":
            return [d["img"], self.conv, d["w"]]
        if name == "gather":
            return [d["gidx"], d["gx"], self.gout]
        if name == "spmv_csr":
            return [d["rowptr"], d["cols"], d["vals"], d["sx"], self.sy]
        if name == "spmv_ell":
            return [np.int32(s.ell_k), d["ecols"], d["evals"], d["sx"], self.sy]
        if name == "branch_heavy":
            return [d["bx"], self.by]
        if name == "mandelbrot":
            return [*mb_params(s), np.int32(s.maxit), self.mb]
        raise KeyError(name)


def host_cpu() -> tuple[str, bool]:
    """(model name, avx512f) from /proc/cpuinfo."""
    model, avx512 = "?", False
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "?":
                    model = line.split(":", 1)[1].strip()
                if line.startswith("flags"):
                    avx512 = "avx512f" in line.split()
                    break
    except OSError:
        pass
    return model, avx512


def git_state() -> dict:
    """The commit and whether transforms/ differs from it (read-only git calls)."""
    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", "--no-optional-locks", "-C", str(REPO), *a],
                                  capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    stat = git("diff", "--stat", "HEAD", "--", "transforms/")
    untracked = git("status", "--porcelain", "--untracked-files=all", "--", "transforms/")
    return {"commit": git("log", "-1", "--format=%h") or "?",
            "transforms_diff_stat": stat,
            "transforms_status": untracked,
            "transforms_clean": not stat and not untracked}


def transforms_hash() -> str:
    """sha256 (12 digits) of the imported xmux's transform sources: which pass code ran, also
    for a copy of the package outside the checkout (``PYTHONPATH``) or a tree being edited."""
    import hashlib

    import xmux.transforms

    h = hashlib.sha256()
    root = Path(xmux.transforms.__file__).parent
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def build_options(transform: str | None) -> dict:
    """xmux.compile keywords of the default build (None) or of one transform turned off."""
    from xmux import pipelines

    if transform == "work-item-unroll-and-jam":
        return {"pipeline": pipelines.cpu(unroll_jam=1)}
    passes = pipelines.cpu()
    if transform in PASS_REMOVED:
        del passes[pipelines.index_of(passes, transform)]
        return {"pipeline": passes}
    if transform == "specialize":
        return {"pipeline": passes, "specialize": False}
    if transform == "tune":
        return {"pipeline": passes, "tune": False}
    assert transform is None, transform
    return {"pipeline": passes}


def code_of(prog, name: str, local: tuple[int, ...]) -> str | None:
    """The LLVM IR a program runs for ``name``: its own and its local-size variant's (the
    launcher's ``Program._variant_ir``); None where the variant's IR cannot be had."""
    try:
        variant = prog._variant_ir(prog.kernel(name).info, tuple(local)).ir
    except Exception:  # noqa: BLE001 - a private hook: without it every build is timed
        return None
    return prog.llvm_ir + "\n;; variant\n" + variant


def min_ms(r: dict) -> float:
    return r.get("event_ms", r["wall_ms"])["min"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, few reps (smoke run)")
    ap.add_argument("--json", metavar="F", help="write the raw results to F")
    ap.add_argument("--only", metavar="K1,K2", help="just these kernels")
    ap.add_argument("--transforms", metavar="T1,T2",
                    help=f"just these transforms (of {', '.join(TRANSFORMS)})")
    ap.add_argument("--rounds", type=int, default=None,
                    help="at least N interleaved rounds per kernel (default 8, --quick 2; "
                         "rounded up to whole Williams sets)")
    ap.add_argument("--time-same", action="store_true",
                    help="also time builds whose LLVM IR equals the default's")
    ap.add_argument("--no-control", action="store_true",
                    help="skip the A/A control (a second default build timed beside the first)")
    ap.add_argument("--cpu-time", action="store_true",
                    help="one thread, judged by CPU time (xmux: the launching thread's, which "
                         "runs the kernel; PoCL: POCL_MAX_PTHREAD_COUNT=1 and its process's): "
                         "other processes' preemptions do not count")
    ap.add_argument("--no-pocl", action="store_true")
    ap.add_argument("--pocl-python", default=os.environ.get("BENCH_POCL_PYTHON",
                                                            "/tmp/benchvenv/bin/python"))
    ap.add_argument("--pocl-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.pocl_worker:
        return pocl_worker(args.quick)

    kernels = list(OLD + NEW)
    if args.only:
        kernels = [k for k in args.only.split(",") if k]
        unknown = [k for k in kernels if k not in OLD + NEW]
        if unknown:
            ap.error(f"unknown kernels {unknown} (of {', '.join(OLD + NEW)})")
    transforms = list(TRANSFORMS)
    if args.transforms:
        transforms = [t for t in args.transforms.split(",") if t]
        unknown = [t for t in transforms if t not in TRANSFORMS]
        if unknown:
            ap.error(f"unknown transforms {unknown} (of {', '.join(TRANSFORMS)})")

    os.environ["XMUX_CACHE"] = "0"
    import run as bench_run  # noqa: E402  (bench/run.py: the reference kernels' arguments)
    import timing  # noqa: E402

    import xmux
    from xmux.runtime import jit, tuning

    if args.quick:
        bl.WARMUP, bl.REPS_MIN, bl.BURST_S = 1, 3, 0.01
        timing.WARM_S = 0.001
    bl.ROUNDS_MIN = args.rounds if args.rounds is not None else (2 if args.quick else 8)
    bl.COOLDOWN_S["xmux"] = 0.02
    if args.quick:  # a smoke run: the rounds of a Williams set, without the pauses
        bl.COOLDOWN_S = {k: 0.001 for k in (*bl.COOLDOWN_S, "xmux")}
    so, sn = (wl.QUICK, QUICK) if args.quick else (wl.FULL, FULL)
    t_start = time.time()
    model, avx512 = host_cpu()
    wide = jit.host_has_wide_vectors()
    R: dict = {
        "date_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu_model": model, "avx512f": avx512, "xmux_cpu": os.environ.get("XMUX_CPU"),
        "wide_vectors": wide, "cpu_time": args.cpu_time,
        "threads": 1 if args.cpu_time else len(os.sched_getaffinity(0)),
        "loadavg_start": os.getloadavg(), "git": git_state(), "quick": args.quick,
        "xmux_path": str(Path(xmux.__file__).parent), "transforms_sha": transforms_hash(),
        "argv": sys.argv[1:],
        "rounds_min": bl.ROUNDS_MIN, "sizes_old": so.as_dict(), "sizes_new": asdict(sn),
        "kernels": {}, "errors": []}
    bl.log(f"[host] {model}; avx512f: {'yes' if avx512 else 'no'}; "
           f"XMUX_CPU={R['xmux_cpu'] or '(host)'}; 512-bit vectors in xmux's code: "
           f"{'yes' if wide else 'no'}; commit {R['git']['commit']}, transforms/ "
           f"{'clean' if R['git']['transforms_clean'] else 'MODIFIED'}; xmux from "
           f"{R['xmux_path']}")

    need_old = [k for k in kernels if k in OLD]
    need_new = [k for k in kernels if k in NEW]
    o_old = o_new = None
    ref: dict[str, np.ndarray] = {}
    if need_old:
        d_old = wl.make_data(so)
        ref.update(wl.references(d_old))
        o_old = bench_run.Outputs(d_old, so)
    if need_new:
        d_new = new_data(sn)
        ref.update(new_refs(d_new, sn))
        o_new = NewOutputs(d_new, sn)

    pocl = None
    if need_new and not args.no_pocl:
        if not os.path.exists(args.pocl_python):
            R["pocl_note"] = (f"PoCL skipped: {args.pocl_python} not found "
                              "(bash ../shared/bench/setup.sh)")
        else:
            try:
                pocl = Pocl(args.pocl_python, args.quick, 1 if args.cpu_time else None)
                R["pocl"] = pocl.hello
                bl.log(f"[pocl] {pocl.hello['device']}: transforms.cl built in "
                       f"{pocl.hello['build_ms']:.0f} ms")
            except (RuntimeError, OSError, json.JSONDecodeError) as e:
                R["pocl_note"] = f"PoCL not measured: {e}"
        if "pocl_note" in R:
            bl.log(R["pocl_note"])
    elif args.no_pocl:
        R["pocl_note"] = "PoCL skipped (--no-pocl)"
    tmp = Path(tempfile.mkdtemp(prefix="xmux_onoff_"))
    ok = True
    try:
        for name in kernels:
            is_new = name in NEW
            o = o_new if is_new else o_old
            assert o is not None
            g, lsz = new_launch(name, sn) if is_new else wl.launch_shape(name, so)
            a = o.kernel_args(name)
            text = (wl.KERNEL_DIR / f"{name}.mlir").read_text()
            size = new_size_label(name, sn) if is_new else wl.size_label(name, so)
            K: dict = {"size": size, "new": is_new, "off": {}}
            R["kernels"][name] = K
            bl.log(f"[{name}] {size}")

            def verify(label: str, got: np.ndarray, name=name, is_new=is_new) -> bool:
                if is_new:
                    return check_new(name, label, got, ref)
                return bench_run.check(name, label, got, ref)

            def make_backend(label: str, transform: str | None, name=name, o=o, a=a, g=g,
                             lsz=lsz, text=text):
                t0 = time.perf_counter()
                prog = xmux.compile(text, cache=False, **build_options(transform))
                k = prog.kernel(name)

                if args.cpu_time:  # one thread: the launch runs on this thread
                    def call(k=k) -> dict:
                        c = time.thread_time()
                        k(*a, global_size=g, local_size=lsz, threads=1)
                        return {"event": time.thread_time() - c}
                else:
                    def call(k=k) -> dict:
                        p = k(*a, global_size=g, local_size=lsz, profile=True)
                        return {"event": p.seconds}

                # 2nd launch compiles the local-size variant, the next ones tune its builds
                # (vector widths and the generic entry: tuning.variant_builds)
                for _ in range(2 + tuning.launches_to_settle(len(tuning.variant_builds()))):
                    call()
                o.reset()
                call()
                good = verify(label, o.result(name))
                build_s = time.perf_counter() - t0
                return prog, bl.Backend(label, "xmux", call=call), good, build_s

            try:
                prog_on, b_on, good, bs = make_backend("on", None)
            except Exception as e:  # noqa: BLE001 - report, go on with the next kernel
                msg = f"{name} on: {type(e).__name__}: {str(e).strip()[:300]}"
                R["errors"].append(msg)
                bl.log("  " + msg)
                ok = False
                continue
            ok &= good
            K["build_s"] = {"on": bs}
            code_on = code_of(prog_on, name, lsz)
            backends = [b_on]
            if not args.no_control:  # A/A: a second default build, specialized and tuned anew
                try:
                    _, b2, good, _ = make_backend("on'", None)
                    ok &= good
                    backends.append(b2)
                except Exception as e:  # noqa: BLE001
                    R["errors"].append(f"{name} on': {type(e).__name__}: {str(e)[:300]}")
                    ok = False
            for t in transforms:
                label = f"off:{t}"
                try:
                    prog, b, good, bs = make_backend(label, t)
                except KeyError as e:  # the pass is not in this pipeline
                    K["off"][t] = {"status": "n/a", "why": str(e)}
                    continue
                except Exception as e:  # noqa: BLE001
                    msg = f"{name} {label}: {type(e).__name__}: {str(e).strip()[:300]}"
                    R["errors"].append(msg)
                    bl.log("  " + msg)
                    K["off"][t] = {"status": "error", "why": msg}
                    ok = False
                    continue
                ok &= good
                K["build_s"][label] = bs
                same = (t not in ("specialize", "tune") and code_on is not None
                        and code_of(prog, name, lsz) == code_on)
                K["off"][t] = {"status": "same" if same else "timed", "verified": good}
                if not same or args.time_same:
                    backends.append(b)
            if pocl is not None and is_new:
                path = tmp / f"pocl_{name}.npy"
                try:
                    pocl.ask(f"verify {name} {path}")
                    ok &= verify("pocl", np.load(path))
                    cpu = " cpu" if args.cpu_time else ""
                    backends.append(bl.Backend("pocl", "pocl", burst=lambda c, name=name, cpu=cpu:
                                               pocl.ask(f"run {name} {c}{cpu}")))
                except RuntimeError as e:
                    R["errors"].append(f"{name} pocl: {e}")
                    ok = False
            pids = [os.getpid()] + ([pocl.proc.pid] if pocl is not None else [])
            before = bl.cpu_snapshot(pids)
            res = timing.interleaved(backends)
            K["cpu"] = bl.cpu_delta(before, bl.cpu_snapshot(pids))
            K["steady"] = res
            on = res["on"]
            K["on_min_ms"], K["on_median_ms"] = min_ms(on), on["event_ms"]["median"]
            for t, v in K["off"].items():
                r = res.get(f"off:{t}")
                if r is None:
                    continue
                v["min_ms"] = min_ms(r)
                v["ratio_min"] = K["on_min_ms"] / v["min_ms"]
                v["ratio_median"] = on["ratio_vs"][f"off:{t}"]
            if "on'" in res:
                K["control"] = {"min_ms": min_ms(res["on'"]),
                                "ratio_min": K["on_min_ms"] / min_ms(res["on'"]),
                                "ratio_median": on["ratio_vs"]["on'"]}
            if "pocl" in res:
                K["pocl_min_ms"] = min_ms(res["pocl"])
                K["vs_pocl_min"] = K["on_min_ms"] / K["pocl_min_ms"]
                K["vs_pocl_median"] = on["ratio_vs"]["pocl"]
            cells = ", ".join(
                f"{TRANSFORMS[t]} {v['ratio_min']:.3f}" if "ratio_min" in v
                else f"{TRANSFORMS[t]} {v['status']}" for t, v in K["off"].items())
            aa = (f", A/A on ÷ on' {K['control']['ratio_min']:.3f}" if "control" in K else "")
            bl.log(f"  on {K['on_min_ms']:.3f} ms (min){aa}; on ÷ off: {cells}"
                   + (f"; ÷ PoCL {K['vs_pocl_min']:.3f}" if "vs_pocl_min" in K else "")
                   + f"  (other CPU {K['cpu']['foreign_pct']:.0f}%)")
            del prog_on, backends, res
    finally:
        if pocl is not None:
            pocl.close()
    R["loadavg_end"] = os.getloadavg()
    R["elapsed_s"] = time.time() - t_start
    R["verify"] = bl.VERIFY
    print(report(R, transforms))
    if args.json:
        Path(args.json).write_text(json.dumps(R, indent=1, default=str))
    return 0 if ok else 1


def report(R: dict, transforms: list[str]) -> str:
    def f3(x: float | None) -> str:
        return "—" if x is None else f"{x:.3f}"

    def cell(v: dict | None, key: str) -> str:
        if v is None:
            return "—"
        if key in v:
            x = v[key]
            return f"**{x:.3f}**" if x > LOSS else f"{x:.3f}"
        return {"same": "=", "n/a": "n/a", "error": "error"}.get(v["status"], "—")

    g = R["git"]
    lines = [
        "## Optional transforms: kernel time with the transform on ÷ off",
        "",
        f"- host: {R['cpu_model']}, avx512f: {'yes' if R['avx512f'] else 'no'}; "
        f"xmux code built for {('XMUX_CPU=' + R['xmux_cpu']) if R['xmux_cpu'] else 'the host'}"
        f" (512-bit vectors: {'yes' if R['wide_vectors'] else 'no'}); "
        + ("1 thread, **CPU time** of the launch (xmux: the launching thread, which runs it; "
           "PoCL: `POCL_MAX_PTHREAD_COUNT=1`, its process)" if R.get("cpu_time") else
           f"{R['threads']} threads, kernel time (xmux `profile=True`, PoCL profiling events)"),
        f"- {R['date_utc']}; commit {g['commit']}; transforms/ "
        + ("clean" if g["transforms_clean"] else "MODIFIED against the commit: "
           + (g["transforms_diff_stat"].splitlines()[-1] if g["transforms_diff_stat"]
              else "untracked files") ),
        f"- xmux imported from `{R['xmux_path']}` (sha256 of its transforms/ sources "
        f"{R['transforms_sha']})"
        + ("" if R["xmux_path"].startswith(str(REPO)) else
           " (not this checkout: the commit and transforms/ state above are the checkout's)"),
        f"- load average {R['loadavg_start'][0]:.2f} at start, {R['loadavg_end'][0]:.2f} at "
        f"the end; {R['elapsed_s']:.0f} s; ≥ {R['rounds_min']} interleaved rounds per kernel"
        + (" (--quick)" if R["quick"] else ""),
        "",
        "on ÷ off = min kernel time of the default build ÷ min of the build without the "
        f"transform, over all interleaved rounds; **bold** > {LOSS}; `=` the build without it "
        "is the same LLVM IR (not timed); n/a nothing to turn off. A/A = on ÷ on′, a second "
        "default build (compiled, specialized and tuned anew) timed beside the first: the "
        "noise floor of a ratio. xmux ÷ PoCL = min ÷ min"
        + (" (CPU times)." if R.get("cpu_time") else " (PoCL profiling events)."),
        "",
        "| kernel | size (global / local) | on ms (min) | A/A | "
        + " | ".join(TRANSFORMS[t] for t in transforms) + " | PoCL ms (min) | xmux ÷ PoCL |",
        "|---|---|---:|---:|" + "---:|" * len(transforms) + "---:|---:|",
    ]
    for name, K in R["kernels"].items():
        if "on_min_ms" not in K:
            lines.append(f"| {name} | {K['size']} | error |" + " |" * (len(transforms) + 3))
            continue
        lines.append(
            f"| {name} | {K['size']} | {f3(K['on_min_ms'])} | "
            f"{f3(K.get('control', {}).get('ratio_min'))} | "
            + " | ".join(cell(K["off"].get(t), "ratio_min") for t in transforms)
            + f" | {f3(K.get('pocl_min_ms'))} | {f3(K.get('vs_pocl_min'))} |")
    lines += ["", "Median of the per-round ratios (the same runs):", "",
              "| kernel | A/A | " + " | ".join(TRANSFORMS[t] for t in transforms)
              + " | xmux ÷ PoCL |",
              "|---|---:|" + "---:|" * len(transforms) + "---:|"]
    for name, K in R["kernels"].items():
        if "on_min_ms" in K:
            lines.append(f"| {name} | {f3(K.get('control', {}).get('ratio_median'))} | "
                         + " | ".join(cell(K["off"].get(t), "ratio_median") for t in transforms)
                         + f" | {f3(K.get('vs_pocl_median'))} |")
    losses = [(name, t, v["ratio_min"]) for name, K in R["kernels"].items()
              for t, v in K.get("off", {}).items() if v.get("ratio_min", 0) > LOSS]

    def aa(n: str) -> str:
        c = R["kernels"][n].get("control")
        return "" if c is None else f" (A/A {c['ratio_min']:.3f})"

    lines += ["", f"- ratios above {LOSS}: "
              + ("none" if not losses else ", ".join(
                  f"{n} / {TRANSFORMS[t]} {x:.3f}{aa(n)}" for n, t, x in losses))]
    cb = R["kernels"].get("conv3x3_bounds", {}).get("vs_pocl_min")
    if cb is not None:
        avx2 = not R["wide_vectors"]
        lines.append(f"- conv3x3_bounds xmux ÷ PoCL: {cb:.3f} (goal ≤ "
                     f"{TARGET_CONV_BOUNDS_VS_POCL} on an AVX2 host"
                     + ("" if avx2 else "; this run has 512-bit vectors") + ")")
    if "pocl" in R:
        lines.append(f"- PoCL: {R['pocl'].get('platform_version')} on "
                     f"{R['pocl'].get('device')} (kernels/transforms.cl)")
    if "pocl_note" in R:
        lines.append(f"- {R['pocl_note']}")
    bad = [f"{v['kernel']} {v['backend']}" for v in R["verify"] if not v["ok"]]
    lines.append(f"- verified against numpy: {len(R['verify']) - len(bad)} of "
                 f"{len(R['verify'])} builds" + (f"; FAILED: {', '.join(bad)}" if bad else ""))
    if R["errors"]:
        lines.append(f"- errors: {'; '.join(R['errors'])}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
