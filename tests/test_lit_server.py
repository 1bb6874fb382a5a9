"""The lit suite's fork server (tests/lit_server.py) runs a RUN line's tool as the installed
script does: same stdout, stderr and exit status, its stdin read and its cwd honoured."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import lit_server  # noqa: E402

GOOD = """func.func @f(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32
  func.return %b : i32
}
"""
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "gpu" / "tree_reduction.mlir"
BAD = "func.func @f() {\n  %x = arith.constant 1 : i32\n  func.return %x : i32\n}\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    if shutil.which("xmux-opt") is None:
        pytest.fail("xmux-opt is not on PATH (make test puts the venv's bin first)")
    got = lit_server.start()
    assert got is not None, "the fork server did not come up"
    return got


def _run(cmd: list[str], env: dict[str, str], stdin: str = "", cwd: Path | None = None):
    r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, cwd=cwd,
                       timeout=120)
    # a printed memref's address differs from run to run
    return r.returncode, re.sub(r"base@ = 0x[0-9a-f]+", "base@", r.stdout), r.stderr


@pytest.mark.parametrize("case", ["file", "stdin", "bad", "pass", "filecheck-ok",
                                  "filecheck-mismatch", "run", "run-bad"])
def test_served_tool_matches_the_installed_one(served, tmp_path: Path, case: str) -> None:
    bindir, sock = served
    (tmp_path / "good.mlir").write_text(GOOD)
    (tmp_path / "bad.mlir").write_text(BAD)
    (tmp_path / "check.txt").write_text("// CHECK: arith.addi\n// CHECK-NEXT: func.return\n")
    cmd, stdin = {
        "file": (["xmux-opt", "good.mlir"], ""),
        "stdin": (["xmux-opt"], GOOD),
        "bad": (["xmux-opt", "bad.mlir"], ""),
        "pass": (["xmux-opt", "good.mlir", "-p", "no-such-pass"], ""),
        "filecheck-ok": (["filecheck", "check.txt"], GOOD),
        "filecheck-mismatch": (["filecheck", "check.txt"], BAD),
        "run": (["xmux-run", str(EXAMPLE)], ""),  # JIT, thread pool, printed memrefs
        "run-bad": (["xmux-run", "bad.mlir"], ""),
    }[case]
    env = dict(os.environ)
    installed = _run(cmd, env, stdin, tmp_path)
    served_env = {**env, "PATH": bindir + os.pathsep + env["PATH"], lit_server.ENV: sock}
    through_server = _run(cmd, served_env, stdin, tmp_path)
    assert through_server == installed
    assert (installed[0] == 0) == (case in ("file", "stdin", "filecheck-ok", "run"))


def test_without_the_server_the_client_runs_the_installed_tool(served, tmp_path: Path) -> None:
    bindir, _ = served
    (tmp_path / "good.mlir").write_text(GOOD)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ["PATH"],
           lit_server.ENV: str(tmp_path / "no-server.sock")}
    code, out, err = _run(["xmux-opt", "good.mlir"], env, cwd=tmp_path)
    assert (code, err) == (0, "")
    assert "arith.addi" in out



def test_a_server_that_dies_warming_up_leaves_the_installed_tools(monkeypatch) -> None:
    """lit then runs the installed scripts at once, not after the 30 s start-up deadline."""
    import time

    monkeypatch.setattr(sys, "executable", "/bin/false")
    start = time.monotonic()
    assert lit_server._start(("xmux-opt",)) is None
    assert time.monotonic() - start < 10
