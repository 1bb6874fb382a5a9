"""pack-group-panels end to end (not in the default pipeline: added after
work-item-unroll-and-jam here): kernels whose panels are packed give numpy's results, with the
panel in the buffer, past it (the versioned nest's original path) and with the pass off."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from tests.kernel_texts import MATMUL as KERNEL_MATMUL
from xmux import pipelines
from xmux.transforms.pack_group_panels import PackGroupPanels

#: the shared naive matmul with a known 16x16 local size (as in a local-size variant)
MATMUL = KERNEL_MATMUL.replace(
    'attributes {mux.kernel = "entry_point"}',
    'attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>}')

# an i32 panel of a fixed depth (rows 3..67 of B), offset columns: exact results
FIXED = """
func.func @band(%A: memref<?x?xi32>, %B: memref<?x?xi32>, %C: memref<?x?xi32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 16, 1>} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c2 = arith.constant 2 : index
  %bc = arith.addi %col, %c2 : index
  %c3 = arith.constant 3 : index
  %c67 = arith.constant 67 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %acc = scf.for %k = %c3 to %c67 step %c1 iter_args(%s = %zero) -> (i32) {
    %a = memref.load %A[%row, %k] : memref<?x?xi32>
    %b = memref.load %B[%k, %bc] : memref<?x?xi32>
    %p = arith.muli %a, %b : i32
    %t = arith.addi %s, %p : i32
    scf.yield %t : i32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xi32>
  func.return
}
"""


def _kernel(src: str, name: str, pack_bytes: int | None = None):
    """The default pipeline with pack-group-panels after work-item-unroll-and-jam."""
    passes = []
    for p in pipelines.cpu():
        passes.append(p)
        if p.name == "work-item-unroll-and-jam":
            passes.append(PackGroupPanels() if pack_bytes is None
                          else PackGroupPanels(pack_bytes=pack_bytes))
    ir: list[str] = []
    prog = xmux.compile(src, pipeline=passes, wait=True,
                        pass_callback=lambda p, m: ir.append(str(m))
                        if p.name == "pack-group-panels" else None)
    return prog.kernel(name), ir[0]


@pytest.mark.parametrize("pack_bytes", [None, 2048, 0], ids=["fits", "too-deep", "off"])
@pytest.mark.parametrize("n", [48, 80])
def test_matmul_matches_numpy(n: int, pack_bytes: int | None) -> None:
    k, ir = _kernel(MATMUL, "matmul", pack_bytes)
    # 2048 bytes hold 32 rows of the 16-column panel: n = 48 and 80 take the original nest
    assert ("memref<4096x16xf32>" in ir) == (pack_bytes is None)
    assert ("memref<32x16xf32>" in ir) == (pack_bytes == 2048)
    rng = np.random.default_rng(n)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    c = np.zeros((n, n), np.float32)
    k(n, a, b, c, global_size=(n, n), local_size=(16, 16))
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5)


def test_packed_bits_equal_unpacked() -> None:
    """Packing changes where B is read from, not the arithmetic: the same bits."""
    n = 64
    rng = np.random.default_rng(7)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    out = []
    for pack_bytes in (None, 0):
        k, _ = _kernel(MATMUL, "matmul", pack_bytes)
        c = np.zeros((n, n), np.float32)
        k(n, a, b, c, global_size=(n, n), local_size=(16, 16))
        out.append(c)
    assert out[0].tobytes() == out[1].tobytes()


def test_fixed_depth_i32_panel() -> None:
    k, ir = _kernel(FIXED, "band")
    assert "memref<64x16xi32>" in ir and "scf.if" not in ir.split("func.func @band")[1]
    n, m = 32, 80
    rng = np.random.default_rng(3)
    a = rng.integers(-50, 50, (n, m), dtype=np.int32)
    b = rng.integers(-50, 50, (m, n + 2), dtype=np.int32)
    c = np.zeros((n, n), np.int32)
    k(a, b, c, global_size=(n, n), local_size=(16, 16))
    np.testing.assert_array_equal(c, a[:, 3:67] @ b[3:67, 2:n + 2])


def test_bad_option_names_the_pass() -> None:
    from xdsl.dialects.builtin import ModuleOp

    from xmux.abi.errors import XmuxError

    with pytest.raises(XmuxError, match="pack-group-panels: pack_bytes"):
        PackGroupPanels(pack_bytes=-1).apply(None, ModuleOp([]))  # type: ignore[arg-type]


def _variant(kernel: object, local: tuple[int, ...]) -> object:
    """The kernel's variant for ``local`` (a tuner over its builds), None before it exists."""
    return kernel._launcher.variants.built.get(local)  # type: ignore[attr-defined]


def _launch_until_chosen(kernel: object, args: tuple, n: int) -> list[np.ndarray]:
    """Launches (16x16 groups) until the variant's tuner has chosen; each launch's C."""
    out = []
    for _ in range(80):
        c = np.zeros((n, n), np.float32)
        kernel(*args, c, global_size=(n, n), local_size=(16, 16))  # type: ignore[operator]
        out.append(c)
        tuner = _variant(kernel, (16, 16, 1))
        if getattr(tuner, "chosen_entry", None) is not None:
            break
    return out


def test_tuner_samples_the_packed_twin_of_a_variant(tmp_path, monkeypatch) -> None:
    """The local-size variant of the naive matmul is built with and without
    pack-group-panels (which wins on some hosts, loses on others); the tuner times both, and
    every build computes the same bits. A warm start knows the twin from the cache's notes."""
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("XMUX_CACHE", raising=False)
    n = 64
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(2))
    for run in range(2):  # the second program is a warm start from the disk cache
        k = xmux.compile(KERNEL_MATMUL, wait=True, tune=True).kernel("matmul")
        results = _launch_until_chosen(k, (n, a, b), n)
        tuner = _variant(k, (16, 16, 1))
        assert "packed" in tuner.names, (run, tuner.names)  # type: ignore[attr-defined]
        assert tuner.chosen_entry is not None  # type: ignore[attr-defined]
        for c in results:
            assert np.array_equal(c, results[0])
        np.testing.assert_allclose(results[0], a @ b, rtol=1e-4, atol=1e-4)


def test_no_packed_twin_where_nothing_packs() -> None:
    from tests.kernel_texts import VECADD

    k = xmux.compile(VECADD, wait=True, tune=True, cache=False).kernel("vecadd")
    x = np.arange(1024, dtype=np.float32)
    out = np.zeros_like(x)
    for _ in range(3):
        k(x, x, out, global_size=(1024,), local_size=(64,))
    tuner = _variant(k, (64, 1, 1))
    assert "packed" not in getattr(tuner, "names", [])
    np.testing.assert_array_equal(out, 2 * x)
