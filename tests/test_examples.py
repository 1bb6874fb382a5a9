"""The bundled examples: through xmux-run (as `make demo` runs them) and through the Python API."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xmux

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _demo():
    spec = importlib.util.spec_from_file_location("run_demo", EXAMPLES / "run_demo.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


DEMO = _demo()


@pytest.mark.parametrize("name", list(DEMO.EXAMPLES))
def test_example_through_xmux_run(name):
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from xmux.cli import run_main; sys.exit(run_main())",
         str(EXAMPLES / f"{name}.mlir")],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Unranked Memref base@ = 0x")
    got = DEMO.parse_memref(proc.stdout)
    np.testing.assert_allclose(got, DEMO.EXAMPLES[name](), rtol=1e-5, atol=1e-5)


def _kernels(name: str) -> xmux.Program:
    return xmux.compile(EXAMPLES / f"{name}.mlir")


def test_vecadd_api_odd_sizes():
    k = _kernels("vecadd").kernel("vecadd")
    rng = np.random.default_rng(0)
    for n, local in ((1, 1), (7, 7), (1000, 64), (4099, 128), (1 << 16, 256)):
        a, b = rng.random(n, np.float32), rng.random(n, np.float32)
        c = np.zeros(n, np.float32)
        k(a, b, c, global_size=n, local_size=local)
        np.testing.assert_array_equal(c, a + b)


def test_saxpy_api_with_offset():
    k = _kernels("saxpy").kernel("saxpy")
    rng = np.random.default_rng(1)
    x, y = rng.random(5000, np.float32), rng.random(5000, np.float32)
    want = y.copy()
    want[13:13 + 4987] = np.float32(2.5) * x[13:] + y[13:]
    k(np.float32(2.5), x, y, global_size=4987, local_size=13, global_offset=13)
    np.testing.assert_allclose(y, want, rtol=1e-6)


@pytest.mark.parametrize("n,local", [(96, (16, 16)), (37, (8, 4)), (5, (5, 5))])
def test_matmul_api(n, local):
    k = _kernels("matmul").kernel("matmul")
    rng = np.random.default_rng(2)
    a, b = rng.random((n, n), np.float32), rng.random((n, n), np.float32)
    c = np.zeros((n, n), np.float32)
    k(np.int32(n), a, b, c, global_size=(n, n), local_size=local)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4)


@pytest.mark.parametrize("h,w,local", [(40, 48, (8, 4)), (13, 29, (7, 3)), (1, 1, (1, 1))])
def test_conv3x3_api(h, w, local):
    k = _kernels("conv3x3").kernel("conv3x3")
    rng = np.random.default_rng(3)
    img = np.zeros((h + 2, w + 2), np.float32)
    img[1:-1, 1:-1] = rng.random((h, w), np.float32)
    wts = rng.random(9, np.float32)
    out = np.zeros((h, w), np.float32)
    k(img, out, wts, global_size=(w, h), local_size=local)
    want = sum(
        wts[dy * 3 + dx] * img[dy:dy + h, dx:dx + w].astype(np.float64)
        for dy in range(3) for dx in range(3)
    )
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_strided_numpy_views():
    src = """
    func.func @scale(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %out: memref<?x?xf32>)
        attributes {mux.kernel = "entry_point"} {
      %x = mux.get_global_id 0 : index
      %y = mux.get_global_id 1 : index
      %v = memref.load %a[%y, %x] : memref<?x?xf32, strided<[?, ?], offset: ?>>
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %v, %two : f32
      memref.store %r, %out[%y, %x] : memref<?x?xf32>
      func.return
    }"""
    k = xmux.compile(src).kernel("scale")
    base = np.arange(20 * 30, dtype=np.float32).reshape(20, 30)
    view = base[3:15:2, 1:28:3].T  # transposed, stepped: non-contiguous both ways
    out = np.zeros(view.shape, np.float32)
    k(view, out, global_size=(view.shape[1], view.shape[0]), local_size=(3, 3))
    np.testing.assert_array_equal(out, 2 * view)
