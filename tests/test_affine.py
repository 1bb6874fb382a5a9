"""Affine as clients leave it before ``--lower-affine`` (issue 31): ``lower-affine-upstream``
leads the kernel pipelines and the interpreter's front end, so affine host code and kernels
run with upstream's semantics and no option.

- a kernel (gpu.func) with affine.apply (mod / floordiv / ceildiv, semi-affine by a kernel
  argument), affine.for, affine.if, affine.min / max, affine.load / store: on the CPU, in the
  interpreter and on NVPTX (PTX here; results on a GPU), against numpy;
- tests/filecheck/lower_affine_upstream/run_host.mlir (a host program, its CHECK lines upstream's
  output) against mlir-opt-19 --lower-affine + mlir-cpu-runner-19 run now (skipped without);
- the custom forms xmux prints (affine.if / parallel / max, semi-affine maps) read back into
  mlir-opt-19 as the same IR.
The IR shapes and errors: tests/filecheck/lower_affine_upstream/."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.runtime import cuda

ROOT = Path(__file__).resolve().parent.parent
HOST = ROOT / "tests" / "filecheck" / "lower_affine_upstream" / "run_host.mlir"
MLIR_OPT = shutil.which("mlir-opt-19")
MLIR_RUNNER = shutil.which("mlir-cpu-runner-19")
LIBS = [Path("/usr/lib/llvm-19/lib") / f"lib{n}.so.19.1"
        for n in ("mlir_runner_utils", "mlir_c_runner_utils")]

KERNEL = """
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @aff(%x: memref<?xi64>, %out: memref<?x6xi64>, %s: index) kernel {
      %i = gpu.global_id x
      %d = affine.apply affine_map<(d0) -> (d0 - 40)>(%i)
      %a = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%d)[%s]
      %b = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0 + d0 ceildiv 8)>(%d)[%s]
      %c = affine.max affine_map<(d0)[s0] -> (d0 * s0, -7)>(%d)[%s]
      %e = affine.min affine_map<(d0) -> (d0 mod 5, 3)>(%d)
      %acc = affine.for %k = max affine_map<(d0) -> (0, d0 - 60)>(%i)
          to min affine_map<(d0)[s0] -> (d0 floordiv 4, s0)>(%i)[%s]
          iter_args(%t = %i) -> (index) {
        %v = affine.load %x[%k * 2 + 1] : memref<?xi64>
        %vi = arith.index_cast %v : i64 to index
        %t2 = arith.addi %t, %vi : index
        affine.yield %t2 : index
      }
      %sel = affine.if affine_set<(d0)[s0] : (d0 mod 3 == 0, s0 - d0 >= 0)>(%i)[%s] -> index {
        affine.yield %a : index
      } else {
        affine.yield %e : index
      }
      %ra = arith.index_cast %a : index to i64
      %rb = arith.index_cast %b : index to i64
      %rc = arith.index_cast %c : index to i64
      %re = arith.index_cast %e : index to i64
      %racc = arith.index_cast %acc : index to i64
      %rsel = arith.index_cast %sel : index to i64
      affine.store %ra, %out[%i, 0] : memref<?x6xi64>
      affine.store %rb, %out[%i, 1] : memref<?x6xi64>
      affine.store %rc, %out[%i, 2] : memref<?x6xi64>
      affine.store %re, %out[%i, 3] : memref<?x6xi64>
      affine.store %racc, %out[%i, 4] : memref<?x6xi64>
      affine.store %rsel, %out[%i, 5] : memref<?x6xi64>
      gpu.return
    }
  }
}
"""
N, S = 96, 7  # work-items (3 groups of 32), the symbol s0


def _args() -> list[object]:
    return [np.arange(100, 100 + 2 * N, dtype=np.int64) * 3 - 400, np.zeros((N, 6), np.int64), S]


def _expected(x: np.ndarray) -> np.ndarray:
    out = np.zeros((N, 6), np.int64)
    for i in range(N):
        d = i - 40
        a, e = d % S, min(d % 5, 3)
        acc = i + sum(int(x[2 * k + 1]) for k in range(max(0, i - 60), min(i // 4, S)))
        sel = a if (i % 3 == 0 and S - i >= 0) else e
        out[i] = [a, d // S + -(-d // 8), max(d * S, -7), e, acc, sel]
    return out


def _check(args: list[object]) -> None:
    np.testing.assert_array_equal(args[1], _expected(args[0]))  # type: ignore[arg-type]


def test_expected_values_cover_negative_operands() -> None:
    want = _expected(_args()[0])  # type: ignore[arg-type]
    assert (want[:, 1] < 0).any() and (want[:40, 0] > 0).any()  # floordiv < 0, mod >= 0
    assert len(set(want[:, 5])) > 3 and (want[:, 4] != np.arange(N)).any()


def test_kernel_cpu() -> None:
    args = _args()
    xmux.compile(KERNEL).kernel("aff")(*args, global_size=(N,), local_size=(32,))
    _check(args)


def test_kernel_interpreter() -> None:
    args = _args()
    xmux.interpret(KERNEL, "aff", *args, global_size=(N,), local_size=(32,))
    _check(args)


def test_kernel_nvptx_ptx() -> None:
    ptx = xmux.compile(KERNEL, target="nvptx", cache=False).ptx
    assert ".visible .entry aff(" in ptx
    assert "div.s64" in ptx or "rem.s64" in ptx  # the expanded floordiv / mod by %s


@pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
def test_kernel_nvptx_gpu() -> None:
    args = _args()
    xmux.compile(KERNEL, target="nvptx").kernel("aff")(*args, global_size=(N,),
                                                       local_size=(32,))
    _check(args)


def _same(out: str) -> str:
    return re.sub(r"base@ = 0x[0-9a-f]+", "base@", out)


@pytest.mark.skipif(not (MLIR_OPT and MLIR_RUNNER and all(p.exists() for p in LIBS)),
                    reason="mlir-opt-19 / mlir-cpu-runner-19 not installed")
def test_host_program_as_upstream_lower_affine(capsys: pytest.CaptureFixture[str]) -> None:
    from xmux.runner import HostProgram

    low = subprocess.run([MLIR_OPT, "--lower-affine", "--convert-scf-to-cf",
                          "--expand-strided-metadata", "--finalize-memref-to-llvm",
                          "--convert-to-llvm", "--reconcile-unrealized-casts", str(HOST)],
                         capture_output=True, text=True, check=True)
    ref = subprocess.run([MLIR_RUNNER, "-e", "main", "-entry-point-result=void",
                          "-shared-libs=" + ",".join(map(str, LIBS))], input=low.stdout,
                         capture_output=True, text=True, check=True)
    capsys.readouterr()
    HostProgram(HOST.read_text(), str(HOST)).run_main()
    got = capsys.readouterr().out
    assert "1204" in ref.stdout  # the affine.parallel's stores
    assert _same(got) == _same(ref.stdout)


SYNTAX = """
func.func @f(%a: memref<?x4xf32>, %n: index, %m: index) -> f32 {
  %x = affine.max affine_map<(d0)[s0] -> (d0 * s0, (d0 - s0) ceildiv s0, 3)>(%n)[%m]
  %y = affine.if affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 mod 2 == 0)>(%x)[%m] -> index {
    affine.yield %x : index
  } else {
    affine.yield %n : index
  }
  affine.parallel (%i, %j) = (max(0, symbol(%m) - 2), 0) to (min(symbol(%n), 10), 4)
      step (2, 1) {
    %v = affine.load %a[%i + symbol(%y), %j] : memref<?x4xf32>
    affine.store %v, %a[%i, %j] : memref<?x4xf32>
  }
  %r = affine.parallel (%i) = (0) to (symbol(%n)) reduce ("maximumf") -> (f32) {
    %v = affine.load %a[%i, 0] : memref<?x4xf32>
    affine.yield %v : f32
  }
  return %r : f32
}
"""


@pytest.mark.skipif(not MLIR_OPT, reason="mlir-opt-19 not installed")
def test_custom_forms_round_trip_through_mlir_opt() -> None:
    """mlir-opt-19's print of SYNTAX, read and printed by xmux, reads back into mlir-opt-19
    as the same program (compared after upstream's --lower-affine --canonicalize: xDSL's
    maps of SSA ids make every id a symbol, upstream's some dimensions)."""
    from xmux.registry import make_context
    from xmux.sources import parse_module

    def upstream(text: str, *passes: str) -> str:
        return subprocess.run([MLIR_OPT, *passes], input=text, capture_output=True, text=True,
                              check=True).stdout

    printed = upstream(SYNTAX)
    ours = str(parse_module(make_context(), printed, "<mlir-opt-19>"))
    for form in ("affine.max", "affine.if", "affine.parallel", "max(0,", "step (2, 1)",
                 'reduce ("maximumf")', "ceildiv"):
        assert form in ours, form
    lowered = ("--lower-affine", "--canonicalize", "--cse")
    assert upstream(ours, *lowered) == upstream(printed, *lowered)
