"""The checking mode's cost: kernel time with and without ``checks=True`` on bench kernels.

``python bench/checks_cost.py``: vecadd, saxpy (2^22) and the naive matmul (256x256),
alternating the two builds, minimum of each; prints the ratio checked / plain.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import xmux

KERNELS = Path(__file__).resolve().parent / "kernels"


def _best(k, args, sizes, rounds: int = 15) -> float:
    best = float("inf")
    for _ in range(rounds):
        p = k(*args, **sizes, profile=True)
        best = min(best, p.seconds)
    return best


def main() -> None:
    n = 1 << 22
    a, b = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    m = 256
    x, y = np.random.rand(m, m).astype(np.float32), np.random.rand(m, m).astype(np.float32)
    z = np.zeros((m, m), np.float32)
    cases = {
        "vecadd": ((a, b, c), {"global_size": (n,), "local_size": (256,)}),
        "saxpy": ((np.float32(2.0), a, c), {"global_size": (n,), "local_size": (256,)}),
        "matmul_naive": ((m, x, y, z), {"global_size": (m, m), "local_size": (16, 16)}),
    }
    for name, (args, sizes) in cases.items():
        text = (KERNELS / f"{name}.mlir").read_text()
        kernel = name
        plain = xmux.compile(text, cache=False).kernel(kernel)
        checked = xmux.compile(text, cache=False, checks=True).kernel(kernel)
        times = {"plain": [], "checked": []}
        for _ in range(3):
            times["plain"].append(_best(plain, args, sizes))
            times["checked"].append(_best(checked, args, sizes))
        p, q = min(times["plain"]), min(times["checked"])
        print(f"{name:14s} plain {p * 1e3:8.3f} ms  checked {q * 1e3:8.3f} ms  {q / p:5.2f}x")


if __name__ == "__main__":
    main()
