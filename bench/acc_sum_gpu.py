"""OpenACC sum on the GPU (issue 15): the ``bench/acc_sum.py`` program compiled for the nvptx
target (``expand-oacc-reductions{expansion=ptx}``) vs the same reduction hand-written in CUDA C++
and compiled at run time by NVRTC (CuPy's RawKernel), kernel times by CUDA events, in one run.

    python bench/acc_sum_gpu.py                 # 2^27 f32 and 2^26 f64 elements
    python bench/acc_sum_gpu.py --log2 20       # a quick run

Both kernels get the same launch: G gangs (blocks) of ``vector_length(32) x num_workers(4)``
threads, a contiguous chunk of the array per gang, shuffles within warps, per-warp partials in
shared memory and one ``atomicAdd`` per block (``bench/gpu.py`` has the f32 sum against a
grid-stride CUDA kernel). Times: CUDA events around back-to-back launches (each with the
reset of the total), median of 7 rounds; also a device-to-device copy of the array
(bandwidth reference). Goal: xmux ÷ NVRTC ≤ 1.2.

On an H100 80GB HBM3 (2026-11-27, 1056 gangs, copy ~2990 GB/s): f32 2^27 0.209 ms vs NVRTC
0.216 ms (0.97×, 2573 GB/s), f64 2^26 0.193 vs 0.191 ms (1.01×, 2779 GB/s). Both are
memory-bound: the borrowed ``target=cpu`` expansion measured 0.212 / 0.205 ms in the same run
(the reduction epilogue runs once per gang).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = (HERE / "kernels" / "acc_sum.mlir.in").read_text()
KERNEL = "acc_sum_acc_parallel_0"
WORKERS, VL = 4, 32

CUDA = r"""
extern "C" __global__ void sum_T(const T* x, T* sum, long long n) {
  long long chunk = (n + gridDim.x - 1) / gridDim.x;
  long long lo = (long long)blockIdx.x * chunk;
  long long hi = lo + chunk < n ? lo + chunk : n;
  T s = 0;
  for (long long i = lo + threadIdx.x + threadIdx.y * blockDim.x; i < hi;
       i += blockDim.x * blockDim.y)
    s += x[i];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  __shared__ T part[32];
  int t = threadIdx.x + threadIdx.y * blockDim.x;
  if ((t & 31) == 0) part[t >> 5] = s;
  __syncthreads();
  if (t == 0) {
    T r = 0;
    for (int w = 0; w < (blockDim.x * blockDim.y) / 32; ++w) r += part[w];
    atomicAdd(sum, r);
  }
}
"""


def _timed(cp, fn, reps: int = 10, rounds: int = 7) -> float:
    """Seconds per call: CUDA events around ``reps`` back-to-back calls (the queue stays
    full: the host's launch cost is hidden, for both kernels alike), median of ``rounds``."""
    fn()
    out = []
    for _ in range(rounds):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        for _ in range(reps):
            fn()
        b.record()
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b) / 1e3 / reps)
    return statistics.median(out)


def measure(t: str, log2: int, gangs: int, reps: int) -> dict:
    import cupy as cp
    import numpy as np

    import xmux

    n = 1 << log2
    dtype = {"f32": np.float32, "f64": np.float64}[t]
    x = cp.asarray((np.arange(n) % 7).astype(dtype))
    exact = float(cp.sum(x, dtype=cp.float64))
    total = cp.zeros((), dtype)
    k = xmux.compile(SOURCE.format(t=t, gangs=gangs, workers=WORKERS, vl=VL),
                     target="nvptx")[KERNEL]
    ctype = {"f32": "float", "f64": "double"}[t]
    raw = cp.RawKernel(CUDA.replace("sum_T", f"sum_{t}").replace("T", ctype), f"sum_{t}")

    def run_xmux() -> None:
        total.fill(0)
        k(x, total, n, global_size=(gangs * VL, WORKERS), local_size=(VL, WORKERS))

    def run_raw() -> None:
        total.fill(0)
        raw((gangs,), (VL, WORKERS), (x, total, np.int64(n)))

    got = {}
    run_xmux()
    got["xmux"] = float(total)
    run_raw()
    got["nvrtc"] = float(total)
    # each gang's partial is exact (small integers); the atomic adds into the total round
    # at its magnitude: ~2^-24 relative per gang in f32
    rtol = 1e-4 if t == "f32" else 1e-12
    for name, v in got.items():
        if abs(v - exact) > rtol * exact:
            sys.exit(f"{name} sum {v} != {exact}")
    dst = cp.empty_like(x)
    tc = _timed(cp, lambda: dst.__setitem__(Ellipsis, x), reps)
    tx, tr = _timed(cp, run_xmux, reps), _timed(cp, run_raw, reps)
    nbytes = n * x.itemsize
    return {"type": t, "n": n, "gangs": gangs, "xmux_ms": tx * 1e3, "nvrtc_ms": tr * 1e3,
            "ratio": tx / tr, "xmux_GBs": nbytes / tx / 1e9, "nvrtc_GBs": nbytes / tr / 1e9,
            "copy_GBs": 2 * nbytes / tc / 1e9}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log2", type=int, default=None, help="log2 of the element count")
    ap.add_argument("--reps", type=int, default=10, help="launches per timed round")
    ap.add_argument("--gangs", type=int, default=None, help="default: 8 per SM")
    args = ap.parse_args()
    import cupy as cp

    dev = cp.cuda.runtime.getDeviceProperties(0)
    gangs = args.gangs or 8 * dev["multiProcessorCount"]
    print(f"device: {dev['name'].decode()}, gangs {gangs}, {WORKERS} workers x vector {VL}")
    print("| type | n | xmux ms | NVRTC ms | xmux / NVRTC | xmux GB/s | NVRTC GB/s | copy GB/s |")
    print("|---|---|---|---|---|---|---|---|")
    for t, log2 in (("f32", 27), ("f64", 26)):
        r = measure(t, args.log2 or log2, gangs, args.reps)
        print(f"| {t} | 2^{(r['n']).bit_length() - 1} | {r['xmux_ms']:.3f} | "
              f"{r['nvrtc_ms']:.3f} | {r['ratio']:.2f} | {r['xmux_GBs']:.0f} | "
              f"{r['nvrtc_GBs']:.0f} | {r['copy_GBs']:.0f} |")


if __name__ == "__main__":
    main()
