"""The NVPTX target without a GPU: PTX emitted by llvmlite, the launch split, bad options.

Execution on a GPU is in tests/test_nvptx_runtime.py and tests/test_nvptx_examples.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import xmux
from xmux.runtime import cuda
from xmux.runtime.launch import NDRange

ROOT = Path(__file__).resolve().parent.parent

LOCAL_ARG = """
func.func @scale(%x: memref<?xf32>, %tile: memref<?xf32, 3>, %n: index)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  memref.store %v, %tile[%l] : memref<?xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %w = memref.load %tile[%l] : memref<?xf32, 3>
  %s = arith.addf %v, %w : f32
  memref.store %s, %x[%i] : memref<?xf32>
  func.return
}
"""


def _ptx(source: object) -> str:
    return xmux.compile(source, target="nvptx", cache=False).ptx


def test_vecadd_is_a_ptx_entry_over_global_memory() -> None:
    ptx = _ptx(ROOT / "examples" / "vecadd.mlir")
    assert ".target sm_" in ptx and ".address_size 64" in ptx
    assert ".visible .entry vecadd(" in ptx
    assert "ld.global" in ptx and "st.global" in ptx
    assert "%ctaid.x" in ptx and "%tid.x" in ptx
    assert "bar.sync" not in ptx  # no work-item loops, no barriers


def test_local_memory_is_shared_memory_and_barriers_are_bar_sync() -> None:
    ptx = _ptx(ROOT / "examples" / "reduce_local.mlir")
    assert ".shared" in ptx
    assert "ld.shared" in ptx and "st.shared" in ptx
    assert "bar.sync \t0" in ptx or "bar.sync 0" in ptx or "barrier.sync" in ptx


def test_local_memory_argument_is_dynamic_shared_memory() -> None:
    ptx = _ptx(LOCAL_ARG)
    assert ".extern .shared .align 16 .b8 __xmux_dynamic_shared[]" in ptx
    assert "st.shared" in ptx


def test_every_example_builds_ptx() -> None:
    examples = sorted((ROOT / "examples").glob("*.mlir")) + sorted(
        (ROOT / "examples" / "gpu").glob("*.mlir")
    )
    for path in examples:
        prog = xmux.compile(path, target="nvptx", cache=False)
        for name in prog.kernel_names:
            assert f".entry {name}(" in prog.ptx, path.name


def test_ptx_is_cached_on_disk(tmp_path, monkeypatch) -> None:
    from xmux.runtime import nvptx

    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("XMUX_CACHE", "1")  # on whatever the environment says
    monkeypatch.setattr(nvptx, "_memory", {})
    source = (ROOT / "examples" / "saxpy.mlir").read_text()
    first = xmux.compile(source, target="nvptx")
    assert first.source == "compiled"
    nvptx._memory.clear()
    again = xmux.compile(source, target="nvptx")
    assert again.source == "disk"
    assert again.ptx == first.ptx and again.kernel_names == first.kernel_names
    assert list(tmp_path.glob("nvptx/*.ptx"))


@pytest.mark.parametrize(
    "option", [{"threads": 4}, {"vector_width": 8}, {"oacc_target": "host"},
               {"sub_group_size": 8}]
)
def test_cpu_only_options_are_refused(option: dict) -> None:
    with pytest.raises(xmux.XmuxError, match="applies to the cpu target, not nvptx"):
        xmux.compile(ROOT / "examples" / "vecadd.mlir", target="nvptx", **option)


def test_unknown_target() -> None:
    with pytest.raises(xmux.XmuxError, match="target must be 'cpu' or 'nvptx', got 'amdgpu'"):
        xmux.compile(ROOT / "examples" / "vecadd.mlir", target="amdgpu")


def test_arch_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("XMUX_NVPTX_ARCH", "sm_80")
    prog = xmux.compile(ROOT / "examples" / "saxpy.mlir", target="nvptx", cache=False)
    assert prog.arch == "sm_80" and ".target sm_80" in prog.ptx
    monkeypatch.setenv("XMUX_NVPTX_ARCH", "volta")
    with pytest.raises(xmux.XmuxError, match="XMUX_NVPTX_ARCH=volta"):
        xmux.compile(ROOT / "examples" / "saxpy.mlir", target="nvptx", cache=False)


def _parts(g, loc, off=None):
    nd = NDRange("k", g, loc, off, None)
    return nd, cuda.launch_parts(nd)


def test_a_dividing_range_is_one_launch() -> None:
    _, parts = _parts((1024, 8), (256, 2))
    assert parts == [((0, 0, 0), (4, 4, 1), (256, 2, 1))]


def test_remainders_are_launched_with_their_own_blocks() -> None:
    nd, parts = _parts((1000, 10), (256, 4))
    assert nd.num_groups[:2] == (4, 3)
    assert sorted(parts) == sorted([
        ((0, 0, 0), (3, 2, 1), (256, 4, 1)),
        ((3, 0, 0), (1, 2, 1), (232, 4, 1)),
        ((0, 2, 0), (3, 1, 1), (256, 2, 1)),
        ((3, 2, 0), (1, 1, 1), (232, 2, 1)),
    ])
    covered = sum(g[0] * g[1] * b[0] * b[1] for _, g, b in parts)
    assert covered == 1000 * 10


def test_the_launch_record_follows_the_abi() -> None:
    from xmux.abi import nvptx_abi as abi

    nd = NDRange("k", (1000, 10), (256, 4), (5, 7), None)
    record = [int(v) for v in cuda.launch_record(nd, (3, 2, 0))]
    assert record[abi.GLOBAL_SIZE:abi.GLOBAL_SIZE + 3] == [1000, 10, 1]
    assert record[abi.GLOBAL_OFFSET:abi.GLOBAL_OFFSET + 3] == [5, 7, 0]
    assert record[abi.ENQUEUED_LOCAL_SIZE:abi.ENQUEUED_LOCAL_SIZE + 3] == [256, 4, 1]
    assert record[abi.GROUP_BASE:abi.GROUP_BASE + 3] == [3, 2, 0]
    assert record[abi.NUM_GROUPS:abi.NUM_GROUPS + 3] == [4, 3, 1]
    assert record[abi.WORK_DIM] == 2


def test_default_block_sizes() -> None:
    assert cuda.default_local((4096,)) == (256,)
    assert cuda.default_local((1000,)) == (8,)
    assert cuda.default_local((512, 512)) == (256, 1)
    assert cuda.default_local((16, 64)) == (16, 16)


@pytest.mark.skipif(cuda.available(), reason="checks the error without a GPU")
def test_launch_without_a_gpu_says_what_is_missing() -> None:
    import numpy as np

    prog = xmux.compile(ROOT / "examples" / "saxpy.mlir", target="nvptx", cache=False)
    k = prog[prog.kernel_names[0]]
    args = [np.zeros(4, np.float32) if a.kind == "memref" else 1 for a in k.info.args]
    with pytest.raises(xmux.XmuxError, match="CuPy|CUDA device"):
        k(*args, global_size=(4,))


def test_required_work_group_size_is_the_entry_reqntid() -> None:
    ptx = _ptx(ROOT / "examples" / "matmul_tiled.mlir")
    assert ".reqntid 16, 16, 1" in ptx
    assert ptx.count("fma.rn.f32") >= 16  # a*b+c contracted, as CUDA's compilers do
