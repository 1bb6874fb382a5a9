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
    # each warp's tree (a full warp's, a partial warp's), then warp 0's
    assert body.count("shfl.sync.down.b32") == 15
    # full warps and warp 0's fold: the constant member mask (ptxas checks no register)
    shuffles = [ln for ln in body.splitlines() if "shfl.sync.down" in ln]
    assert sum(ln.rstrip().endswith(", -1;") for ln in shuffles) == 10
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


# ---------------------------------------------------------------------------------------
# One-reader work-group reduce (issue 33.4): lower-work-group-collectives-nvptx's IR run
# in the reference interpreter, its shuffles simulated with their PTX rules
# ---------------------------------------------------------------------------------------


def _simulate_shuffles(module) -> None:
    """Each ``llvm.nvvm.shfl.sync.down.*`` → ``mux.sub_group_shuffle`` with PTX's rules
    (source lane = lane + off; past the clamp: the own value and p = false), checking in
    the interpreter (``cf.assert``) what the hardware leaves undefined: a member mask other
    than the warp's live lanes, and reading a lane past the warp. The interpreter also
    makes every lane of the warp meet at the shuffle (``shfl.sync``'s convergence)."""
    from xdsl.dialects import arith, cf, llvm
    from xdsl.dialects.builtin import i32
    from xdsl.rewriter import InsertPoint, Rewriter

    from xmux.dialects import mux
    from xmux.transforms.lower_sub_group_collectives_nvptx import lane_mask
    from xmux.transforms.lower_work_group_collectives import Ops

    for op in list(module.walk()):
        if not (isinstance(op, llvm.CallIntrinsicOp)
                and op.intrin.data.startswith("llvm.nvvm.shfl.sync.down.")):
            continue
        mask, v, off, clamp = op.args
        b = Ops()
        lane = b(mux.GetSubGroupLocalIdOp(i32))
        size = b(mux.GetSubGroupSizeOp(i32))
        c31 = b(arith.ConstantOp.from_int_and_width(31, i32))
        live = lane_mask(b, b(arith.MinUIOp(size, c31)))  # (1 << 32) - 1 is poison here
        full = b(arith.CmpiOp(size, b(arith.ConstantOp.from_int_and_width(32, i32)), "eq"))
        want = b(arith.SelectOp(full, b(arith.ConstantOp.from_int_and_width(-1, i32)), live))
        b(cf.AssertOp(b(arith.CmpiOp(mask, want, "eq")),
                      "shfl.sync: member mask is not the warp's live lanes"))
        j = b(arith.AddiOp(lane, off))
        ok = b(arith.CmpiOp(j, b(arith.AndIOp(clamp, c31)), "ule"))
        past = b(arith.CmpiOp(j, size, "uge"))
        bad = b(arith.AndIOp(ok, past))
        b(cf.AssertOp(b(arith.XOrIOp(bad, b(arith.ConstantOp.from_int_and_width(1, 1)))),
                      "shfl.sync: reads a lane past the warp"))
        y = b(mux.SubGroupShuffleOp(v, b(arith.SelectOp(ok, j, lane))))
        Rewriter.insert_op(b.ops, InsertPoint.before(op))
        if op.intrin.data.endswith("p"):
            for use in list(op.results[0].uses):
                ex = use.operation
                assert isinstance(ex, llvm.ExtractValueOp)
                ex.results[0].replace_all_uses_with(y if ex.position.get_values()[0] == 0 else ok)
                Rewriter.erase_op(ex)
        else:
            op.results[0].replace_all_uses_with(y)
        Rewriter.erase_op(op)


def _lowered_nvptx(src: str, **options):
    """``src`` after lower-work-group-collectives-nvptx, shuffles simulated."""
    from xmux.api import parse
    from xmux.pipelines import make_pass

    module = parse(src)
    make_pass("lower-work-group-collectives-nvptx", **options).apply(None, module)  # type: ignore[arg-type]
    _simulate_shuffles(module)
    return module


def _interpret(module, name: str, args: list, local: tuple[int, ...], groups: tuple[int, ...]):
    size = tuple(g * s for g, s in zip(groups, local, strict=True))
    xmux.interpret(module, name, *args, global_size=size, local_size=local, sub_group_size=32,
                   races=True)


ONE_READER = """
func.func @{name}(%x: memref<?x{t}>, %o: memref<?x{t}>) attributes {{mux.kernel = "entry_point"}} {{
  %i = mux.get_global_linear_id : index
  %v = memref.load %x[%i] : memref<?x{t}>
  %s = mux.work_group_reduce {kind} %v : {t}
  %c0 = arith.constant 0 : index
  %l = {lid} : index
  %first = arith.cmpi eq, %l, %c0 : index
  scf.if %first {{
    memref.store %s, %o[%i] : memref<?x{t}>
  }}
  func.return
}}
"""
#: the readers' condition: local id 0 == 0 (dimensions 1, 2 checked at launch), or the
#: local linear id (nothing to check)
_FIRST_X, _FIRST = "mux.get_local_id 0", "mux.get_local_linear_id"
_NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}
_NP_REDUCE = {"fadd": np.sum, "add": np.sum, "smax": np.max, "fmin": np.min}


def _one_reader_case(t: str, kind: str, lid: str, local: tuple[int, ...], seed: int,
                     groups: int = 2):
    """Source, inputs and the expected output: the group's reduction where the readers'
    condition holds, 0 elsewhere (o starts at 0)."""
    src = ONE_READER.format(name="k", t=t, kind=kind, lid=lid)
    shape = (groups * local[0], *local[1:])  # groups along x; global linear id, x fastest
    n = math.prod(shape)
    x = np.random.default_rng(seed).integers(-40, 40, size=n).astype(_NP[t])
    gid = np.indices(shape[::-1]).reshape(len(shape), -1)[::-1]  # global ids of element i
    lid0, group = gid[0] % local[0], gid[0] // local[0]
    first = (lid0 == 0) & (gid[1:] % np.array(local[1:])[:, None] == 0).all(0)
    readers = lid0 == 0 if lid == _FIRST_X else first
    want = np.zeros(n, _NP[t])
    for g in range(groups):
        want[readers & (group == g)] = _NP_REDUCE[kind](x[group == g])
    return src, x, want


@pytest.mark.parametrize(("t", "kind", "lid", "local"), [
    ("f32", "fadd", _FIRST_X, (256,)),  # bench/kernels/reduce_wg.mlir's shape
    ("f32", "fadd", _FIRST_X, (96,)),
    ("f32", "fadd", _FIRST_X, (33,)),  # a partial last warp
    ("f32", "fadd", _FIRST_X, (1,)),
    ("i64", "add", _FIRST, (48,)),  # two 32-bit words per shuffle
    ("i32", "smax", _FIRST_X, (17, 3)),  # (0, y) read too: the launch-time broadcast
    ("f64", "fmin", _FIRST, (5, 3, 2)),
])
def test_one_reader_reduce_in_interpreter(t: str, kind: str, lid: str, local) -> None:
    """The one-reader IR (one barrier where the readers are work-item 0) run in the
    reference interpreter with data-race checks, shuffles under PTX's rules."""
    src, x, want = _one_reader_case(t, kind, lid, local, seed=len(local) + local[0])
    module = _lowered_nvptx(src)
    barriers = [o for o in module.walk() if o.name == "mux.work_group_barrier"]
    assert len(barriers) == (1 if lid == _FIRST else 2)  # 2: B2 under the launch check
    o = np.zeros_like(x)
    _interpret(module, "k", [x, o], local, (2,) + (1,) * (len(local) - 1))
    np.testing.assert_array_equal(o, want)


@pytest.mark.parametrize(("t", "kind", "local"), [
    ("i32", "add", (96,)), ("f32", "fadd", (33,)), ("i64", "smax", (20, 3)), ("i32", "add", (1,)),
])
def test_broadcast_reduce_in_interpreter(t: str, kind: str, local) -> None:
    """Every work-item reads the value: the broadcast lowering (two barriers), interpreted
    as above; the value passes through a reduce's own kind into every work-item."""
    kind_np = {"add": np.sum, "fadd": np.sum, "smax": np.max}[kind]
    src, x, _ = _one_reader_case(t, "add" if t != "f32" else "fadd", _FIRST, local, seed=3)
    src = src.replace("work_group_reduce add", f"work_group_reduce {kind}").replace(
        "  scf.if %first {\n", f"  memref.store %s, %o[%i] : memref<?x{t}>\n  scf.if %first {{\n")
    module = _lowered_nvptx(src)
    assert sum(o.name == "mux.work_group_barrier" for o in module.walk()) == 2
    o = np.zeros_like(x)
    _interpret(module, "k", [x, o], local, (2,) + (1,) * (len(local) - 1))
    groups = (np.indices((2 * local[0], *local[1:])[::-1]).reshape(len(local), -1)[::-1][0]
              // local[0])
    want = np.array([kind_np(x[groups == g]) for g in groups], x.dtype)
    np.testing.assert_array_equal(o, want)


def test_interpreted_nvptx_catches_a_wrong_one_reader(monkeypatch) -> None:
    """The check above can fail: the one-reader form forced where every work-item reads
    gives them wrong values; forced in a loop, warp 0 still reads the slots that the next
    iteration writes (a data race); a full warp's mask on the partial warp is refused."""
    from xmux.interpret import DataRaceError, InterpretError
    from xmux.transforms import first_item_reads as F
    from xmux.transforms import lower_work_group_collectives_nvptx as P

    src, x, want = _one_reader_case("i32", "add", _FIRST_X, (64,), seed=1)
    # every work-item stores the value
    everyone = src.replace("  scf.if %first {\n", "  memref.store %s, %o[%i] : memref<?xi32>\n"
                           "  scf.if %first {\n")
    monkeypatch.setattr(P, "reader_dims", lambda _v: F.ALL_DIMS)
    o = np.zeros_like(x)
    _interpret(_lowered_nvptx(everyone), "k", [x, o], (64,), (2,))
    assert (o != x.reshape(2, 64).sum(1).repeat(64)).any()
    # in a loop
    loop = src.replace("  %s = mux.work_group_reduce add %v : i32\n", "").replace(
        "  scf.if %first {\n",
        "  %c1 = arith.constant 1 : index\n  %c2 = arith.constant 2 : index\n"
        "  scf.for %k = %c0 to %c2 step %c1 {\n  %s = mux.work_group_reduce add %v : i32\n"
        "  scf.if %first {\n").replace("  }\n  func.return", "  }\n  }\n  func.return")
    monkeypatch.setattr(P, "is_last", lambda _op, _m: True)
    with pytest.raises(DataRaceError, match="without a barrier"):
        _interpret(_lowered_nvptx(loop), "k", [x, np.zeros_like(x)], (64,), (2,))
    # mask -1 on a partial warp
    monkeypatch.setattr(P, "_warp_total",
                        lambda b, kind, v, _w: P._tree(b, kind, v, P.c32(b, -1), None))
    with pytest.raises(InterpretError, match="member mask is not the warp's live lanes"):
        _interpret(_lowered_nvptx(src), "k", [x[:66], np.zeros_like(x[:66])], (33,), (2,))


@gpu
@pytest.mark.parametrize(("t", "kind", "lid", "local"), [
    ("f32", "fadd", _FIRST_X, (256,)),
    ("f32", "fadd", _FIRST_X, (96,)),
    ("f32", "fadd", _FIRST_X, (33,)),
    ("f32", "fadd", _FIRST_X, (1,)),
    ("i32", "smax", _FIRST_X, (256,)),
    ("i64", "add", _FIRST, (96,)),
    ("f64", "fmin", _FIRST, (33,)),
    ("i32", "add", _FIRST, (1024,)),
    ("f32", "fadd", _FIRST_X, (32, 4)),  # (0, y) read too: the launch-time broadcast
    ("i32", "add", _FIRST, (8, 3, 2)),
])
def test_one_reader_reduce_gpu(t: str, kind: str, lid: str, local) -> None:
    src, x, want = _one_reader_case(t, kind, lid, local, seed=local[0], groups=5)
    o = np.zeros_like(x)
    prog = xmux.compile(src, target="nvptx")
    prog["k"](x, o, global_size=(5 * local[0], *local[1:]), local_size=local)
    np.testing.assert_array_equal(o, want)


def test_ptx_one_reader_reduce_one_barrier() -> None:
    """Read in work-item 0 only: one bar.sync, one st.shared (the warps' slots), no result
    slot; warp 0's fold and full warps shuffle under the constant mask."""
    src = ONE_READER.format(name="k", t="f32", kind="fadd", lid=_FIRST)
    ptx = xmux.compile(src, target="nvptx", cache=False).ptx
    body = ptx[ptx.index(".entry k(") :]
    body = body[: body.index("\n}\n")]
    assert body.count("bar.sync") == 1
    assert body.count("st.shared") == 1 and body.count("ld.shared") == 1
    shuffles = [ln for ln in body.splitlines() if "shfl.sync.down" in ln]
    assert len(shuffles) == 15
    assert sum(ln.rstrip().endswith(", -1;") for ln in shuffles) == 10
