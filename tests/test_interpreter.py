"""The reference interpreter (``xmux.interpret``, ``xmux-run --interpret``) against the
compiled path and numpy: the examples, the barrier shapes, collectives and sub-groups, queries,
local memory, exact arithmetic, and every error it reports (divergent barrier, uninitialised
local read, data race, out of bounds, undefined behaviour, bad launches)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import numpy as np
import pytest
from test_barriers import LAUNCHES as BARRIER_LAUNCHES
from test_barriers import NEEDS_K, SHAPES, model
from test_barriers import groups as barrier_groups
from test_collectives import COLLECTIVES, KINDS, MLIR_TYPE, _kernel, expected, inputs
from test_collectives import SHAPES as COLLECTIVE_SHAPES
from test_complex import KERNEL as COMPLEX_KERNEL
from test_queries import _kernel_source as queries_source
from test_queries import expected as queries_expected
from test_sub_groups import _deltas, shuffled, sub_groups
from test_sub_groups import expected as sg_expected
from test_sub_groups import source as sg_source

import xmux
from xmux.cli import run_main
from xmux.errors import LaunchError, NotSupportedError, XmuxError
from xmux.interpret import (
    DataRaceError,
    DivergentBarrierError,
    OutOfBoundsError,
    UndefinedBehaviorError,
    UninitializedReadError,
    read_module,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ADDRESS = re.compile(r"base@ = 0x[0-9a-f]+")

# ---------------------------------------------------------------------------------------
# Examples: xmux-run --interpret prints what xmux-run prints
# ---------------------------------------------------------------------------------------

#: the examples whose interpretation takes seconds (hundreds of thousands of work-item
#: iterations): compared on the compiled output too, but only these two are slow
SLOW = {"matmul", "matmul_tiled"}


@pytest.mark.parametrize("name", sorted(p.stem for p in EXAMPLES.glob("*.mlir")))
def test_example_interpreted_prints_what_compiled_prints(name, capfd):
    from xmux.runner import HostProgram

    path = EXAMPLES / f"{name}.mlir"
    HostProgram(path.read_text(), str(path)).run_main()
    compiled = capfd.readouterr().out
    assert run_main(["--interpret", str(path)]) == 0
    interpreted = capfd.readouterr().out
    assert compiled.startswith("Unranked Memref base@ = 0x")
    assert ADDRESS.sub("", interpreted) == ADDRESS.sub("", compiled)


def test_xmux_run_interpret_reports_errors(tmp_path, capfd):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @k() { func.return }")
    assert run_main(["--interpret", str(bad)]) == 1
    assert "no host function @main" in capfd.readouterr().err
    assert run_main(["--interpret", str(tmp_path / "none.mlir")]) == 1


# ---------------------------------------------------------------------------------------
# Barrier shapes of test_barriers (1-D/2-D/3-D, remainder groups) against its numpy model
# ---------------------------------------------------------------------------------------

SMALL_LAUNCHES = [BARRIER_LAUNCHES[i] for i in (1, 4, 6, 7)]  # 9/3, 10/3, 14x9/7x3, 6x4x4


@pytest.mark.parametrize("name", [n for n in SHAPES if n != "single"])
def test_barrier_shapes_match_numpy(name):
    src, ref, _ = SHAPES[name]
    for gsize, lsize in SMALL_LAUNCHES:
        n = int(np.prod(gsize))
        a = np.random.default_rng(n).integers(-50, 50, n, dtype=np.int32)
        for k in ([0, 1, 3] if name in NEEDS_K else [0]):
            out = np.zeros_like(a)
            args = (a, out, k) if name in NEEDS_K else (a, out)
            xmux.interpret(src, name, *args, global_size=gsize, local_size=lsize)
            if name == "tidied":
                want = np.zeros_like(a)
                for ids in barrier_groups(gsize, lsize):
                    m = len(ids)
                    want[ids] = (m - 1 - np.arange(m)) + 2 * ids + a[ids]
            else:
                want = model(gsize, lsize, a, lambda x, k=k: ref(x, k))
            np.testing.assert_array_equal(out, want, err_msg=f"{name} {gsize}/{lsize} k={k}")


def test_single_shape_is_racy():
    """test_barriers' "single" kernel: work-item 0 rewrites tile[0] while the last work-item
    reads it between the same two barriers; the compiled schedule happens to run the reads
    first, the interpreter runs work-items in order, and the race detector names it."""
    src = SHAPES["single"][0]
    a = np.arange(9, dtype=np.int32)
    with pytest.raises(DataRaceError, match=r"element 0 of work-group local @tile written by "
                       r"work-item \(0\) .* and read .* work-item \(2\)"):
        xmux.interpret(src, "single", a, np.zeros_like(a), global_size=(9,), local_size=(3,),
                       races=True)


# ---------------------------------------------------------------------------------------
# Collectives and sub-groups against test_collectives' / test_sub_groups' numpy models
# ---------------------------------------------------------------------------------------


def _collectives_module(scope: str) -> str:
    parts = [
        _kernel(f"{c}_{dtype}", MLIR_TYPE[dtype], [f"mux.{scope}_{c} {k}" for k in kinds])
        for dtype, kinds in KINDS.items() for c in COLLECTIVES
    ]
    parts.append(_kernel("any_all", "i1", [f"mux.{scope}_any", f"mux.{scope}_all"]))
    return "\n".join(parts)


@pytest.mark.parametrize("dtype", list(KINDS))
def test_work_group_reduce_and_scans(dtype):
    src = _collectives_module("work_group")
    module = read_module(src)
    kinds = KINDS[dtype]
    for gsize, lsize in [((10,), (4,)), ((6, 4, 2), (3, 2, 2))]:
        n = int(np.prod(gsize))
        a = inputs(dtype, n, seed=n)
        for c in COLLECTIVES:
            out = np.zeros((len(kinds), n), a.dtype)
            xmux.interpret(module, f"{c}_{dtype}", a, out, global_size=gsize, local_size=lsize)
            for row, kind in enumerate(kinds):
                want = expected(c, kind, a, gsize, lsize)
                if a.dtype.kind == "f" and c == "reduce":  # the compiler may reassociate
                    np.testing.assert_allclose(out[row], want, rtol=1e-6)
                else:
                    np.testing.assert_array_equal(out[row], want, err_msg=f"{c} {kind}")


def test_work_group_any_all_and_broadcast():
    src = _collectives_module("work_group")
    gsize, lsize = (26, 6), (13, 3)
    n = 156
    for a in (inputs("bool", n, seed=3), np.ones(n, bool), np.zeros(n, bool)):
        out = np.zeros((2, n), bool)
        xmux.interpret(src, "any_all", a, out, global_size=gsize, local_size=lsize)
        for row, fn in enumerate((np.any, np.all)):
            want = np.empty(n, bool)
            for ids in barrier_groups(gsize, lsize):
                want[ids] = fn(a[ids])
            np.testing.assert_array_equal(out[row], want)
    bcast = """
    func.func @b(%a: memref<?xi32>, %o: memref<?xi32>, %x: index, %y: index)
        attributes {mux.kernel = "entry_point"} {
      %g = mux.get_global_linear_id : index
      %v = memref.load %a[%g] : memref<?xi32>
      %c0 = arith.constant 0 : index
      %r = mux.work_group_broadcast %v, %x, %y, %c0 : i32
      memref.store %r, %o[%g] : memref<?xi32>
      func.return
    }"""
    a = np.arange(n, dtype=np.int32)
    out = np.zeros(n, np.int32)
    xmux.interpret(bcast, "b", a, out, 2, 1, global_size=gsize, local_size=lsize)
    for ids in barrier_groups(gsize, lsize):
        np.testing.assert_array_equal(out[ids], a[ids[1 * 13 + 2]])
    with pytest.raises(UndefinedBehaviorError, match="broadcast from local id"):
        xmux.interpret(bcast, "b", a, out, 20, 1, global_size=gsize, local_size=lsize)


def test_collectives_in_a_loop_and_a_helper_against_compiled():
    """Collectives inside a loop and inside a called helper (the work-items suspend inside
    the call), interpreted and compiled on the same inputs."""
    prog = xmux.compile(COLLECTIVE_SHAPES, cache=False)
    for gsize, lsize in [((60,), (7,)), ((26, 6), (13, 3))]:
        n = int(np.prod(gsize))
        a = np.random.default_rng(3).integers(-9, 9, n).astype(np.int64)
        want, got = np.zeros_like(a), np.zeros_like(a)
        prog["iterated"](a, want, 3, global_size=gsize, local_size=lsize)
        xmux.interpret(COLLECTIVE_SHAPES, "iterated", a, got, 3, global_size=gsize,
                       local_size=lsize)
        np.testing.assert_array_equal(got, want)
    x = np.random.default_rng(4).random(512).astype(np.float32)
    want, got = np.zeros_like(x), np.zeros_like(x)
    prog["fixed"](x, want, global_size=(16, 32), local_size=(16, 16))
    xmux.interpret(COLLECTIVE_SHAPES, "fixed", x, got, global_size=(16, 32), local_size=(16, 16))
    np.testing.assert_allclose(got, want, rtol=1e-5)  # the compiled fadd reduce reassociates
    with pytest.raises(LaunchError, match="does not match its reqd_work_group_size"):
        xmux.interpret(COLLECTIVE_SHAPES, "fixed", x, got, global_size=(16, 32),
                       local_size=(8, 8))


@pytest.mark.parametrize("n", [4, 8])
def test_sub_groups(n):
    """N = 4 through the option, N = 8 through ``mux.reqd_sub_group_size``."""
    module = read_module(sg_source(None if n == 4 else n))
    opt = {"sub_group_size": 4} if n == 4 else {}
    for gsize, lsize in [((26,), (13,)), ((4, 3, 2), (2, 3, 2))]:
        total = int(np.prod(gsize))
        for dtype in ("int32", "float32", "bool"):
            kinds = KINDS[dtype]
            a = inputs(dtype, total, seed=total + n)
            o = np.zeros((len(COLLECTIVES) * len(kinds), total), a.dtype)
            xmux.interpret(module, f"collectives_{dtype}", a, o, global_size=gsize,
                           local_size=lsize, **opt)
            for ci, c in enumerate(COLLECTIVES):
                for ki, kind in enumerate(kinds):
                    want = sg_expected(c, kind, a, gsize, lsize, n)
                    np.testing.assert_array_equal(o[ci * len(kinds) + ki], want,
                                                  err_msg=f"N={n} {c} {kind} {dtype}")
            b = inputs(dtype, total, seed=total + 1) if dtype == "bool" else -a - 100
            d = _deltas(n, total, total)
            for lane in (0, n + 2):
                o = np.zeros((5, total), a.dtype)
                xmux.interpret(module, f"shuffles_{dtype}", a, b, d, lane, o,
                               global_size=gsize, local_size=lsize, **opt)
                for row, which in enumerate(
                    ["shuffle", "shuffle_xor", "shuffle_up", "shuffle_down", "broadcast"]
                ):
                    want = shuffled(which, a, b, d, lane, gsize, lsize, n)
                    np.testing.assert_array_equal(o[row], want, err_msg=f"N={n} {which}")
        buf = np.arange(total, dtype=np.float32)
        if len(gsize) == 1:  # rotate: values move within each sub-group across its barriers
            xmux.interpret(module, "rotate", buf, 3, global_size=gsize, local_size=lsize, **opt)
            want = np.empty(total, np.float32)
            for ids in sub_groups(gsize, lsize, n):
                want[ids] = np.roll(np.arange(total, dtype=np.float32)[ids], -3)
            np.testing.assert_array_equal(buf, want)
    with pytest.raises(XmuxError, match="requires sub-group size 8 but sub_group_size=4"):
        xmux.interpret(sg_source(8), "rotate", np.zeros(8, np.float32), 1, global_size=8,
                       sub_group_size=4)


# ---------------------------------------------------------------------------------------
# Queries (test_queries' model), local memory arguments, specialization constants
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gsz,lsz,off",
    [((13,), (4,), (5,)), ((7, 5), (3, 2), (1, 2)), ((5, 3, 4), (2, 3, 3), (0, 1, 7))],
)
def test_queries(gsz, lsz, off):
    want = queries_expected(gsz, lsz, off)
    out = np.zeros_like(want)
    xmux.interpret(queries_source(), "queries", out, global_size=gsz, local_size=lsz,
                   global_offset=off)
    np.testing.assert_array_equal(out, want)


TREE = (EXAMPLES.parent / "tests" / "test_local_memory.py").read_text()
TREE = TREE[TREE.index('TREE = """') + 10 : TREE.index('"""', TREE.index('TREE = """') + 10)]


@pytest.mark.parametrize("local", [1, 8, 32])
def test_local_memory_argument(local):
    n = 32 * 4
    a = np.random.default_rng(local).integers(-8, 8, n).astype(np.float32)
    sums = np.zeros(n // local, np.float32)
    xmux.interpret(TREE, "tree", a, xmux.LocalMemory(local * 4), sums, global_size=n,
                   local_size=local)
    np.testing.assert_array_equal(sums, a.reshape(-1, local).sum(1))
    with pytest.raises(LaunchError, match="pass xmux.LocalMemory"):
        xmux.interpret(TREE, "tree", a, a, sums, global_size=n, local_size=local)


DMA = """
"memref.global"() <{sym_name = "tile", type = memref<8x8xf32, 3>, sym_visibility = "private",
                    initial_value}> : () -> ()
func.func @dma(%src: memref<?x?xf32>, %vol: memref<?xf64>, %box: memref<4x3xf64>,
               %out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %t = memref.get_global @tile : memref<8x8xf32, 3>
  %w = arith.constant 32 : index
  %ds = arith.constant 32 : index
  %ss = arith.constant 64 : index
  %h = arith.constant 8 : index
  %e = mux.dma_read_2d %t, %src width(%w) dst_stride(%ds) src_stride(%ss) height(%h)
      : memref<8x8xf32, 3>, memref<?x?xf32>
  %w3 = arith.constant 24 : index
  %dl = arith.constant 24 : index
  %sl = arith.constant 40 : index
  %h3 = arith.constant 2 : index
  %dp = arith.constant 48 : index
  %sp = arith.constant 120 : index
  %d = arith.constant 2 : index
  %e3 = mux.dma_read_3d %box, %vol width(%w3) dst_line_stride(%dl) src_line_stride(%sl)
      height(%h3) dst_plane_stride(%dp) src_plane_stride(%sp) depth(%d)
      : memref<4x3xf64>, memref<?xf64>
  mux.dma_wait %e, %e3
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %n = arith.constant 256 : index
  %e2 = mux.dma_write_1d %out, %t width(%n) : memref<?xf32>, memref<8x8xf32, 3>
  mux.dma_wait %e2
  func.return
}"""


def test_dma_against_compiled():
    src = np.arange(128, dtype=np.float32).reshape(8, 16)
    vol = np.arange(60, dtype=np.float64)
    outs = []
    for run in (xmux.compile(DMA, cache=False)["dma"],
                lambda *a, **k: xmux.interpret(DMA, "dma", *a, **k)):
        box, out = np.zeros((4, 3)), np.zeros(64, np.float32)
        run(src, vol, box, out, global_size=(4, 2), local_size=(4, 2))
        outs.append((box, out))
    np.testing.assert_array_equal(outs[1][0], vol.reshape(4, 3, 5)[:2, :2, :3].reshape(4, 3))
    np.testing.assert_array_equal(outs[1][1], src[:, :8].ravel())
    for a, b in zip(outs[0], outs[1], strict=True):
        np.testing.assert_array_equal(a, b)
    bad = DMA.replace("%h = arith.constant 8", "%h = arith.constant 9")
    with pytest.raises(OutOfBoundsError, match="DMA destination bytes"):
        xmux.interpret(bad, "dma", src, vol, np.zeros((4, 3)), np.zeros(64, np.float32),
                       global_size=2)


def test_specialization_constants():
    src = EXAMPLES / "spec_constants.mlir"
    ints, floats = np.zeros(2, np.int32), np.zeros(6, np.float32)
    xmux.interpret(src, "read_constants", ints, floats, global_size=1)
    np.testing.assert_array_equal(ints, [42, 1])
    np.testing.assert_array_equal(floats, [3, 4, 5, 6, 7, 8])
    xmux.interpret(src, "read_constants", ints, floats, global_size=1,
                   spec_constants={"id_int": -3, "id_A": (7, (0.5, 0.25))})
    np.testing.assert_array_equal(ints, [-3, 7])
    np.testing.assert_array_equal(floats[:2], [0.5, 0.25])
    with pytest.raises(XmuxError, match="unknown specialization constant 'nope'"):
        xmux.interpret(src, "read_constants", ints, floats, global_size=1,
                       spec_constants={"nope": 1})


# ---------------------------------------------------------------------------------------
# Exact arithmetic: the interpreter agrees bit for bit with the compiled kernel
# ---------------------------------------------------------------------------------------

ARITH = """
func.func @ints(%a: memref<?xi8>, %b: memref<?xi8>, %o: memref<?x?xi8>)
    attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_id 0 : index
  %x = memref.load %a[%g] : memref<?xi8>
  %y = memref.load %b[%g] : memref<?xi8>
  %seven = arith.constant 7 : i8
  %s = arith.andi %y, %seven : i8
  %r0 = arith.addi %x, %y : i8
  %r1 = arith.muli %x, %y : i8
  %r2 = arith.divsi %x, %y : i8
  %r3 = arith.remsi %x, %y : i8
  %r4 = arith.divui %x, %y : i8
  %r5 = arith.remui %x, %y : i8
  %r6 = arith.shrsi %x, %s : i8
  %r7 = arith.shrui %x, %s : i8
  %r8 = arith.shli %x, %s : i8
  %r9 = arith.maxsi %x, %y : i8
  %r10 = arith.minui %x, %y : i8
  %r11 = arith.floordivsi %x, %y : i8
  %r12 = arith.ceildivsi %x, %y : i8
  %w = arith.extsi %x : i8 to i32
  %w2 = arith.muli %w, %w : i32
  %r13 = arith.trunci %w2 : i32 to i8
  %lt = arith.cmpi slt, %x, %y : i8
  %r14 = arith.extui %lt : i1 to i8
  %ult = arith.cmpi ult, %x, %y : i8
  %r15 = arith.select %ult, %x, %y : i8
  STORES
  func.return
}
func.func @floats(%a: memref<?xf32>, %b: memref<?xf32>, %n: memref<?xi64>, %o: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_id 0 : index
  %x = memref.load %a[%g] : memref<?xf32>
  %y = memref.load %b[%g] : memref<?xf32>
  %i = memref.load %n[%g] : memref<?xi64>
  %r0 = arith.addf %x, %y : f32
  %r1 = arith.mulf %x, %y : f32
  %r2 = arith.divf %x, %y : f32
  %r3 = arith.maxnumf %x, %y : f32
  %r4 = arith.minimumf %x, %y : f32
  %r5 = arith.sitofp %i : i64 to f32
  %r6 = arith.uitofp %i : i64 to f32
  %r7 = math.fma %x, %y, %r0 : f32
  %r8 = math.sqrt %r1 : f32
  %r9 = math.floor %r2 : f32
  %un = arith.cmpf ult, %x, %y : f32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %r10 = arith.select %un, %one, %zero : f32
  %h = arith.truncf %r2 : f32 to f16
  %r11 = arith.extf %h : f16 to f32
  %r12 = arith.subf %x, %y : f32
  %r13 = math.absf %r12 : f32
  %r14 = arith.negf %r13 : f32
  %r15 = math.round %r2 : f32
  STORES
  func.return
}
"""


def _stores(t: str, n: int) -> str:
    return "\n  ".join(
        f"%c{k} = arith.constant {k} : index\n  memref.store %r{k}, %o[%c{k}, %g] : "
        f"memref<?x?x{t}>" for k in range(n)
    )


def test_arith_bit_exact_against_compiled():
    ints, floats = ARITH.split("func.func @floats")
    src = ints.replace("STORES", _stores("i8", 16)) + "func.func @floats" + floats.replace(
        "STORES", _stores("f32", 16))
    rng = np.random.default_rng(7)
    n = 97
    a = rng.integers(-128, 128, n).astype(np.int8)
    b = rng.integers(-128, 128, n).astype(np.int8)
    b[b == 0] = 3
    b[(a == -128) & (b == -1)] = 5
    prog = xmux.compile(src, cache=False)
    want = np.zeros((16, n), np.int8)
    got = np.zeros_like(want)
    prog["ints"](a, b, want, global_size=n)
    xmux.interpret(src, "ints", a, b, got, global_size=n)
    np.testing.assert_array_equal(got, want)
    x = (rng.standard_normal(n) * 1e3).astype(np.float32)
    y = (rng.standard_normal(n) * 1e-2).astype(np.float32)
    x[:4], y[:4] = [np.nan, 1, -0.0, np.inf], [1, np.nan, 0.0, 2]
    i = rng.integers(-(2**62), 2**62, n) | 1  # needs one rounding of 64-bit integers
    want = np.zeros((16, n), np.float32)
    got = np.zeros_like(want)
    prog["floats"](x, y, i, want, global_size=n)
    xmux.interpret(src, "floats", x, y, i, got, global_size=n)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


VECTOR = """
func.func @v(%a: memref<?xf32>, %o: memref<?xf32>, %n: index)
    attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_id 0 : index
  %c4 = arith.constant 4 : index
  %base = arith.muli %g, %c4 : index
  %left = arith.subi %n, %base : index
  %m = vector.create_mask %left : vector<4xi1>
  %z = arith.constant dense<0.0> : vector<4xf32>
  %x = vector.maskedload %a[%base], %m, %z
      : memref<?xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  %y = arith.mulf %x, %x : vector<4xf32>
  %w = vector.fma %x, %y, %x : vector<4xf32>
  %s = vector.shuffle %w, %y [3, 2, 1, 0] : vector<4xf32>, vector<4xf32>
  %r = vector.reduction <add>, %s : vector<4xf32> into f32
  %b = vector.broadcast %r : f32 to vector<4xf32>
  %q = arith.addf %s, %b : vector<4xf32>
  vector.maskedstore %o[%base], %m, %q : memref<?xf32>, vector<4xi1>, vector<4xf32>
  func.return
}"""


def test_vector_ops_bit_exact_against_compiled():
    n = 13
    a = np.arange(n, dtype=np.float32) * np.float32(0.37)
    want, got = np.zeros(n, np.float32), np.zeros(n, np.float32)
    xmux.compile(VECTOR, cache=False)["v"](a, want, n, global_size=4, local_size=1)
    xmux.interpret(VECTOR, "v", a, got, n, global_size=4, local_size=1)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


MATH_OPS = ["absf", "ceil", "floor", "sqrt", "round", "roundeven", "trunc", "rsqrt", "exp",
            "log", "sin", "cos", "exp2", "log2", "log10", "tanh", "atan", "erf", "cbrt"]


@pytest.mark.parametrize("t", ["f16", "f32", "f64"])
def test_math_bit_exact_against_compiled(t):
    """Transcendental functions call libm as the JIT-compiled code does: same bits."""
    rows = [f"math.{o} %x : {t}" for o in MATH_OPS] + [
        f"math.fma %x, %y, %x : {t}", f"math.copysign %x, %y : {t}", f"math.powf %x, %y : {t}",
        f"math.fpowi %x, %five : {t}, i32",
    ]
    body = "\n".join(
        f"  %r{k} = {r}\n  %c{k} = arith.constant {k} : index\n"
        f"  memref.store %r{k}, %o[%c{k}, %g] : memref<?x?x{t}>" for k, r in enumerate(rows)
    )
    src = f"""
func.func @m(%a: memref<?x{t}>, %b: memref<?x{t}>, %o: memref<?x?x{t}>)
    attributes {{mux.kernel = "entry_point"}} {{
  %g = mux.get_global_id 0 : index
  %x = memref.load %a[%g] : memref<?x{t}>
  %y = memref.load %b[%g] : memref<?x{t}>
  %five = arith.constant 5 : i32
{body}
  func.return
}}"""
    dtype = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal(48) * 4).astype(dtype), rng.standard_normal(48).astype(dtype)
    a[:8] = [0.5, 1.5, 2.5, -0.5, -2.5, 0.0, -0.0, 3.0]
    want, got = np.zeros((len(rows), 48), dtype), np.zeros((len(rows), 48), dtype)
    xmux.compile(src, cache=False, specialize=False)["m"](a, b, want, global_size=48)
    xmux.interpret(src, "m", a, b, got, global_size=48)
    for k, r in enumerate(rows):
        np.testing.assert_array_equal(got[k], want[k], err_msg=r)


@pytest.mark.parametrize("elem,dtype", [("f32", np.complex64), ("f64", np.complex128)])
def test_complex_against_compiled(elem, dtype):
    src = COMPLEX_KERNEL.replace("{E}", elem)
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(37) + 1j * rng.standard_normal(37)).astype(dtype)
    want, got = np.zeros_like(x), np.zeros_like(x)
    xmux.compile(src, cache=False)["cmul"](x, want, global_size=37, local_size=1)
    xmux.interpret(src, "cmul", x, got, global_size=37)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op,match", [
    ("arith.divsi %x, %z : i32", "signed division by zero"),
    ("arith.remui %x, %z : i32", "unsigned remainder by zero"),
    ("arith.shli %x, %big : i32", "shift by 40"),
])
def test_undefined_behaviour_is_reported(op, match):
    src = f"""
    func.func @ub(%a: memref<?xi32>) attributes {{mux.kernel = "entry_point"}} {{
      %g = mux.get_global_id 0 : index
      %x = memref.load %a[%g] : memref<?xi32>
      %z = arith.constant 0 : i32
      %big = arith.constant 40 : i32
      %r = {op}
      memref.store %r, %a[%g] : memref<?xi32>
      func.return
    }}"""
    with pytest.raises(UndefinedBehaviorError, match=rf"{match}.*kernel 'ub', work-item \(0\)"):
        xmux.interpret(src, "ub", np.ones(4, np.int32), global_size=4)


# ---------------------------------------------------------------------------------------
# Errors: divergent barriers, uninitialised local reads, races, bounds, launches
# ---------------------------------------------------------------------------------------

BARRIER = "mux.work_group_barrier work_group, <acq_rel, work_group_memory>"
TILE = ('"memref.global"() <{sym_name = "tile", type = memref<64xi32, 3>, '
        'sym_visibility = "private", initial_value}> : () -> ()\n')


def _local_kernel(body: str) -> str:
    return TILE + f"""
func.func @k(%a: memref<?xi32>) attributes {{mux.kernel = "entry_point"}} {{
  %l = mux.get_local_id 0 : index
  %g = mux.get_global_id 0 : index
  %n = mux.get_local_size 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.get_global @tile : memref<64xi32, 3>
  %v = memref.load %a[%g] : memref<?xi32>
{body.replace("BARRIER", BARRIER)}
  func.return
}}"""


def test_divergent_barrier_names_kernel_and_barrier():
    src = _local_kernel("""
  %odd = arith.remui %l, %c1 : index
  %p = arith.cmpi ult, %l, %c1 : index
  scf.if %p {
    BARRIER
  } else {
    BARRIER
  }""")
    before = threading.active_count()
    with pytest.raises(DivergentBarrierError) as err:
        xmux.interpret(src, "k", np.zeros(8, np.int32), global_size=8, local_size=4)
    text = str(err.value)
    assert "divergent barrier in kernel 'k', work-group (0)" in text
    assert "1 work-item(s) (0): wait at 'mux.work_group_barrier' #1 of @k" in text
    assert "3 work-item(s) (1), (2), (3): wait at 'mux.work_group_barrier' #2 of @k" in text
    assert threading.active_count() == before


def test_work_item_returning_while_others_wait_is_divergent():
    src = _local_kernel("""
  %p = arith.cmpi ult, %l, %c1 : index
  scf.if %p {
    BARRIER
  }""")
    with pytest.raises(DivergentBarrierError, match=r"(?s)\(0\): wait at .*"
                       r"3 work-item\(s\) \(1\), \(2\), \(3\): returned from the kernel"):
        xmux.interpret(src, "k", np.zeros(4, np.int32), global_size=4, local_size=4)


def test_barrier_reached_through_different_calls_is_divergent():
    src = f"""
    func.func @h() {{
      {BARRIER}
      func.return
    }}
    func.func @h2() {{
      func.call @h() : () -> ()
      func.return
    }}
    func.func @k(%a: memref<?xi32>) attributes {{mux.kernel = "entry_point"}} {{
      %l = mux.get_local_id 0 : index
      %c0 = arith.constant 0 : index
      %p = arith.cmpi eq, %l, %c0 : index
      scf.if %p {{
        func.call @h() : () -> ()
      }} else {{
        func.call @h2() : () -> ()
      }}
      func.return
    }}"""
    with pytest.raises(DivergentBarrierError,
                       match=r"\(0\): wait at .*#1 of @h .* via @h \(call #1 in @k\)\n.*"
                             r"\(1\): wait at .*#1 of @h .* via @h2 \(call #2 in @k\) -> "
                             r"@h \(call #1 in @h2\)"):
        xmux.interpret(src, "k", np.zeros(2, np.int32), global_size=2, local_size=2)
    same_op = src.replace("func.call @h2() : () -> ()", "func.call @h() : () -> ()")
    with pytest.raises(DivergentBarrierError, match=r"call #2 in @k"):  # another call site
        xmux.interpret(same_op, "k", np.zeros(2, np.int32), global_size=2, local_size=2)
    one_site = src.replace("scf.if %p {", "func.call @h() : () -> ()\n      scf.if %p {")
    one_site = one_site.replace("        func.call @h() : () -> ()\n      } else {\n"
                                "        func.call @h2() : () -> ()\n", "      } else {\n")
    xmux.interpret(one_site, "k", np.zeros(2, np.int32), global_size=2, local_size=2)


def test_groups_of_1024_work_items():
    src = """
    func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
      %g = mux.get_global_id 0 : index
      %x = memref.load %a[%g] : memref<?xi32>
      %s = mux.work_group_scan_inclusive add %x : i32
      %r = mux.work_group_reduce add %s : i32
      %y = arith.addi %s, %r : i32
      memref.store %y, %a[%g] : memref<?xi32>
      func.return
    }"""
    a = np.arange(2048, dtype=np.int32)
    xmux.interpret(src, "k", a, global_size=2048, local_size=1024)
    s = np.cumsum(np.arange(2048).reshape(2, 1024), 1)
    np.testing.assert_array_equal(a, (s + s.sum(1, keepdims=True)).ravel())
    with pytest.raises(LaunchError, match="at most 1024"):
        xmux.interpret(src, "k", a, global_size=2048, local_size=2048)


def test_error_while_others_wait_aborts_the_group():
    """Work-item 2 fails after the first barrier while 0 and 1 wait at the second: the error
    propagates, the suspended work-items are closed, and the next run is unaffected."""
    src = _local_kernel("""
  BARRIER
  %c2 = arith.constant 2 : index
  %bad = arith.cmpi eq, %l, %c2 : index
  %c99 = arith.constant 99 : index
  %i = arith.select %bad, %c99, %g : index
  %w = memref.load %a[%i] : memref<?xi32>
  BARRIER""")
    with pytest.raises(OutOfBoundsError, match=r"index \[99\].*work-item \(2\)"):
        xmux.interpret(src, "k", np.zeros(4, np.int32), global_size=4, local_size=4)
    xmux.interpret(src, "k", np.zeros(4, np.int32), global_size=2, local_size=2)


def test_uninitialised_local_read():
    src = _local_kernel("""
  memref.store %v, %t[%l] : memref<64xi32, 3>
  BARRIER
  %l1 = arith.addi %l, %c1 : index
  %w = memref.load %t[%l1] : memref<64xi32, 3>
  memref.store %w, %a[%g] : memref<?xi32>""")
    with pytest.raises(UninitializedReadError,
                       match=r"element 4 of work-group local @tile was not written by any "
                             r"work-item of this group, at kernel 'k', work-item \(3\) "
                             r"\(global \(3\)\) of work-group \(0\), op .memref.load."):
        xmux.interpret(src, "k", np.zeros(8, np.int32), global_size=8, local_size=4)


def test_local_memory_is_fresh_per_group():
    """Group 1 reads what only group 0 wrote: uninitialised in group 1."""
    src = _local_kernel("""
  %grp = mux.get_group_id 0 : index
  %first = arith.cmpi eq, %grp, %c0 : index
  scf.if %first {
    memref.store %v, %t[%l] : memref<64xi32, 3>
  }
  BARRIER
  %w = memref.load %t[%l] : memref<64xi32, 3>
  memref.store %w, %a[%g] : memref<?xi32>""")
    with pytest.raises(UninitializedReadError, match=r"work-group \(1\)"):
        xmux.interpret(src, "k", np.zeros(8, np.int32), global_size=8, local_size=4)


RACY = _local_kernel("""
  memref.store %v, %t[%l] : memref<64xi32, 3>
  SYNC
  %p = arith.cmpi ugt, %l, %c0 : index
  %lm = arith.subi %l, %c1 : index
  %prev = arith.select %p, %lm, %l : index
  %w = memref.load %t[%prev] : memref<64xi32, 3>
  memref.store %w, %a[%g] : memref<?xi32>""")


def test_race_detector():
    a = np.arange(8, dtype=np.int32)
    with pytest.raises(DataRaceError,
                       match=r"element 0 of work-group local @tile written by work-item \(0\) "
                             r".* and read without a barrier in between, at kernel 'k', "
                             r"work-item \(1\)"):
        xmux.interpret(RACY.replace("SYNC", ""), "k", a, global_size=8, local_size=4,
                       races=True)
    a = np.arange(8, dtype=np.int32)
    xmux.interpret(RACY.replace("SYNC", BARRIER), "k", a, global_size=8, local_size=4,
                   races=True)
    np.testing.assert_array_equal(a, [0, 0, 1, 2, 4, 4, 5, 6])
    a = np.arange(8, dtype=np.int32)  # without races=True the racy kernel runs in order
    xmux.interpret(RACY.replace("SYNC", ""), "k", a, global_size=8, local_size=4)


def test_race_detector_ignores_atomics_and_own_accesses():
    src = _local_kernel("""
  %z = arith.constant 0 : i32
  %first = arith.cmpi eq, %l, %c0 : index
  scf.if %first {
    memref.store %z, %t[%c0] : memref<64xi32, 3>
  }
  BARRIER
  %old = "memref.atomic_rmw"(%v, %t, %c0) <{kind = 1 : i64}>
      : (i32, memref<64xi32, 3>, index) -> i32
  memref.store %v, %t[%l] : memref<64xi32, 3>
  %again = memref.load %t[%l] : memref<64xi32, 3>
  BARRIER
  %s = memref.load %t[%c0] : memref<64xi32, 3>
  memref.store %s, %a[%g] : memref<?xi32>""")
    a = np.arange(4, dtype=np.int32)
    xmux.interpret(src, "k", a, global_size=4, local_size=4, races=True)
    np.testing.assert_array_equal(a, [6, 6, 6, 6])  # work-item 0's store, then +1 +2 +3


def test_out_of_bounds_names_kernel_op_and_index():
    src = """
    func.func @oob(%a: memref<?x3xf32>) attributes {mux.kernel = "entry_point"} {
      %g = mux.get_global_id 0 : index
      %c3 = arith.constant 3 : index
      %x = memref.load %a[%g, %c3] : memref<?x3xf32>
      func.return
    }"""
    with pytest.raises(OutOfBoundsError,
                       match=r"out-of-bounds load at index \[0, 3\] of argument 0 \('a'\) "
                             r"\(outside the shape \[2, 3\]\) at kernel 'oob', work-item \(0\)"
                             r".*op 'memref.load'"):
        xmux.interpret(src, "oob", np.zeros((2, 3), np.float32), global_size=2)


def test_launch_validation_matches_compiled_path():
    src = (EXAMPLES / "vecadd.mlir").read_text()
    a = np.zeros(16, np.float32)
    with pytest.raises(LaunchError, match="expected dtype float32, got float64"):
        xmux.interpret(src, "vecadd", a, a.astype(np.float64), a, global_size=16)
    with pytest.raises(LaunchError, match="takes 3 arguments"):
        xmux.interpret(src, "vecadd", a, a, global_size=16)
    with pytest.raises(LaunchError, match="larger than global_size"):
        xmux.interpret(src, "vecadd", a, a, a, global_size=16, local_size=32)
    with pytest.raises(XmuxError, match="no kernel named 'nope'"):
        xmux.interpret(src, "nope", global_size=16)
    with pytest.raises(XmuxError, match="expects MLIR text, a path or a ModuleOp"):
        xmux.interpret(3, "vecadd", global_size=16)


def test_strided_arrays_are_updated_in_place():
    src = """
    func.func @inc(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>)
        attributes {mux.kernel = "entry_point"} {
      %x = mux.get_global_id 0 : index
      %y = mux.get_global_id 1 : index
      %v = memref.load %a[%y, %x] : memref<?x?xf32, strided<[?, ?], offset: ?>>
      %one = arith.constant 1.0 : f32
      %w = arith.addf %v, %one : f32
      memref.store %w, %a[%y, %x] : memref<?x?xf32, strided<[?, ?], offset: ?>>
      func.return
    }"""
    base = np.arange(48, dtype=np.float32).reshape(6, 8)
    view = base[::-2, 1::3]  # negative and non-unit strides
    want = base.copy()
    want[::-2, 1::3] += 1
    xmux.interpret(src, "inc", view, global_size=(view.shape[1], view.shape[0]))
    np.testing.assert_array_equal(base, want)


def test_unsupported_op_is_named():
    src = """
    func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
      %g = mux.get_global_id 0 : index
      mux.set_local_id 0, %g : index
      func.return
    }"""
    with pytest.raises(NotSupportedError, match="mux.set_local_id belongs to scheduled kernels"):
        xmux.interpret(src, "k", np.zeros(2, np.float32), global_size=2)
    ext = """
    func.func private @puts(i32)
    func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
      %c = arith.constant 1 : i32
      func.call @puts(%c) : (i32) -> ()
      func.return
    }"""
    with pytest.raises(NotSupportedError, match="call of the external function @puts"):
        xmux.interpret(ext, "k", np.zeros(2, np.int32), global_size=2)
