"""Every example on the GPU (target nvptx) prints what it prints on the CPU.

``xmux-run --target nvptx`` runs an example's host ``@main`` here and each kernel launch on
the GPU (numpy buffers copied in and out), so the examples' own checks and printed results
compare the two targets. Skipped without a CUDA device (CI has none).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from xmux.runtime import cuda

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir")) + sorted(
    (ROOT / "examples" / "gpu").glob("*.mlir")
)

pytestmark = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")


def _run(path: Path, target: str) -> subprocess.CompletedProcess:
    code = "import sys; from xmux.cli import run_main; sys.exit(run_main(sys.argv[1:]))"
    cmd = [sys.executable, "-c", code, str(path), "--target", target]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_same_output_on_gpu(path: Path) -> None:
    cpu = _run(path, "cpu")
    assert cpu.returncode == 0, cpu.stderr
    gpu = _run(path, "nvptx")
    assert gpu.returncode == 0, gpu.stderr
    assert _same(gpu.stdout) == _same(cpu.stdout)


def _same(out: str) -> str:
    return re.sub(r"base@ = 0x[0-9a-f]+", "base@ = <addr>", out)
