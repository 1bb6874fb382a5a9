"""The work-group barrier shapes of the CPU suite, on the GPU (target nvptx).

Every shape of tests/test_barriers.py (barriers in loops, under uniform conditions, early
exits, values live across barriers; 1-D/2-D/3-D, local sizes 1 to 256, remainder groups)
and of tests/test_pocl_workgroup_shapes.py (PoCL's and AdaptiveCpp's barrier bugs, barriers
in called functions) runs again with ``target="nvptx"`` against the same numpy models
(issue 36, item 9). A hang is the failure this family found on the GPU, so each test runs
under a watchdog: past ``WATCHDOG_S`` the process prints every thread's stack and exits,
which names the test (pytest-xdist reports its worker's crash) instead of blocking the run.

Skipped without a CUDA device (CI has none); run on the H100/H200 machine.
"""

from __future__ import annotations

import faulthandler

import pytest
import test_barriers
import test_pocl_workgroup_shapes
from test_barriers import test_shape_matches_numpy  # noqa: F401 - collected here on nvptx
from test_pocl_workgroup_shapes import *  # noqa: F403 - every shape, collected here on nvptx

from xmux.runtime import cuda

pytestmark = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")

#: seconds one test may take (compiling included) before the watchdog ends the process
WATCHDOG_S = 60


@pytest.fixture(autouse=True)
def _on_nvptx(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(test_barriers, "TARGET", "nvptx")
    monkeypatch.setattr(test_pocl_workgroup_shapes, "TARGET", "nvptx")
    faulthandler.dump_traceback_later(WATCHDOG_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
