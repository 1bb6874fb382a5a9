"""The checking mode (``compile(checks=True)``, ``XMUX_CHECKS=1``, ``xmux-run --checks``):
out-of-bounds accesses, trapping divisions and too-small local memory become a
``CheckError`` naming the kernel, op, indices, work-item and group — with the process and
the neighbouring memory intact."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xmux

STORE = """
func.func @fill(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = arith.index_cast %i : index to i32
  memref.store %v, %a[%i] : memref<?xi32>
  func.return
}
"""


def test_out_of_bounds_store_is_reported_and_skipped():
    """A global size larger than the array overwrote the memory after it (or segfaulted)."""
    k = xmux.compile(STORE, cache=False, checks=True).kernel("fill")
    backing = np.full(32, -7, np.int32)
    a = backing[:10]
    with pytest.raises(
        xmux.CheckError,
        match=r"kernel @fill: 'memref.store' out of bounds of memref<\?xi32> \(argument 0 "
        r"\('a'\)\): indices \[10\], "
        r"sizes \[10\], at work-item \(2, 0, 0\) of work-group \(2, 0, 0\) \(and 1 more",
    ):
        # the launch stops after the failing group (items 10, 11): group 3 does not run
        k(a, global_size=(16,), local_size=(4,))
    np.testing.assert_array_equal(a, np.arange(10))
    assert np.all(backing[10:] == -7)  # nothing written past the array
    k(a, global_size=(10,), local_size=(5,))  # a correct launch raises nothing after it


DIVIDE = """
func.func @div(%a: memref<?xi32>, %b: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xi32>
  %y = memref.load %b[%i] : memref<?xi32>
  %q = arith.divsi %x, %y : i32
  memref.store %q, %a[%i] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("x,y", [(7, 0), (-(2**31), -1)])
def test_trapping_division_is_reported(x, y):
    k = xmux.compile(DIVIDE, cache=False, checks=True).kernel("div")
    a = np.full(8, 9, np.int32)
    b = np.full(8, 3, np.int32)
    a[5], b[5] = x, y
    with pytest.raises(xmux.CheckError, match=rf"'arith.divsi' by zero or INT_MIN / -1 "
                       rf"\(dividend, divisor\): operands \[{x}, {y}\], at work-item \(1, 0, 0\) "
                       r"of work-group \(1, 0, 0\)"):
        k(a, b, global_size=(8,), local_size=(4,))


LOCAL = """
func.func @tile(%out: memref<?xf32>, %t: memref<?xf32, 3>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %t[%l] : memref<?xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %v = memref.load %t[%l] : memref<?xf32, 3>
  memref.store %v, %out[%i] : memref<?xf32>
  func.return
}
"""


def test_local_memory_too_small_for_the_group_is_reported():
    """LocalMemory(4) with a local size of 1024 segfaulted."""
    k = xmux.compile(LOCAL, cache=False, checks=True).kernel("tile")
    out = np.zeros(1024, np.float32)
    with pytest.raises(xmux.CheckError, match=r"kernel @tile: 'memref.store' out of bounds of "
                       r"memref<\?xf32, 3 : i64> \(argument 1 \('t'\)\): indices \[1\], "
                       r"sizes \[1\]"):
        k(out, xmux.LocalMemory(4), global_size=(1024,), local_size=(1024,))
    k(out, xmux.LocalMemory(4096), global_size=(1024,), local_size=(1024,))
    assert np.all(out == 1)


def test_the_environment_turns_the_checks_on(monkeypatch):
    monkeypatch.setenv("XMUX_CHECKS", "1")
    k = xmux.compile(STORE, cache=False).kernel("fill")
    with pytest.raises(xmux.CheckError):
        k(np.zeros(4, np.int32), global_size=(8,))


def test_checks_do_not_change_a_correct_barrier_kernel():
    """The checked build of a barrier kernel (with the storage plan check) gives the same
    answer as the plain one."""
    from tests.test_barrier_yields import SHAPES

    src = SHAPES["pocl_553"]
    a = np.random.default_rng(2).integers(-50, 50, 24, dtype=np.int32)
    outs = []
    for checks in (False, True):
        out = np.zeros_like(a)
        xmux.compile(src, cache=False, checks=checks).kernel("pocl_553")(
            a, out, 2, 3, global_size=(24,), local_size=(6,)
        )
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_xmux_run_checks(tmp_path, capsys):
    from xmux import runner

    path = tmp_path / "oob.mlir"
    path.write_text(
        STORE
        + """
func.func private @printMemrefI32(memref<*xi32>)
func.func @main() {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc(%c8) : memref<?xi32>
  mux.launch @fill(%a) global_size(%c16) local_size(%c4) : (memref<?xi32>)
  %u = "memref.cast"(%a) : (memref<?xi32>) -> memref<*xi32>
  func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  func.return
}
"""
    )
    assert runner.main(["--checks", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "data" not in out
    assert "kernel @fill: 'memref.store' out of bounds" in err and "work-group (2, 0, 0)" in err


def test_a_read_of_an_unwritten_per_work_item_slot_is_reported():
    """check-plan's run-time half: a pass after work-item-loops that drops the stores of the
    first segment (data and shadow) makes the next segment read unwritten slots."""
    from dataclasses import dataclass

    from xdsl.dialects import memref
    from xdsl.passes import ModulePass

    from xmux import pipelines
    from xmux.dialects import attrs

    @dataclass(frozen=True)
    class DropFirstStores(ModulePass):
        name = "drop-first-stores"

        def apply(self, ctx, op) -> None:
            stores = [
                s for s in op.walk()
                if isinstance(s, memref.StoreOp)
                and isinstance(s.memref.owner, memref.AllocaOp)
                and attrs.is_per_work_item(s.memref.owner)
                and attrs.is_work_item_loop(s.parent_op())  # not the shadow's zeroing
            ]
            for s in stores[:2]:  # the value's store and its shadow byte
                s.detach()
                s.erase()

    passes = pipelines.cpu(checks=True)
    passes.insert(pipelines.index_of(passes, "work-item-loops") + 1, DropFirstStores())
    src = """
func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xi32>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  memref.store %v, %a[%i] : memref<?xi32>
  func.return
}
"""
    k = xmux.compile(src, cache=False, pipeline=passes).kernel("k")
    with pytest.raises(xmux.CheckError, match=r"kernel @k: per-work-item array #0 read before "
                       r"it was written \(work-item-loops storage plan\): slot \[0\], at "
                       r"work-item \(0, 0, 0\) of work-group \(0, 0, 0\)"):
        k(np.arange(8, dtype=np.int32), global_size=(8,), local_size=(4,))


ASSERT = """
func.func @k(%out: memref<?xi32>, %n: i32) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %ii = arith.index_cast %i : index to i32
  %ok = arith.cmpi slt, %ii, %n : i32
  cf.assert %ok, "work-item id below n"
  memref.store %ii, %out[%i] : memref<?xi32>
  func.return
}
"""


@pytest.mark.parametrize("checks", [False, True])
@pytest.mark.parametrize("threads", [1, 2])
def test_a_failed_assertion_raises_and_stops_the_launch(checks, threads):
    """cf.assert in a kernel called abort() and took the Python process down; now the launch
    stops after the failing work-group and raises, in every build."""
    k = xmux.compile(ASSERT, cache=False, checks=checks).kernel("k")
    out = np.zeros(4096, np.int32)
    k(out, np.int32(4096), global_size=(4096,), local_size=(64,), threads=threads)
    np.testing.assert_array_equal(out, np.arange(4096))
    with pytest.raises(xmux.CheckError) as info:
        k(out, np.int32(100), global_size=(4096,), local_size=(64,), threads=threads)
    msg = str(info.value)
    assert msg.startswith("kernel @k: assertion failed: work-item id below n, at work-item ("), msg
    # the first failure reported: work-item 100 (36 of group 1) on one thread; with two, the
    # other thread's first group (local id 0: every id >= 100 fails) may report first on a
    # loaded machine
    found = re.search(r"at work-item \((\d+), 0, 0\) of work-group \((\d+), 0, 0\)", msg)
    assert found is not None, msg
    local, group = int(found[1]), int(found[2])
    if threads == 1:
        assert (local, group) == (36, 1), msg
    else:
        assert (group, local) == (1, 36) or (group > 1 and local == 0), msg
    # 3996 work-items fail the assertion; the launch stopped within a few groups of the first
    more = int(msg.split("(and ")[1].split(" ")[0])
    assert 27 <= more < 27 + 64 * 4 * threads, msg
    k(out, np.int32(4096), global_size=(4096,), local_size=(64,), threads=threads)  # usable


NAMED = """
"memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<4xf32, 3>,
                    initial_value}> : () -> ()
func.func @k(%x: memref<?xf32>, %y: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %t = memref.get_global @tile : memref<4xf32, 3>
  %v = memref.load %x[%i] : memref<?xf32>
  memref.store %v, %t[%l] : memref<4xf32, 3>
  %w = memref.load %t[%l] : memref<4xf32, 3>
  %o = memref.subview %y[1] [4] [1] : memref<?xf32> to memref<4xf32, strided<[1], offset: 1>>
  memref.store %w, %o[%i] : memref<4xf32, strided<[1], offset: 1>>
  func.return
}
"""


def test_out_of_bounds_reports_name_the_argument_or_global():
    """As the interpreter's messages do: the argument (through views) or the global."""
    k = xmux.compile(NAMED, cache=False, checks=True).kernel("k")
    x = np.ones(8, np.float32)
    # every work-item indexes the 4-element tile by its local id: refused before it runs
    # (tests/test_local_memory.py); a report inside the kernel names the global the same way
    with pytest.raises(xmux.LaunchError, match=r"global @tile is indexed by the local id .* "
                       r"at most 4 work-items"):
        k(x, np.zeros(8, np.float32), global_size=(8,), local_size=(8,))
    with pytest.raises(xmux.CheckError, match=r"\(argument 1 \('y'\)\): indices \[4\]"):
        k(x, np.zeros(8, np.float32), global_size=(8,), local_size=(4,))
    with pytest.raises(xmux.CheckError, match=r"\(argument 0 \('x'\)\): indices \[4\]"):
        k(x[:4], np.zeros(16, np.float32), global_size=(8,), local_size=(4,))


TILE = """
"memref.global"() <{sym_name = "tile", sym_visibility = "private",
                    type = memref<16x16xf32, 3>, initial_value}> : () -> ()
func.func @k(%a: memref<?x?xf32>, %out: memref<?x?xf32>) attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %t = memref.get_global @tile : memref<16x16xf32, 3>
  %v = memref.load %a[%y, %x] : memref<?x?xf32>
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %inside = arith.cmpi ult, %y, %n : index
  scf.if %inside {
    memref.store %v, %t[%ly, %lx] : memref<16x16xf32, 3>
  }
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %w = scf.if %inside -> (f32) {
    %l = memref.load %t[%lx, %ly] : memref<16x16xf32, 3>
    scf.yield %l : f32
  } else {
    scf.yield %v : f32
  }
  memref.store %w, %out[%y, %x] : memref<?x?xf32>
  func.return
}
"""


def test_a_local_size_too_large_for_the_local_tile_says_so():
    """A 16x16 tile launched with 32x8 work-groups: the report names the tile and the cause
    (it had been thousands of bare out-of-bounds stores). The accesses are under a condition
    the compiler cannot decide, so the launch is not refused up front (as the same kernel
    without the condition is: tests/test_local_memory.py)."""
    k = xmux.compile(TILE, cache=False, checks=True).kernel("k")
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    out = np.zeros_like(a)
    k(a, out, global_size=(64, 64), local_size=(16, 16))
    np.testing.assert_array_equal(out.reshape(4, 16, 4, 16), a.reshape(4, 16, 4, 16)
                                  .transpose(0, 3, 2, 1))
    with pytest.raises(xmux.CheckError, match=r"\(global @tile\); it is indexed by the local "
                       r"id, so a local size above 16 in dimension 1 or a local size above 16 "
                       r"in dimension 0 overflows it \(is the launch's local size larger"):
        k(a, out, global_size=(64, 64), local_size=(32, 8))
