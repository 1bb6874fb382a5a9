"""``xmux-opt`` run in the test's own process: the same ``opt_main`` the installed script
calls, without a Python start-up and xDSL import per call (tests of upstream text parity
call it a few hundred times; tests of the command line as a process use the script)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys


def xmux_opt(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
    """``xmux-opt ARGS`` with ``stdin``: its exit status, stdout and stderr."""
    from xmux.cli import opt_main

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = opt_main(list(args))
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdin = saved
    return subprocess.CompletedProcess(["xmux-opt", *args], code, out.getvalue(),
                                       err.getvalue())
