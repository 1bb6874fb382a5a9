"""What limits the naive SIMT matmul on a host: the same product in four forms, beside numpy.

    .venv/bin/python bench/matmul_layouts.py                      # 1 thread, 1024 and 2048
    .venv/bin/python bench/matmul_layouts.py --threads 16 --sizes 2048 --huge

Forms (16×16 work-groups, results checked against numpy):

- ``naive``: ``bench/kernels/matmul_naive.mlir`` as the default pipeline builds it;
- ``contract``: the same with ``fastmath<contract>`` on its ``mulf``/``addf`` (what OpenCL C's
  default ``FP_CONTRACT ON`` allows): LLVM may fuse them into FMAs, which Intel cores need to
  reach their FMA peak (mul and add share the FMA ports there);
- ``packedB``: B handed over pre-packed by numpy as ``Bp[col / 16][k][col % 16]`` (each group's
  panel contiguous): the upper bound of what packing B could give, the copy not counted;
- ``pack-pass``: ``naive`` with ``pack-group-panels`` after ``work-item-unroll-and-jam`` (the
  copy per work-group, counted).

Each form's local-size variant is launched until its tuner has chosen among its builds
(printed: for ``naive``, "packed" is its twin with ``pack-group-panels``), then timed.

``--huge`` also runs every form on arrays madvise'd for transparent huge pages (where the
kernel allows it), to tell TLB misses from the rest. One thread: the calling thread's CPU
time; more: wall time. Rounds alternate the forms; the best time of each is reported.
"""

from __future__ import annotations

import argparse
import ctypes
import mmap
import os
import sys
import time
from pathlib import Path

ARGS = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ARGS.add_argument("--threads", type=int, default=1)
ARGS.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
ARGS.add_argument("--rounds", type=int, default=3)
ARGS.add_argument("--huge", action="store_true", help="also on transparent huge pages")
OPTS = ARGS.parse_args()
os.environ["OPENBLAS_NUM_THREADS"] = str(OPTS.threads)  # before numpy loads OpenBLAS

import numpy as np  # noqa: E402

import xmux  # noqa: E402
from xmux import pipelines  # noqa: E402
from xmux.transforms.pack_group_panels import PackGroupPanels  # noqa: E402

HERE = Path(__file__).resolve().parent
NAIVE = (HERE / "kernels" / "matmul_naive.mlir").read_text()
MADV_HUGEPAGE = 14
_KEEP: list[mmap.mmap] = []


def _forms() -> dict[str, str]:
    fused = " fastmath<contract> : f32"
    contract = NAIVE.replace("arith.mulf %a, %b : f32", "arith.mulf %a, %b" + fused)
    contract = contract.replace("arith.addf %s, %p : f32", "arith.addf %s, %p" + fused)
    packed = NAIVE.replace("%B: memref<?x?xf32>", "%B: memref<?x?x?xf32>")
    packed = packed.replace("%b = memref.load %B[%k, %col] : memref<?x?xf32>",
                            "%b = memref.load %B[%cb, %k, %cl] : memref<?x?x?xf32>")
    packed = packed.replace("%zero = arith", "%cb = mux.get_group_id 0 : index\n"
                            "  %cl = mux.get_local_id 0 : index\n  %zero = arith")
    assert contract != NAIVE and "%cb" in packed
    return {"naive": NAIVE, "contract": contract, "packedB": packed}


def _pack_pipeline() -> list:
    out = []
    for p in pipelines.cpu():
        out.append(p)
        if p.name == "work-item-unroll-and-jam":
            out.append(PackGroupPanels())
    return out


def _array(shape: tuple[int, ...], huge: bool) -> np.ndarray:
    """A zeroed float32 array, 2 MiB aligned, madvise'd for huge pages before first touch."""
    nbytes = int(np.prod(shape)) * 4
    size = nbytes + 2 * (1 << 21)
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    _KEEP.append(m)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    off = (-base) % (1 << 21)
    if huge:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.madvise(base + off, size - off - (1 << 21), MADV_HUGEPAGE)
    a = np.frombuffer(m, np.float32, count=int(np.prod(shape)), offset=off).reshape(shape)
    a[...] = 0
    return a


def _settle(k: object, n: int, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> str:
    """Launch until the variant's tuner has chosen among its builds (512/256-bit, the
    generic entry, the packed twin): the rounds then time what xmux keeps running."""
    for _ in range(60):
        k(np.int32(n), a, b, c, global_size=(n, n), local_size=(16, 16),  # type: ignore[operator]
          threads=OPTS.threads)
        tuner = k._launcher.variants.built.get((16, 16, 1))  # type: ignore[attr-defined]
        if tuner is not None and not hasattr(tuner, "chosen_entry"):
            return "variant (not tuned)"
        if tuner is not None and tuner.chosen_entry is not None:
            return tuner.names[tuner._chosen]  # noqa: SLF001
    return "not settled"


def main() -> None:
    kernels = {name: xmux.compile(src, wait=True).kernel("matmul_naive")
               for name, src in _forms().items()}
    kernels["pack-pass"] = xmux.compile(NAIVE, pipeline=_pack_pipeline(),
                                        wait=True).kernel("matmul_naive")
    clock = time.thread_time if OPTS.threads == 1 else time.perf_counter
    rng = np.random.default_rng(1)
    print(f"{OPTS.threads} thread(s); GFLOP/s, best of {OPTS.rounds} rounds")
    for n in OPTS.sizes:
        for huge in (False, True) if OPTS.huge else (False,):
            a, b, c = (_array((n, n), huge) for _ in range(3))
            bp = _array((n // 16, n, 16), huge)
            a[...] = rng.random((n, n), dtype=np.float32)
            b[...] = rng.random((n, n), dtype=np.float32)
            bp[...] = b.reshape(n, n // 16, 16).transpose(1, 0, 2)
            ref = a.astype(np.float64) @ b
            chosen = {name: _settle(k, n, a, bp if name == "packedB" else b, c)
                      for name, k in kernels.items()}
            print(f"n={n}{' THP' if huge else ''}: the tuners chose "
                  + ", ".join(f"{k} {v}" for k, v in chosen.items()), flush=True)
            best: dict[str, float] = {}
            for r in range(OPTS.rounds):
                order = list(kernels.items())
                for name, k in order if r % 2 == 0 else order[::-1]:
                    c[...] = 0
                    bb = bp if name == "packedB" else b
                    k(np.int32(n), a, bb, c, global_size=(n, n), local_size=(16, 16),
                      threads=OPTS.threads)  # builds and tunes its variant on first use
                    for _ in range(3):
                        t = clock()
                        k(np.int32(n), a, bb, c, global_size=(n, n), local_size=(16, 16),
                          threads=OPTS.threads)
                        best[name] = min(best.get(name, 1e9), clock() - t)
                    err = float(np.abs(c - ref).max() / np.abs(ref).max())
                    if err > 1e-5:
                        sys.exit(f"{name} n={n}: differs from numpy (relative error {err:.1e})")
                t = clock()
                np.matmul(a, b, out=c)
                best["numpy"] = min(best.get("numpy", 1e9), clock() - t)
            flops = 2.0 * n**3
            row = ", ".join(f"{k} {flops / v / 1e9:.1f}" for k, v in best.items())
            print(f"n={n}{' THP' if huge else ''}: {row}", flush=True)


if __name__ == "__main__":
    main()
