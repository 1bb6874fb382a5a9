"""Sub-group and work-group collectives on the NVPTX target against a Python reference.

Every reduce / scan kind for several element types, broadcasts, any/all and the four
shuffles, at local sizes of full warps (32 .. 1024), partial warps (48, 33, 7, 1) and 2-D /
3-D groups; a sub-group op under control flow that differs between warps; back-to-back
work-group collectives in a loop. Inputs are small integers (products: ±1, ±2, ±0.5) so that
results are exact in any combining order. The GPU tests skip without a CUDA device; the CPU
target runs the same kernels against the same reference (sub-groups of 32), which keeps the
reference honest where CI has no GPU.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import xmux
from tests import nvptx_collectives_cases as C
from xmux.runtime import cuda

gpu = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
GROUPS = 3  # work-groups per launch (along x; 2-D/3-D groups: 3 x 2)


@functools.cache
def _program(t: str, target: str):
    if target == "cpu":  # only the kernels the CPU cases launch: a fraction of the compile
        kernels = "".join(C.kernel(s, o, k, t) for tt, s, o, k in _CPU_CASES if tt == t)
        return xmux.compile("module {\n" + kernels + "}\n", target="cpu", sub_group_size=32)
    return xmux.compile(C.module(t), target=target)


def _launch(prog, name: str, x: np.ndarray, y: np.ndarray, local: tuple[int, ...],
            out_dtype) -> np.ndarray:
    grid = [GROUPS] + [2] * (len(local) - 1)
    o = np.zeros(len(x), out_dtype)
    prog[name](x, y, o, global_size=tuple(g * s for g, s in zip(grid, local, strict=True)),
               local_size=local)
    return o


def _check(target: str, t: str, scope: str, op: str, kind: str | None,
           locals_: tuple[tuple[int, ...], ...] = C.LOCAL_SIZES) -> None:
    prog = _program(t, target)
    name = C.kernel_name(scope, op, kind)
    for seed, local in enumerate(locals_):
        groups = GROUPS * (2 ** (len(local) - 1))
        n = groups * math.prod(local)
        x, y = C.inputs(op, kind, t, n, seed)
        want = C.reference(scope, op, kind, t, x, y, local)
        got = _launch(prog, name, x, y, local, want.dtype)
        bad = np.flatnonzero(got != want)
        assert not len(bad), (
            f"{name} {t} local {local}: {len(bad)} of {n} differ, first at {bad[0]}: "
            f"got {got[bad[0]]}, want {want[bad[0]]}"
        )


def _params() -> list:
    return [
        pytest.param(t, s, o, k, id=f"{t}-{C.kernel_name(s, o, k)}")
        for t in C.KINDS
        for s, o, k in C.cases(t)
    ]


@gpu
@pytest.mark.parametrize(("t", "scope", "op", "kind"), _params())
def test_gpu_matches_reference(t: str, scope: str, op: str, kind: str | None) -> None:
    _check("nvptx", t, scope, op, kind)


#: the CPU check of the reference: one kind per family, fewer sizes (the CPU pipeline
#: is slower to compile; the GPU test covers everything)
_CPU_CASES = [
    ("i32", "sub_group", "scan_exclusive", "smin"),
    ("i32", "work_group", "scan_inclusive", "logical_xor"),
    ("i64", "sub_group", "reduce", "umax"),
    ("f32", "work_group", "scan_exclusive", "fmul"),
    ("f64", "sub_group", "shuffle_up", None),
    ("i32", "sub_group", "shuffle_down", None),
    ("i32", "sub_group", "shuffle_xor", None),
    ("i32", "sub_group", "shuffle", None),
    ("i8", "sub_group", "broadcast", None),
    ("i32", "work_group", "broadcast", None),
    ("i1", "work_group", "reduce", "smin"),
    ("i1", "sub_group", "scan_exclusive", "and"),
    ("i32", "sub_group", "any", None),
    ("i32", "work_group", "all", None),
]


@pytest.mark.parametrize(("t", "scope", "op", "kind"), _CPU_CASES)
def test_cpu_matches_reference(t: str, scope: str, op: str, kind: str | None) -> None:
    _check("cpu", t, scope, op, kind, ((64,), (48,), (33,), (8, 6)))


# ---------------------------------------------------------------------------------------
# Divergent warps, back-to-back collectives
# ---------------------------------------------------------------------------------------

DIVERGENT = """
func.func @divergent(%x: memref<?xi32>, %o: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %sg = mux.get_sub_group_id : i32
  %c1 = arith.constant 1 : i32
  %odd = arith.andi %sg, %c1 : i32
  %is_odd = arith.cmpi ne, %odd, %c1 : i32
  // even warps: a reduce; odd warps: a scan, then (sg mod 3) + 1 reduces in a loop
  %r = scf.if %is_odd -> (i32) {
    %a = mux.sub_group_reduce add %v : i32
    scf.yield %a : i32
  } else {
    %s = mux.sub_group_scan_inclusive add %v : i32
    %c3 = arith.constant 3 : i32
    %m = arith.remui %sg, %c3 : i32
    %n = arith.addi %m, %c1 : i32
    %c0 = arith.constant 0 : i32
    %t = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %s) -> (i32) : i32 {
      %b = mux.sub_group_reduce xor %acc : i32
      %b2 = arith.addi %b, %acc : i32
      scf.yield %b2 : i32
    }
    scf.yield %t : i32
  }
  memref.store %r, %o[%i] : memref<?xi32>
  func.return
}
"""


def _divergent_reference(x: np.ndarray, local: int) -> np.ndarray:
    out = []
    for g in range(0, len(x), local):
        grp = x[g : g + local].tolist()
        for sg, b in enumerate(range(0, local, 32)):
            w = grp[b : b + 32]
            if sg % 2 == 0:  # %is_odd is "odd != 1": even warps take the then-branch
                out += [C.wrap(sum(w), 32)] * len(w)
                continue
            acc = [C.wrap(sum(w[: j + 1]), 32) for j in range(len(w))]
            for _ in range(sg % 3 + 1):
                red = functools.reduce(lambda a, b: a ^ b, acc)
                acc = [C.wrap(red + a, 32) for a in acc]
            out += acc
    return np.array(out, np.int32)


BACK_TO_BACK = """
func.func @back_to_back(%x: memref<?xi32>, %o: memref<?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v0 = memref.load %x[%i] : memref<?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %l = mux.get_local_size 0 : index
  %last = arith.subi %l, %c1 : index
  %r = scf.for %k = %c0 to %c3 step %c1 iter_args(%v = %v0) -> (i32) {
    %a = mux.work_group_reduce add %v : i32
    %b = mux.work_group_scan_exclusive add %v : i32
    %c = mux.work_group_broadcast %b, %last, %c0, %c0 : i32
    %d = mux.work_group_reduce smax %b : i32
    %e = mux.work_group_scan_inclusive xor %d : i32
    %s1 = arith.addi %a, %b : i32
    %s2 = arith.xori %s1, %c : i32
    %s3 = arith.subi %s2, %d : i32
    %s4 = arith.addi %s3, %e : i32
    scf.yield %s4 : i32
  }
  memref.store %r, %o[%i] : memref<?xi32>
  func.return
}
"""


def _back_to_back_reference(x: np.ndarray, local: int) -> np.ndarray:
    out = []
    for g in range(0, len(x), local):
        v = x[g : g + local].tolist()
        for _ in range(3):
            a = C.wrap(sum(v), 32)
            b = [C.wrap(sum(v[:j]), 32) for j in range(local)]
            c = b[local - 1]
            d = max(b)
            e = [d if j % 2 == 0 else 0 for j in range(local)]  # xor scan of a constant
            v = [C.wrap(((a + b[j]) ^ c) - d + e[j], 32) for j in range(local)]
        out += v
    return np.array(out, np.int32)


def _run_one(src: str, name: str, target: str, x: np.ndarray, local: int) -> np.ndarray:
    kwargs = {"sub_group_size": 32} if target == "cpu" else {}
    prog = xmux.compile(src, target=target, **kwargs)
    o = np.zeros_like(x)
    prog[name](x, o, global_size=(len(x),), local_size=(local,))
    return o


@pytest.mark.parametrize("target", [pytest.param("nvptx", marks=gpu), "cpu"])
@pytest.mark.parametrize("local", [96, 256, 48, 1024])
def test_sub_group_ops_under_divergent_warps(target: str, local: int) -> None:
    x = np.random.default_rng(local).integers(-50, 50, size=3 * local).astype(np.int32)
    got = _run_one(DIVERGENT, "divergent", target, x, local)
    np.testing.assert_array_equal(got, _divergent_reference(x, local))


@pytest.mark.parametrize("target", [pytest.param("nvptx", marks=gpu), "cpu"])
@pytest.mark.parametrize("local", [32, 96, 48, 1024, 1])
def test_back_to_back_work_group_collectives(target: str, local: int) -> None:
    x = np.random.default_rng(local).integers(-50, 50, size=4 * local).astype(np.int32)
    got = _run_one(BACK_TO_BACK, "back_to_back", target, x, local)
    np.testing.assert_array_equal(got, _back_to_back_reference(x, local))


# ---------------------------------------------------------------------------------------
# PTX shape (llvmlite's NVPTX backend: no GPU needed, runs in CI)
# ---------------------------------------------------------------------------------------

_PTX_CASES = [
    ("sub_group", "reduce", "add", "i32"),
    ("sub_group", "scan_exclusive", "fmul", "f32"),
    ("sub_group", "any", None, "i32"),
    ("sub_group", "shuffle_xor", None, "i64"),
    ("work_group", "reduce", "fadd", "f32"),
    ("work_group", "scan_inclusive", "smax", "i32"),
    ("work_group", "all", None, "i32"),
]


@functools.cache
def _ptx_module() -> str:
    kernels = []
    for s, o, k, t in _PTX_CASES:
        name = C.kernel_name(s, o, k)
        kernels.append(C.kernel(s, o, k, t).replace(f"@{name}(", f"@{name}_{t}("))
    src = "module {\n" + "".join(kernels) + "}\n"
    return xmux.compile(src, target="nvptx", cache=False).ptx


@functools.cache
def _ptx_functions() -> dict[str, str]:
    """Each kernel's PTX body, by kernel name (+ type)."""
    ptx = _ptx_module()
    out = {}
    for s, o, k, t in _PTX_CASES:
        name = f"{C.kernel_name(s, o, k)}_{t}"
        start = ptx.index(f".entry {name}(")
        end = ptx.find(".entry ", start + 1)
        out[name] = ptx[start : end if end >= 0 else len(ptx)]
    return out


def test_ptx_sub_group_reduce_is_shuffles_without_barriers() -> None:
    body = _ptx_functions()["sub_group_reduce_add_i32"]
    assert body.count("shfl.sync.bfly.b32") == 5  # full warps: a butterfly
    assert body.count("shfl.sync.down.b32") == 5  # partial warps: a guarded tree ...
    assert "shfl.sync.idx.b32" in body  # ... and lane 0's total to all
    assert "bar.sync" not in body and "barrier" not in body
    assert ".shared" not in body


def test_ptx_sub_group_scan_and_vote_and_shuffle() -> None:
    f = _ptx_functions()
    assert f["sub_group_scan_exclusive_fmul_f32"].count("shfl.sync.up.b32") == 6
    assert "vote.sync.any.pred" in f["sub_group_any_i32"]
    xor = f["sub_group_shuffle_xor_i64"]
    assert xor.count("shfl.sync.idx.b32") == 2  # two halves
    for body in f.values():
        if "sub_group" in body.split("(")[0]:
            assert "bar.sync" not in body


def test_ptx_work_group_reduce_two_barriers_one_slot_per_warp() -> None:
    body = _ptx_functions()["work_group_reduce_fadd_f32"]
    assert body.count("bar.sync") == 2
    assert body.count("shfl.sync.down.b32") == 10  # each warp's tree, then warp 0's
    # 64 f32 slots (a module-scope .shared: the read-only variant's entry uses them too)
    assert ".shared .align 64 .b8 __mux_wg_nvptx_f32[256]" in _ptx_module()
    assert "__mux_wg_nvptx_f32" in body
    assert body.count("st.shared") == 2


def test_ptx_work_group_scan_and_any_all() -> None:
    f = _ptx_functions()
    scan = f["work_group_scan_inclusive_smax_i32"]
    assert scan.count("bar.sync") == 2 and scan.count("shfl.sync.up.b32") == 10
    vote = f["work_group_all_i32"]
    assert "bar.red.and.pred" in vote
    assert "bar.sync" not in vote and ".shared" not in vote


MIXED_BATCH = """
func.func @mixed(%x: memref<?xi32>, %o: memref<?xf64>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %f = arith.sitofp %v : i32 to f32
  %d = arith.sitofp %v : i32 to f64
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : i32
  %p = arith.cmpi sgt, %v, %c5 : i32
  // independent collectives of three types back to back (an any, a barrier, among them)
  %a = mux.work_group_reduce fadd %f : f32
  %b = mux.work_group_scan_inclusive add %v : i32
  %q = mux.work_group_any %p : i1
  %c = mux.work_group_broadcast %d, %c3, %c0, %c0 : f64
  %e = mux.work_group_reduce fmax %d : f64
  %g = mux.work_group_scan_exclusive fadd %f : f32
  %a64 = arith.extf %a : f32 to f64
  %b64 = arith.sitofp %b : i32 to f64
  %q64 = arith.uitofp %q : i1 to f64
  %g64 = arith.extf %g : f32 to f64
  %s1 = arith.addf %a64, %b64 : f64
  %s2 = arith.addf %s1, %c : f64
  %c7 = arith.constant 7.0 : f64
  %s3 = arith.mulf %e, %c7 : f64
  %s4 = arith.addf %s2, %s3 : f64
  %c1000 = arith.constant 1000.0 : f64
  %s5 = arith.mulf %q64, %c1000 : f64
  %s6 = arith.addf %s4, %s5 : f64
  %c3f = arith.constant 3.0 : f64
  %s7 = arith.mulf %g64, %c3f : f64
  %s8 = arith.subf %s6, %s7 : f64
  memref.store %s8, %o[%i] : memref<?xf64>
  func.return
}
"""


@gpu
@pytest.mark.parametrize("local", [256, 48, 1024, 96])
def test_mixed_type_batch_gpu_equals_cpu(local: int) -> None:
    rng = np.random.default_rng(local)
    x = rng.integers(-6, 7, size=3 * local).astype(np.int32)
    outs = []
    for target in ("cpu", "nvptx"):
        o = np.zeros(3 * local, np.float64)
        xmux.compile(MIXED_BATCH, target=target)["mixed"](
            x, o, global_size=(3 * local,), local_size=(local,)
        )
        outs.append(o)
    np.testing.assert_array_equal(outs[1], outs[0])
    # the CPU side against numpy (so the comparison is not between two wrong answers)
    g = x.reshape(3, local).astype(np.float64)
    want = (g.sum(1, keepdims=True) + np.cumsum(g, 1) + g[:, 3:4] + 7 * g.max(1, keepdims=True)
            + 1000 * (g > 5).any(1, keepdims=True) - 3 * (np.cumsum(g, 1) - g))
    np.testing.assert_array_equal(outs[0], want.ravel())
