"""xmux's NVPTX target against the same kernels in CUDA C++ compiled at run time by NVRTC.

Run on a machine with an NVIDIA GPU and CuPy (the lent H100/H200; see bench/README.md):

    python bench/gpu.py                 # prints a markdown table (bench/GPU_RESULTS.md)
    python bench/gpu.py --quick         # small sizes: a smoke run
    python bench/gpu.py --json out.json

Every kernel is the one xmux benchmarks on the CPU (``bench/kernels/``) compiled with
``xmux.compile(..., target="nvptx")`` and launched through ``xmux``'s API, beside a CUDA C++
kernel of the same work written here and compiled by NVRTC (``cupy.RawModule``), in one
process. Kernel time: CUDA events around ``REPS`` back-to-back launches (the queue stays
full, so the host's launch cost is hidden as it is for CUDA C++), median of ``ROUNDS``
rounds after a warm-up; outputs checked against numpy / the CUDA result. The bandwidth
limit is a device-to-device copy (``cupy`` array copy) measured in the same run.

Goals of issue 15: vecadd >= 80% of the copy bandwidth; work_group_reduce sum over 2^28
floats >= 70% of it; tiled matmul within 1.2x of the NVRTC kernel; the OpenACC sum within
1.2x of the NVRTC kernel.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

REPS = 10
ROUNDS = 7

CUDA = r"""
extern "C" __global__ void vecadd(const float* a, const float* b, float* c, long n) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// one sum per work-group of 256 (the semantics of bench/kernels/reduce_wg.mlir)
extern "C" __global__ void reduce_wg(const float* x, float* partial) {
  __shared__ float warp_sums[8];
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    float w = threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) w += __shfl_down_sync(0xffffffffu, w, o);
    if (threadIdx.x == 0) partial[blockIdx.x] = w;
  }
}

extern "C" __global__ void matmul_tiled(int n, const float* A, const float* B, float* C) {
  __shared__ float ta[16][16], tb[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += 16) {
    ta[ty][tx] = A[row * n + t + tx];
    tb[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += ta[ty][k] * tb[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

extern "C" __global__ void matmul_naive(int n, const float* A, const float* B, float* C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
  C[row * n + col] = acc;
}

// gang x worker x vector sum: grid-stride partial sums, a block reduction, one atomic per block
extern "C" __global__ void acc_sum(const float* x, float* sum, long n) {
  __shared__ float warp_sums[32];
  long stride = (long)gridDim.x * blockDim.x * blockDim.y;
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  float v = 0.0f;
  for (long i = (long)blockIdx.x * blockDim.x * blockDim.y + t; i < n; i += stride) v += x[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((t & 31) == 0) warp_sums[t >> 5] = v;
  __syncthreads();
  if (t < 32) {
    int warps = (blockDim.x * blockDim.y) >> 5;
    float w = t < warps ? warp_sums[t] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) w += __shfl_down_sync(0xffffffffu, w, o);
    if (t == 0) atomicAdd(sum, w);
  }
}
"""


def _timer(cp, rounds: int = ROUNDS, reps: int = REPS):
    """``timeit(fn)``: seconds per call of ``fn`` (a launch), CUDA events around ``reps``
    back-to-back calls, the median of ``rounds`` after a warm-up (bench/gpu_mma_gemm.py too)."""

    def timeit(fn) -> float:
        fn()
        cp.cuda.get_current_stream().synchronize()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for _ in range(rounds):
            start.record()
            for _ in range(reps):
                fn()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) * 1e-3 / reps)
        return float(np.median(times))

    return timeit


def run(quick: bool) -> dict:
    import xmux
    from xmux.runtime import cuda

    if not cuda.available():
        raise SystemExit("bench/gpu.py needs an NVIDIA GPU and CuPy (none here)")
    import cupy as cp

    timeit = _timer(cp)
    nvrtc = cp.RawModule(code=CUDA, options=("-std=c++17",))
    rows: list[dict] = []

    def row(kernel: str, impl: str, seconds: float, nbytes: float | None = None,
            flops: float | None = None, ok: bool = True) -> None:
        rows.append({
            "kernel": kernel, "impl": impl, "ms": seconds * 1e3,
            "GBps": nbytes / seconds / 1e9 if nbytes else None,
            "GFLOPs": flops / seconds / 1e9 if flops else None, "ok": bool(ok),
        })

    def kernel(name: str, file: str | None = None, text: str | None = None):
        source = text if text is not None else (HERE / "kernels" / (file or name + ".mlir"))
        return xmux.compile(source, target="nvptx")[name]

    # -- bandwidth limit and vecadd ------------------------------------------------------
    n = 1 << (22 if quick else 26)
    a = cp.random.random(n, dtype=cp.float32)
    b = cp.random.random(n, dtype=cp.float32)
    c = cp.empty_like(a)
    t = timeit(lambda: c.__setitem__(slice(None), a))
    copy_gbs = 2 * 4 * n / t / 1e9
    row(f"copy 2^{n.bit_length() - 1} f32", "cupy device-to-device copy (limit)", t, 2 * 4 * n)
    k = kernel("vecadd")
    c.fill(0)
    t = timeit(lambda: k(a, b, c, global_size=(n,), local_size=(256,)))
    row(f"vecadd 2^{n.bit_length() - 1}", "xmux nvptx", t, 3 * 4 * n, ok=cp.array_equal(c, a + b))
    f = nvrtc.get_function("vecadd")
    c.fill(0)
    t = timeit(lambda: f(((n + 255) // 256,), (256,), (a, b, c, np.int64(n))))
    row(f"vecadd 2^{n.bit_length() - 1}", "NVRTC CUDA C++", t, 3 * 4 * n,
        ok=cp.array_equal(c, a + b))

    # -- work_group_reduce ---------------------------------------------------------------
    n = 1 << (22 if quick else 28)
    x = cp.random.random(n, dtype=cp.float32)
    groups = n // 256
    partial = cp.empty(groups, cp.float32)
    want = x.reshape(groups, 256).astype(cp.float64).sum(axis=1)
    k = kernel("reduce_wg")
    t = timeit(lambda: k(x, partial, global_size=(n,), local_size=(256,)))
    ok = bool(cp.allclose(partial, want, rtol=1e-5))
    row(f"work_group_reduce sum 2^{n.bit_length() - 1}", "xmux nvptx", t, 4 * n, ok=ok)
    f = nvrtc.get_function("reduce_wg")
    t = timeit(lambda: f((groups,), (256,), (x, partial)))
    row(f"work_group_reduce sum 2^{n.bit_length() - 1}", "NVRTC CUDA C++", t, 4 * n,
        ok=bool(cp.allclose(partial, want, rtol=1e-5)))

    # -- matmul ---------------------------------------------------------------------------
    m = 512 if quick else 2048
    A = cp.random.random((m, m), dtype=cp.float32)
    B = cp.random.random((m, m), dtype=cp.float32)
    C = cp.empty((m, m), cp.float32)
    ref = A @ B
    for name in ("matmul_tiled", "matmul_naive"):
        k = kernel(name)
        t = timeit(lambda k=k: k(np.int32(m), A, B, C, global_size=(m, m), local_size=(16, 16)))
        ok = bool(cp.allclose(C, ref, rtol=1e-3, atol=1e-2))
        row(f"{name} {m}^3", "xmux nvptx", t, flops=2 * m**3, ok=ok)
        f = nvrtc.get_function(name)
        C.fill(0)
        t = timeit(lambda f=f: f((m // 16, m // 16), (16, 16), (np.int32(m), A, B, C)))
        row(f"{name} {m}^3", "NVRTC CUDA C++", t, flops=2 * m**3,
            ok=bool(cp.allclose(C, ref, rtol=1e-3, atol=1e-2)))

    # -- OpenACC sum ------------------------------------------------------------------------
    n = 1 << (22 if quick else 26)
    x = cp.random.random(n, dtype=cp.float32)
    exact = float(x.astype(cp.float64).sum())
    gangs, workers, vl = 132 * 8, 4, 32
    text = (HERE / "kernels" / "acc_sum.mlir.in").read_text().format(
        t="f32", gangs=gangs, workers=workers, vl=vl)
    prog = xmux.compile(text, target="nvptx")
    k = prog["acc_sum_acc_parallel_0"]
    total = cp.zeros((), cp.float32)

    def acc_run():
        total.fill(0)
        k(x, total, n, global_size=(gangs * vl, workers), local_size=(vl, workers))

    t = timeit(acc_run)
    acc_run()
    ok = abs(float(total) - exact) <= 1e-4 * exact
    row(f"OpenACC sum 2^{n.bit_length() - 1} ({gangs} gangs x {workers} x {vl})", "xmux nvptx",
        t, 4 * n, ok=ok)
    f = nvrtc.get_function("acc_sum")

    def cuda_run():
        total.fill(0)
        f((gangs,), (vl, workers), (x, total, np.int64(n)))

    t = timeit(cuda_run)
    cuda_run()
    row(f"OpenACC sum 2^{n.bit_length() - 1} ({gangs} gangs x {workers} x {vl})",
        "NVRTC CUDA C++", t, 4 * n, ok=abs(float(total) - exact) <= 1e-4 * exact)

    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    return {
        "device": cuda.device_name(), "sms": props["multiProcessorCount"],
        "cupy": cp.__version__, "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "copy_GBps": copy_gbs, "rows": rows,
    }


def report(r: dict) -> None:
    print(f"device: {r['device']}, {r['sms']} SMs, CuPy {r['cupy']}, CUDA runtime "
          f"{r['cuda_runtime']}; copy bandwidth {r['copy_GBps']:.0f} GB/s\n")
    print("| kernel | implementation | ms | GB/s | % of copy | GFLOP/s | xmux ÷ NVRTC | ok |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    by_kernel: dict[str, dict[str, dict]] = {}
    for x in r["rows"]:
        by_kernel.setdefault(x["kernel"], {})[x["impl"]] = x
    for x in r["rows"]:
        gbs = "" if x["GBps"] is None else f"{x['GBps']:.0f}"
        pct = "" if x["GBps"] is None else f"{100 * x['GBps'] / r['copy_GBps']:.0f}%"
        gfl = "" if x["GFLOPs"] is None else f"{x['GFLOPs']:.0f}"
        ratio = ""
        peer = by_kernel[x["kernel"]].get("NVRTC CUDA C++")
        if x["impl"] == "xmux nvptx" and peer is not None:
            ratio = f"{x['ms'] / peer['ms']:.2f}×"
        print(f"| {x['kernel']} | {x['impl']} | {x['ms']:.3f} | {gbs} | {pct} | {gfl} | "
              f"{ratio} | {x['ok']} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--json", help="write the rows to this file")
    args = ap.parse_args()
    result = run(args.quick)
    report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0 if all(x["ok"] for x in result["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
