"""Fresh-process text → first result, cold (``XMUX_CACHE=0``) and warm (a populated
``XMUX_CACHE_DIR``), median of ``--reps`` (default 3), for the 7 bench kernels: the cold/warm
columns of ``bench/run.py`` alone, quick enough for an A/B of two checkouts on the same host.

    .venv/bin/python bench/cold_warm.py [--reps 7] [--only vecadd,saxpy] [--warm-only]
    .venv/bin/python bench/cold_warm.py --ab /tmp/pkg_a /tmp/pkg_b --reps 9

``--ab A B``: two frozen copies of the package (a folder holding ``xmux/``, as bench/README.md
"a frozen copy of the package" builds; compile them with ``python -m compileall`` first: a
copy without .pyc files pays for compiling its sources in every process), each process run
with ``PYTHONPATH`` at one of them, A and B alternating so that load changes hit both; each
gets its own cache directory. The load average is printed before and after.
"""

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402

NAMES = ["vecadd", "saxpy", "matmul_naive", "conv3x3", "matmul_tiled", "reduce_local",
         "reduce_wg"]


def text_to_result(r: dict) -> float:
    return r["compile_ms"] + r["first_launch_ms"]


def _env(extra: dict[str, str], pythonpath: str | None) -> dict[str, str]:
    if pythonpath is None:
        return extra
    return {**extra, "PYTHONPATH": pythonpath}


def _times(name: str, variants: dict[str, str | None], reps: int, tmp: Path,
           modes: list[str]) -> dict[tuple[str, str], list[float]]:
    """{(variant, mode): text→result ms of each run}; the variants alternate run by run."""
    out: dict[tuple[str, str], list[float]] = {}
    caches = {v: str(tmp / f"{name}-{i}") for i, v in enumerate(variants)}
    for v, path in variants.items():  # populate each variant's cache
        run.fresh_process(name, False, _env({"XMUX_CACHE": "1", "XMUX_CACHE_DIR": caches[v]},
                                            path))
    for mode in modes:
        order = list(variants)
        for i in range(reps):
            for v in order if i % 2 == 0 else order[::-1]:
                extra = ({"XMUX_CACHE": "0"} if mode == "cold" else
                         {"XMUX_CACHE": "1", "XMUX_CACHE_DIR": caches[v]})
                r = run.fresh_process(name, False, _env(extra, variants[v]))
                if not r["ok"]:
                    raise SystemExit(f"{name} ({v}, {mode}): wrong result")
                out.setdefault((v, mode), []).append(text_to_result(r))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default=",".join(NAMES))
    ap.add_argument("--warm-only", action="store_true")
    ap.add_argument("--ab", nargs=2, metavar=("A", "B"),
                    help="two package copies (folders holding xmux/) to compare")
    args = ap.parse_args()
    names = args.only.split(",")
    modes = ["warm"] if args.warm_only else ["cold", "warm"]
    variants: dict[str, str | None] = (
        {"A": args.ab[0], "B": args.ab[1]} if args.ab else {"this tree": None})
    tmp = Path(tempfile.mkdtemp())
    print(f"load average before: {os.getloadavg()[0]:.2f}; {args.reps} runs per cell, median "
          "(min-max) of compile + first launch, ms")
    if args.ab:
        print(f"A = {args.ab[0]}, B = {args.ab[1]}")
    cols = [f"{v} {m}" for m in modes for v in variants]
    print("| kernel | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for n in names:
        t = _times(n, variants, args.reps, tmp, modes)
        cells = []
        for m in modes:
            for v in variants:
                xs = t[(v, m)]
                cells.append(f"{statistics.median(xs):.1f} ({min(xs):.0f}-{max(xs):.0f})")
        print(f"| {n} | " + " | ".join(cells) + " |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
