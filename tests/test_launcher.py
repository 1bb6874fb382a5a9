"""Every input of a launch's replay key (``runtime/launcher.py``, ``LaunchKey``), changed
between two launches, gives the right answer or the right error, never a stale replay.

Each test first settles the kernel (its local-size variant built, the vector-width tuner done)
so that the launch before the change is a replay; ``_replays`` checks that an unchanged launch
still takes the fast path."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest
from test_launch_repeat import SPEC  # the weigh kernel: out = w[0] * x + w[1]

import xmux
from xmux.runtime import launch, tuning

N = 4096
#: launches until a kernel's entry is settled and replayed: the second compiles the
#: local-size variant, then its builds and the generic entry take turns until the tuner has
#: chosen (runtime/tuning.py), the next launch is kept for replay
SETTLE = 3 + tuning.launches_to_settle(len(tuning.variant_builds()))

DIV = """
func.func @div(%alpha: f32, %x: memref<?xf32>, %out: memref<?xf32>, %n: i32)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %xi = memref.load %x[%i] : memref<?xf32>
  %q = arith.divf %xi, %alpha : f32
  %ni = arith.sitofp %n : i32 to f32
  %r = arith.addf %q, %ni : f32
  memref.store %r, %out[%i] : memref<?xf32>
  func.return
}
"""

TWICE_2D = """
func.func @twice(%a: memref<?x?xf32>, %out: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %v = memref.load %a[%y, %x] : memref<?x?xf32>
  %r = arith.addf %v, %v : f32
  memref.store %r, %out[%y, %x] : memref<?x?xf32>
  func.return
}
"""

STRIDED = """
func.func @twice(%a: memref<?xf32, strided<[?], offset: ?>>, %out: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32, strided<[?], offset: ?>>
  %r = arith.addf %v, %v : f32
  memref.store %r, %out[%i] : memref<?xf32>
  func.return
}
"""

#: out[global id] = global id * 1000 + local size (offset and local size show in the result)
IDS = """
func.func @ids(%out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_size 0 : index
  %k = arith.constant 1000 : index
  %m = arith.muli %i, %k : index
  %s = arith.addi %m, %l : index
  %si = arith.index_cast %s : index to i64
  %f = arith.sitofp %si : i64 to f32
  memref.store %f, %out[%i] : memref<?xf32>
  func.return
}
"""

LOCAL = """
func.func @fill(%tmp: memref<?xf32, 3>, %out: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %out[%i] : memref<?xf32>
  func.return
}
"""

def _settle(k, *args, **kw) -> None:
    for _ in range(SETTLE):
        k(*args, **kw)
    _replays(k, *args, **kw)


def _replays(k, *args, **kw) -> None:
    """The launch, unchanged, is a replay (no new one is made)."""
    replay = k._launcher.replay
    assert replay is not None
    k(*args, **kw)
    assert k._launcher.replay is replay


@pytest.fixture(scope="module")
def div():
    return xmux.compile(DIV, cache=False)["div"]


def _div_args() -> tuple:
    x = np.arange(1, N + 1, dtype=np.float32)
    return np.float32(2.0), x, np.zeros(N, np.float32), np.int32(1)


def test_dtype_of_a_new_array_and_reassigned_in_place(div) -> None:
    alpha, x, out, n = _div_args()
    sizes = {"global_size": (N,), "local_size": (64,)}
    _settle(div, alpha, x, out, n, **sizes)
    with pytest.raises(xmux.LaunchError, match="expected dtype float32, got float64"):
        div(alpha, x.astype(np.float64), out, n, **sizes)
    x.dtype = np.int32  # same object, shape and strides: only the dtype object tells
    with pytest.raises(xmux.LaunchError, match="expected dtype float32, got int32"):
        div(alpha, x, out, n, **sizes)
    out.dtype = np.int32
    x.dtype = np.float32
    with pytest.raises(xmux.LaunchError, match="argument 2 .*expected dtype float32"):
        div(alpha, x, out, n, **sizes)
    out.dtype = np.float32
    out[:] = 0
    div(alpha, x, out, n, **sizes)
    np.testing.assert_array_equal(out, x / 2 + 1)


def test_scalar_value_and_type(div) -> None:
    alpha, x, out, n = _div_args()
    sizes = {"global_size": (N,), "local_size": (64,)}
    _settle(div, alpha, x, out, n, **sizes)
    div(np.float32(4.0), x, out, n, **sizes)
    np.testing.assert_array_equal(out, x / 4 + 1)
    div(4, x, out, 3, **sizes)  # Python ints: the values as floats / i32
    np.testing.assert_array_equal(out, x / 4 + 3)
    _settle(div, 0.0, x, out, 0, **sizes)
    np.testing.assert_array_equal(out, np.inf)
    div(-0.0, x, out, 0, **sizes)  # equal to 0.0, not the same value
    np.testing.assert_array_equal(out, -np.inf)
    _settle(div, 2.0, x, out, 7, **sizes)
    with pytest.raises(xmux.LaunchError, match="expected an integer"):
        div(2.0, x, out, 7.0, **sizes)  # 7.0 == 7, but an i32 takes no float
    with pytest.raises(xmux.LaunchError, match="does not fit in int32"):
        div(2.0, x, out, 1 << 40, **sizes)
    div(2.0, x, out, np.int32(7), **sizes)
    np.testing.assert_array_equal(out, x / 2 + 7)


def test_zero_d_array_for_a_scalar(div) -> None:
    """A 0-d array is no i32 (an i1 takes one: ``test_launch_repeat``, changed in place)."""
    alpha, x, out, n = _div_args()
    sizes = {"global_size": (N,), "local_size": (64,)}
    _settle(div, alpha, x, out, n, **sizes)
    with pytest.raises(xmux.LaunchError, match="expected an integer"):
        div(alpha, x, out, np.array(n), **sizes)


def test_array_identity(div) -> None:
    alpha, x, out, n = _div_args()
    sizes = {"global_size": (N,), "local_size": (64,)}
    _settle(div, alpha, x, out, n, **sizes)
    y = x * 3  # a new array of the same shape and strides
    div(alpha, y, out, n, **sizes)
    np.testing.assert_array_equal(out, y / 2 + 1)
    out2 = np.zeros(N, np.float32)
    div(alpha, y, out2, n, **sizes)
    np.testing.assert_array_equal(out2, y / 2 + 1)
    del y  # a dead array never matches, even if a new one gets its address
    gc.collect()
    z = np.full(N, 8.0, np.float32)
    div(alpha, z, out2, n, **sizes)
    np.testing.assert_array_equal(out2, 5.0)


def test_the_data_pointer_is_pinned_while_a_replay_holds_the_array(div) -> None:
    """numpy cannot move the data of an array with a weak reference: the key's identity
    check covers its data pointer."""
    alpha, x, out, n = _div_args()
    _settle(div, alpha, x, out, n, global_size=(N,), local_size=(64,))
    for refcheck in (True, False):
        with pytest.raises(ValueError, match="cannot resize"):
            x.resize(2 * N, refcheck=refcheck)


def test_writeable_flag_is_not_an_input(div) -> None:
    alpha, x, out, n = _div_args()
    sizes = {"global_size": (N,), "local_size": (64,)}
    x.flags.writeable = False  # an input may be read-only
    _settle(div, alpha, x, out, n, **sizes)
    x.flags.writeable = True
    x[:] = 4
    _replays(div, alpha, x, out, n, **sizes)
    np.testing.assert_array_equal(out, 3.0)


def test_shape_changed_in_place() -> None:
    """Same objects, same sizes: the new shape moves every row but the first."""
    k = xmux.compile(TWICE_2D, cache=False)["twice"]
    a = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    out = np.zeros((8, 16), np.float32)
    sizes = {"global_size": (8, 8), "local_size": (4, 4)}
    _settle(k, a, out, **sizes)
    np.testing.assert_array_equal(out[:, :8], 2 * a[:, :8])
    a.shape = out.shape = (16, 8)
    out[:] = 0
    k(a, out, **sizes)
    np.testing.assert_array_equal(out[:8], 2 * a[:8])
    with pytest.raises(xmux.LaunchError, match="expected rank 2"):
        k(a.reshape(-1), out, **sizes)


def test_strides_of_a_strided_memref() -> None:
    k = xmux.compile(STRIDED, cache=False)["twice"]
    base = np.arange(2 * N, dtype=np.float32)
    out = np.zeros(N, np.float32)
    sizes = {"global_size": (N,), "local_size": (64,)}
    contiguous = base[:N]
    _settle(k, contiguous, out, **sizes)
    k(base[::2], out, **sizes)  # a non-contiguous view of the same shape
    np.testing.assert_array_equal(out, 2 * base[::2])
    _settle(k, base[::2], out, **sizes)
    fresh = np.ascontiguousarray(base[N:])  # back to a contiguous array of that shape
    k(fresh, out, **sizes)
    np.testing.assert_array_equal(out, 2 * fresh)
    _settle(k, contiguous, out, **sizes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # numpy >= 2.4
        contiguous.strides = (8,)  # the same object, now every other element
    k(contiguous, out, **sizes)
    np.testing.assert_array_equal(out, 2 * base[::2])


def test_identity_layout_rejects_a_view_after_replays(div) -> None:
    alpha, x, out, n = _div_args()
    sizes = {"global_size": (N // 2,), "local_size": (64,)}
    _settle(div, alpha, x[: N // 2], out, n, **sizes)
    with pytest.raises(xmux.LaunchError, match="not C-contiguous"):
        div(alpha, x[::2], out, n, **sizes)


def test_global_local_and_offset_sizes() -> None:
    k = xmux.compile(IDS, cache=False)["ids"]
    out = np.zeros(N, np.float32)
    ids = np.arange(N, dtype=np.float32) * 1000
    _settle(k, out, global_size=(N,), local_size=(64,))
    np.testing.assert_array_equal(out, ids + 64)
    k(out, global_size=(N,), local_size=(32,))
    np.testing.assert_array_equal(out, ids + 32)
    out[:] = 0
    k(out, global_size=(N // 2,), local_size=(32,))
    np.testing.assert_array_equal(out[: N // 2], ids[: N // 2] + 32)
    np.testing.assert_array_equal(out[N // 2 :], 0)
    _settle(k, out, global_size=(N // 2,), local_size=(32,), global_offset=(0,))
    out[:] = 0
    k(out, global_size=(N // 2,), local_size=(32,), global_offset=(N // 2,))
    np.testing.assert_array_equal(out[N // 2 :], ids[N // 2 :] + 32)
    np.testing.assert_array_equal(out[: N // 2], 0)


def test_sizes_in_a_list_changed_in_place() -> None:
    k = xmux.compile(IDS, cache=False)["ids"]
    out = np.zeros(N, np.float32)
    gs, ls = [N], [64]
    _settle(k, out, global_size=gs, local_size=ls)
    gs[0] = N // 2
    ls[0] = 16
    out[:] = 0
    k(out, global_size=gs, local_size=ls)
    ids = np.arange(N // 2, dtype=np.float32) * 1000
    np.testing.assert_array_equal(out[: N // 2], ids + 16)
    np.testing.assert_array_equal(out[N // 2 :], 0)
    # the list, unchanged, replays once the new local size's variant is built (the second
    # launch at a local size builds it; on a host that tunes vector widths, sampling follows)
    _settle(k, out, global_size=gs, local_size=ls)


@pytest.fixture
def pool_runs(monkeypatch) -> list[int]:
    """The thread counts of the launches that ran on the thread pool."""
    runs: list[int] = []
    real = launch._run_on_pool

    def spy(address, packed, nd, threads, rows=None):  # noqa: ANN001, ANN202
        runs.append(threads)
        return real(address, packed, nd, threads, rows)

    monkeypatch.setattr(launch, "_run_on_pool", spy)
    return runs


def test_threads_of_the_call_and_of_the_program(pool_runs: list[int]) -> None:
    prog = xmux.compile(DIV, cache=False)
    k = prog["div"]
    alpha, x, out, n = _div_args()
    sizes = {"global_size": (N,), "local_size": (64,)}
    _settle(k, alpha, x, out, n, threads=1, **sizes)
    assert pool_runs == []  # one thread: on the calling thread
    replay = k._launcher.replay
    k(alpha, x, out, n, threads=2, **sizes)  # on the pool or, as its tuner says, inline
    assert pool_runs in ([], [2])
    assert k._launcher.replay is not replay and k._launcher.replay.key.threads == 2
    prog.threads = 1
    _settle(k, alpha, x, out, n, **sizes)
    assert k._launcher.replay.key.threads == 1
    replay = k._launcher.replay
    prog.threads = 2
    k(alpha, x, out, n, **sizes)
    assert k._launcher.replay is not replay and k._launcher.replay.key.threads == 2
    np.testing.assert_array_equal(out, x / 2 + 1)


def test_local_memory_size_and_its_type() -> None:
    k = xmux.compile(LOCAL, cache=False)["fill"]
    out = np.zeros(N, np.float32)
    sizes = {"global_size": (N,), "local_size": (64,)}
    _settle(k, xmux.LocalMemory(256), out, **sizes)
    with pytest.raises(xmux.LaunchError, match="positive number of bytes"):
        k(xmux.LocalMemory(256.0), out, **sizes)  # == LocalMemory(256), but not a size
    with pytest.raises(xmux.LaunchError, match="not a multiple"):
        k(xmux.LocalMemory(6), out, **sizes)
    _replays(k, xmux.LocalMemory(256), out, **sizes)  # an equal one replays


@pytest.mark.parametrize("mode", ["native", "emulated"])
def test_spec_values_per_launch_and_set(mode: str) -> None:
    prog = xmux.compile(SPEC, cache=False, spec_constants=mode)
    k = prog["weigh"]
    x = np.arange(N, dtype=np.float32)
    out = np.zeros(N, np.float32)
    sizes = {"global_size": (N,), "local_size": (64,)}
    _settle(k, x, out, **sizes)  # the defaults
    np.testing.assert_array_equal(out, x + 2)
    w = np.array([3.0, 1.0], np.float32)
    _settle(k, x, out, spec_constants={"w": w}, **sizes)
    np.testing.assert_array_equal(out, 3 * x + 1)
    w[0] = 4.0  # the same array, new contents
    k(x, out, spec_constants={"w": w}, **sizes)
    np.testing.assert_array_equal(out, 4 * x + 1)
    k(x, out, **sizes)  # no call values: the program's (the defaults)
    np.testing.assert_array_equal(out, x + 2)
    _settle(k, x, out, **sizes)
    prog.set_spec_constant("w", (0.5, 0.0))
    k(x, out, **sizes)
    np.testing.assert_array_equal(out, 0.5 * x)
    _settle(k, x, out, **sizes)
    prog.set_spec_constant("w", (0.25, 1.0))
    k(x, out, **sizes)
    np.testing.assert_array_equal(out, 0.25 * x + 1)
    with pytest.raises(xmux.XmuxError, match="specialization constant 'w'"):
        k(x, out, spec_constants={"w": [1.0, 2.0, 3.0]}, **sizes)
    with pytest.raises(xmux.XmuxError, match="unknown"):
        k(x, out, spec_constants={"nope": 1.0}, **sizes)
    k(x, out, **sizes)
    np.testing.assert_array_equal(out, 0.25 * x + 1)


def test_spec_values_rejected_without_constants(div) -> None:
    alpha, x, out, n = _div_args()
    sizes = {"global_size": (N,), "local_size": (64,)}
    _settle(div, alpha, x, out, n, **sizes)
    with pytest.raises(xmux.XmuxError, match="has none"):
        div(alpha, x, out, n, spec_constants={"w": 1.0}, **sizes)
    _replays(div, alpha, x, out, n, spec_constants={}, **sizes)
