"""A process forked while another thread compiles can still compile and launch (the JIT
lock is not inherited held)."""

from __future__ import annotations

import os
import threading

import numpy as np

import xmux
from tests.test_bad_inputs import VECADD
from xmux.runtime import jit


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
