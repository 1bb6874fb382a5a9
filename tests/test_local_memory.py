"""Work-group local memory: local-memory kernel arguments (``xmux.LocalMemory``), their sizes
and errors, and the work-group size limit of kernels with work-group collectives."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux import api
from xmux.errors import LaunchError, NotSupportedError
from xmux.runtime import launch
from xmux.transforms.lower_work_group_collectives import MAX_WORK_GROUP_SIZE

# Each work-item writes 2·a[i] to tmp[lid, 3], reads it back into o[i], and records the
# buffer's dynamic size (memref.dim) and the buffer address seen by its group.
ECHO = """
func.func @echo(%a: memref<?xf32>, %tmp: memref<?x4xf32, 3>, %o: memref<?xf32>,
                %d: memref<?xindex>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = arith.addf %x, %x : f32
  memref.store %y, %tmp[%l, %c3] : memref<?x4xf32, 3>
  %z = memref.load %tmp[%l, %c3] : memref<?x4xf32, 3>
  memref.store %z, %o[%i] : memref<?xf32>
  %n = memref.dim %tmp, %c0 : memref<?x4xf32, 3>
  memref.store %n, %d[%i] : memref<?xindex>
  func.return
}
"""

# Static local shape; one work-item per group: tmp[0] = group id, then (no barrier needed for a
# single work-item) read back after some arithmetic. Buffers shared between concurrently
# running groups would mix ids.
STATIC = """
func.func @static(%tmp: memref<16xi64, 3>, %o: memref<?xi64>)
    attributes {mux.kernel = "entry_point"} {
  %g = mux.get_group_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %gi = arith.index_cast %g : index to i64
  scf.for %k = %c0 to %c16 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %v = arith.addi %gi, %ki : i64
    memref.store %v, %tmp[%k] : memref<16xi64, 3>
  }
  %s = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %gi) -> (i64) {
    %v = memref.load %tmp[%k] : memref<16xi64, 3>
    %t = arith.addi %acc, %v : i64
    scf.yield %t : i64
  }
  memref.store %s, %o[%g] : memref<?xi64>
  func.return
}
"""


@pytest.fixture(scope="module")
def echo():
    return xmux.compile(ECHO, cache=False).kernel("echo")


def test_local_argument_metadata(echo):
    info = echo.info.args[1]
    assert (info.kind, info.dtype, info.shape) == ("local", "float32", [None, 4])


@pytest.mark.parametrize("n,local,rows", [(4096, 64, 64), (1000, 8, 8), (13, 13, 100), (7, 1, 1)])
def test_local_argument_shape_and_data(echo, n, local, rows):
    a = np.arange(n, dtype=np.float32) - 3
    o = np.zeros_like(a)
    d = np.zeros(n, np.int64)
    echo(a, xmux.LocalMemory(rows * 16), o, d, global_size=n, local_size=local)
    np.testing.assert_array_equal(o, 2 * a)
    assert set(d.tolist()) == {rows}


def test_static_local_argument_per_group():
    k = xmux.compile(STATIC, cache=False).kernel("static")
    groups = 5000
    o = np.zeros(groups, np.int64)
    g = np.arange(groups, dtype=np.int64)
    want = g + 16 * g + 120
    for mem in (xmux.LocalMemory(), xmux.LocalMemory(128)):
        o[:] = 0
        k(mem, o, global_size=groups, local_size=1, threads=2)
        np.testing.assert_array_equal(o, want)


@pytest.mark.parametrize(
    "value,match",
    [
        (64, r"argument 1 \('tmp'\) is work-group local memory \(float32, shape \[\?, 4\]\): "
             r"pass xmux.LocalMemory\(nbytes\), got int"),
        (np.zeros(16, np.float32), "pass xmux.LocalMemory.*got ndarray"),
        (xmux.LocalMemory(10), "10 bytes is not a multiple of 16 bytes"),
        (xmux.LocalMemory(0), "LocalMemory needs a positive number of bytes, got 0"),
        (xmux.LocalMemory(-16), "positive number of bytes, got -16"),
        (xmux.LocalMemory(16.0), "positive number of bytes, got 16.0"),
        (xmux.LocalMemory(), r"its shape \[None, 4\] is dynamic; pass LocalMemory\(nbytes\)"),
        (xmux.LocalMemory(2 << 20), "take 2097152 bytes per work-group, more than the 1048576"),
    ],
)
def test_bad_local_argument(echo, value, match):
    a = np.zeros(64, np.float32)
    d = np.zeros(64, np.int64)
    with pytest.raises(LaunchError, match=match):
        echo(a, value, a.copy(), d, global_size=64, local_size=8)


def test_static_local_argument_size_mismatch():
    k = xmux.compile(STATIC, cache=False).kernel("static")
    with pytest.raises(LaunchError, match=r"shape \[16\] of int64 takes 128 bytes, LocalMemory "
                                          "asks for 64"):
        k(xmux.LocalMemory(64), np.zeros(4, np.int64), global_size=4, local_size=1)


@pytest.mark.parametrize(
    "arg_type,match",
    [
        ("memref<?x?xf32, 3>", "may have one dynamic dimension at most"),
        ("memref<?xf32, strided<[2]>, 3>", "must have an identity layout"),
    ],
)
def test_unsupported_local_argument_types(arg_type, match):
    src = f"""
    func.func @k(%t: {arg_type}) attributes {{mux.kernel = "entry_point"}} {{
      func.return
    }}
    """
    with pytest.raises(NotSupportedError, match=rf"kernel 'k' argument 0 \('t'\).*{match}"):
        api.kernel_infos(api.parse(src))


COLLECTIVE = """
func.func @helper(%x: i32) -> i32 {
  %r = mux.work_group_reduce add %x : i32
  func.return %r : i32
}
func.func @via_helper(%x: i32) attributes {mux.kernel = "entry_point"} {
  %r = func.call @helper(%x) : (i32) -> i32
  func.return
}
func.func @sized(%x: i32) attributes {mux.kernel = "entry_point",
                                       mux.reqd_work_group_size = array<i64: 2048, 1, 1>} {
  %r = mux.work_group_scan_inclusive add %x : i32
  func.return
}
func.func @plain(%x: i32) attributes {mux.kernel = "entry_point"} {
  func.return
}
"""


def test_collective_kernels_record_their_work_group_limit():
    infos = {i.name: i for i in api.kernel_infos(api.parse(COLLECTIVE))}
    assert infos["via_helper"].max_work_group_size == MAX_WORK_GROUP_SIZE
    assert infos["sized"].max_work_group_size is None  # its storage fits the required size
    assert infos["plain"].max_work_group_size is None


def test_launch_refuses_groups_above_the_collective_limit():
    ok = launch.NDRange("k", (4096,), (1024,), None, None, max_work_group_size=1024)
    assert ok.local_size == (1024, 1, 1)
    with pytest.raises(LaunchError, match=r"kernel 'k': local_size \[64, 32\] has 2048 "
                                          "work-items; its work-group collectives support at "
                                          "most 1024 without a reqd_work_group_size"):
        launch.NDRange("k", (64, 64), (64, 32), None, None, max_work_group_size=1024)


# Tree reduction through a local-memory argument: log2(local size) halving steps with a
# barrier each; work-item 0 writes the group's sum.
TREE = """
func.func @tree(%a: memref<?xf32>, %tmp: memref<?xf32, 3>, %sums: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %n = mux.get_local_size 0 : index
  %g = mux.get_group_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  memref.store %x, %tmp[%l] : memref<?xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half0 = arith.divui %n, %c2 : index
  %r = scf.while (%h = %half0) : (index) -> index {
    %more = arith.cmpi ugt, %h, %c0 : index
    scf.condition(%more) %h : index
  } do {
  ^bb0(%h: index):
    %act = arith.cmpi ult, %l, %h : index
    scf.if %act {
      %j = arith.addi %l, %h : index
      %u = memref.load %tmp[%l] : memref<?xf32, 3>
      %v = memref.load %tmp[%j] : memref<?xf32, 3>
      %w = arith.addf %u, %v : f32
      memref.store %w, %tmp[%l] : memref<?xf32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %next = arith.divui %h, %c2 : index
    scf.yield %next : index
  }
  %first = arith.cmpi eq, %l, %c0 : index
  scf.if %first {
    %s = memref.load %tmp[%c0] : memref<?xf32, 3>
    memref.store %s, %sums[%g] : memref<?xf32>
  }
  func.return
}
"""


@pytest.mark.parametrize("local", [1, 2, 8, 64, 256])
def test_tree_reduction_in_a_local_argument(local):
    k = xmux.compile(TREE, cache=False).kernel("tree")
    n = 256 * 64
    a = np.random.default_rng(local).integers(-8, 8, n).astype(np.float32)
    sums = np.zeros(n // local, np.float32)
    k(a, xmux.LocalMemory(local * 4), sums, global_size=n, local_size=local, threads=2)
    np.testing.assert_array_equal(sums, a.reshape(-1, local).sum(1))


HOST_MAIN = """
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  %g = arith.constant 16 : index
  %wg = arith.constant 64 : index
  %x = memref.alloc(%n) : memref<?xf32>
  %s = memref.alloc(%g) : memref<?xf32>
  %t = memref.alloc(%wg) : memref<?xf32, 3>
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %x[%i] : memref<?xf32>
  }
  mux.launch @tree(%x, %t, %s) global_size(%n) local_size(%wg)
      : (memref<?xf32>, memref<?xf32, 3>, memref<?xf32>)
  %u = "memref.cast"(%s) : (memref<?xf32>) -> memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  func.return
}
func.func private @printMemrefF32(memref<*xf32>)
"""


def test_local_argument_from_host_code(capfd):
    """xmux-run: host code passes a memref in memory space 3; only its shape counts."""
    from xmux.runner import HostProgram

    HostProgram(TREE + HOST_MAIN).run_main()
    out = capfd.readouterr().out
    sums = [float(v) for v in out.split("data =")[1].strip(" \n[]").split(",")]
    np.testing.assert_array_equal(sums, np.arange(1024).reshape(16, 64).sum(1))


CFG_LOCAL = """
"memref.global"() <{sym_name = "tile", type = memref<4xi32, 3>, sym_visibility = "private",
                    initial_value}> : () -> ()
func.func @k(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  cf.br ^bb1
^bb1:
  %lid = mux.get_local_linear_id : index
  %gid = mux.get_global_linear_id : index
  %t = memref.get_global @tile : memref<4xi32, 3>
  %x = arith.index_cast %lid : index to i32
  %c3 = arith.constant 3 : i32
  %x3 = arith.muli %x, %c3 : i32
  memref.store %x3, %t[%lid] : memref<4xi32, 3>
  %y = memref.load %t[%lid] : memref<4xi32, 3>
  memref.store %y, %out[%gid] : memref<?xi32>
  func.return
}
"""


def test_local_global_in_a_barrier_free_cfg_body():
    """The outlined multi-block body gets the local struct pointer (it crashed at compile:
    fuzz finding C1)."""
    out = np.zeros(10, np.int32)
    xmux.compile(CFG_LOCAL, cache=False).kernel("k")(out, global_size=(10,), local_size=(4,))
    np.testing.assert_array_equal(out, 3 * (np.arange(10) % 4))


OVERFLOW = """
"memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<16xf32, 3>,
                    initial_value}> : () -> ()
func.func @k(%out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %lid = mux.get_local_id 0 : index
  %gid = mux.get_global_id 0 : index
  %c2 = arith.constant 2 : index
  %t = memref.get_global @tile : memref<16xf32, 3>
  %i = arith.addi %lid, %c2 : index
  %f = arith.constant 1.0 : f32
  // true at run time, but not provably: the launch is not refused up front
  %c0 = arith.constant 0 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  %always = arith.cmpi ult, %gid, %n : index
  scf.if %always {
    memref.store %f, %t[%i] : memref<16xf32, 3>
  }
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %v = memref.load %t[%lid] : memref<16xf32, 3>
  memref.store %v, %out[%gid] : memref<?xf32>
  func.return
}
"""


def test_a_local_overflow_cannot_wedge_the_runtime() -> None:
    """tile[lid + 2] of a 16-element tile, without checks: undefined, but the local-size
    variant of the second launch spun forever (the overflow hit the work-item loops' state on
    the worker's stack). With guard space around local memory every launch returns."""
    import subprocess
    import sys

    code = f"""
import numpy as np, xmux
k = xmux.compile({OVERFLOW!r}, cache=False)["k"]
out = np.zeros(64, np.float32)
for _ in range(4):
    k(out, global_size=(64,), local_size=(16,))
print("ok", out[2:16].tolist() == [1.0] * 14)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "True"]


# A 16x16 tile transposed through local memory: written for local sizes up to 16x16.
TRANSPOSE_TILE = """
"memref.global"() <{sym_name = "tile", type = memref<16x16xf32, 3>,
                    sym_visibility = "private", initial_value}> : () -> ()
func.func @tr(%a: memref<?x?xf32>, %o: memref<?x?xf32>) attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %t = memref.get_global @tile : memref<16x16xf32, 3>
  %v = memref.load %a[%y, %x] : memref<?x?xf32>
  memref.store %v, %t[%ly, %lx] : memref<16x16xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %w = memref.load %t[%lx, %ly] : memref<16x16xf32, 3>
  memref.store %w, %o[%y, %x] : memref<?x?xf32>
  func.return
}
"""

TARGETS = [
    "cpu",
    pytest.param("nvptx", marks=pytest.mark.skipif(
        not __import__("xmux.runtime.cuda").runtime.cuda.available(), reason="no CUDA")),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("checks", [False, True])
def test_a_local_size_larger_than_the_tile_is_refused_before_it_runs(target, checks) -> None:
    # issue 36, item 3: launched 64x64, every work-item past 16 writes outside the tile
    # (silently wrong without checks, or a crash; thousands of reports with them)
    prog = xmux.compile(TRANSPOSE_TILE, target=target, checks=checks, cache=False)
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    o = np.zeros_like(a)
    with pytest.raises(LaunchError, match=r"kernel 'tr': local_size \[64, 64\] is larger than "
                       r"the kernel's local memory was written for: global @tile .* at most 16"):
        prog["tr"](a, o, global_size=(64, 64), local_size=(64, 64))
    assert not o.any()  # nothing ran
    prog["tr"](a, o, global_size=(64, 64), local_size=(16, 16))
    want = a.reshape(4, 16, 4, 16).transpose(0, 3, 2, 1).reshape(64, 64)
    np.testing.assert_array_equal(o, want)


def test_a_guarded_local_access_has_no_limit() -> None:
    # only accesses every work-item makes bound the local size: `if lid < 16` is legal
    src = TRANSPOSE_TILE.replace(
        "  memref.store %v, %t[%ly, %lx] : memref<16x16xf32, 3>\n",
        "  %c16 = arith.constant 16 : index\n"
        "  %in = arith.cmpi ult, %lx, %c16 : index\n"
        "  scf.if %in {\n"
        "    memref.store %v, %t[%ly, %lx] : memref<16x16xf32, 3>\n"
        "  }\n",
    ).replace("%w = memref.load %t[%lx, %ly]", "%c0 = arith.constant 0 : index\n"
              "  %w = memref.load %t[%ly, %c0]")
    prog = xmux.compile(src, cache=False)
    assert prog["tr"].info.local_size_limits == [(1, 16, "global @tile")]
    a = np.arange(64 * 2, dtype=np.float32).reshape(2, 64)
    o = np.zeros_like(a)
    prog["tr"](a, o, global_size=(64, 2), local_size=(64, 2))  # 64 > 16 in dimension 0
    np.testing.assert_array_equal(o, np.repeat(a[:, :1], 64, axis=1))
