"""Parity with upstream MLIR's mlir-opt (Debian's ``mlir-19-tools``, or any mlir-opt on PATH)
on the gpu ops: mlir-opt parses xmux's printed form (custom and generic) and xmux parses
mlir-opt's (custom and generic). Skipped where no mlir-opt is installed.

The inputs are the forms LLVM 19 shares with newer versions (tests/filecheck/gpu/
newer_forms.mlir has those of LLVM 20+, which mlir-opt-19 does not know)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.inprocess_cli import xmux_opt

MLIR_OPT = shutil.which("mlir-opt-19") or shutil.which("mlir-opt")
GPU_TESTS = Path(__file__).resolve().parent / "filecheck" / "gpu"
FILES = ["device_ops.mlir", "host_ops.mlir", "memref_global.mlir"]

pytestmark = pytest.mark.skipif(MLIR_OPT is None,
                                reason="mlir-opt (mlir-19-tools) is not installed")


def _xmux_opt(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
    return xmux_opt(args, stdin)


def _mlir_opt(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([MLIR_OPT, "--allow-unregistered-dialect", *args], input=stdin,
                          capture_output=True, text=True, check=False)


@pytest.mark.parametrize("generic", [False, True])
@pytest.mark.parametrize("name", FILES)
def test_mlir_opt_parses_xmux_output(name, generic):
    printed = _xmux_opt([str(GPU_TESTS / name), *(["--print-op-generic"] if generic else [])])
    assert printed.returncode == 0, printed.stderr
    proc = _mlir_opt([], printed.stdout)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("generic", [False, True])
@pytest.mark.parametrize("name", ["device_ops.mlir", "host_ops.mlir"])
def test_xmux_parses_mlir_opt_output(name, generic):
    upstream = _mlir_opt([str(GPU_TESTS / name), *(["--mlir-print-op-generic"] if generic
                                                    else [])])
    assert upstream.returncode == 0, upstream.stderr
    proc = _xmux_opt([], upstream.stdout)
    assert proc.returncode == 0, proc.stderr
