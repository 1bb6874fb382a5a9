"""OpenACC on the GPU: ``expand-oacc-reductions{expansion=ptx}`` (GCC's PTX design: vector lanes
reduce with warp shuffles, workers through shared memory and the join barrier, gangs with one
device-scope atomic or the gang lock).

The PTX-shape tests run everywhere (llvmlite emits PTX without a GPU); the execution tests
(the OpenACC sum at several vector lengths and worker counts, the libgomp ports on the GPU at
both rotations of their sizes) are skipped without a CUDA device and check the same values as
the CPU tests.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import xmux
from tests import (
    test_acc_gang_private,
    test_libgomp_loop_red,
    test_libgomp_modes,
    test_libgomp_private,
)
from tests import test_libgomp_reductions as reds
from tests.libgomp_ports import GPU_CONFIGS, Config, check, verify_ends_only
from xmux.abi.nvptx_variants import without_variants
from xmux.runtime import cuda

ROOT = Path(__file__).resolve().parent.parent
SUM = (ROOT / "bench" / "kernels" / "acc_sum.mlir.in").read_text()
KERNEL = "acc_sum_acc_parallel_0"
gpu = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")


DTYPES = {"f32": np.float32, "f64": np.float64}


def _sum_source(t: str, gangs: int, workers: int, vl: int, op: str = "addf") -> str:
    """bench/acc_sum.py's program; ``op`` replaces the recipe's combiner (mulf: identity 1)."""
    text = SUM.format(t=t, gangs=gangs, workers=workers, vl=vl)
    if op == "mulf":
        text = text.replace("arith.constant 0.0 :", "arith.constant 1.0 :")
    return text.replace("arith.addf", f"arith.{op}")


def _ptx(t: str, workers: int, vl: int, op: str = "addf") -> str:
    # the generic entry: the read-only variant (abi/nvptx_variants.py) repeats its code
    source = _sum_source(t, 8, workers, vl, op)
    return without_variants(xmux.compile(source, target="nvptx", cache=False).ptx)


def _count(ptx: str, what: str) -> int:
    return len(re.findall(what, ptx))


# ---------------------------------------------------------------------------------------
# PTX shape (CI)
# ---------------------------------------------------------------------------------------


def test_sum_is_shuffles_one_barrier_one_atomic() -> None:
    """vector_length(32): a butterfly of 5 shuffles over the full warp, the workers' slots
    after one bar.sync (the worker join; the vector join is a warp sync; the forks, with
    nothing before them to order, are none: ptx_first_fork.mlir), one relaxed device-scope
    atomic add per gang, no lock."""
    ptx = _ptx("f32", 4, 32)
    bfly = re.findall(r"shfl\.sync\.bfly\.b32\s+%r\d+, %r\d+, (\d+), 31, -1;", ptx)
    assert bfly == ["16", "8", "4", "2", "1"]
    assert _count(ptx, r"bar\.sync") == 1  # the worker join
    assert _count(ptx, r"bar\.warp\.sync\s+-1;") == 1  # the vector join
    assert _count(ptx, r"\batom\.") == 1
    assert _count(ptx, r"atom\.global\.add\.f32") == 1
    assert "cas" not in ptx and "fence" not in ptx and "membar" not in ptx
    assert _count(ptx, r"st\.shared\.b32") == 1 and _count(ptx, r"ld\.shared\.b32") == 4


def test_f64_shuffles_move_two_words() -> None:
    ptx = _ptx("f64", 2, 32)
    assert _count(ptx, r"shfl\.sync\.bfly\.b32") == 10
    assert _count(ptx, r"atom\.global\.add\.f64") == 1


def test_short_vector_shuffles_within_its_lanes() -> None:
    """vector_length(8): 3 shuffles over the vector group's 8 lanes of the warp (a mask from
    the group's first lane), the join synchronises those lanes only."""
    ptx = _ptx("f32", 4, 8)
    bfly = re.findall(r"shfl\.sync\.bfly\.b32\s+%r\d+, %r\d+, (\d+), 31, %r\d+;", ptx)
    assert bfly == ["4", "2", "1"]
    assert re.search(r"mov\.b32\s+%r\d+, 255;", ptx)
    assert re.search(r"shl\.b32\s+%r\d+, %r\d+, %r\d+;", ptx)
    assert _count(ptx, r"bar\.warp\.sync\s+%r\d+;") == 1


def test_long_vector_reduces_warps_then_partials() -> None:
    """vector_length(128): each warp shuffles, its lane 0 writes a partial, the join barrier,
    then the group's 4 partials are folded."""
    ptx = _ptx("f32", 2, 128)
    assert _count(ptx, r"shfl\.sync\.bfly\.b32") == 5
    assert _count(ptx, r"\.shared \.align 64 \.b8 __oacc_vector_red_f32\[32\]") == 1  # 1x(2*4)
    assert _count(ptx, r"bar\.warp\.sync") == 0


def test_odd_vector_length_uses_shared_memory() -> None:
    """vector_length(24) does not divide a warp: every lane stores, the group folds."""
    ptx = _ptx("f32", 2, 24)
    assert "shfl" not in ptx
    assert "__oacc_vector_red_f32[192]" in ptx  # 2 workers x 24 lanes x 4 bytes


def test_gang_lock_without_an_atomic() -> None:
    """mul has no atomic: the gang lock in global memory, taken by a cas loop at device
    scope with acquire, released at device scope."""
    ptx = _ptx("f64", 4, 32, "mulf")
    assert re.search(r"\.global \.align 64 \.u32 __oacc_gang_lock", ptx)
    # lock; acquire fence; *res = *res * partial; release fence; unlock (a relaxed exchange
    # after the fence: LLVM's form of a release exchange)
    assert re.search(
        r"atom\.acquire\.gpu\.global\.cas\.b32\s+%r\d+, \[__oacc_gang_lock\], 0, 1;.*?"
        r"fence\.acq_rel\.gpu;\s+ld\.global\.b64\s+(%rd\d+), \[(%rd\d+)\];\s+"
        r"mul(?:\.rn)?\.f64\s+(%rd\d+), (?:%rd\d+, \1|\1, %rd\d+);\s+"
        r"st\.global\.b64\s+\[\2\], \3;\s+"
        r"fence\.acq_rel\.gpu;\s+atom\.global\.exch\.b32\s+%r\d+, \[__oacc_gang_lock\], 0;",
        ptx, re.S)
    assert _count(ptx, r"\batom\.") == 2


# ---------------------------------------------------------------------------------------
# On the GPU
# ---------------------------------------------------------------------------------------

SIZES = [(nw, vl) for vl in (1, 8, 24, 32, 64, 128) for nw in (1, 3, 4)]


@gpu
@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize(("nw", "vl"), SIZES, ids=[f"w{w}v{v}" for w, v in SIZES])
def test_sum_on_gpu(t: str, nw: int, vl: int) -> None:
    gangs, n = 13, 100_003
    k = xmux.compile(_sum_source(t, gangs, nw, vl), target="nvptx")[KERNEL]
    x = (np.arange(n) % 7).astype(DTYPES[t])  # integers: every order of the sum is exact
    total = np.full((), 0.5, DTYPES[t])
    k(x, total, n, global_size=(gangs * vl, nw), local_size=(vl, nw))
    assert float(total) == 0.5 + float(np.sum(x, dtype=np.float64))


def _dynamic_source(t: str, gangs: int) -> str:
    """The sum with num_workers / vector_length from @acc_sum's arguments (not constants):
    the kernel's worker and vector sizes are known at run time only."""
    text = SUM.format(t=t, gangs=gangs, workers=0, vl=0)
    text = text.replace("  %nw = arith.constant 0 : i32\n", "")
    text = text.replace("  %vl = arith.constant 0 : i32\n", "")
    return text.replace("%n: index)", "%n: index, %nw: i32, %vl: i32)")


def test_dynamic_sizes_ptx() -> None:
    """Sizes known at run time: lane values and worker slots in buffers for the largest
    work-group (1024), no shuffles."""
    source = _dynamic_source("f64", 13)
    ptx = without_variants(xmux.compile(source, target="nvptx", cache=False).ptx)
    assert "shfl" not in ptx
    assert "__oacc_worker_red_f64[8192]" in ptx and "__oacc_vector_red_f64[8192]" in ptx


DYNAMIC = [(3, 24), (2, 64), (4, 8), (1, 1), (8, 128)]


@gpu
@pytest.mark.parametrize(("nw", "vl"), DYNAMIC, ids=[f"w{w}v{v}" for w, v in DYNAMIC])
def test_dynamic_sizes_on_gpu(nw: int, vl: int) -> None:
    gangs, n = 13, 100_003
    k = xmux.compile(_dynamic_source("f64", gangs), target="nvptx")[KERNEL]
    x = (np.arange(n) % 7).astype(np.float64)
    total = np.full((), 0.5)
    k(x, total, n, global_size=(gangs * vl, nw), local_size=(vl, nw))
    assert float(total) == 0.5 + float(np.sum(x))


@gpu
@pytest.mark.parametrize(("op", "want"), [("mulf", 2.0**-3), ("maxnumf", 6.0)])
def test_lock_and_max_on_gpu(op: str, want: float) -> None:
    """mul through the gang lock (every gang updates *res in turn), max through the atomic."""
    gangs, n = 64, 4096
    k = xmux.compile(_sum_source("f64", gangs, 4, 32, op), target="nvptx")[KERNEL]
    x = np.ones(n)
    if op == "mulf":
        x[[5, 999, 4000]] = 0.5
    else:
        x[:] = np.arange(n) % 7
    total = np.ones(())
    k(x, total, n, global_size=(gangs * 32, 4), local_size=(32, 4))
    assert float(total) == want


#: worker 0 / lane 0 increments a[0] (a neutered write in worker- and vector-single mode),
#: every work-item then reads a[0] and the worker-vector loop stores what it read (1 gang of
#: 32 workers x 32 lanes)
RACE = (ROOT / "tests" / "filecheck" / "convert_acc_to_oacc" / "modes_racy_read.mlir").read_text()


@pytest.mark.parametrize("target", [
    "cpu", pytest.param("nvptx", marks=gpu)])
def test_single_mode_read_after_neutered_write(target: str) -> None:
    """1024 threads of one CTA run the single-mode code concurrently on a GPU: the read of
    a[0] by the other workers may come before worker 0's write, so convert-acc-to-oacc
    broadcasts the value worker 0 read (modes.py: racy reads are varying)."""
    k = xmux.compile(RACE, target=target)["race_acc_parallel_0"]
    a = np.array([41], np.int32)
    n = 1 << 14
    b = np.zeros(n, np.int32)
    k(a, b, n, global_size=(32, 32), local_size=(32, 32))
    assert a[0] == 42
    assert np.unique(b).tolist() == [42]


def test_gang_private_in_shared_memory_ptx() -> None:
    """A gang-private array that a worker loop writes (issue 36) is one copy per CTA in
    shared memory, not a per-thread local array."""
    text, _ = test_acc_gang_private.program("parallel", "worker", 2, 2, 1)
    ptx = without_variants(xmux.compile(text, target="nvptx", cache=False).ptx)
    assert re.search(r"\.shared \.align 64 \.b8 __oacc_private_main_acc_parallel_0_pc\[32\];",
                     ptx)
    assert ".local" not in ptx


@gpu
@pytest.mark.parametrize(("case", "levels", "ng", "nw", "vl"), test_acc_gang_private.CASES,
                         ids=test_acc_gang_private.IDS)
def test_gang_private_on_gpu(tmp_path, capsys, case, levels, ng, nw, vl) -> None:
    """The gang- and worker-private cases of tests/test_acc_gang_private.py on the GPU:
    the gang's (worker's) threads share one copy in shared memory."""
    text, want = test_acc_gang_private.program(case, levels, ng, nw, vl)
    got = test_acc_gang_private._run(tmp_path, capsys, "nvptx", text)
    test_acc_gang_private._check(got, want)


PORTS = {
    **{f"reductions {p}": f for p, f in reds.PORTS.items()},
    **{f"loop_red {p}": f for p, f in test_libgomp_loop_red.PORTS.items()},
    **{f"modes {p}": f for p, f in test_libgomp_modes.PORTS.items()},
    **{f"private {p}": f for p, f in test_libgomp_private.PORTS.items()},
}


@gpu
@pytest.mark.parametrize("cfg", GPU_CONFIGS, ids=str)
@pytest.mark.parametrize("port", list(PORTS))
def test_libgomp_port_on_gpu(port: str, cfg: Config, monkeypatch) -> None:
    verify_ends_only(monkeypatch)
    check(PORTS[port](cfg))
