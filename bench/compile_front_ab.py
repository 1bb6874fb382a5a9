"""The front half of a compile (xDSL parse, the pass pipeline) with and without xmux's
compile-time measures, alternating in one process, so that a loaded machine's noise falls
on both alike (issue 33 item 2; docs/architecture.md "Compile time: parse and passes").

"off" turns off what can be turned off in a running process: the speed patches of xDSL
(dialects/xdsl_fast.py: op builder and verifier, constraint cache, type cache, lexer), the
collector thresholds (xmux/gc_tuning.py) and the skipping of passes without their ops
(xmux/stages.py SKIPPED_WITHOUT). The cached dialect registry and the memref descriptor's
position attributes stay on in both. Each round runs "on" then "off"; the minimum of the
rounds is reported (``xmux.stages.parse`` and ``run_pipeline`` on the default CPU pipeline).

    .venv/bin/python bench/compile_front_ab.py [--shapes kernels,one,many] [--sizes 1000]
        [--rounds 3] [--compile]

``--compile``: each bench kernel's whole ``xmux.compile(text, cache=False)`` instead (LLVM
included), on and off. ``kernels``: every bench/kernels/*.mlir, summed; ``one`` /
``many``: the modules of bench/compile_scaling.py at each size.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))


@contextlib.contextmanager
def measures_off() -> Iterator[None]:
    from xdsl_fast_corpus import xdsl_own

    from xmux import gc_tuning, stages

    young, skipped = gc_tuning.YOUNG_THRESHOLD, dict(stages.SKIPPED_WITHOUT)
    gc_tuning.YOUNG_THRESHOLD = 0  # leaves the thresholds alone
    stages.SKIPPED_WITHOUT.clear()
    try:
        with xdsl_own():
            yield
    finally:
        gc_tuning.YOUNG_THRESHOLD = young
        stages.SKIPPED_WITHOUT.update(skipped)


def texts(shape: str, n: int) -> list[str]:
    if shape == "kernels":
        return [p.read_text() for p in sorted((ROOT / "bench" / "kernels").glob("*.mlir"))]
    import compile_scaling

    return [compile_scaling.module(shape, n)]


def once(sources: list[str]) -> tuple[float, float, int]:
    """(parse s, passes s, ops) of ``sources``."""
    from xmux import pipelines
    from xmux.runtime.jit import host_target
    from xmux.stages import parse, run_pipeline

    tp = tq = 0.0
    ops = 0
    for text in sources:
        t0 = time.perf_counter()
        module = parse(text)
        t1 = time.perf_counter()
        ops += sum(1 for _ in module.walk())
        t2 = time.perf_counter()
        run_pipeline(module, pipelines.complete(pipelines.cpu(), host_target()))
        t3 = time.perf_counter()
        tp += t1 - t0
        tq += t3 - t2
    return tp, tq, ops


def whole_compiles(rounds: int) -> None:
    """Each bench kernel's whole ``xmux.compile(text, cache=False)`` (parse, passes, emission,
    LLVM), measures on and off alternating, minimum of ``rounds``, ms."""
    import xmux
    from xmux.runtime import jit

    print("| kernel | compile ms on | compile ms off | on / off |")
    print("|---|---|---|---|")
    total_on = total_off = 0.0
    for path in sorted((ROOT / "bench" / "kernels").glob("*.mlir")):
        text = path.read_text()
        xmux.compile(text, cache=False)
        on: list[float] = []
        off: list[float] = []
        for _ in range(rounds):
            for times, ctx in ((on, contextlib.nullcontext()), (off, measures_off())):
                with ctx:
                    jit.clear_memory_cache()  # LLVM's build too, not the object of the same IR
                    t0 = time.perf_counter()
                    xmux.compile(text, cache=False)
                    times.append(time.perf_counter() - t0)
        total_on += min(on)
        total_off += min(off)
        print(f"| {path.stem} | {min(on) * 1e3:.0f} | {min(off) * 1e3:.0f} "
              f"| {min(on) / min(off):.2f} |", flush=True)
    print(f"| all {len(list((ROOT / 'bench' / 'kernels').glob('*.mlir')))} | "
          f"{total_on * 1e3:.0f} | {total_off * 1e3:.0f} | {total_on / total_off:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="kernels,one,many")
    ap.add_argument("--sizes", default="1000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compile", action="store_true",
                    help="instead: each bench kernel's whole xmux.compile, cache off")
    args = ap.parse_args()
    import xmux.registry  # noqa: F401 - applies the patches

    if args.compile:
        whole_compiles(args.rounds)
        return

    print("| shape | statements | ops | parse s on | parse s off | passes s on | passes s off "
          "| front on / off |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in args.shapes.split(","):
        for n in ([0] if shape == "kernels" else [int(s) for s in args.sizes.split(",")]):
            sources = texts(shape, n)
            once(sources)  # warm: imports, dialect loading
            on: list[tuple[float, float, int]] = []
            off: list[tuple[float, float, int]] = []
            for _ in range(args.rounds):
                on.append(once(sources))
                with measures_off():
                    off.append(once(sources))
            p_on, p_off = min(r[0] for r in on), min(r[0] for r in off)
            q_on, q_off = min(r[1] for r in on), min(r[1] for r in off)
            print(f"| {shape} | {n or '-'} | {on[0][2]} | {p_on:.3f} | {p_off:.3f} | {q_on:.3f} "
                  f"| {q_off:.3f} | {(p_on + q_on) / (p_off + q_off):.2f} |", flush=True)


if __name__ == "__main__":
    main()
