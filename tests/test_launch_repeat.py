"""A relaunch with the same arguments replays the previous launch's packed arguments
(``runtime/launcher.py``: ``KernelLauncher``, ``Replay``); anything that could change what
the kernel sees packs again (every input of the key: ``tests/test_launcher.py``)."""

from __future__ import annotations

import gc
import time

import numpy as np
import pytest

import xmux
from xmux.runtime import tuning

AXPB = """
func.func @axpb(%alpha: f32, %x: memref<?xf32>, %out: memref<?xf32>, %n: i32)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %xi = memref.load %x[%i] : memref<?xf32>
  %ax = arith.mulf %alpha, %xi : f32
  %ni = arith.sitofp %n : i32 to f32
  %r = arith.addf %ax, %ni : f32
  memref.store %r, %out[%i] : memref<?xf32>
  func.return
}
"""

N = 4096
#: launches until a kernel's entry is settled and replayed: the second compiles the
#: local-size variant, then its builds and the generic entry take turns until the tuner has
#: chosen (runtime/tuning.py), the next launch is kept for replay
SETTLE = 3 + tuning.launches_to_settle(len(tuning.variant_builds()))


@pytest.fixture(scope="module")
def axpb():
    return xmux.compile(AXPB, cache=False)["axpb"]


def _launch(k, *args, n=N, **kw) -> None:
    k(*args, global_size=(n,), local_size=(64,), **kw)


def test_repeated_launches_see_new_scalars_and_data(axpb) -> None:
    x = np.arange(N, dtype=np.float32)
    out = np.zeros(N, np.float32)
    for step in range(SETTLE):
        _launch(axpb, np.float32(step), x, out, np.int32(step + 1))
        np.testing.assert_array_equal(out, step * x + step + 1)
    x[:] = 7  # same array, new contents: the kernel reads them
    _launch(axpb, np.float32(2), x, out, np.int32(1))
    np.testing.assert_array_equal(out, np.full(N, 15, np.float32))
    assert axpb._launcher.replay is not None


FLAG = """
func.func @flag(%f: i1, %out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %v = arith.select %f, %one, %zero : f32
  memref.store %v, %out[%i] : memref<?xf32>
  func.return
}
"""


def test_zero_d_scalar_changed_in_place() -> None:
    """A 0-d array passed for an i1 argument may change between launches: packed again."""
    k = xmux.compile(FLAG, cache=False)["flag"]
    flag = np.array(True)
    out = np.zeros(N, np.float32)
    for _ in range(SETTLE):
        _launch(k, flag, out)
    assert k._launcher.replay is not None
    np.testing.assert_array_equal(out, np.ones(N, np.float32))
    flag[...] = False
    _launch(k, flag, out)
    np.testing.assert_array_equal(out, np.zeros(N, np.float32))


def test_reshaped_or_new_arrays_pack_again(axpb) -> None:
    x = np.arange(N, dtype=np.float32)
    out = np.zeros(N, np.float32)
    for _ in range(SETTLE):
        _launch(axpb, 1.0, x, out, 0)
    assert axpb._launcher.replay is not None
    x2 = x[::2]  # a different array object over the same memory
    out2 = np.zeros(N // 2, np.float32)
    _launch(axpb, 1.0, np.ascontiguousarray(x2), out2, 0, n=N // 2)
    np.testing.assert_array_equal(out2, x2)
    out.shape = (N,)  # same object and shape: replays
    _launch(axpb, 1.0, x, out, 0)
    np.testing.assert_array_equal(out, x)
    # a dead array never matches, even if a new one gets its address
    del x
    gc.collect()
    y = np.full(N, 3.0, np.float32)
    _launch(axpb, 1.0, y, out, 0)
    np.testing.assert_array_equal(out, y)


def test_checks_still_apply_after_repeats(axpb) -> None:
    x = np.ones(N, np.float32)
    out = np.zeros(N, np.float32)
    for _ in range(SETTLE):
        _launch(axpb, 1.0, x, out, 0)
    assert axpb._launcher.replay is not None
    with pytest.raises(xmux.LaunchError, match="expected dtype float32"):
        _launch(axpb, 1.0, x.astype(np.float64), out, 0)
    with pytest.raises(xmux.LaunchError, match="does not fit in int32"):
        _launch(axpb, 1.0, x, out, 1 << 40)


SPEC = """
spec.specialization_id @w_default = [1.0 : f32, 2.0 : f32] : !llvm.array<2 x f32>
func.func @weigh(%x: memref<?xf32>, %out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %w = spec.get_composite "w", @w_default : !llvm.array<2 x f32>
  %w0 = llvm.extractvalue %w[0] : !llvm.array<2 x f32>
  %w1 = llvm.extractvalue %w[1] : !llvm.array<2 x f32>
  %v = memref.load %x[%i] : memref<?xf32>
  %m = arith.mulf %v, %w0 : f32
  %r = arith.addf %m, %w1 : f32
  memref.store %r, %out[%i] : memref<?xf32>
  func.return
}
"""


@pytest.mark.parametrize("mode", ["native", "emulated"])
def test_spec_constant_launches_replay_only_with_the_same_values(mode: str) -> None:
    """With specialization constants the values are resolved on every launch: the same value
    set replays the launch; new call values, a changed array (the same object) or a new
    program-wide value run with the new values; a bad value still raises."""
    prog = xmux.compile(SPEC, cache=False, spec_constants=mode)
    k = prog["weigh"]
    x = np.arange(N, dtype=np.float32)
    out = np.zeros(N, np.float32)
    w = np.array([3.0, 1.0], np.float32)
    for _ in range(SETTLE):
        _launch(k, x, out, spec_constants={"w": w})
        np.testing.assert_array_equal(out, 3 * x + 1)
    assert k._launcher.replay is not None
    replay = k._launcher.replay
    _launch(k, x, out, spec_constants={"w": w})
    assert k._launcher.replay is replay  # replayed: nothing packed again
    w[1] = 5.0  # the same array, new contents
    _launch(k, x, out, spec_constants={"w": w})
    np.testing.assert_array_equal(out, 3 * x + 5)
    prog.set_spec_constant("w", [0.5, 0.0])
    _launch(k, x, out)
    np.testing.assert_array_equal(out, 0.5 * x)
    _launch(k, x, out, spec_constants={"w": w})  # the call's values win over the program's
    np.testing.assert_array_equal(out, 3 * x + 5)
    with pytest.raises(xmux.XmuxError, match="specialization constant 'w'"):
        _launch(k, x, out, spec_constants={"w": [1.0, 2.0, 3.0]})


@pytest.mark.parametrize("spec", [False, True])
def test_profile_returns_the_kernel_span_on_every_path(axpb, spec: bool) -> None:
    """``profile=True`` returns start/end timestamps around the pool hand-off and join, on
    the full path and on replays; within the call's own wall time; None without it."""
    k = xmux.compile(SPEC, cache=False)["weigh"] if spec else axpb
    x = np.arange(N, dtype=np.float32)
    out = np.zeros(N, np.float32)
    args = (x, out) if spec else (np.float32(1.0), x, out, np.int32(0))
    kw = {"spec_constants": {"w": [1.0, 0.0]}} if spec else {}
    for _ in range(SETTLE + 2):
        before = time.perf_counter()
        p = k(*args, global_size=(N,), local_size=(64,), profile=True, **kw)
        after = time.perf_counter()
        assert isinstance(p, xmux.LaunchProfile)
        assert before <= p.start <= p.end <= after and p.seconds == p.end - p.start
        np.testing.assert_array_equal(out, x)
    assert k._launcher.replay is not None  # the last ones were replays
    assert k(*args, global_size=(N,), local_size=(64,), **kw) is None
