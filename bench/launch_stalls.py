"""Launch stalls (issue 33, item 1): the first 50 launches of a new program, with the builds a
launch used to wait for (a local-size variant and its tuned widths, a native value set's
specialization) made synchronously ("before": ``XMUX_SYNC_BUILDS=1``, what
``xmux.compile(wait=True)`` does) and in the background (tiered, the default).

```sh
.venv/bin/python bench/launch_stalls.py [--quick] [--json bench/launch_stalls.json] [--md]
```

Each (kernel, mode) runs in a fresh process with the caches off (every build happens: a user's
first run), back to back:

* ``vecadd`` 2^22 (``--quick`` 2^18), no local size given (a new user's launch: the default
  local size gets a variant from the second launch on);
* ``matmul`` the naive kernel of ``bench/kernels/matmul_naive.mlir``, 512² (``--quick`` 128²),
  local size (16, 16);
* ``spec_conv`` bench/spec_conv.py's conv3x3 with the coefficients as a native specialization
  constant, 1024² (``--quick`` 256²), local size (64, 4): a new value set every 10 launches
  (launches 10, 20, 30, 40), as a program stepping through filters would.

Modes: ``sync`` (``XMUX_SYNC_BUILDS=1``), ``tiered`` (the default) and ``generic``
(``specialize=False``, the spec conv with emulated constants: no variant or specialization is
ever built, so its times are those of the code a tiered launch runs until its variant or
specialization is swapped in).

Per run: every launch's wall time; after the 50, the launches go on until the background
builds are done and the replay settled, then 30 more give the steady time (their median),
50 more the control, and 50 more, each followed by its check as launches 2-50 are, the paced
steady time (median) and paced max: launches 2-50 run in that rhythm (a launch after a pause
finds the pool's workers asleep — their spin is 1 ms — and pays their wake-up), so "max −
paced" is what a build under way added to a launch.
Reported per kernel and mode: the largest of launches 2..50 (the first runs the program's own
build), the steady time, their ratio and difference (the issue's goal: ≤ steady + 1 ms while a
build is under way), the largest of 50 launches once everything is built ("control": what the
host's own scheduling adds, nothing being built), the launch at which the variant was swapped
in, and the launches the emulated form ran. Results are checked against numpy in every run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spec_conv_kernel import BOX, kernel_text  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LAUNCHES = 50
STEADY = 30







def conv_ref(img: np.ndarray, w: np.ndarray) -> np.ndarray:
    h, wd = img.shape[0] - 2, img.shape[1] - 2
    out = np.zeros((h, wd), np.float64)
    for k in range(9):
        j, i = divmod(k, 3)
        out += np.float64(w[k]) * img[j:j + h, i:i + wd]
    return out


def one(kernel: str, quick: bool) -> dict:
    """One run in this process (a fresh one: ``main`` starts it)."""
    import xmux
    from xmux.runtime import tiered

    rng = np.random.default_rng(0)
    values: list[object] = [None] * LAUNCHES
    # "generic": no local-size variant, emulated specialization constants: what the launches
    # run before their variant or specialization is there
    generic = os.environ.get("LAUNCH_STALLS_GENERIC") == "1"
    opts: dict = {"cache": False, "specialize": False} if generic else {"cache": False}
    if kernel == "vecadd":
        n = 1 << (18 if quick else 22)
        prog = xmux.compile((HERE / "kernels" / "vecadd.mlir").read_text(), **opts)
        k = prog["vecadd"]
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        c = np.empty_like(a)

        def launch(_v: object) -> None:
            k(a, b, c, global_size=(n,))

        def check() -> None:
            np.testing.assert_array_equal(c, a + b)
    elif kernel == "matmul":
        n = 128 if quick else 512
        prog = xmux.compile((HERE / "kernels" / "matmul_naive.mlir").read_text(), **opts)
        k = prog["matmul_naive"]
        A, B = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
        C = np.empty_like(A)
        ref = A.astype(np.float64) @ B.astype(np.float64)

        def launch(_v: object) -> None:
            k(np.int32(n), A, B, C, global_size=(n, n), local_size=(16, 16))

        def check() -> None:
            np.testing.assert_allclose(C, ref, rtol=1e-4, atol=1e-3)
    else:
        h = w = 256 if quick else 1024
        if generic:
            opts["spec_constants"] = "emulated"
        prog = xmux.compile(kernel_text(), **opts)
        k = prog["conv"]
        img = rng.random((h + 2, w + 2), dtype=np.float32)
        out = np.empty((h, w), np.float32)
        sets = [rng.random(9, dtype=np.float32) for _ in range(4)]
        current = {"w": np.float32(BOX)}
        for i in range(LAUNCHES):
            if i >= 10:
                values[i] = {"coeff": sets[i // 10 - 1]}

        def launch(v: object) -> None:
            current["w"] = v["coeff"] if v else np.float32(BOX)  # type: ignore[index]
            k(img, out, global_size=(w, h), local_size=(64, 4), spec_constants=v)

        def check() -> None:
            np.testing.assert_allclose(out, conv_ref(img, current["w"]), rtol=1e-4, atol=1e-4)
    launcher = k._launcher
    times, starts, swapped, emulated_at = [], [], None, []
    for i in range(LAUNCHES):
        before = launcher.emulated_launches
        t = time.perf_counter()
        starts.append(t)
        launch(values[i])
        times.append(time.perf_counter() - t)
        check()
        if launcher.emulated_launches > before:
            emulated_at.append(i + 1)
        if swapped is None and launcher.variants.built and any(
                v is not None for v in launcher.variants.built.values()):
            swapped = i + 1
    # settle: the background builds done, the tuners chosen, the launch replayed
    last = values[-1]
    extra = 0
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        tiered.drain(timeout=1)
        launch(last)
        extra += 1
        if (not tiered_busy(launcher) and launcher.replay is not None and extra > 40):
            break
    check()
    steady = []
    for _ in range(STEADY):
        t = time.perf_counter()
        launch(last)
        steady.append(time.perf_counter() - t)
    check()
    control = []  # the host's own noise: 50 launches with nothing being built
    for _ in range(LAUNCHES):
        t = time.perf_counter()
        launch(last)
        control.append(time.perf_counter() - t)
    paced = []  # in the rhythm of launches 2-50 (each followed by its check): the pool's
    for _ in range(LAUNCHES):  # workers have stopped spinning, the arrays were just read
        t = time.perf_counter()
        launch(last)
        paced.append(time.perf_counter() - t)
        check()
    med = statistics.median(steady)
    paced_med = statistics.median(paced)
    worst = max(times[1:])
    return {
        "kernel": kernel,
        "first_ms": times[0] * 1e3,
        "max_ms": worst * 1e3,
        "max_at": times.index(worst) + 1,
        "steady_ms": med * 1e3,
        "ratio": worst / med,
        "excess_ms": (worst - med) * 1e3,
        "control_max_ms": max(control) * 1e3,
        "paced_ms": paced_med * 1e3,
        "paced_max_ms": max(paced) * 1e3,
        "paced_excess_ms": (worst - paced_med) * 1e3,
        "swapped_at": swapped,
        "emulated_launches": emulated_at,
        "background_builds": tiered.stats["built"],
        "failures": [f"{label}: {e}" for label, e in tiered.failures],
        "times_ms": [round(t * 1e3, 3) for t in times],
        # when each launch began, and each background build was queued, started and
        # finished, in ms from the first launch's start
        "starts_ms": [round((t - starts[0]) * 1e3, 3) for t in starts],
        "jobs": [[job.label, *(None if at is None else round((at - starts[0]) * 1e3, 3)
                               for at in (job.queued_at, job.started_at, job.finished_at))]
                 for job in getattr(tiered, "log", ())],
    }


def tiered_busy(launcher: object) -> bool:
    jobs = [*launcher.variants.pending.values(), *launcher.spec_jobs.values()]  # type: ignore[attr-defined]
    return not all(job.done for job in jobs)


def run_child(kernel: str, mode: str, quick: bool) -> dict:
    env = {**os.environ, "XMUX_SYNC_BUILDS": "1" if mode == "sync" else "0",
           "LAUNCH_STALLS_GENERIC": "1" if mode == "generic" else "0"}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", kernel]
    if quick:
        cmd.append("--quick")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False,
                         cwd=ROOT, timeout=900)
    if out.returncode:
        raise SystemExit(f"{kernel} ({mode}) failed:\n{out.stderr[-4000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["mode"] = mode
    return result


def markdown(rows: list[dict]) -> str:
    lines = [
        "| kernel | mode | first launch ms | max of launches 2-50 ms (launch) | steady ms | "
        "max ÷ steady | max − steady ms | paced steady ms | paced max ms | max − paced ms | "
        "control max ms | variant swapped in at | emulated launches |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['kernel']} | {r['mode']} | {r['first_ms']:.1f} | {r['max_ms']:.2f} "
            f"({r['max_at']}) | {r['steady_ms']:.3f} | {r['ratio']:.1f} | "
            f"{r['excess_ms']:.2f} | {r['paced_ms']:.3f} | {r['paced_max_ms']:.2f} | "
            f"{r['paced_excess_ms']:.2f} | {r['control_max_ms']:.2f} | "
            f"{r['swapped_at'] or '-'} | {', '.join(map(str, r['emulated_launches'])) or '-'} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--kernels", default="vecadd,matmul,spec_conv")
    args = ap.parse_args()
    if args.one:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(one(args.one, args.quick)))
        return 0
    rows = []
    for kernel in args.kernels.split(","):
        for mode in ("sync", "tiered", "generic"):
            rows.append(run_child(kernel, mode, args.quick))
            r = rows[-1]
            print(f"{kernel:9s} {mode:6s} max {r['max_ms']:8.2f} ms (launch {r['max_at']}) "
                  f"steady {r['steady_ms']:.3f} ms ratio {r['ratio']:.1f}", file=sys.stderr)
    print(markdown(rows))
    if args.json:
        meta = {"host_cpus": os.cpu_count(), "load_avg": os.getloadavg(),
                "quick": args.quick, "date": time.strftime("%Y-%m-%d %H:%M:%S")}
        args.json.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
