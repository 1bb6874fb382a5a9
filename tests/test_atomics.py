"""memref.atomic_rmw in kernels: byte histograms (bench/kernels/histogram*.mlir) against
numpy.bincount, uniform and contended, on several threads; every kind on work-group local
memory (lowered without atomics on the CPU: a work-group runs on one thread) and on global
memory shared by the threads; fetch-and-add tickets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.runtime import jit

ROOT = Path(__file__).resolve().parents[1]
GLOBAL = (ROOT / "bench" / "kernels" / "histogram.mlir").read_text()
LOCAL = (ROOT / "bench" / "kernels" / "histogram_local.mlir").read_text()


def _bytes(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.integers(0, 256, n, dtype=np.uint8)
    if kind == "few":  # one cache line of counters: every update contends
        return rng.integers(0, 4, n, dtype=np.uint8)
    return np.full(n, 255, np.uint8)  # one bin


@pytest.fixture(scope="module")
def kernels() -> dict[str, xmux.Kernel]:
    return {"global": xmux.compile(GLOBAL, cache=False)["histogram"],
            "local": xmux.compile(LOCAL, cache=False)["histogram_local"]}


@pytest.mark.parametrize("which", ["global", "local"])
@pytest.mark.parametrize("kind", ["uniform", "few", "one"])
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_histogram_matches_bincount(kernels, which, kind, threads):
    n = 1 << 16
    data = _bytes(kind, n, seed=threads)
    bins = np.zeros(256, np.int32)
    # twice: the second launch runs the local-size variant (constant work-item loop bounds)
    for _ in range(2):
        bins[:] = 0
        kernels[which](data.view(np.int8), bins, global_size=n, local_size=256, threads=threads)
        np.testing.assert_array_equal(bins, np.bincount(data, minlength=256))


@pytest.mark.parametrize("which", ["global", "local"])
@pytest.mark.parametrize("n, local", [(1000, 64), (777, 512), (256 * 40 + 3, 256)])
def test_histogram_other_shapes_accumulates(kernels, which, n, local):
    """Local sizes below and above the bin count, a partial last work-group; counts add to
    what ``bins`` held."""
    data = _bytes("uniform", n, seed=n)
    start = np.arange(256, dtype=np.int32)
    bins = start.copy()
    kernels[which](data.view(np.int8), bins, global_size=n, local_size=local, threads=2)
    np.testing.assert_array_equal(bins, start + np.bincount(data, minlength=256))


KINDS = """
memref.global "private" @acc : memref<4xi32, 3> = uninitialized
memref.global "private" @facc : memref<3xf32, 3> = uninitialized
func.func @kinds(%x: memref<?xi32>, %f: memref<?xf32>, %out: memref<?x4xi32>,
                 %fout: memref<?x3xf32>, %g: memref<4xi32>, %gf: memref<3xf32>)
    attributes {mux.kernel = "entry_point"} {
  %l = mux.get_local_id 0 : index
  %grp = mux.get_group_id 0 : index
  %i = mux.get_global_id 0 : index
  %acc = memref.get_global @acc : memref<4xi32, 3>
  %facc = memref.get_global @facc : memref<3xf32, 3>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %is0 = arith.cmpi eq, %l, %c0 : index
  scf.if %is0 {
    %lo = arith.constant -2147483648 : i32
    %hi = arith.constant -1 : i32
    %z = arith.constant 0 : i32
    %ninf = arith.constant 0xFF800000 : f32
    %inf = arith.constant 0x7F800000 : f32
    %one = arith.constant 1.0 : f32
    memref.store %lo, %acc[%c0] : memref<4xi32, 3>
    memref.store %hi, %acc[%c1] : memref<4xi32, 3>
    memref.store %z, %acc[%c2] : memref<4xi32, 3>
    memref.store %z, %acc[%c3] : memref<4xi32, 3>
    memref.store %ninf, %facc[%c0] : memref<3xf32, 3>
    memref.store %inf, %facc[%c1] : memref<3xf32, 3>
    memref.store %one, %facc[%c2] : memref<3xf32, 3>
  }
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %v = memref.load %x[%i] : memref<?xi32>
  %w = memref.load %f[%i] : memref<?xf32>
  %a0 = memref.atomic_rmw maxs %v, %acc[%c0] : (i32, memref<4xi32, 3>) -> i32
  %a1 = memref.atomic_rmw minu %v, %acc[%c1] : (i32, memref<4xi32, 3>) -> i32
  %a2 = memref.atomic_rmw ori %v, %acc[%c2] : (i32, memref<4xi32, 3>) -> i32
  %a3 = memref.atomic_rmw addi %v, %acc[%c3] : (i32, memref<4xi32, 3>) -> i32
  %f0 = memref.atomic_rmw maximumf %w, %facc[%c0] : (f32, memref<3xf32, 3>) -> f32
  %f1 = memref.atomic_rmw minnumf %w, %facc[%c1] : (f32, memref<3xf32, 3>) -> f32
  %f2 = memref.atomic_rmw mulf %w, %facc[%c2] : (f32, memref<3xf32, 3>) -> f32
  %g0 = memref.atomic_rmw maxs %v, %g[%c0] : (i32, memref<4xi32>) -> i32
  %g1 = memref.atomic_rmw minu %v, %g[%c1] : (i32, memref<4xi32>) -> i32
  %g2 = memref.atomic_rmw ori %v, %g[%c2] : (i32, memref<4xi32>) -> i32
  %g3 = memref.atomic_rmw muli %v, %g[%c3] : (i32, memref<4xi32>) -> i32
  %h0 = memref.atomic_rmw maximumf %w, %gf[%c0] : (f32, memref<3xf32>) -> f32
  %h1 = memref.atomic_rmw minnumf %w, %gf[%c1] : (f32, memref<3xf32>) -> f32
  %h2 = memref.atomic_rmw mulf %w, %gf[%c2] : (f32, memref<3xf32>) -> f32
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %lt4 = arith.cmpi ult, %l, %c3 : index
  %le4 = arith.cmpi ule, %l, %c3 : index
  scf.if %le4 {
    %r = memref.load %acc[%l] : memref<4xi32, 3>
    memref.store %r, %out[%grp, %l] : memref<?x4xi32>
  }
  scf.if %lt4 {
    %r = memref.load %facc[%l] : memref<3xf32, 3>
    memref.store %r, %fout[%grp, %l] : memref<?x3xf32>
  }
  return
}
"""


@pytest.mark.parametrize("threads", [1, 3])
def test_every_kind_on_local_and_global_memory(threads):
    k = xmux.compile(KINDS, cache=False)["kinds"]
    groups, local = 24, 32
    n = groups * local
    rng = np.random.default_rng(threads)
    x = rng.integers(-(1 << 30), 1 << 30, n).astype(np.int32)
    f = rng.choice(np.float32([0.5, 1.0, 2.0, -1.0, -4.0]), n)
    f[5 * local + 7] = np.nan  # group 5: maximumf propagates NaN, minnumf ignores it
    out = np.zeros((groups, 4), np.int32)
    fout = np.zeros((groups, 3), np.float32)
    g = np.array([np.iinfo(np.int32).min, -1, 0, 1], np.int32)
    gf = np.float32([-np.inf, np.inf, 1.0])
    g0 = g.copy()
    k(x, f, out, fout, g, gf, global_size=n, local_size=local, threads=threads)
    xs, fs = x.reshape(groups, local), f.reshape(groups, local)
    np.testing.assert_array_equal(out[:, 0], xs.max(axis=1))
    np.testing.assert_array_equal(out[:, 1], xs.view(np.uint32).min(axis=1).view(np.int32))
    np.testing.assert_array_equal(out[:, 2], np.bitwise_or.reduce(xs, axis=1))
    np.testing.assert_array_equal(out[:, 3], xs.sum(axis=1, dtype=np.int64).astype(np.int32))
    np.testing.assert_array_equal(fout[:, 0], np.max(fs, axis=1))  # NaN in group 5
    np.testing.assert_array_equal(fout[:, 1], np.fmin.reduce(fs, axis=1))
    np.testing.assert_array_equal(fout[:, 2], np.prod(fs, axis=1))  # powers of 2: exact
    assert np.isnan(fout[5, 0]) and not np.isnan(fout[5, 1])
    with np.errstate(over="ignore"):
        prod = np.multiply.reduce(x.astype(np.int64) & 0xFFFFFFFF, dtype=np.uint64)
    want = [max(g0[0], x.max()), x.view(np.uint32).min().view(np.int32),
            np.bitwise_or.reduce(x), np.uint32(int(prod) & 0xFFFFFFFF).view(np.int32)]
    np.testing.assert_array_equal(g, want)
    assert np.isnan(gf[0]) and gf[1] == np.fmin.reduce(f) and np.isnan(gf[2])


TICKETS = """
memref.global "private" @ctr : memref<1xi32, 3> = uninitialized
func.func @tickets(%gctr: memref<1xi32>, %gout: memref<?xi32>, %lout: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %ctr = memref.get_global @ctr : memref<1xi32, 3>
  %is0 = arith.cmpi eq, %l, %c0 : index
  scf.if %is0 {
    %z = arith.constant 0 : i32
    memref.store %z, %ctr[%c0] : memref<1xi32, 3>
  }
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %t = memref.atomic_rmw addi %one, %ctr[%c0] : (i32, memref<1xi32, 3>) -> i32
  memref.store %t, %lout[%i] : memref<?xi32>
  %gt = memref.atomic_rmw addi %one, %gctr[%c0] : (i32, memref<1xi32>) -> i32
  memref.store %gt, %gout[%i] : memref<?xi32>
  return
}
"""


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_fetch_and_add_returns_every_ticket_once(threads):
    """The old value each update returns: a permutation of 0..n-1 over the launch (global) and
    of 0..local-1 within each work-group (local memory)."""
    k = xmux.compile(TICKETS, cache=False)["tickets"]
    groups, local = 64, 128
    n = groups * local
    gctr = np.zeros(1, np.int32)
    gout = np.full(n, -1, np.int32)
    lout = np.full(n, -1, np.int32)
    k(gctr, gout, lout, global_size=n, local_size=local, threads=threads)
    assert gctr[0] == n
    np.testing.assert_array_equal(np.sort(gout), np.arange(n))
    np.testing.assert_array_equal(np.sort(lout.reshape(groups, local), axis=1),
                                  np.tile(np.arange(local), (groups, 1)))


def test_no_lock_on_local_memory_and_relaxed_global_atomics():
    """The machine code: the local histogram's per-work-item update has no lock prefix (only
    its global flushes do: per work-group and, privatized, per thread slice), and no fence
    (mfence) anywhere."""
    prog = xmux.compile(LOCAL, cache=False)
    asm = jit.assembly(prog.llvm_ir)
    ir = prog.llvm_ir
    rmw = [ln for ln in ir.splitlines() if "atomicrmw" in ln]
    assert len(rmw) == 2 and all("atomicrmw add" in r and " monotonic" in r for r in rmw)
    assert "mfence" not in asm
    locked = [ln for ln in asm.splitlines() if "lock" in ln.split("#")[0]]
    assert locked and all("add" in ln for ln in locked)
    assert "lock" not in " ".join(ln for ln in asm.splitlines() if "incl" in ln)


ARG_HISTOGRAM = """
func.func @hist(%x: memref<?xi32>, %bins: memref<?xi32, 3>, %out: memref<?x?xi32>,
                %nbins: index) attributes {mux.kernel = "entry_point"} {
  %l = mux.get_local_id 0 : index
  %lsz = mux.get_local_size 0 : index
  %g = mux.get_group_id 0 : index
  %i = mux.get_global_id 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  scf.for %b = %l to %nbins step %lsz {
    memref.store %zero, %bins[%b] : memref<?xi32, 3>
  }
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %v = memref.load %x[%i] : memref<?xi32>
  %bin = arith.index_cast %v : i32 to index
  %old = memref.atomic_rmw addi %one, %bins[%bin] : (i32, memref<?xi32, 3>) -> i32
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  scf.for %b = %l to %nbins step %lsz {
    %c = memref.load %bins[%b] : memref<?xi32, 3>
    memref.store %c, %out[%g, %b] : memref<?x?xi32>
  }
  return
}
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_local_memory_argument_histogram_per_group(threads):
    """A local-memory argument (xmux.LocalMemory) is one work-group's too: its plain updates
    count every work-item of the group, each group on its own buffer."""
    prog = xmux.compile(ARG_HISTOGRAM, cache=False)
    assert "atomicrmw" not in prog.llvm_ir and "cmpxchg" not in prog.llvm_ir
    k = prog["hist"]
    groups, local, nbins = 40, 96, 37
    rng = np.random.default_rng(7)
    x = rng.integers(0, nbins, groups * local).astype(np.int32)
    x[:local] = 3  # one group all in one bin
    out = np.full((groups, nbins), -1, np.int32)
    k(x, xmux.LocalMemory(4 * nbins), out, nbins, global_size=groups * local, local_size=local,
      threads=threads)
    want = np.stack([np.bincount(x[g * local:(g + 1) * local], minlength=nbins)
                     for g in range(groups)])
    np.testing.assert_array_equal(out, want)


HELPER_HISTOGRAM = """
memref.global "private" @lb : memref<64xi32, 3> = uninitialized
func.func @bump(%l: memref<64xi32, 3>, %b: index) {
  %one = arith.constant 1 : i32
  %o = memref.atomic_rmw addi %one, %l[%b] : (i32, memref<64xi32, 3>) -> i32
  return
}
func.func @hist(%x: memref<?xi32>, %out: memref<?x64xi32>)
    attributes {mux.kernel = "entry_point"} {
  %l = mux.get_local_id 0 : index
  %lsz = mux.get_local_size 0 : index
  %g = mux.get_group_id 0 : index
  %i = mux.get_global_id 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i32
  %lb = memref.get_global @lb : memref<64xi32, 3>
  scf.for %b = %l to %c64 step %lsz {
    memref.store %zero, %lb[%b] : memref<64xi32, 3>
  }
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %v = memref.load %x[%i] : memref<?xi32>
  %bin = arith.index_cast %v : i32 to index
  func.call @bump(%lb, %bin) : (memref<64xi32, 3>, index) -> ()
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  scf.for %b = %l to %c64 step %lsz {
    %c = memref.load %lb[%b] : memref<64xi32, 3>
    memref.store %c, %out[%g, %b] : memref<?x64xi32>
  }
  return
}
"""


def test_local_update_in_a_helper_function_counts_every_work_item():
    """The helper's update stays a (relaxed) atomic: inlined into the vectorized work-item
    loop it must not become a scatter that loses counts of work-items hitting one bin."""
    prog = xmux.compile(HELPER_HISTOGRAM, cache=False)
    assert "atomicrmw add" in prog.llvm_ir
    groups, local = 16, 256
    rng = np.random.default_rng(8)
    x = rng.integers(0, 5, groups * local).astype(np.int32)
    out = np.full((groups, 64), -1, np.int32)
    prog["hist"](x, out, global_size=groups * local, local_size=local, threads=2)
    want = np.stack([np.bincount(x[g * local:(g + 1) * local], minlength=64)
                     for g in range(groups)])
    np.testing.assert_array_equal(out, want)
