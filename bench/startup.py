"""Start-up time of the command-line tools on small files (issue 17: ``xmux-opt`` <= 0.5 s).

Runs each command ``--reps`` times, interleaved (this 2-core VM is shared and noisy), and prints
the minimum and the median wall time in seconds, and the median CPU time (user + system of the
child: steadier than wall time while other processes load the machine). The floor is xDSL
itself: ``xdsl-opt`` with xDSL's own dialects and passes only (xmux's plugin hidden) on a
func/arith file.

    .venv/bin/python bench/startup.py [--reps 7] [--before ../main]

``--before DIR`` adds the same ``xmux-opt``/``xmux-run`` commands of another checkout's
``DIR/.venv`` (e.g. the commit before a change), interleaved with this one's.

Every lit RUN line pays one of these start-ups; bench/README.md has the figures.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SMALL_MUX = ROOT / "tests/filecheck/mux/barriers.mlir"
EXAMPLE = ROOT / "examples/vecadd.mlir"
PLAIN = """func.func @f(%a: i32, %b: i32) -> i32 {
  %c = arith.addi %a, %b : i32
  func.return %c : i32
}
"""
# xdsl-opt with only xDSL's universe: the entry points (xmux's plugin) are not loaded
XDSL_ONLY = (
    "import sys; from xdsl.universe import Universe, XDSL_UNIVERSE; "
    "Universe.get_multiverse = staticmethod(lambda: XDSL_UNIVERSE); "
    "from xdsl.tools.xdsl_opt import main; sys.argv[0] = 'xdsl-opt'; sys.exit(main())"
)


def commands(plain: Path, before: Path | None) -> dict[str, list[str]]:
    py = str(BIN / "python")
    cmds = {
        "python -c pass": [py, "-c", "pass"],
        "xdsl-opt, xDSL only (floor), func/arith": [py, "-c", XDSL_ONLY, str(plain)],
        "xdsl-opt + xmux plugin, mux file": [str(BIN / "xdsl-opt"), str(SMALL_MUX)],
        "xmux-opt, func/arith": [str(BIN / "xmux-opt"), str(plain)],
        "xmux-opt, mux file": [str(BIN / "xmux-opt"), str(SMALL_MUX)],
        "xmux-opt -p work-item-loops, mux file": [
            str(BIN / "xmux-opt"),
            str(SMALL_MUX),
            "-p",
            "prepare-barriers,work-item-loops",
        ],
        "xmux-opt --help": [str(BIN / "xmux-opt"), "--help"],
    }
    if EXAMPLE.exists():
        cmds["xmux-run examples/vecadd.mlir"] = [str(BIN / "xmux-run"), str(EXAMPLE)]
    if before is not None:
        old = before / ".venv/bin"
        for name, cmd in list(cmds.items()):
            if cmd[0].startswith(str(BIN / "xmux-")):
                cmds[f"{name} [{before.name}]"] = [str(old / Path(cmd[0]).name), *cmd[1:]]
    return cmds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--before", type=Path, help="another checkout with its own .venv")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "plain.mlir"
        plain.write_text(PLAIN)
        cmds = commands(plain, args.before.resolve() if args.before else None)
        times: dict[str, list[float]] = {name: [] for name in cmds}
        cpu: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(args.reps):
            for name, cmd in cmds.items():
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
                times[name].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[name].append(
                    after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                )
    print(f"| command ({args.reps} runs) | wall min s | wall median s | CPU median s |")
    print("|---|---|---|---|")
    for name, ts in times.items():
        print(
            f"| {name} | {min(ts):.3f} | {statistics.median(ts):.3f} "
            f"| {statistics.median(cpu[name]):.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
