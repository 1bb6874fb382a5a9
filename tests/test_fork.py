"""A process forked while another thread compiles can still compile and launch (the JIT
lock is not inherited held), and no other lock of the runtime is inherited held either
(runtime/forksafe.py)."""

from __future__ import annotations

import os
import threading

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
