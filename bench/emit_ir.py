"""Emit the LLVM IR of every bench kernel and example, with the xDSL pipeline's time.

Compares two versions of the compiler without timing noise in the kernels: run it in a
checkout of each (``python bench/emit_ir.py OUT_DIR``), then ``diff -r`` the two folders;
identical IR means identical kernel speed, and the printed times compare compile times
(take the minimum of a few alternating runs: the first file also pays the imports).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from xmux.api import compile_to_llvm_ir, parse

ROOT = Path(__file__).resolve().parents[1]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    files = sorted((ROOT / "bench" / "kernels").glob("*.mlir"))
    files += sorted((ROOT / "examples").glob("*.mlir"))
    for f in files:
        start = time.perf_counter()
        try:
            ir, _ = compile_to_llvm_ir(parse(f.read_text(), str(f)))
        except Exception as e:  # noqa: BLE001 - recorded in the output for the diff
            ir = f"ERROR {type(e).__name__}: {e}"
        ms = (time.perf_counter() - start) * 1000
        (out / f"{f.parent.name}_{f.stem}.ll").write_text(ir)
        print(f"{f.relative_to(ROOT)}: {ms:.0f} ms")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "bench/out/ir"))
