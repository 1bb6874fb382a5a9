"""A process forked while another thread compiles can still compile and launch (the JIT
lock is not inherited held), and no other lock of the runtime is inherited held either
(runtime/forksafe.py), nor an import or LLVM call another thread had under way at the fork
(abi/atfork.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

import xmux
from tests.test_bad_inputs import VECADD
from xmux.runtime import checks, interrupt, jit, pool, tuning


def test_fork_while_the_jit_lock_is_held_elsewhere():
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with jit._lock:
            held.set()
            release.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(30)
    try:
        pid = os.fork()
        if pid == 0:  # the child: compile and launch, exit 0 on the right answer
            code = 1
            try:
                a = np.zeros(64, np.float32)
                xmux.compile(VECADD, cache=False).kernel("add1")(
                    a, global_size=(64,), local_size=(16,), threads=1
                )
                code = 0 if np.all(a == 1) else 2
            finally:
                os._exit(code)
        # a deadlocked child would never exit: wait with a deadline
        for _ in range(600):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            threading.Event().wait(0.1)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            raise AssertionError("the forked child hung on the JIT lock")
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    finally:
        release.set()
        t.join()


def _child_status(pid: int) -> int:
    for _ in range(300):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        threading.Event().wait(0.1)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    raise AssertionError("the forked child hung on an inherited lock")


SPEC = """
spec.specialization_id @d = 1.0 : f32
func.func @scale(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %s = spec.get_scalar "s", @d : f32
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = arith.mulf %x, %s : f32
  memref.store %y, %a[%i] : memref<?xf32>
  func.return
}
"""


def test_fork_while_every_runtime_lock_is_held_elsewhere():
    """Module locks (pool, checks, interrupt) and per-object ones (a program's specialization
    state, a tuner) held by another thread at the fork: the child takes each, specializes
    and launches."""
    prog = xmux.compile(SPEC, cache=False)
    tuner = tuning.BuildTuner([lambda: 1, lambda: 2])
    locks = [pool._pools_lock, pool._native_lock, checks._lock, interrupt._lock,
             prog._spec._lock, tuner._lock]
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        for lk in locks:
            lk.acquire()
        held.set()
        release.wait(30)
        for lk in reversed(locks):
            lk.release()

    t = threading.Thread(target=hold)
    t.start()
    held.wait(30)
    try:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                fresh = [pool._pools_lock, pool._native_lock, checks._lock, interrupt._lock,
                         prog._spec._lock, tuner._lock]
                if all(lk.acquire(timeout=5) for lk in fresh):
                    for lk in fresh:
                        lk.release()
                    a = np.ones(64, np.float32)
                    prog["scale"](a, global_size=(64,), spec_constants={"s": 3.0}, threads=2)
                    code = 0 if np.all(a == 3) else 2
                else:
                    code = 3
            finally:
                os._exit(code)
        status = _child_status(pid)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    finally:
        release.set()
        t.join()



#: a fresh interpreter: a thread compiles (nothing imported yet, no cache) while the main thread
#: forks, first while the compile thread is held inside a lazily imported pass module's import,
#: then while a thread of the compile is held inside an LLVM call (so that the test does not
#: depend on timing), then every 50 ms while the compile goes on; every child compiles and
#: launches on its own
_FORK_DURING_COMPILE = """
import importlib.machinery, json, os, sys, threading, time, warnings
import numpy as np
from llvmlite.binding import ffi
import xmux

warnings.simplefilter("ignore", DeprecationWarning)  # 3.12: fork() with threads running
SOURCE = {source!r}
PAUSED = "xmux.transforms.wi_loops.emit"  # imported by the work-item-loops pass, on first use
inside, forked, parent = threading.Event(), threading.Event(), os.getpid()
armed, in_llvm = threading.Event(), threading.Event()


class PauseInside:
    # holds the compile thread inside PAUSED's import (its module lock taken, the module in
    # sys.modules, its body not run) until the main thread has forked
    def find_spec(self, name, path, target=None):
        if name != PAUSED or os.getpid() != parent or inside.is_set():
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run_body = spec.loader.exec_module

        def exec_module(module):
            inside.set()
            forked.wait(60)
            run_body(module)

        spec.loader.exec_module = exec_module
        return spec


def hold_in_llvm():
    # called by llvmlite with its lock taken, before the LLVM call: the first call of another
    # thread after `armed` lasts a second more; a fork then (the main thread's) waits for it
    if (armed.is_set() and not in_llvm.is_set() and os.getpid() == parent
            and threading.current_thread() is not threading.main_thread()):
        in_llvm.set()
        time.sleep(1)


ffi.register_lock_callback(hold_in_llvm, lambda: None)


def compile_and_run():
    a = np.zeros(64, np.float32)
    xmux.compile(SOURCE, cache=False).kernel("add1")(
        a, global_size=(64,), local_size=(16,), threads=1)
    return bool(np.all(a == 1))


def fork():
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            code = 0 if compile_and_run() else 2
        finally:
            os._exit(code)
    return pid


sys.meta_path.insert(0, PauseInside())
result = []
t = threading.Thread(target=lambda: result.append(compile_and_run()))
t.start()
assert inside.wait(120), "the compile never imported " + PAUSED
pids = [fork()]
forked.set()
armed.set()
assert in_llvm.wait(120), "the compile made no LLVM call"
pids.append(fork())
while t.is_alive() and len(pids) < 6:
    time.sleep(0.05)
    pids.append(fork())
t.join()
deadline, failed = time.monotonic() + {limit}, []
for i, pid in enumerate(pids):
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
                failed.append([i, status])
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            failed.append([i, "hung"])
            break
        time.sleep(0.05)
print(json.dumps({{"parent": result, "forks": len(pids), "failed": failed}}))
"""


def test_fork_while_another_thread_compiles_and_imports():
    """Issue 30 item 8: a child forked while another thread was inside a lazy import (or an
    LLVM call) waited for ever on that module's import lock (or llvmlite's); each child must
    compile and run."""
    script = _FORK_DURING_COMPILE.format(source=VECADD, limit=90)
    # MCJIT loads the object: the ELF loader (the default) makes no LLVM call in this process
    # after the passes, and the fork during one is what this test is for
    r = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[1],
                       env={**os.environ, "XMUX_CACHE": "0", "XMUX_LOADER": "mcjit"},
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["parent"] == [True] and out["forks"] >= 2, out
    assert out["failed"] == [], (out, r.stderr[-3000:])
