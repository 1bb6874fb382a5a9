"""Differential testing of host programs (issue 36, item 11): random ``gpu.container_module``
programs (``host_gen.py``: several launches, host loops, buffers and their subview windows
reused across launches, host reads and writes between launches) run by ``xmux-run``'s
host-program runner on each target, every printed buffer compared exactly with numpy.

    python -m tests.fuzz.host_harness campaign --n 500 --seed 0 --jobs 2 --targets cpu,nvptx
    python -m tests.fuzz.host_harness one SEED [--targets cpu]

A campaign runs seeds in worker subprocesses (a hang or a crash names its seed) and writes
each failing program to ``fuzz-failures/host-<seeds>/seed<S>.mlir`` with what differed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
from pathlib import Path

import numpy as np

from tests.fuzz.host_gen import Program, describe, expected, generate, mlir
from tests.fuzz.workers import run_chunks, run_worker

ROOT = Path(__file__).resolve().parents[2]


def run(text: str, target: str) -> list[np.ndarray]:
    """The printed i32 buffers of ``@main`` on ``target``."""
    from xmux.runner import HostProgram

    prog = HostProgram(text, name="<host fuzz>", target=target)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        prog.run_main()
    found = re.findall(r"data = \s*\[(.*?)\]", buf.getvalue(), re.S)
    return [np.array([int(v) for v in f.replace("\n", " ").split(",")], np.int32)
            for f in found]


def compare(p: Program, targets: tuple[str, ...]) -> list[str]:
    """One line per printed buffer that differs from the model, per target."""
    want = expected(p)
    text = mlir(p)
    bad = []
    for target in targets:
        got = run(text, target)
        if len(got) != len(want):
            bad.append(f"{target}: printed {len(got)} buffers, want {len(want)}")
            continue
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            if not np.array_equal(g, w):
                at = np.nonzero(g != w)[0][:6]
                name = "log" if i == len(want) - 1 else f"b{i}"
                bad.append(f"{target}: {name}: at {at.tolist()} got {g[at].tolist()} "
                           f"want {w[at].tolist()}")
    return bad


def check_seed(seed: int, targets: tuple[str, ...], out: Path | None) -> dict:
    p = generate(seed)
    try:
        bad = compare(p, targets)
        status, detail = ("mismatch", "\n".join(bad)) if bad else ("ok", "")
    except Exception as e:  # noqa: BLE001 - a compile / run error is a finding too
        status, detail = "error", f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
    r = {"seed": seed, "status": status, "detail": detail,
         "launches": sum(line.count("gpu.launch_func") for line in mlir(p).splitlines())}
    if status != "ok" and out is not None:
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"seed{seed}.mlir"
        head = [f"// host fuzz seed {seed} on {','.join(targets)}: {status}",
                *("// " + line for line in describe(p).splitlines()),
                *("// " + line for line in detail.splitlines())]
        path.write_text("\n".join(head) + "\n" + mlir(p) + "\n")
        r["repro"] = str(path)
    return r


def campaign(args) -> dict:
    seeds = list(range(args.seed, args.seed + args.n))
    flags = ["--out", args.out_dir, "--targets", args.targets]
    results, counts, seconds = run_chunks(
        seeds, args.batch, args.jobs,
        lambda chunk: run_worker("tests.fuzz.host_harness", flags, chunk,
                                 args.timeout * len(chunk), {"launches": 0}))
    return {"seeds": f"{args.seed}..{args.seed + args.n - 1}", "targets": args.targets,
            "programs": len(results), "launches": sum(r["launches"] for r in results),
            "seconds": seconds, "counts": counts,
            "failures": sorted((r for r in results if r["status"] != "ok"),
                               key=lambda r: r["seed"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.host_harness")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("campaign", "one", "worker"):
        s = sub.add_parser(name)
        s.add_argument("--targets", default="cpu", help="comma-separated: cpu, nvptx")
        s.add_argument("--out", default=str(ROOT / "fuzz-failures"))
    c = sub.choices["campaign"]
    c.add_argument("--n", type=int, default=100)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--batch", type=int, default=10)
    c.add_argument("--timeout", type=float, default=60.0, help="seconds per program")
    sub.choices["one"].add_argument("seed", type=int)
    sub.choices["worker"].add_argument("--seeds", required=True)
    args = ap.parse_args(argv)
    targets = tuple(args.targets.split(","))
    if args.cmd == "worker":
        for s in (int(v) for v in args.seeds.split(",")):
            print("RESULT " + json.dumps(check_seed(s, targets, Path(args.out))), flush=True)
        return 0
    if args.cmd == "one":
        r = check_seed(args.seed, targets, Path(args.out) / "host-one")
        print(describe(generate(args.seed)))
        print(json.dumps(r, indent=1))
        return 0 if r["status"] == "ok" else 1
    args.out_dir = str(Path(args.out) / f"host-{args.seed}-{args.seed + args.n - 1}")
    print(f"host fuzz: seeds {args.seed}..{args.seed + args.n - 1} on {args.targets}, "
          f"{args.jobs} jobs, repros in {args.out_dir}", flush=True)
    s = campaign(args)
    Path(args.out_dir).mkdir(parents=True, exist_ok=True)
    (Path(args.out_dir) / "summary.json").write_text(json.dumps(s, indent=1))
    print(f"\n{s['programs']} programs ({s['launches']} launch sites) in {s['seconds']} s: "
          f"{s['counts']}")
    for r in s["failures"]:
        print(f"  seed {r['seed']}: {r['status']}: {r['detail'].splitlines()[0][:200]}")
    return 0 if not s["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
