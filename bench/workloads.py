"""Sizes, input data and float64 references shared by bench/run.py and bench/pocl_worker.py.

Needs only numpy, so it also runs in the separate PoCL venv (/tmp/benchvenv). The common
measuring helpers (interleaved timing, verification, the ref.c build) come from the shared
baseline driver ``../shared/bench/pocl_baseline.py``, loaded once by :func:`baseline`.
Importing that module sets POCL_KERNEL_CACHE=0, POCL_CACHE_DIR, PYOPENCL_NO_CACHE and
OMP_NUM_THREADS in ``os.environ``, as the baseline run did; load it before pyopencl.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
#: the shared baseline folder (kernels.cl, ref.c, pocl_baseline.py); BENCH_SHARED overrides
SHARED_DIR = Path(os.environ.get("BENCH_SHARED", BENCH_DIR.parents[1] / "shared" / "bench"))
KERNEL_DIR = BENCH_DIR / "kernels"


@dataclass(frozen=True)
class Sizes:
    n_vec: int
    n_mm: int
    conv_w: int
    conv_h: int
    n_red: int = 1 << 24
    n_probe: int = 1 << 20
    lsz_stream: tuple[int, ...] = (1024,)
    lsz_mm: tuple[int, ...] = (16, 16)
    lsz_conv: tuple[int, ...] = (64, 4)
    lsz_red: tuple[int, ...] = (256,)

    def as_dict(self) -> dict:
        return asdict(self)


#: BASELINE.md sizes
FULL = Sizes(n_vec=1 << 22, n_mm=512, conv_w=2048, conv_h=2048)
#: smoke-test sizes (every global size still divides by its local size, as OpenCL 1.2 needs)
QUICK = Sizes(n_vec=1 << 16, n_mm=64, conv_w=256, conv_h=64, n_red=1 << 16, n_probe=1 << 14)

KERNELS = ("vecadd", "saxpy", "matmul_naive", "conv3x3")
#: issue 3: local memory, barriers, work-group collectives (reduce_wg has no PoCL version:
#: PoCL 3.1 cannot build work_group_reduce_add)
KERNELS_WG = ("matmul_tiled", "reduce_local", "reduce_wg")
#: barrier-cost probe: bench/kernels/barrier_probe.mlir run with this many barriers in its loop;
#: result names are barrier_probe_<iters>
PROBE = "barrier_probe"
PROBE_ITERS = (0, 16, 64)
PROBES = tuple(f"{PROBE}_{i}" for i in PROBE_ITERS)
#: launch-overhead probe: vecadd on the first N_SMALL elements, 16 work-groups of 1024
SMALL = "vecadd_small"
N_SMALL = 16 * 1024

_baseline: ModuleType | None = None


def baseline() -> ModuleType:
    """The shared pocl_baseline.py as a module (loaded once)."""
    global _baseline
    if _baseline is None:
        path = SHARED_DIR / "pocl_baseline.py"
        if not path.is_file():
            raise SystemExit(f"bench: {path} not found (set BENCH_SHARED to the shared bench dir)")
        spec = importlib.util.spec_from_file_location("pocl_baseline", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _baseline = mod
    return _baseline


def aligned(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` whose data start on a 64-byte cache line, as an OpenCL runtime aligns
    its buffers (numpy's large arrays start 16 bytes into a line, which costs every vectorizing
    backend: naive matmul 7.2 vs 5.1 ms, vecadd/saxpy 2-7%). The same as ``xmux.aligned``,
    kept here because the PoCL worker's venv has no xmux."""
    raw = np.empty(a.nbytes + 64, np.uint8)
    start = -raw.ctypes.data % 64
    out = raw[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def empty(shape: tuple[int, ...] | int, dtype=np.float32) -> np.ndarray:
    return aligned(np.empty(shape, dtype))


def make_data(s: Sizes) -> dict[str, np.ndarray]:
    """Inputs, the same in every process for the same sizes (fixed seed), 64-byte aligned."""
    bl = baseline()
    rng = np.random.default_rng(bl.SEED)
    d: dict[str, np.ndarray] = {}
    d["a"] = rng.random(s.n_vec, dtype=np.float32)
    d["b"] = rng.random(s.n_vec, dtype=np.float32)
    d["x"] = rng.random(s.n_vec, dtype=np.float32)
    d["y0"] = rng.random(s.n_vec, dtype=np.float32)
    d["A"] = rng.random((s.n_mm, s.n_mm), dtype=np.float32)
    d["B"] = rng.random((s.n_mm, s.n_mm), dtype=np.float32)
    img = rng.random((s.conv_h, s.conv_w), dtype=np.float32)
    d["img_pad"] = np.pad(img, 1)  # (H+2) x (W+2), zero border
    d["w"] = bl.GAUSS3.copy()
    d["alpha"] = np.float32(bl.SAXPY_ALPHA)
    d["r"] = rng.random(s.n_red, dtype=np.float32)
    d["probe"] = rng.random(s.n_probe, dtype=np.float32)
    return {k: aligned(v) if isinstance(v, np.ndarray) and v.ndim else v for k, v in d.items()}


def probe_iters(name: str) -> int:
    """barrier_probe_<iters> -> iters"""
    return int(name.rsplit("_", 1)[1])


def references(d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """float64 results every backend is checked against (keyed by kernel name)."""
    bl = baseline()
    mm = d["A"].astype(np.float64) @ d["B"].astype(np.float64)
    red = d["r"].astype(np.float64).reshape(-1, bl.RED_WG).sum(axis=1)
    probes = {}
    for name in PROBES:  # iters times x = x * 0.5 + 1, in place
        x = d["probe"].astype(np.float64)
        for _ in range(probe_iters(name)):
            x = x * 0.5 + 1.0
        probes[name] = x
    return {
        "vecadd": d["a"].astype(np.float64) + d["b"],
        "saxpy": float(d["alpha"]) * d["x"].astype(np.float64) + d["y0"],
        "matmul_naive": mm,
        "matmul_tiled": mm,
        "reduce_local": red,
        "reduce_wg": red,
        **probes,
        "conv3x3": bl.conv_ref64(d["img_pad"], d["w"]),
        SMALL: d["a"][:N_SMALL].astype(np.float64) + d["b"][:N_SMALL],
    }


#: kernel name -> tolerance key of pocl_baseline.TOL
TOL_KEY = {"vecadd": "vecadd", "saxpy": "saxpy", "matmul_naive": "matmul", "conv3x3": "conv",
           SMALL: "vecadd", "matmul_tiled": "matmul", "reduce_local": "reduce",
           "reduce_wg": "reduce", **{p: "saxpy" for p in PROBES}}


def launch_shape(name: str, s: Sizes) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(global size, local size) of a kernel; dimension 0 is the contiguous one."""
    if name in ("vecadd", "saxpy"):
        return (s.n_vec,), s.lsz_stream
    if name == SMALL:
        return (N_SMALL,), (1024,)
    if name in ("matmul_naive", "matmul_tiled"):
        return (s.n_mm, s.n_mm), s.lsz_mm
    if name in ("reduce_local", "reduce_wg"):
        return (s.n_red,), s.lsz_red
    if name.startswith(PROBE):
        return (s.n_probe,), s.lsz_red
    if name == "conv3x3":
        return (s.conv_w, s.conv_h), s.lsz_conv
    raise KeyError(name)


def size_label(name: str, s: Sizes) -> str:
    g, lsz = launch_shape(name, s)
    if name in ("vecadd", "saxpy", SMALL, "reduce_local", "reduce_wg") or name.startswith(PROBE):
        n = g[0]
        what = f"2^{n.bit_length() - 1} f32" if n & (n - 1) == 0 else f"{n} f32"
    else:
        what = f"{g[1]}×{g[0]}"
    return f"{what} ({'×'.join(map(str, g))} / {'×'.join(map(str, lsz))})"


class PoclProcess:
    """A PoCL worker process speaking one JSON line per reply: ``script`` run with ``--pocl-worker``
    by the PoCL venv's ``python``; ``threads=1`` sets POCL_MAX_PTHREAD_COUNT=1. Shared by the
    bench scripts that serve their own PoCL side (histogram.py, transforms_onoff.py)."""

    def __init__(self, script: Path, python: str, quick: bool, threads: int | None = None
                 ) -> None:
        import subprocess

        cmd = [python, str(script), "--pocl-worker"] + (["--quick"] * quick)
        env = dict(os.environ)
        if threads is not None:
            env["POCL_MAX_PTHREAD_COUNT"] = str(threads)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)
        self.hello = self.ask(None)

    def ask(self, cmd: str | None):  # noqa: ANN201 - the worker's JSON reply
        import json

        if cmd is not None:
            assert self.proc.stdin is not None
            self.proc.stdin.write(cmd + "\n")
            self.proc.stdin.flush()
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"PoCL worker exited ({self.proc.poll()})")
        r = json.loads(line)
        if isinstance(r, dict) and "error" in r:
            raise RuntimeError(r["error"])
        return r

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=30)
