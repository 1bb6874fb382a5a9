"""gpu.subgroup_mma_* (dialects/gpu_mma.py): CPU emulation against numpy (lower-subgroup-mma's
rounding order; compiled and interpreted), WMMA PTX (lower-subgroup-mma-nvptx), the GPU
against the CPU (skipped without CuPy), errors, and mlir-opt-19 reading what xmux prints
(skipped without it)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import xmux
from xmux.errors import XmuxError
from xmux.runtime import cuda

F16A, F16B = '!gpu.mma_matrix<16x16xf16, "AOp">', '!gpu.mma_matrix<16x16xf16, "BOp">'
F32C, F16C = '!gpu.mma_matrix<16x16xf32, "COp">', '!gpu.mma_matrix<16x16xf16, "COp">'
M32F16, M32F32 = "memref<32x32xf16>", "memref<32x32xf32>"
LD, LDT = "{leadDimension = 32 : index}", "{leadDimension = 32 : index, transpose}"

#: Warp w of a 128-item work-group computes tile (w / 2, w % 2) of a 32x32 result, K in steps
#: of 16 carried by scf.for.
_TILE = """
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %w = gpu.subgroup_id : index
    %wr = arith.divui %w, %c2 : index
    %wc = arith.remui %w, %c2 : index
    %i = arith.muli %wr, %c16 : index
    %j = arith.muli %wc, %c16 : index
"""

#: D = A B + C, f32 accumulators, row-major operands.
GEMM_F32 = f"""
gpu.module @m {{
  gpu.func @gemm(%A: {M32F16}, %B: {M32F16}, %C: {M32F32}, %D: {M32F32}) kernel {{
{_TILE}
    %c = gpu.subgroup_mma_load_matrix %C[%i, %j] {LD} : {M32F32} -> {F32C}
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%x = %c) -> ({F32C}) {{
      %a = gpu.subgroup_mma_load_matrix %A[%i, %k] {LD} : {M32F16} -> {F16A}
      %b = gpu.subgroup_mma_load_matrix %B[%k, %j] {LD} : {M32F16} -> {F16B}
      %d = gpu.subgroup_mma_compute %a, %b, %x : {F16A}, {F16B} -> {F32C}
      scf.yield %d : {F32C}
    }}
    gpu.subgroup_mma_store_matrix %acc, %D[%i, %j] {LD} : {F32C}, {M32F32}
    gpu.return
  }}
}}
"""

#: f16 accumulators from a constant, A and B read transposed from At = A^T and Bt = B^T, D^T
#: stored transposed into F, and E = max(e * e - e, -e) / 2 with e = extf(D).
GEMM_F16 = f"""
gpu.module @m {{
  gpu.func @gemm16(%At: {M32F16}, %Bt: {M32F16}, %E: {M32F32}, %F: {M32F16}) kernel {{
{_TILE}
    %half = arith.constant 5.000000e-01 : f16
    %two = arith.constant 2.000000e+00 : f32
    %c = gpu.subgroup_mma_constant_matrix %half : {F16C}
    %acc = scf.for %k = %c0 to %c32 step %c16 iter_args(%x = %c) -> ({F16C}) {{
      %a = gpu.subgroup_mma_load_matrix %At[%k, %i] {LDT} : {M32F16} -> {F16A}
      %b = gpu.subgroup_mma_load_matrix %Bt[%j, %k] {LDT} : {M32F16} -> {F16B}
      %d = gpu.subgroup_mma_compute %a, %b, %x {{a_transpose, b_transpose}}
        : {F16A}, {F16B} -> {F16C}
      scf.yield %d : {F16C}
    }}
    gpu.subgroup_mma_store_matrix %acc, %F[%j, %i] {LDT} : {F16C}, {M32F16}
    %e = gpu.subgroup_mma_elementwise extf %acc : ({F16C}) -> {F32C}
    %sq = gpu.subgroup_mma_elementwise mulf %e, %e : ({F32C}, {F32C}) -> {F32C}
    %df = gpu.subgroup_mma_elementwise subf %sq, %e : ({F32C}, {F32C}) -> {F32C}
    %ng = gpu.subgroup_mma_elementwise negatef %e : ({F32C}) -> {F32C}
    %mx = gpu.subgroup_mma_elementwise maxf %df, %ng : ({F32C}, {F32C}) -> {F32C}
    %tw = gpu.subgroup_mma_constant_matrix %two : {F32C}
    %r = gpu.subgroup_mma_elementwise divf %mx, %tw : ({F32C}, {F32C}) -> {F32C}
    gpu.subgroup_mma_store_matrix %r, %E[%i, %j] {LD} : {F32C}, {M32F32}
    gpu.return
  }}
}}
"""


def ref_gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """lower-subgroup-mma's rounding: products in f32 (exact for f16), k in order, each sum
    rounded to the accumulator's type."""
    acc = c.copy()
    for k in range(a.shape[1]):
        p = a[:, k:k + 1].astype(np.float32) * b[k:k + 1, :].astype(np.float32)
        acc = (acc.astype(np.float32) + p).astype(c.dtype)
    return acc


def _inputs(seed: int, integers: bool) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    if integers:  # every sum exact: the GPU's tensor cores must agree bit for bit
        return tuple(rng.integers(-3, 4, (32, 32)).astype(np.float16) for _ in range(2))
    return tuple(rng.standard_normal((32, 32)).astype(np.float16) for _ in range(2))


def _run_f32(prog, a, b, c) -> np.ndarray:
    d = np.zeros((32, 32), np.float32)
    prog.kernel("gemm")(a, b, c, d, global_size=(128,), local_size=(128,))
    return d


def _run_f16(prog, a, b) -> tuple[np.ndarray, np.ndarray]:
    e = np.zeros((32, 32), np.float32)
    f = np.zeros((32, 32), np.float16)
    prog.kernel("gemm16")(np.ascontiguousarray(a.T), np.ascontiguousarray(b.T), e, f,
                          global_size=(128,), local_size=(128,))
    return e, f


def _ref_f16(a, b) -> tuple[np.ndarray, np.ndarray]:
    d = ref_gemm(a, b, np.full((32, 32), 0.5, np.float16))
    e = d.astype(np.float32)
    return np.maximum(e * e - e, -e) / np.float32(2), d.T


def test_f32_accumulate_in_the_defined_order() -> None:
    a, b = _inputs(0, integers=False)
    c = np.random.default_rng(1).standard_normal((32, 32)).astype(np.float32)
    d = _run_f32(xmux.compile(GEMM_F32), a, b, c)
    np.testing.assert_array_equal(d, ref_gemm(a, b, c))
    # not the result of another order: a plain f64 product rounded once differs somewhere
    assert not np.array_equal(d, (a.astype(np.float64) @ b + c).astype(np.float32))


def test_f16_accumulate_transposes_constant_and_elementwise() -> None:
    a, b = _inputs(2, integers=False)
    e, f = _run_f16(xmux.compile(GEMM_F16), a, b)
    want_e, want_f = _ref_f16(a, b)
    np.testing.assert_array_equal(f, want_f)
    np.testing.assert_array_equal(e, want_e)


I8A, I8B = '!gpu.mma_matrix<16x16xi8, "AOp">', '!gpu.mma_matrix<16x16xi8, "BOp">'
I32C = '!gpu.mma_matrix<16x16xi32, "COp">'
INT_GEMM = f"""
gpu.module @m {{
  gpu.func @g(%A: memref<16x16xi8>, %B: memref<16x16xi8>, %C: memref<16x16xi32>) kernel {{
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %a = gpu.subgroup_mma_load_matrix %A[%c0, %c0] {{leadDimension = 16 : index}}
      : memref<16x16xi8> -> {I8A}
    %b = gpu.subgroup_mma_load_matrix %B[%c0, %c0] {{leadDimension = 16 : index}}
      : memref<16x16xi8> -> {I8B}
    %c = gpu.subgroup_mma_constant_matrix %one : {I32C}
    %d = gpu.subgroup_mma_compute %a, %b, %c : {I8A}, {I8B} -> {I32C}
    %e = gpu.subgroup_mma_elementwise negates %d : ({I32C}) -> {I32C}
    gpu.subgroup_mma_store_matrix %e, %C[%c0, %c0] {{leadDimension = 16 : index}}
      : {I32C}, memref<16x16xi32>
    gpu.return
  }}
}}
"""


def test_integer_factors_widen_signed_on_the_cpu() -> None:
    rng = np.random.default_rng(10)
    a, b = (rng.integers(-128, 128, (16, 16)).astype(np.int8) for _ in range(2))
    c = np.zeros((16, 16), np.int32)
    xmux.compile(INT_GEMM)["g"](a, b, c, global_size=(32,), local_size=(32,))
    np.testing.assert_array_equal(c, -(a.astype(np.int32) @ b.astype(np.int32) + 1))


def test_interpreter_runs_the_same_lowering() -> None:
    a, b = _inputs(7, integers=False)
    c = np.random.default_rng(8).standard_normal((32, 32)).astype(np.float32)
    d = np.zeros((32, 32), np.float32)
    xmux.interpret(GEMM_F32, "gemm", a, b, c, d, global_size=(128,), local_size=(128,))
    np.testing.assert_array_equal(d, ref_gemm(a, b, c))


def test_ptx_has_wmma_instructions() -> None:
    ptx = xmux.compile(GEMM_F32, target="nvptx", cache=False).ptx
    assert "wmma.load.a.sync.aligned.row.m16n16k16.f16" in ptx
    assert "wmma.load.b.sync.aligned.row.m16n16k16.f16" in ptx
    assert "wmma.load.c.sync.aligned.row.m16n16k16.f32" in ptx
    assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32" in ptx
    assert "wmma.store.d.sync.aligned.row.m16n16k16.f32" in ptx
    ptx16 = xmux.compile(GEMM_F16, target="nvptx", cache=False).ptx
    assert "wmma.load.a.sync.aligned.col.m16n16k16.f16" in ptx16
    assert "wmma.mma.sync.aligned.col.col.m16n16k16.f16.f16" in ptx16
    assert "wmma.store.d.sync.aligned.col.m16n16k16.f16" in ptx16


@pytest.mark.parametrize(("text", "message"), [
    (GEMM_F32.replace("16x16xf16, \"AOp\"", "8x16xf16, \"AOp\""), "shapes 8x16 x 16x16"),
    (GEMM_F32.replace("{leadDimension = 32 : index} : memref<32x32xf16>", "{leadDimension = 0 "
                      ": index} : memref<32x32xf16>", 1), "leadDimension must be positive"),
])
def test_verifier_errors(text: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        xmux.compile(text)


def test_unsupported_shape_names_the_op() -> None:
    text = GEMM_F32.replace('!gpu.mma_matrix<16x16xf32, "COp">', '!gpu.mma_matrix<16x8xf32, "COp">')
    text = text.replace('!gpu.mma_matrix<16x16xf16, "BOp">', '!gpu.mma_matrix<16x8xf16, "BOp">')
    with pytest.raises(XmuxError, match=r"lower-subgroup-mma: 'gpu.subgroup_mma_load_matrix' "
                                        r"in @gemm: only 16x16 matrices are supported"):
        xmux.compile(text)


@pytest.mark.skipif(shutil.which("mlir-opt-19") is None, reason="mlir-opt-19 not installed")
def test_mlir_opt_19_reads_what_xmux_prints() -> None:
    from xdsl.parser import Parser

    from xmux.registry import make_context

    for text in (GEMM_F32, GEMM_F16):
        module = Parser(make_context(), text).parse_module()
        out = subprocess.run(["mlir-opt-19"], input=str(module), capture_output=True,
                             text=True, check=True).stdout
        assert str(Parser(make_context(), out).parse_module()).count("subgroup_mma") == \
            str(module).count("subgroup_mma")


@pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
def test_gpu_matches_cpu() -> None:
    cpu, gpu = xmux.compile(GEMM_F32), xmux.compile(GEMM_F32, target="nvptx")
    a, b = _inputs(3, integers=True)
    c = np.random.default_rng(4).integers(-8, 9, (32, 32)).astype(np.float32)
    np.testing.assert_array_equal(_run_f32(gpu, a, b, c), _run_f32(cpu, a, b, c))
    a, b = _inputs(5, integers=False)  # other summation order: last bits only
    np.testing.assert_allclose(_run_f32(gpu, a, b, c), _run_f32(cpu, a, b, c), rtol=1e-5,
                               atol=1e-4)
    a, b = _inputs(6, integers=True)
    cpu16, gpu16 = xmux.compile(GEMM_F16), xmux.compile(GEMM_F16, target="nvptx")
    for x, y in zip(_run_f16(gpu16, a, b), _run_f16(cpu16, a, b), strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
def test_gpu_bench_kernel_small() -> None:
    """bench/gpu_mma_gemm.py's kernel (shared-memory staging, prefetch, 8 accumulators per
    warp) at 256 x 256 x 128 on the GPU and the CPU: exact with integer inputs."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import gpu_mma_gemm as bench

    rng = np.random.default_rng(9)
    a = rng.integers(-3, 4, (256, 128)).astype(np.float16)
    b = rng.integers(-3, 4, (128, 256)).astype(np.float16)
    want = a.astype(np.float32) @ b.astype(np.float32)
    for target, stages in (("nvptx", 1), ("nvptx", 2), ("cpu", 1)):
        t = bench.Tiles(256, 256, 128, stages=stages)
        grid = (t.n // t.bn * t.threads, t.m // t.bm)
        c = np.zeros((t.m, t.n), np.float32)
        xmux.compile(bench.mlir(t), target=target)["mma_gemm"](
            a.view(np.int64), b.view(np.int64), c, global_size=grid, local_size=(t.threads, 1))
        np.testing.assert_array_equal(c, want, err_msg=f"{target}, {stages} stage(s)")
