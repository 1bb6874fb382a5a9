"""The LLVM half of a large module's compile, before and after in one run (issue 33 item 2).

``bench/compile_scaling.py``'s modules (``one``: one kernel of N straight-line statements;
``many``: N/50 kernels of 50), lowered once each to LLVM IR, then built by
``jit.compile_ir`` (cache off) alternately in two ways, each in a fresh process so that
neither inherits the other's LLVM options or warm heap:

- ``before``: as xmux built them before the huge-block limits and the split build
  (``HUGE_TEXT`` and ``SPLIT_TEXT`` out of reach: one forked child, LLVM's scheduler limits);
- ``after``: the default (``runtime/jit.py``: ``_codegen_limits``, ``_build_split``).

Per row: wall seconds and CPU seconds of the children that ran LLVM (the sum over the parts of
a split build), median of ``--reps``; the object of ``one`` is the same code both ways up to
the scheduling LLVM skips (bench/README.md). On a loaded host compare the CPU column: wall
time shows the split build's parallelism only where cores are free.

    .venv/bin/python bench/llvm_scaling.py [--sizes 1000,4000] [--shapes one,many] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, os, sys, time
from xmux.runtime import codegen_limits, contained, jit
ir = open(sys.argv[1]).read()
if sys.argv[2] == "before":
    codegen_limits.HUGE_TEXT = jit.SPLIT_TEXT = 1 << 62
jit._target()
t = time.perf_counter(); c = os.times()
jit.compile_ir(ir, disk_cache=False)
wall = time.perf_counter() - t
for pid in list(contained._exiting):
    os.waitpid(pid, 0)
d = os.times()
print(json.dumps({"wall": wall, "cpu": d.children_user + d.children_system
                  - c.children_user - c.children_system}))
"""


def lowered(shape: str, n: int, folder: Path) -> Path:
    """The module's LLVM IR (made once per folder: the xDSL half takes longer)."""
    path = folder / f"{shape}{n}.ll"
    if not path.exists():
        sys.path.insert(0, str(ROOT / "bench"))
        from compile_scaling import module
        from xdsl.parser import Parser

        from xmux import api, pipelines
        from xmux.registry import make_context
        from xmux.runtime.emit import emit_text

        mod = Parser(make_context(), module(shape, n)).parse_module()
        api.run_pipeline(mod, pipelines.cpu(), None)
        path.write_text(emit_text(mod))
    return path


def build(path: Path, how: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), how], capture_output=True,
                         text=True, check=True, env=dict(os.environ, XMUX_CACHE="0"))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,4000")
    ap.add_argument("--shapes", default="one,many")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--ir-dir", help="keep the lowered IR here (default: a temporary folder)")
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.ir_dir or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        print(f"cores: {len(os.sched_getaffinity(0))}, load average {os.getloadavg()[0]:.1f}")
        print("| shape | statements | IR MB | before wall s | before CPU s | after wall s "
              "| after CPU s | wall ratio |")
        print("|---|---|---|---|---|---|---|---|")
        for shape in args.shapes.split(","):
            for n in map(int, args.sizes.split(",")):
                path = lowered(shape, n, folder)
                got: dict[str, list[dict]] = {"before": [], "after": []}
                for _ in range(args.reps):
                    for how in ("before", "after"):
                        got[how].append(build(path, how))
                med = {how: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu")}
                       for how, rs in got.items()}
                row = {"shape": shape, "statements": n, "mb": path.stat().st_size / 1e6, **{
                    f"{how}_{k}": v for how, m in med.items() for k, v in m.items()}}
                rows.append(row)
                print(f"| {shape} | {n} | {row['mb']:.2f} | {row['before_wall']:.2f} | "
                      f"{row['before_cpu']:.2f} | {row['after_wall']:.2f} | "
                      f"{row['after_cpu']:.2f} | {row['after_wall'] / row['before_wall']:.2f} |",
                      flush=True)
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
