"""Differential fuzzing of the OpenACC path (issue 21): random ``acc`` programs
(``acc_gen.py``) run by ``xmux-run``'s host-program runner on the ``cpu`` and ``host``
expansion targets (and, with ``--interp``, by the reference interpreter on ``cpu``), every
printed result compared bit for bit with the sequential model (``acc_gen.expected``).

    python -m tests.fuzz.acc_harness campaign --n 300 --seed 0 --jobs 2 [--modes] [--levelless]
        [--privates]
    python -m tests.fuzz.harness acc campaign ...          # the same, from the main harness
    python -m tests.fuzz.acc_harness one SEED [--modes] [--levelless]

``--modes`` / ``--levelless`` add the shapes issue 21's other work fixes (single-mode side
effects; reducing loops with no level or ``seq``): off by default, so a campaign on today's
code should find nothing. ``--privates`` adds private / first-private variables written and
read at different levels (issue 36, item 12; ``acc_privates.py``). A campaign runs seeds
in worker subprocesses (``--timeout`` seconds per program: a hang or a crash names its
seed), minimises each mismatch (fewer constructs, reductions, iterations, sizes 1) and writes
``fuzz-failures/acc-<campaign>/seed<S>.mlir`` with the description, the differing results
and the program.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from tests.fuzz.acc_gen import Program, describe, emit, expected, generate, shrink_candidates
from tests.fuzz.workers import run_chunks, run_worker
from tests.libgomp_ports import Config, run

ROOT = Path(__file__).resolve().parents[2]
#: the runs compared with the model by default; ``--targets nvptx`` runs the kernels on the GPU
#: (the cpu expansion's sizes, so the cpu model)
TARGETS = ("cpu", "host")


def _interpret(text: str) -> list[int]:
    """The printed i64 values of the reference interpreter's run on the cpu target."""
    from xmux.interpret import run_host

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        run_host(text, "<acc fuzz>", oacc_target="cpu")
    match = re.search(r"data = \s*\[(.*?)\]", buf.getvalue(), re.S)
    assert match is not None, buf.getvalue()
    return [int(v) for v in match.group(1).replace("\n", " ").split(",")]


def compare(p: Program, interp: bool = False, targets: tuple[str, ...] = TARGETS) -> list[str]:
    """Run ``p`` on ``targets``; one line per result that differs from the model."""
    m = emit(p)
    bad: list[str] = []
    for target in targets:
        want = expected(p, "cpu" if target == "nvptx" else target)
        got = run(replace(m, cfg=Config(target)))
        assert len(got) == len(want), (len(got), len(want))
        for (res, g), w in zip(got, want, strict=True):
            w = np.atleast_1d(np.asarray(w))
            if g.shape != w.shape or not np.array_equal(g, w.astype(g.dtype)):
                bad.append(f"{target}: {res.name}: got {_short(g)}, want {_short(w)}")
    if interp:
        from tests.libgomp_ports import _decode

        bits = _interpret(m.text())
        want = expected(p, "cpu")
        pos = 0
        for res, w in zip(m.results, want, strict=True):
            width = res.count * (2 if res.t.startswith("c") else 1)
            g = _decode(res.t, bits[pos:pos + width])
            pos += width
            w = np.atleast_1d(np.asarray(w))
            if not np.array_equal(g, w.astype(g.dtype)):
                bad.append(f"interpreter: {res.name}: got {_short(g)}, want {_short(w)}")
    return bad


def _short(a: np.ndarray) -> str:
    return str(a.tolist()) if a.size <= 6 else f"{a[:6].tolist()}... ({a.size})"


def _status(p: Program, interp: bool, targets: tuple[str, ...] = TARGETS) -> tuple[str, str]:
    try:
        bad = compare(p, interp, targets)
    except Exception as e:  # noqa: BLE001 - a compile / run error is a finding too
        first = (str(e).splitlines() or [type(e).__name__])[0]
        return "error", f"{type(e).__name__}: {first[:300]}"
    return ("mismatch", "\n".join(bad)) if bad else ("ok", "")


def minimise(p: Program, status: str, budget: float = 120.0,
             targets: tuple[str, ...] = TARGETS) -> Program:
    """Greedy: keep the first smaller program that still fails the same way."""
    t0 = time.monotonic()
    improved = True
    while improved and time.monotonic() - t0 < budget:
        improved = False
        for cand in shrink_candidates(p):
            if time.monotonic() - t0 > budget:
                break
            if _status(cand, False, targets)[0] == status:
                p, improved = cand, True
                break
    return p


def check_seed(seed: int, modes: bool, levelless: bool, interp: bool, out: Path | None,
               minimise_budget: float, targets: tuple[str, ...] = TARGETS,
               privates: bool = False) -> dict:
    p = generate(seed, modes=modes, levelless=levelless, privates=privates)
    status, detail = _status(p, interp, targets)
    r = {"seed": seed, "status": status, "detail": detail,
         "constructs": len(p.constructs)}
    if status != "ok" and out is not None:
        small = minimise(p, status, minimise_budget, targets) if minimise_budget > 0 else p
        _, small_detail = _status(small, False, targets)
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"seed{seed}.mlir"
        head = [f"// acc fuzz seed {seed} (modes={modes}, levelless={levelless}, "
                f"privates={privates}): {status}",
                *("// " + line for line in describe(small).splitlines()),
                *("// " + line for line in (small_detail or detail).splitlines())]
        path.write_text("\n".join(head) + "\n" + emit(small).text() + "\n")
        r["repro"] = str(path)
        r["minimised"] = describe(small)
    return r


def worker_main(seeds: list[int], modes: bool, levelless: bool, interp: bool, out: str,
                minimise_budget: float, targets: tuple[str, ...] = TARGETS,
                privates: bool = False) -> None:
    for s in seeds:
        r = check_seed(s, modes, levelless, interp, Path(out), minimise_budget, targets,
                       privates)
        print("RESULT " + json.dumps(r), flush=True)


def _run_worker(seeds: list[int], args, timeout: float) -> list[dict]:
    flags = ["--out", args.out_dir, "--minimise", str(args.minimise), "--targets", args.targets]
    flags += [f for f, on in (("--modes", args.modes), ("--levelless", args.levelless),
                              ("--interp", args.interp), ("--privates", args.privates)) if on]
    return run_worker("tests.fuzz.acc_harness", flags, seeds, timeout, {"constructs": 0})


def campaign(args) -> dict:
    seeds = list(range(args.seed, args.seed + args.n))
    results, counts, seconds = run_chunks(
        seeds, args.batch, args.jobs,
        lambda chunk: _run_worker(chunk, args, args.timeout * len(chunk)))
    return {"seeds": f"{args.seed}..{args.seed + args.n - 1}", "programs": len(results),
            "constructs": sum(r["constructs"] for r in results),
            "seconds": seconds, "counts": counts,
            "modes": args.modes, "levelless": args.levelless, "interp": args.interp,
            "privates": args.privates,
            "targets": args.targets,
            "failures": sorted((r for r in results if r["status"] != "ok"),
                               key=lambda r: r["seed"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.acc_harness")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("campaign", "one", "worker"):
        s = sub.add_parser(name)
        s.add_argument("--modes", action="store_true",
                       help="also generate single-mode side effects (issue 21, modes)")
        s.add_argument("--levelless", action="store_true",
                       help="also generate reducing loops with no level or seq")
        s.add_argument("--privates", action="store_true",
                       help="also generate private / firstprivate variables written and read "
                            "at different levels (issue 36, item 12)")
        s.add_argument("--interp", action="store_true",
                       help="also run the reference interpreter (cpu target; slow)")
        s.add_argument("--minimise", type=float, default=120.0, help="seconds per failure")
        s.add_argument("--out", default=str(ROOT / "fuzz-failures"))
        s.add_argument("--targets", default=",".join(TARGETS),
                       help="comma-separated runs to compare: cpu, host, nvptx (the GPU)")
    c = sub.choices["campaign"]
    c.add_argument("--n", type=int, default=300)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--batch", type=int, default=10)
    c.add_argument("--timeout", type=float, default=120.0, help="seconds per program")
    sub.choices["one"].add_argument("seed", type=int)
    sub.choices["worker"].add_argument("--seeds", required=True)
    args = ap.parse_args(argv)
    if args.cmd == "worker":
        worker_main([int(s) for s in args.seeds.split(",")], args.modes, args.levelless,
                    args.interp, args.out, args.minimise, tuple(args.targets.split(",")),
                    args.privates)
        return 0
    if args.cmd == "one":
        r = check_seed(args.seed, args.modes, args.levelless, args.interp,
                       Path(args.out) / "acc-one", args.minimise, tuple(args.targets.split(",")),
                       args.privates)
        print(json.dumps(r, indent=1))
        return 0 if r["status"] == "ok" else 1
    args.out_dir = str(Path(args.out) / f"acc-{args.seed}-{args.seed + args.n - 1}")
    print(f"acc fuzz: seeds {args.seed}..{args.seed + args.n - 1}, {args.jobs} jobs, "
          f"modes={args.modes} levelless={args.levelless} interp={args.interp} "
          f"privates={args.privates}, "
          f"targets={args.targets}, "
          f"repros in {args.out_dir}", flush=True)
    s = campaign(args)
    Path(args.out_dir).mkdir(parents=True, exist_ok=True)
    (Path(args.out_dir) / "summary.json").write_text(json.dumps(s, indent=1))
    print(f"\n{s['programs']} programs ({s['constructs']} constructs) in {s['seconds']} s: "
          f"{s['counts']}")
    for r in s["failures"]:
        first = r["detail"].splitlines()[0] if r["detail"] else ""
        print(f"  seed {r['seed']}: {r['status']}: {first}")
        if "minimised" in r:
            print("    minimised: " + r["minimised"].replace("\n", "\n               "))
    return 0 if not s["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
