"""xmux's printed form of the upstream gpu ops parses with upstream MLIR's mlir-opt (Debian's
``mlir-19-tools`` or any mlir-opt on PATH); skipped where none is installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MLIR_OPT = shutil.which("mlir-opt-19") or shutil.which("mlir-opt")
GPU_TESTS = Path(__file__).resolve().parent / "filecheck" / "gpu"


@pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt (mlir-19-tools) is not installed")
@pytest.mark.parametrize("name", ["device_ops.mlir", "host_ops.mlir"])
def test_mlir_opt_parses_xmux_output(name):
    printed = subprocess.run(
        [sys.executable, "-c", "import sys; from xmux.cli import opt_main; sys.exit(opt_main())",
         str(GPU_TESTS / name)],
        capture_output=True, text=True, check=True,
    ).stdout
    proc = subprocess.run([MLIR_OPT, "--allow-unregistered-dialect"], input=printed,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
