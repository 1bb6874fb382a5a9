"""Issue 33.4 on the GPU: 32-bit address twins (narrow-indices-nvptx) picked per launch.

The first tests run here: the launch condition as a pure function of sizes (extents of 2^31
elements and more cannot be allocated in a test), the runtime's choice among generic /
read-only / 32-bit entries with stand-in functions, and the narrowing's numerics on the CPU
(the rewritten body compiled for this machine: the same i32 arithmetic). The launch tests
need a CUDA device (skipped without one). The IR and PTX shapes are FileCheck tests
(tests/filecheck/narrow_indices_nvptx/, tests/filecheck/nvptx/index32.mlir).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import xmux
from xmux.abi import nvptx_variants as nv
from xmux.runtime import cuda

gpu = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
LIMIT = 2**31 - 1

# The naive matmul of bench/kernels (i32 bound: its k loop runs on i32 in the twin) and a
# kernel over a strided view: a loop from 1 bounded by memref.dim, an index j - 1, a dynamic
# offset and dynamic strides.
KERNELS = """
func.func @mm(%n: i32, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = arith.index_cast %n : i32 to index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

func.func @diffs(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %out: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %x, %c1 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %j = %c1 to %m step %c1 iter_args(%s = %zero) -> (f32) {
    %jm1 = arith.subi %j, %c1 : index
    %u = memref.load %x[%i, %j] : memref<?x?xf32, strided<[?, ?], offset: ?>>
    %v = memref.load %x[%i, %jm1] : memref<?x?xf32, strided<[?, ?], offset: ?>>
    %d = arith.subf %u, %v : f32
    %w = arith.mulf %d, %d : f32
    %t = arith.addf %s, %w : f32
    scf.yield %t : f32
  }
  memref.store %sum, %out[%i] : memref<?xf32>
  func.return
}
"""


def _diffs_ref(x: np.ndarray) -> np.ndarray:
    d = np.diff(x.astype(np.float64), axis=1)
    return (d * d).sum(axis=1)


def test_the_launch_condition_is_a_function_of_sizes() -> None:
    fits = nv.index32_fits
    assert fits([(0, (1024, 1024), (1024, 1)), (0, (7,), (1,))])
    assert fits([(0, (LIMIT,), (1,))])  # largest offset 2^31 - 2
    assert not fits([(0, (LIMIT + 1,), (1,))])  # 2^31 elements
    assert not fits([(0, (2, LIMIT + 1), (LIMIT + 1, 1))])
    # 46340^2 elements fit, 46341^2 do not (largest offset 2^31 + 4632)
    assert fits([(0, (46340, 46340), (46340, 1))])
    assert not fits([(0, (46341, 46341), (46341, 1))])
    # the offset counts: a view starting late in a large buffer
    assert fits([(LIMIT - 10, (11,), (1,))])
    assert not fits([(LIMIT - 10, (12,), (1,))])
    assert not fits([(-1, (4,), (1,))])
    # a negative or too large stride never (a size-1 dimension's stride included)
    assert not fits([(0, (4, 4), (-4, 1))])
    assert not fits([(0, (1, 4), (LIMIT + 1, 1))])
    # no elements: no in-bounds access, only sizes and strides must fit
    assert fits([(0, (0, 4), (LIMIT, 1))])
    assert not fits([(0, (0, 4), (LIMIT + 1, 1))])
    assert fits([(0, (0,), (1,))]) and fits([])
    assert not fits([(0, (1024,), (1,)), (0, (LIMIT + 1,), (1,))])  # every argument


def test_names_and_without_variants() -> None:
    assert nv.index32_name("k") == "k__xmux_i32"
    assert nv.index32_name("k__xmux_ro_1_2") == "k__xmux_ro_1_2__xmux_i32"
    # a twin of the read-only variant is no read-only variant of its own
    assert nv.parse_variant("k__xmux_ro_1_2__xmux_i32", "k") is None
    ptx = xmux.compile(KERNELS, target="nvptx", cache=False).ptx
    for e in ("mm", "mm__xmux_i32", "mm__xmux_ro_1_2", "mm__xmux_ro_1_2__xmux_i32",
              "diffs", "diffs__xmux_i32", "diffs__xmux_ro_0", "diffs__xmux_ro_0__xmux_i32"):
        assert f".visible .entry {e}(" in ptx, e
    generic = nv.without_variants(ptx)
    assert ".entry mm(" in generic and ".entry diffs(" in generic
    assert "__xmux_i32" not in generic and "__xmux_ro" not in generic
    # the twin's loop steps addresses by sign-extended 32-bit strides
    twin = ptx[ptx.index(".entry mm__xmux_i32("):]
    twin = twin[:twin.index("\n}\n")]
    assert "mul.wide.s32" in twin


def _array(shape: tuple[int, ...], strides: tuple[int, ...], item: int = 4):
    return SimpleNamespace(shape=shape, strides=tuple(s * item for s in strides), itemsize=item)


def test_a_launch_picks_among_four_entries() -> None:
    info = SimpleNamespace(args=[SimpleNamespace(kind="scalar", offset=None),
                                 SimpleNamespace(kind="memref", offset=None),
                                 SimpleNamespace(kind="memref", offset=3)])
    k = cuda.CudaKernel.__new__(cuda.CudaKernel)
    k.function = "generic"
    ro = SimpleNamespace(function="ro", applies=lambda arrays: arrays[0] is not arrays[1])
    k.read_only = ro
    k.index32 = cuda.Index32Variant("generic32", "ro32", info)  # type: ignore[arg-type]
    a, b = _array((64, 64), (64, 1)), _array((4096,), (1,))
    assert k.entry_for([a, b]) == "ro32"
    assert k.entry_for([a, a]) == "generic32"
    big = _array((46341, 46341), (46341, 1))
    assert k.entry_for([big, b]) == "ro"
    assert k.entry_for([big, big]) == "generic"
    # the second argument's static offset of 3 elements counts
    assert k.entry_for([a, _array((LIMIT - 2,), (1,))]) == "ro32"  # largest offset 2^31 - 1
    assert k.entry_for([a, _array((LIMIT - 1,), (1,))]) == "ro"
    k.index32 = cuda.Index32Variant(None, "ro32", info)  # type: ignore[arg-type]
    assert k.entry_for([a, a]) == "generic"
    k.index32 = None  # XMUX_NVPTX_INDEX32=0
    assert k.entry_for([a, b]) == "ro"


def test_the_narrowed_body_computes_the_same_on_the_cpu() -> None:
    """narrow_body's rewrite (i32 loops, i32 offsets, flat views) compiled for this CPU."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import MemRefType
    from xdsl.parser import Parser

    from xmux import pipelines
    from xmux.registry import make_context
    from xmux.transforms.narrow_indices_nvptx import narrow_body

    module = Parser(make_context(), KERNELS).parse_module()
    for f in module.ops:
        assert isinstance(f, func.FuncOp)
        args = {a for a in f.body.blocks[0].args if isinstance(a.type, MemRefType)}
        assert narrow_body(f, args) == 1
    assert "scf.for %k = %" in str(module) and ": i32 {" in str(module)
    # work-item-loop-interchange builds index loops around an i32 one (no NVPTX pass)
    passes = [p for p in pipelines.cpu() if p.name != "work-item-loop-interchange"]
    prog = xmux.compile(module, pipeline=passes, cache=False)
    rng = np.random.default_rng(5)
    n = 37
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = np.zeros((n, n), np.float32)
    prog["mm"](np.int32(n), a, b, c, global_size=(n, n), local_size=(1, 1))
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)
    base = rng.standard_normal((40, 70)).astype(np.float32)
    x = base[3::2, 5::3]  # a view: offset, strides (140, 3) elements
    out = np.zeros(x.shape[0], np.float32)
    prog["diffs"](x, out, global_size=(x.shape[0],))
    np.testing.assert_allclose(out, _diffs_ref(x), rtol=1e-5)


def _launcher(k):
    return next(iter(k._launchers.values()))


@gpu
@pytest.mark.parametrize("index32", ["1", "0"])
def test_twins_and_generic_entries_agree(index32: str, monkeypatch) -> None:
    import cupy as cp

    monkeypatch.setenv("XMUX_NVPTX_INDEX32", index32)
    prog = xmux.compile(KERNELS, target="nvptx", cache=False)
    rng = np.random.default_rng(7)
    n = 160
    a = cp.asarray(rng.standard_normal((n, n)).astype(np.float32))
    b = cp.asarray(rng.standard_normal((n, n)).astype(np.float32))
    c = cp.zeros((n, n), cp.float32)
    mm = prog["mm"]
    mm(np.int32(n), a, b, c, global_size=(n, n), local_size=(16, 16))
    launcher = _launcher(mm)
    want = "mm__xmux_ro_1_2__xmux_i32" if index32 == "1" else "mm__xmux_ro_1_2"
    assert launcher.last_function is launcher.module.function(want)
    np.testing.assert_allclose(cp.asnumpy(c), cp.asnumpy(a) @ cp.asnumpy(b),
                               rtol=1e-4, atol=1e-3)
    mm(np.int32(n), a, a, a, global_size=(n, n), local_size=(16, 16))  # overlapping: generic
    assert launcher.last_function is launcher.module.function(
        "mm__xmux_i32" if index32 == "1" else "mm")
    base = rng.standard_normal((300, 500)).astype(np.float32)
    x = cp.asarray(base)[7::2, 3::3]
    out = cp.zeros(x.shape[0], cp.float32)
    diffs = prog["diffs"]
    diffs(x, out, global_size=(x.shape[0],))
    assert _launcher(diffs).last_function is _launcher(diffs).module.function(
        "diffs__xmux_ro_0__xmux_i32" if index32 == "1" else "diffs__xmux_ro_0")
    np.testing.assert_allclose(cp.asnumpy(out), _diffs_ref(cp.asnumpy(x)), rtol=1e-4)


@gpu
def test_a_negative_stride_runs_the_64_bit_entry() -> None:
    import cupy as cp

    diffs = xmux.compile(KERNELS, target="nvptx", cache=False)["diffs"]
    base = np.random.default_rng(3).standard_normal((64, 90)).astype(np.float32)
    x = cp.asarray(base)[:, ::-1]  # strides (90, -1): no twin
    out = cp.zeros(64, cp.float32)
    diffs(x, out, global_size=(64,))
    launcher = _launcher(diffs)
    assert launcher.last_function is launcher.module.function("diffs__xmux_ro_0")
    np.testing.assert_allclose(cp.asnumpy(out), _diffs_ref(base[:, ::-1]), rtol=1e-4)
