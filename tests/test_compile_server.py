"""The compile server (runtime/compile_server.py): a process's LLVM builds, after its first
few, run in one persistent helper process instead of a fork each, with the forked child's
guarantees: an abort or a build over budget is the server's end, not the user's process's,
and a server that is gone is replaced while builds fork meanwhile."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.errors import XmuxError
from xmux.runtime import compile_server as cs
from xmux.runtime import jit
from xmux.runtime.contained import ChildTooSlow, LLVMAborted

ROOT = Path(__file__).resolve().parents[1]

IR = "define i64 @f(i64 %x) {\n  %y = mul i64 %x, 3\n  ret i64 %y\n}\n"


def _past_start() -> None:
    """As in a process past its first, forking builds (``START_AFTER``, ``START_AFTER_S``)."""
    cs._builds = max(cs._builds, cs.START_AFTER)  # noqa: SLF001
    cs._first_build = time.monotonic() - cs.START_AFTER_S  # noqa: SLF001


def _served_pid() -> int:
    """The pid of a ready server (started if needed)."""
    _past_start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        served, pid = cs.call("os:getpid", (), None)
        if served:
            return pid  # type: ignore[return-value]
        time.sleep(0.02)
    raise AssertionError("no compile server got ready in 60 s")


@pytest.fixture(autouse=True)
def _enabled(monkeypatch):
    monkeypatch.delenv("XMUX_COMPILE_SERVER", raising=False)
    monkeypatch.delenv("XMUX_LLVM_IN_PROCESS", raising=False)


def test_a_short_process_starts_no_server(monkeypatch):
    """Its first builds fork, and so do a few more within START_AFTER_S of the first (an
    xmux-run of a small file is over by then)."""
    cs.shutdown()
    monkeypatch.setattr(cs, "_builds", 0)
    monkeypatch.setattr(cs, "_first_build", None)
    for _ in range(6):
        assert cs.call("os:getpid", (), None) == (False, None)
    assert cs._server is None  # noqa: SLF001


def test_a_process_still_building_after_the_first_second_starts_a_server_then(monkeypatch):
    """Its third build came within START_AFTER_S: nothing starts ahead of the next build (a
    start-up on a timer would run beside the launches of a process that builds no more);
    the first build after that mark starts the server (and forks itself), later ones use it."""
    cs.shutdown()
    monkeypatch.setattr(cs, "START_AFTER_S", 0.3)
    monkeypatch.setattr(cs, "_builds", 0)
    monkeypatch.setattr(cs, "_first_build", None)
    for _ in range(3):
        assert cs.call("os:getpid", (), None) == (False, None)
    time.sleep(0.4)
    assert cs._server is None  # noqa: SLF001 - no timer started one
    cs.call("os:getpid", (), None)
    assert cs._server is not None  # noqa: SLF001 - started by that build
    deadline = time.monotonic() + 60
    while not cs._server.poll_ready() and time.monotonic() < deadline:  # noqa: SLF001
        time.sleep(0.02)
    assert cs.call("os:getpid", (), None)[0]


def test_builds_after_the_first_few_run_in_one_server_with_the_same_code():
    pid = _served_pid()
    assert pid != os.getpid()
    t = jit._target()  # noqa: SLF001
    args = (IR, (), t.cpu, t.features, jit.O3)
    served, (obj, externals, exports) = cs.call("xmux.runtime.jit:build_object", args, 60)
    assert served and exports == ["f"] and externals == []
    assert obj == jit.build_object(*args)[0]  # the object code the process would build
    assert cs.call("os:getpid", (), None) == (True, pid)  # the same server, still


def test_compiled_kernels_from_the_server_run(tmp_path):
    _served_pid()
    before = cs._server.proc.pid  # noqa: SLF001
    prog = xmux.compile(ROOT / "bench" / "kernels" / "saxpy.mlir", cache=False)
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, np.float32)
    prog.kernel("saxpy")(np.float32(2), x, y, global_size=(1000,), local_size=(100,))
    np.testing.assert_array_equal(y, 2 * np.arange(1000, dtype=np.float32) + 1)
    assert cs._server is not None and cs._server.proc.pid == before  # noqa: SLF001


def test_an_abort_in_the_server_is_llvm_aborted_and_a_new_server_follows():
    pid = _served_pid()
    with pytest.raises(LLVMAborted, match="SIGABRT"):
        cs.call("os:abort", (), None)
    assert cs._server is None  # noqa: SLF001
    assert _served_pid() != pid


def test_an_abort_while_compiling_is_retried_in_a_forked_child(monkeypatch):
    """As a forked child's abort: the build is done again with the loop vectorizer off, with a
    warning naming the kernel."""
    _served_pid()
    real = cs.call

    def aborting(path, args, budget_s, **kwargs):
        if path == "xmux.runtime.jit:build_object":
            return real("os:abort", (), None, **kwargs)
        return real(path, args, budget_s, **kwargs)

    monkeypatch.setattr(cs, "call", aborting)
    with pytest.warns(RuntimeWarning, match=r"LLVM aborted \(SIGABRT\).*compiled again with "
                      r"LLVM's loop vectorizer off"):
        module = jit.compile_ir(IR + "; retried\n", disk_cache=False)
    assert module.address("f")


def test_a_build_over_its_budget_kills_the_server():
    pid = _served_pid()
    spin = ("hashlib:pbkdf2_hmac", ("sha256", b"x", b"y", 10**9))
    t = time.monotonic()
    with pytest.raises(ChildTooSlow):
        cs.call(spin[0], spin[1], 1.0)
    assert time.monotonic() - t < 30
    assert _served_pid() != pid


def test_a_server_killed_between_builds_is_replaced_and_builds_fork_meanwhile():
    pid = _served_pid()
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    assert cs.call("os:getpid", (), None) == (False, None)  # this build forks
    assert _served_pid() != pid
    # and jit.compile_ir works throughout
    assert jit.compile_ir(IR + "; after a kill\n", disk_cache=False).address("f")


def test_errors_and_stderr_come_back_from_the_server(capfd):
    _served_pid()
    with pytest.raises(XmuxError, match="invalid LLVM IR"):
        t = jit._target()  # noqa: SLF001
        cs.call("xmux.runtime.jit:build_object", ("not IR", (), t.cpu, t.features, jit.O3), 60)
    remark = "remark: <unknown>:0:0: loop not vectorized: the cost model says no\n"
    capfd.readouterr()
    assert cs.call("os:write", (2, (remark + "something else\n").encode()), None)[0]
    assert capfd.readouterr().err == "something else\n"


def test_a_forked_child_does_not_use_its_parents_server():
    pid = _served_pid()
    r, w = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        try:
            served, _ = cs.call("os:getpid", (), None)
            os.write(w, b"served" if served else b"forked")
        finally:
            os._exit(0)
    os.close(w)
    said = os.read(r, 100)
    os.close(r)
    os.waitpid(child, 0)
    assert said == b"forked"
    assert cs.call("os:getpid", (), None) == (True, pid)  # the parent's, unharmed


def test_off_and_in_process_mean_no_server(monkeypatch):
    _served_pid()
    monkeypatch.setenv("XMUX_COMPILE_SERVER", "0")
    assert cs.call("os:getpid", (), None) == (False, None)
    monkeypatch.setenv("XMUX_COMPILE_SERVER", "1")
    monkeypatch.setenv("XMUX_LLVM_IN_PROCESS", "1")
    assert cs.call("os:getpid", (), None) == (False, None)


def test_the_server_exits_with_the_process():
    code = """
import os, time
from xmux.runtime import compile_server as cs
cs._builds = cs.START_AFTER
cs._first_build = time.monotonic() - cs.START_AFTER_S
while True:
    served, pid = cs.call("os:getpid", (), None)
    if served:
        break
    time.sleep(0.02)
print(pid)
os._exit(0)  # no atexit: the server must see its pipe close
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    pid = int(r.stdout.strip())
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return  # exited (a zombie until whoever adopted it reaps it)
        except (FileNotFoundError, ProcessLookupError):
            return
        time.sleep(0.05)
    raise AssertionError(f"compile server {pid} outlived its process")


def test_a_server_that_cannot_start_leaves_builds_forking(monkeypatch):
    """A Python that cannot run the server (here: not Python at all): after MAX_FAILURES
    attempts the process stops trying and forks every build, which still work."""
    cs.shutdown()
    monkeypatch.setattr(cs, "_failures", 0)
    monkeypatch.setattr(sys, "executable", "/bin/false")
    started = []
    real = cs._Server.__init__

    def counting(self):  # noqa: ANN001, ANN202
        started.append(1)
        real(self)

    monkeypatch.setattr(cs._Server, "__init__", counting)
    _past_start()
    deadline = time.monotonic() + 30
    while cs._failures < cs.MAX_FAILURES and time.monotonic() < deadline:  # noqa: SLF001
        assert cs.call("os:getpid", (), None) == (False, None)
        time.sleep(0.01)
    assert len(started) == cs.MAX_FAILURES
    for _ in range(5):
        assert cs.call("os:getpid", (), None) == (False, None)
    assert len(started) == cs.MAX_FAILURES  # no more attempts
    assert jit.compile_ir(IR + "; forked\n", disk_cache=False).address("f")


def test_a_server_whose_start_up_prints_on_stdout_is_not_used(monkeypatch, tmp_path):
    """Something at the interpreter's start-up (a sitecustomize, a wrapper script) writing to
    stdout before the server takes fd 1 over would garble its answers: such a server is
    taken for gone, and builds fork."""
    cs.shutdown()
    monkeypatch.setattr(cs, "_failures", 0)
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho "hello from start-up"\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(wrapper))
    _past_start()
    deadline = time.monotonic() + 60
    while cs._failures < cs.MAX_FAILURES and time.monotonic() < deadline:  # noqa: SLF001
        assert cs.call("os:getpid", (), None) == (False, None)
        time.sleep(0.02)
    assert cs._failures == cs.MAX_FAILURES  # noqa: SLF001
    assert jit.compile_ir(IR + "; garbled\n", disk_cache=False).address("f")
