"""arith.addui_extended / mului_extended / mulsi_extended end to end (issue 31): a gpu kernel
over i64, i32, i8 and vector<4xi32> operands, on the CPU (JIT), in the interpreter and on
NVPTX (PTX here, results on a GPU), against the exact products computed with Python ints.

The lowering's IR shape: tests/filecheck/convert_to_llvm/extended_arith.mlir."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.runtime import cuda

KERNEL = """
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @ext(%a: memref<?xi64>, %b: memref<?xi64>, %out: memref<?x8xi64>,
                  %va: memref<?xi32>, %vb: memref<?xi32>, %vhi: memref<?xi32>,
                  %vcarry: memref<?xi32>) kernel {
      %i = gpu.global_id x
      %x = memref.load %a[%i] : memref<?xi64>
      %y = memref.load %b[%i] : memref<?xi64>
      %slo, %shi = arith.mulsi_extended %x, %y : i64
      %ulo, %uhi = arith.mului_extended %x, %y : i64
      %sum, %c = arith.addui_extended %x, %y : i64, i1
      %c64 = arith.extui %c : i1 to i64
      %x8 = arith.trunci %x : i64 to i8
      %y8 = arith.trunci %y : i64 to i8
      %l8, %h8 = arith.mulsi_extended %x8, %y8 : i8
      %h8w = arith.extsi %h8 : i8 to i64
      %x32 = arith.trunci %x : i64 to i32
      %y32 = arith.trunci %y : i64 to i32
      %l32, %h32 = arith.mului_extended %x32, %y32 : i32
      %h32w = arith.extui %h32 : i32 to i64
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      memref.store %slo, %out[%i, %c0] : memref<?x8xi64>
      memref.store %shi, %out[%i, %c1] : memref<?x8xi64>
      memref.store %ulo, %out[%i, %c2] : memref<?x8xi64>
      memref.store %uhi, %out[%i, %c3] : memref<?x8xi64>
      memref.store %sum, %out[%i, %c4] : memref<?x8xi64>
      memref.store %c64, %out[%i, %c5] : memref<?x8xi64>
      memref.store %h8w, %out[%i, %c6] : memref<?x8xi64>
      memref.store %h32w, %out[%i, %c7] : memref<?x8xi64>
      %j = arith.muli %i, %c4 : index
      %p = vector.load %va[%j] : memref<?xi32>, vector<4xi32>
      %q = vector.load %vb[%j] : memref<?xi32>, vector<4xi32>
      %plo, %phi = arith.mulsi_extended %p, %q : vector<4xi32>
      %ps, %pc = arith.addui_extended %p, %q : vector<4xi32>, vector<4xi1>
      vector.store %phi, %vhi[%j] : memref<?xi32>, vector<4xi32>
      // xDSL's extui / select take no i1 vectors: the carries lane by lane
      %k0 = arith.addi %j, %c0 : index
      %k1 = arith.addi %j, %c1 : index
      %k2 = arith.addi %j, %c2 : index
      %k3 = arith.addi %j, %c3 : index
      %e0 = vector.extract %pc[0] : i1 from vector<4xi1>
      %e1 = vector.extract %pc[1] : i1 from vector<4xi1>
      %e2 = vector.extract %pc[2] : i1 from vector<4xi1>
      %e3 = vector.extract %pc[3] : i1 from vector<4xi1>
      %w0 = arith.extui %e0 : i1 to i32
      %w1 = arith.extui %e1 : i1 to i32
      %w2 = arith.extui %e2 : i1 to i32
      %w3 = arith.extui %e3 : i1 to i32
      memref.store %w0, %vcarry[%k0] : memref<?xi32>
      memref.store %w1, %vcarry[%k1] : memref<?xi32>
      memref.store %w2, %vcarry[%k2] : memref<?xi32>
      memref.store %w3, %vcarry[%k3] : memref<?xi32>
      gpu.return
    }
  }
}
"""

N = 64  # two work-groups of 32


def _inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(31)
    edge = np.array([0, 1, -1, 2**63 - 1, -(2**63), 2**32 - 1, -(2**31), 255, -128, 127],
                    dtype=np.int64)
    a = np.concatenate([edge, rng.integers(-(2**63), 2**63 - 1, N - len(edge), dtype=np.int64)])
    b = np.concatenate([edge[::-1], rng.integers(-(2**63), 2**63 - 1, N - len(edge),
                                                 dtype=np.int64)])
    va = np.concatenate([edge.astype(np.int32), rng.integers(-(2**31), 2**31 - 1, 4 * N - 10,
                                                             dtype=np.int32)])
    vb = rng.integers(-(2**31), 2**31 - 1, 4 * N, dtype=np.int32)
    vb[:10] = edge[::-1].astype(np.int32)
    return [a, b, np.zeros((N, 8), np.int64), va, vb, np.zeros(4 * N, np.int32),
            np.zeros(4 * N, np.int32)]


def _expected(a: np.ndarray, b: np.ndarray, va: np.ndarray, vb: np.ndarray):
    m64 = (1 << 64) - 1

    def s64(v: int) -> int:
        v &= m64
        return v - (1 << 64) if v >> 63 else v

    out = np.zeros((N, 8), np.int64)
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        ux, uy = x & m64, y & m64
        x8, y8 = ((x & 255) ^ 128) - 128, ((y & 255) ^ 128) - 128
        out[i] = [s64(x * y), s64((x * y) >> 64), s64(ux * uy), s64((ux * uy) >> 64),
                  s64(ux + uy), (ux + uy) >> 64, ((x8 * y8) >> 8),
                  ((x & 0xFFFFFFFF) * (y & 0xFFFFFFFF)) >> 32]
    wa, wb = va.astype(np.int64), vb.astype(np.int64)
    vhi = ((wa * wb) >> 32).astype(np.int32)
    vcarry = ((wa & 0xFFFFFFFF) + (wb & 0xFFFFFFFF) >> 32).astype(np.int32)
    return out, vhi, vcarry


def _check(args: list[np.ndarray]) -> None:
    a, b, out, va, vb, vhi, vcarry = args
    want, want_vhi, want_vcarry = _expected(a, b, va, vb)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(vhi, want_vhi)
    np.testing.assert_array_equal(vcarry, want_vcarry)


def test_expected_values_are_not_trivial() -> None:
    a, b, _, va, vb, _, _ = _inputs()
    want, vhi, vcarry = _expected(a, b, va, vb)
    assert want[:, 5].any() and not want[:, 5].all()  # carries both ways
    assert (want[:, 1] < 0).any() and (want[:, 3] != want[:, 1]).any()  # signed != unsigned
    assert vcarry.any() and (vhi < 0).any()


def test_cpu() -> None:
    args = _inputs()
    xmux.compile(KERNEL).kernel("ext")(*args, global_size=(N,), local_size=(32,))
    _check(args)


def test_interpreter() -> None:
    args = _inputs()
    xmux.interpret(KERNEL, "ext", *args, global_size=(N,), local_size=(32,))
    _check(args)


def test_nvptx_ptx() -> None:
    ptx = xmux.compile(KERNEL, target="nvptx", cache=False).ptx
    assert ".visible .entry ext(" in ptx
    assert "mul.hi.s64" in ptx and "mul.hi.u64" in ptx  # the i128 products' high halves


@pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
def test_nvptx_gpu() -> None:
    args = _inputs()
    xmux.compile(KERNEL, target="nvptx").kernel("ext")(*args, global_size=(N,),
                                                       local_size=(32,))
    _check(args)
