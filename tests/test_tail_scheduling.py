"""Vector + scalar tail scheduling (work-item-loops{vector-width=W force-no-tail}).

End to end against numpy: vecadd, saxpy and a kernel whose value crosses a barrier, with
W in {4, 8} and local sizes 1, 3, 7, 13x3, 256 (and remainder groups), each launched twice
(the second launch runs the local-size variant: constant bounds, no tail when the size is a
multiple of W). Also: the loop metadata LLVM sees, force-no-tail's launch check, and the
vector width as part of the compile cache key.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import xmux
from xmux import pipelines
from xmux.errors import LaunchError, XmuxError
from xmux.runtime import jit

VECADD = """
func.func @vecadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_linear_id : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = memref.load %b[%i] : memref<?xf32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %c[%i] : memref<?xf32>
  func.return
}
"""

SAXPY = """
func.func @saxpy(%alpha: f32, %x: memref<?xf32>, %y: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_linear_id : index
  %xv = memref.load %x[%i] : memref<?xf32>
  %yv = memref.load %y[%i] : memref<?xf32>
  %p = arith.mulf %alpha, %xv : f32
  %s = arith.addf %p, %yv : f32
  memref.store %s, %y[%i] : memref<?xf32>
  func.return
}
"""

# b[gid] = t[n - 1 - lid] + 2 a[gid]: the group's values reversed through local memory; the
# loaded %v crosses the barrier (per-work-item storage indexed by the work-item)
REVERSE = """
func.func @reverse(%a: memref<?xf32>, %b: memref<?xf32>, %t: memref<?xf32, 3>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_linear_id : index
  %l = mux.get_local_linear_id : index
  %l0 = mux.get_local_size 0 : index
  %l1 = mux.get_local_size 1 : index
  %l2 = mux.get_local_size 2 : index
  %n01 = arith.muli %l0, %l1 : index
  %n = arith.muli %n01, %l2 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %t[%l] : memref<?xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %c1 = arith.constant 1 : index
  %n1 = arith.subi %n, %c1 : index
  %r = arith.subi %n1, %l : index
  %w = memref.load %t[%r] : memref<?xf32, 3>
  %v2 = arith.addf %v, %v : f32
  %s = arith.addf %w, %v2 : f32
  memref.store %s, %b[%i] : memref<?xf32>
  func.return
}
"""

#: (global size, local size): local sizes 1, 3, 7, 13x3, 256, and remainder groups
LAUNCHES = [
    ((5,), (1,)),
    ((9,), (3,)),
    ((21,), (7,)),
    ((10,), (3,)),  # 3 + 3 + 3 + 1
    ((26, 6), (13, 3)),
    ((30, 3), (13, 3)),  # 13 + 13 + 4 in x
    ((512,), (256,)),
    ((700,), (256,)),  # 256 + 256 + 188
]


def _compile(src: str, width: int, **kw) -> xmux.Program:
    return xmux.compile(src, cache=False, vector_width=width, **kw)


def _groups(gsize, lsize) -> list[np.ndarray]:
    """Global linear ids of each work-group in local-linear-id order (remainder groups have
    their actual size)."""
    g = list(gsize) + [1] * (3 - len(gsize))
    ls = list(lsize) + [1] * (3 - len(lsize))
    out = []
    for gy in range(0, g[1], ls[1]):
        for gx in range(0, g[0], ls[0]):
            ys = range(gy, min(gy + ls[1], g[1]))
            xs = range(gx, min(gx + ls[0], g[0]))
            out.append(np.array([y * g[0] + x for y in ys for x in xs]))
    return out


@pytest.mark.parametrize("width", [4, 8])
@pytest.mark.parametrize(("gsize", "lsize"), LAUNCHES)
def test_vecadd_and_saxpy_match_numpy(width, gsize, lsize):
    n = int(np.prod(gsize))
    rng = np.random.default_rng(n + width)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    vecadd = _compile(VECADD, width)["vecadd"]
    saxpy = _compile(SAXPY, width)["saxpy"]
    for launch in range(2):  # the second one runs the local-size variant
        c = np.full(n, np.nan, np.float32)
        vecadd(a, b, c, global_size=gsize, local_size=lsize)
        np.testing.assert_array_equal(c, a + b, err_msg=f"vecadd launch {launch}")
        y = b.copy()
        saxpy(np.float32(1.5), a, y, global_size=gsize, local_size=lsize)
        np.testing.assert_allclose(y, np.float32(1.5) * a + b, rtol=1e-6)


@pytest.mark.parametrize("width", [4, 8])
@pytest.mark.parametrize(("gsize", "lsize"), LAUNCHES)
def test_barrier_kernel_matches_numpy(width, gsize, lsize):
    n = int(np.prod(gsize))
    a = np.random.default_rng(n).random(n, dtype=np.float32)
    want = np.empty(n, np.float32)
    for ids in _groups(gsize, lsize):
        want[ids] = a[ids][::-1] + 2 * a[ids]
    k = _compile(REVERSE, width)["reverse"]
    for _ in range(2):
        b = np.full(n, np.nan, np.float32)
        k(a, b, xmux.LocalMemory(4 * int(np.prod(lsize))), global_size=gsize, local_size=lsize)
        np.testing.assert_array_equal(b, want)


def test_llvm_loop_metadata_asks_for_width_and_keeps_access_groups_apart():
    prog = _compile(VECADD, 8)
    ir = prog.llvm_ir
    assert ir is not None
    assert re.search(r'!\{ !"llvm\.loop\.vectorize\.width", i32 8 \}', ir)
    assert re.search(r'!\{ !"llvm\.loop\.vectorize\.width", i32 1 \}', ir)
    assert '!"llvm.loop.unroll.disable"' in ir
    # main and tail loop: each latch names its own access group (llvmlite would merge the
    # two empty distinct group nodes if they compared equal)
    groups = re.findall(r'!"llvm\.loop\.parallel_accesses", (!\d+)', ir)
    assert len(groups) == 2 and groups[0] != groups[1], groups
    opt = jit.optimized_ir(ir)
    assert "<8 x float>" in opt
    assert "<4 x float>" in jit.optimized_ir(_compile(VECADD, 4).llvm_ir)


def test_pipeline_spec_and_kernel_info_record_the_schedule():
    spec = pipelines.spec(pipelines.cpu(vector_width=8, force_no_tail=True))
    assert "work-item-loops{vector_width=8 force_no_tail=true}" in spec
    assert "work-item-loops{" not in pipelines.spec(pipelines.cpu())
    info = _compile(VECADD, 8).infos["vecadd"]
    assert (info.vector_width, info.vector_dim, info.vector_tail) == (8, 0, True)
    info = _compile(VECADD, 8, force_no_tail=True).infos["vecadd"]
    assert (info.vector_width, info.vector_tail) == (8, False)
    assert _compile(VECADD, 0).infos["vecadd"].vector_width == 1


def test_force_no_tail_rejects_sizes_that_are_not_multiples():
    k = _compile(VECADD, 8, force_no_tail=True)["vecadd"]
    n = 64
    a = np.arange(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    with pytest.raises(LaunchError, match=r"kernel 'vecadd': local_size in dimension 0 is 12, "
                       r"not a multiple of its vector width 8 \(compiled with force-no-tail"):
        k(a, a, c, global_size=(48,), local_size=(12,))
    with pytest.raises(LaunchError, match=r"the last work-group's size in dimension 0 is 4"):
        k(a, a, c, global_size=(20,), local_size=(8,))
    k(a, a, c, global_size=(n,), local_size=(16,))
    np.testing.assert_array_equal(c, 2 * a)


def test_vector_width_is_part_of_the_cache_key(tmp_path, monkeypatch):
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path))
    plain = xmux.compile(VECADD)
    vec = xmux.compile(VECADD, vector_width=8, force_no_tail=True)
    assert plain.infos["vecadd"].vector_width == 1
    assert vec.infos["vecadd"].vector_width == 8
    hit = xmux.compile(VECADD, vector_width=8, force_no_tail=True)  # warm disk cache
    assert hit.llvm_ir is None  # loaded without xDSL
    a = np.ones(24, np.float32)
    with pytest.raises(LaunchError, match="vector width 8"):
        hit["vecadd"](a, a, a, global_size=(24,), local_size=(12,))


def test_bad_options_are_clear_errors():
    for bad in (-2, 6):
        with pytest.raises(XmuxError, match="vector_width must be 0, 1 or a power of two"):
            xmux.compile(VECADD, vector_width=bad)
    with pytest.raises(XmuxError, match="apply to the default pipeline"):
        xmux.compile(VECADD, pipeline=pipelines.cpu(), vector_width=8)


# every barrier shape of tests/test_barriers.py (structured fission and region dispatch)
from test_barriers import SHAPES  # noqa: E402
from test_barriers import test_shape_matches_numpy as _barrier_shape  # noqa: E402


@pytest.mark.parametrize(("gsize", "lsize"), [((9,), (3,)), ((26, 6), (13, 3)), ((700,), (256,))])
@pytest.mark.parametrize("name", list(SHAPES))
def test_barrier_shapes_with_vector_width(name, gsize, lsize, monkeypatch):
    compile_ = xmux.compile
    monkeypatch.setattr(xmux, "compile", lambda src, **kw: compile_(src, vector_width=4, **kw))
    import test_barriers

    monkeypatch.setattr(test_barriers, "_programs", {})
    _barrier_shape(name, gsize, lsize)
