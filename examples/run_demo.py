"""`make demo`: run every example through `xmux-run`, check the printed results against numpy.

Each example's host @main fills its inputs with a closed-form pattern; the expectation below
rebuilds the same inputs with numpy and computes the result independently.

Then two pictures go to build/demo/ (paths printed): the work-item-loops plan of the tiled
matmul (`xmux-opt --view-plan`: .dot, and .svg when Graphviz's `dot` is installed) and the
bench's roofline from its stored numbers (`bench/roofline.py --plot`: .svg, drawn by
matplotlib when installed, else by hand; .csv and a table beside it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
#: where the pictures go (build/ is not tracked)
PICTURES = HERE.parent / "build" / "demo"
#: the example whose plan is drawn: barriers in a loop, values crossing them
PLAN_EXAMPLE = "matmul_tiled"


def parse_memref(text: str) -> np.ndarray:
    """The first printMemref* block of ``text`` as a numpy array."""
    m = re.search(r"sizes = \[([^\]]*)\].*?data = \n(.*)", text, re.S)
    if m is None:
        raise ValueError("no printMemref output found")
    sizes = [int(s) for s in m.group(1).split(",") if s.strip()]
    values = [float(v) for v in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf",
                                            m.group(2))]
    count = int(np.prod(sizes)) if sizes else 1
    return np.array(values[:count], dtype=np.float64).reshape(sizes)


def expect_vecadd() -> np.ndarray:
    a = np.arange(1000, dtype=np.float32)
    return a + a * np.float32(0.5)


def expect_saxpy() -> np.ndarray:
    x = np.arange(4096, dtype=np.float32)
    y = np.float32(3.0) - x
    y[96:] = np.float32(1.5) * x[96:] + y[96:]
    return y


def expect_matmul() -> np.ndarray:
    i, j = np.meshgrid(np.arange(96), np.arange(96), indexing="ij")
    a = (((i + 2 * j) % 7) - 3).astype(np.float32) * np.float32(0.25)
    b = ((3 * i + j) % 5).astype(np.float32) * np.float32(0.25)
    return a.astype(np.float64) @ b.astype(np.float64)


def expect_conv3x3() -> np.ndarray:
    h, w = 40, 48
    i, j = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    img = np.zeros((h + 2, w + 2), np.float64)
    img[1:-1, 1:-1] = (i * j) % 11
    k = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float64) / 16
    out = np.zeros((h, w))
    for dy in range(3):
        for dx in range(3):
            out += k[dy, dx] * img[dy : dy + h, dx : dx + w]
    return out


def _group_sums() -> np.ndarray:
    x = ((np.arange(16384) % 13) - 6).astype(np.float64)
    return x.reshape(64, 256).sum(1)


def expect_prefix_sum() -> np.ndarray:
    return np.cumsum((np.arange(16384) % 7) - 3).astype(np.float64)


def expect_acc_sum() -> np.ndarray:
    return np.array(0.5 + (np.arange(4000) % 10).sum())


def expect_acc_max2d() -> np.ndarray:
    i, j = np.meshgrid(np.arange(64), np.arange(100), indexing="ij")
    a = ((37 * i + 11 * j) % 101) - 50 + i // 4
    return np.append(a.max(1), a.max()).astype(np.float64)


def expect_acc_parallel_reduction() -> np.ndarray:
    gangs = 8  # each gang runs the redundant part once
    return np.array([1 + 5 * gangs + (np.arange(1000) % 7).sum(), 2 * 5.0**gangs])


EXAMPLES: dict[str, Callable[[], np.ndarray]] = {
    "vecadd": expect_vecadd,
    "saxpy": expect_saxpy,
    "matmul": expect_matmul,
    "conv3x3": expect_conv3x3,
    "matmul_tiled": expect_matmul,  # same inputs as matmul, local tiles and barriers
    "reduce_local": _group_sums,  # tree reduction in work-group local memory
    "reduce_wg": _group_sums,  # mux.work_group_reduce
    "prefix_sum": expect_prefix_sum,  # mux.work_group_scan_inclusive + exclusive
    "acc_sum": expect_acc_sum,  # OpenACC gang+worker+vector sum reduction
    "acc_max2d": expect_acc_max2d,  # OpenACC max over a 2-D loop nest (gang + vector)
    "acc_parallel_reduction": expect_acc_parallel_reduction,  # reductions on acc.parallel
}


def xmux_run() -> list[str]:
    exe = shutil.which("xmux-run", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-c", "import sys; from xmux.cli import run_main; "
                              "sys.exit(run_main())"]


def xmux_opt() -> list[str]:
    exe = shutil.which("xmux-opt", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-c", "import sys; from xmux.cli import opt_main; "
                              "sys.exit(opt_main())"]


def pictures() -> int:
    """The plan graph and the roofline, both tools at once (about 2 s); 1 when one failed."""
    PICTURES.mkdir(parents=True, exist_ok=True)
    jobs = {
        f"work-item-loops plan of {PLAN_EXAMPLE}": [
            *xmux_opt(), str(HERE / f"{PLAN_EXAMPLE}.mlir"),
            "--view-plan", str(PICTURES / f"{PLAN_EXAMPLE}-plan.svg")],
        "roofline": [sys.executable, str(HERE.parent / "bench" / "roofline.py"),
                     "--plot", str(PICTURES / "roofline.svg")],
    }
    procs = {what: subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True) for what, cmd in jobs.items()}
    failed = 0
    for what, proc in procs.items():
        out, _ = proc.communicate()
        print(f"{what}:" + ("" if proc.returncode == 0 else f" FAILED (exit {proc.returncode})"))
        for line in out.splitlines():
            print(f"  {line}")
        failed |= proc.returncode != 0
    return failed


def main() -> int:
    failures = 0
    print(f"{'example':12} {'result':28} {'wall ms':>9} {'compile ms':>11} {'kernel ms':>10}")
    for name, expect in EXAMPLES.items():
        path = HERE / f"{name}.mlir"
        t0 = time.perf_counter()
        proc = subprocess.run(
            [*xmux_run(), "--timing", str(path)], capture_output=True, text=True, check=False
        )
        wall = (time.perf_counter() - t0) * 1e3
        if proc.returncode != 0:
            print(f"{name:12} FAILED (exit {proc.returncode})\n{proc.stderr}")
            failures += 1
            continue
        got = parse_memref(proc.stdout)
        want = expect()
        ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5)
        failures += not ok
        timing = dict(re.findall(r"// (compile|launch \w+): ([\d.]+) ms", proc.stderr))
        kernel = next((v for k, v in timing.items() if k.startswith("launch")), "?")
        status = f"verified {got.shape}" if ok else f"MISMATCH max err {np.abs(got - want).max()}"
        print(f"{name:12} {status:28} {wall:9.1f} {timing.get('compile', '?'):>11} {kernel:>10}")
    print("all examples verified" if not failures else f"{failures} example(s) failed")
    failures += pictures()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
