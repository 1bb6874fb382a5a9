"""Fresh-process text → first result, cold (``XMUX_CACHE=0``) and warm (a populated
``XMUX_CACHE_DIR``), median of 3, for the 7 bench kernels: the cold/warm columns of
``bench/run.py`` alone, quick enough for an A/B of two checkouts on the same host.

    .venv/bin/python bench/cold_warm.py
"""

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


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    print("| kernel | cold text→result ms (median of 3) | warm text→result ms (median of 3) "
          "| import ms |")
    print("|---|---:|---:|---:|")
    for n in NAMES:
        cold = [run.fresh_process(n, False, {"XMUX_CACHE": "0"}) for _ in range(3)]
        d = str(tmp / n)
        run.fresh_process(n, False, {"XMUX_CACHE": "1", "XMUX_CACHE_DIR": d})
        warm = [run.fresh_process(n, False, {"XMUX_CACHE": "1", "XMUX_CACHE_DIR": d})
                for _ in range(3)]
        print(f"| {n} | {statistics.median(map(text_to_result, cold)):.0f} | "
              f"{statistics.median(map(text_to_result, warm)):.1f} | "
              f"{statistics.median(r['import_ms'] for r in warm):.1f} |", flush=True)


if __name__ == "__main__":
    main()
