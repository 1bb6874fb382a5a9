"""Per-launch wall time of the Python launch path (issue 19, item 4: no launch path may get slower).

Small kernels (2^10 work-items: they run on the calling thread, so the time is nearly all
Python: argument checks, packing, the replay of a repeated launch) launched in batches; each
case's per-launch time is a batch's wall time over its launches, and the cases take turns batch
by batch so a drift of this shared machine touches them alike. Printed: the median and the
minimum over the batches, in µs per launch.

```sh
.venv/bin/python bench/launch_overhead.py [--batches 41] [--launches 400] [--json out.json]
```

Cases: ``repeat`` (vecadd, the same arrays and sizes each launch: the replay), ``repeat_pool``
(the same on 2^15 work-items: the thread pool's path, kernel time included), ``new_arrays``
(vecadd over 16 array triples in turn: every launch checks and packs), ``new_scalar`` (saxpy
with a scalar that changes each launch), ``spec_{emulated,native}`` (a specialization constant
set with ``set_spec_constant``, repeated) and ``..._call`` (the same values passed as
``spec_constants=`` on each launch), ``variant_2d`` (conv3x3 on a 32x32 image with
``local_size=(8, 4)``, repeated: it runs its local-size variant); last ``repeat_pool_python``
(``repeat_pool`` with the pool's run replaced by a no-op: its Python side alone).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import xmux  # noqa: E402

N = 1 << 10
#: a launch big enough for the thread pool's path (``launch.INLINE_WORK_ITEMS``)
BIG = 1 << 15
KERNELS = Path(__file__).resolve().parent / "kernels"

SPEC = """
spec.specialization_id @w_default = [1.0 : f32, 2.0 : f32] : !llvm.array<2 x f32>
func.func @weigh(%x: memref<?xf32>, %out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %w = spec.get_composite "w", @w_default : !llvm.array<2 x f32>
  %w0 = llvm.extractvalue %w[0] : !llvm.array<2 x f32>
  %w1 = llvm.extractvalue %w[1] : !llvm.array<2 x f32>
  %v = memref.load %x[%i] : memref<?xf32>
  %m = arith.mulf %v, %w0 : f32
  %r = arith.addf %m, %w1 : f32
  memref.store %r, %out[%i] : memref<?xf32>
  func.return
}
"""

def cases() -> dict[str, Callable[[], None]]:
    """One no-argument launch per case (each call is one launch)."""
    rng = np.random.default_rng(0)
    vecadd = xmux.compile(KERNELS / "vecadd.mlir", cache=False)["vecadd"]
    a, b, c = (rng.random(N, np.float32) for _ in range(3))
    triples = [tuple(rng.random(N, np.float32) for _ in range(3)) for _ in range(16)]
    turn = [0]

    def new_arrays() -> None:
        turn[0] = (turn[0] + 1) % len(triples)
        vecadd(*triples[turn[0]], global_size=(N,), local_size=(64,))

    saxpy = xmux.compile(KERNELS / "saxpy.mlir", cache=False)["saxpy"]
    x, out = rng.random(N, np.float32), np.zeros(N, np.float32)
    step = [0]

    def new_scalar() -> None:
        step[0] += 1
        saxpy(float(step[0] & 7), x, out, global_size=(N,), local_size=(64,))

    big = [rng.random(BIG, np.float32) for _ in range(3)]
    made = {
        "repeat": lambda: vecadd(a, b, c, global_size=(N,), local_size=(64,)),
        "repeat_pool": lambda: vecadd(*big, global_size=(BIG,), local_size=(64,)),
        "new_arrays": new_arrays,
        "new_scalar": new_scalar,
    }
    w = (3.0, 1.0)
    for mode in ("emulated", "native"):
        prog = xmux.compile(SPEC, cache=False, spec_constants=mode)
        prog.set_spec_constant("w", w)
        k = prog["weigh"]
        made[f"spec_{mode}"] = lambda k=k: k(x, out, global_size=(N,), local_size=(64,))
        made[f"spec_{mode}_call"] = lambda k=k: k(
            x, out, global_size=(N,), local_size=(64,), spec_constants={"w": w}
        )
    conv = xmux.compile(KERNELS / "conv3x3.mlir", cache=False)["conv3x3"]
    img, img_out = rng.random((34, 34), np.float32), np.zeros((32, 32), np.float32)
    taps = rng.random(9, np.float32)
    made["variant_2d"] = lambda: conv(
        img, img_out, taps, global_size=(32, 32), local_size=(8, 4)
    )
    return made


def measure(batches: int, launches: int) -> dict[str, dict[str, float]]:
    made = cases()
    for launch in made.values():  # compile variants, settle tuners
        for _ in range(200):
            launch()
    per: dict[str, list[float]] = {name: [] for name in made}
    for _ in range(batches):
        for name, launch in made.items():
            start = time.perf_counter()
            for _ in range(launches):
                launch()
            per[name].append((time.perf_counter() - start) / launches * 1e6)
    return {
        name: {"median_us": statistics.median(t), "min_us": min(t)} for name, t in per.items()
    }


def pool_python_side(batches: int, launches: int) -> dict[str, float]:
    """``repeat_pool`` without the pool's run (``Pool.run`` a no-op, no pool-or-inline tuner):
    the Python side of a launch on the pool's path alone, which the run's noise on a busy
    machine hides. Last: it changes the process's pool for good."""
    from xmux.runtime import launch, pool

    launch.SMALL_LAUNCH_S = 0.0
    launch._ways.clear()  # tuners of earlier kernels (a new one may get an old address)
    rng = np.random.default_rng(0)
    vecadd = xmux.compile(KERNELS / "vecadd.mlir", cache=False)["vecadd"]
    big = [rng.random(BIG, np.float32) for _ in range(3)]
    for _ in range(200):
        vecadd(*big, global_size=(BIG,), local_size=(64,))
    pool.Pool.run = lambda self, *args: True  # type: ignore[method-assign]
    for _ in range(200):
        vecadd(*big, global_size=(BIG,), local_size=(64,))
    times = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(launches):
            vecadd(*big, global_size=(BIG,), local_size=(64,))
        times.append((time.perf_counter() - start) / launches * 1e6)
    return {"median_us": statistics.median(times), "min_us": min(times)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batches", type=int, default=41)
    ap.add_argument("--launches", type=int, default=400, help="launches per batch")
    ap.add_argument("--json", type=Path, help="write the numbers here too")
    opts = ap.parse_args()
    result = measure(opts.batches, opts.launches)
    result["repeat_pool_python"] = pool_python_side(opts.batches, opts.launches)
    print(f"{'case':<20} {'median us':>10} {'min us':>8}")
    for name, r in result.items():
        print(f"{name:<20} {r['median_us']:>10.2f} {r['min_us']:>8.2f}")
    if opts.json:
        opts.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
