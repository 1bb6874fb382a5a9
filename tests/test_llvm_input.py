"""Kernels and helpers written in the llvm dialect (clients hand over partly lowered modules):
the reference interpreter (``runtime/interpreter/llvm_ops.py``) against the CPU, number for
number; the NVPTX build has no call for the math intrinsics (expand-math rewrites them);
on a GPU (skipped without CuPy) the GPU's results against the CPU's.

The lead's GPU run: ``.venv/bin/pytest -q -n 0 -s tests/test_llvm_input.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux import pipelines
from xmux.abi.errors import NotSupportedError
from xmux.runtime import cuda
from xmux.runtime.interpreter import UndefinedBehaviorError

#: a helper in the llvm dialect: |k| by a branch, a loop by back edges, a switch
HELPER = """
llvm.func @helper(%x: f32, %k: i32) -> f32 {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c7 = llvm.mlir.constant(7 : i32) : i32
  %neg = llvm.icmp "slt" %k, %c0 : i32
  llvm.cond_br %neg, ^negate, ^loop(%c0, %x : i32, f32)
^negate:
  %m = llvm.sub %c0, %k : i32
  %n = llvm.and %m, %c7 : i32
  llvm.br ^loop(%n, %x : i32, f32)
^loop(%j: i32, %acc: f32):
  %more = llvm.icmp "ult" %j, %c7 : i32
  llvm.cond_br %more, ^body, ^done
^body:
  %three = llvm.mlir.constant(3.0 : f32) : f32
  %t = llvm.fdiv %acc, %three : f32
  %u = llvm.fadd %t, %x : f32
  %j1 = llvm.add %j, %c1 : i32
  llvm.br ^loop(%j1, %u : i32, f32)
^done:
  %sel = llvm.and %k, %c7 : i32
  llvm.switch %sel : i32, ^other [
    1: ^one,
    2: ^two(%acc : f32)
  ]
^one:
  %o = llvm.fneg %acc : f32
  llvm.return %o : f32
^two(%a2: f32):
  %tw = llvm.fadd %a2, %a2 : f32
  llvm.return %tw : f32
^other:
  llvm.return %acc : f32
}
"""

#: kernel body: (name, llvm-dialect text defining %name) over %x, %y: f32 and %i, %j: i32
#: (%j is never 0 and %i & 31 a valid shift); float results first, then i32 results
FLOAT_OPS = [
    ("fa", "llvm.fadd %x, %y : f32"), ("fs", "llvm.fsub %x, %y : f32"),
    ("fm", "llvm.fmul %x, %y : f32"), ("fd", "llvm.fdiv %x, %y : f32"),
    ("fr", "llvm.frem %x, %y : f32"), ("fn", "llvm.fneg %x : f32"),
    ("e", "llvm.intr.exp(%x) : (f32) -> f32"), ("e2", "llvm.intr.exp2(%y) : (f32) -> f32"),
    ("l", "llvm.intr.log(%ax) : (f32) -> f32"), ("l2", "llvm.intr.log2(%ay) : (f32) -> f32"),
    ("s", "llvm.intr.sin(%x) : (f32) -> f32"), ("c", "llvm.intr.cos(%y) : (f32) -> f32"),
    ("p", "llvm.intr.pow(%ax, %y) : (f32, f32) -> f32"),
    ("fma", "llvm.intr.fma(%x, %y, %x) : (f32, f32, f32) -> f32"),
    ("mx", "llvm.intr.maxnum(%x, %y) : (f32, f32) -> f32"),
    ("mn", "llvm.intr.minnum(%x, %y) : (f32, f32) -> f32"),
    ("cs", "llvm.intr.copysign(%x, %y) : (f32, f32) -> f32"),
    ("fl", "llvm.intr.floor(%x) : (f32) -> f32"), ("ce", "llvm.intr.ceil(%x) : (f32) -> f32"),
    ("sq", "llvm.intr.sqrt(%ax) : (f32) -> f32"),
    ("red", "\"llvm.intr.vector.reduce.fadd\"(%y, %sv) : (f32, vector<4xf32>) -> f32"),
    ("ee", "llvm.extractelement %sv[%c2 : i32] : vector<4xf32>"),
    ("hx", "llvm.call @helper(%x, %i) : (f32, i32) -> f32"),
    ("ev", "llvm.extractvalue %st[1] : !llvm.struct<(i32, f32)>"),
    ("sel", "llvm.select %olt, %x, %y : i1, f32"),
    ("fpt", "llvm.fptrunc %xd : f64 to f32"),
    ("sif", "llvm.sitofp %i : i32 to f32"), ("uif", "llvm.uitofp %i : i32 to f32"),
]
INT_OPS = [
    ("ad", "llvm.add %i, %j : i32"), ("sb", "llvm.sub %i, %j : i32"),
    ("ml", "llvm.mul %i, %j overflow<nsw> : i32"), ("ud", "llvm.udiv %i, %j : i32"),
    ("sd", "llvm.sdiv %i, %j : i32"), ("ur", "llvm.urem %i, %j : i32"),
    ("sr", "llvm.srem %i, %j : i32"), ("an", "llvm.and %i, %j : i32"),
    ("or", "llvm.or %i, %j : i32"), ("xo", "llvm.xor %i, %j : i32"),
    ("sl", "llvm.shl %i, %sh : i32"), ("lr", "llvm.lshr %i, %sh : i32"),
    ("ar", "llvm.ashr %i, %sh : i32"),
    ("ic", "llvm.zext %slt : i1 to i32"), ("fc", "llvm.zext %fcm : i1 to i32"),
    ("bc", "llvm.bitcast %x : f32 to i32"), ("tr", "llvm.trunc %sx : i64 to i32"),
    ("fsi", "llvm.fptosi %xs : f32 to i32"), ("fui", "llvm.fptoui %axs : f32 to i32"),
    ("iv", "llvm.extractvalue %st[0] : !llvm.struct<(i32, f32)>"),
]

PRELUDE = """
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c31 = llvm.mlir.constant(31 : i32) : i32
  %one = llvm.mlir.constant(1.0 : f32) : f32
  %big = llvm.mlir.constant(1.0e6 : f32) : f32
  %fz = llvm.mlir.constant(0.0 : f32) : f32
  %ax0 = llvm.intr.fabs(%x) : (f32) -> f32
  %ax = llvm.fadd %ax0, %one : f32
  %ay0 = llvm.intr.fabs(%y) : (f32) -> f32
  %ay = llvm.fadd %ay0, %one : f32
  %sh = llvm.and %i, %c31 : i32
  %sx = llvm.sext %i : i32 to i64
  %xd = llvm.fpext %x : f32 to f64
  %slt0 = llvm.icmp "slt" %i, %j : i32
  %ult = llvm.icmp "ult" %i, %j : i32
  %sge = llvm.icmp "sge" %i, %j : i32
  %slt1 = llvm.xor %slt0, %ult : i1
  %slt = llvm.or %slt1, %sge : i1
  %olt = llvm.fcmp "olt" %x, %y : f32
  %uno = llvm.fcmp "uno" %x, %y : f32
  %ueq = llvm.fcmp "ueq" %x, %y : f32
  %one_ = llvm.fcmp "one" %x, %y : f32
  %fa0 = llvm.zext %olt : i1 to i32
  %fa1 = llvm.zext %uno : i1 to i32
  %fa2 = llvm.zext %ueq : i1 to i32
  %fa3 = llvm.zext %one_ : i1 to i32
  %fb1 = llvm.shl %fa1, %c2 : i32
  %fb2 = llvm.mul %fa2, %c2 : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  %fb3 = llvm.mul %fa3, %c8 : i32
  %fs0 = llvm.or %fa0, %fb1 : i32
  %fs1 = llvm.or %fs0, %fb2 : i32
  %fcmi = llvm.or %fs1, %fb3 : i32
  %fcm = llvm.icmp "ne" %fcmi, %c2 : i32
  %small = llvm.fcmp "olt" %ax0, %big : f32
  %xs = llvm.select %small, %x, %fz : i1, f32
  %axs = llvm.intr.fabs(%xs) : (f32) -> f32
  %u = llvm.mlir.constant(dense<1.5> : vector<4xf32>) : vector<4xf32>
  %v0 = llvm.insertelement %x, %u[%c2 : i32] : vector<4xf32>
  %c3 = llvm.mlir.constant(3 : i32) : i32
  %v1 = llvm.insertelement %y, %v0[%c3 : i32] : vector<4xf32>
  %sv = llvm.shufflevector %v0, %v1 [2, 5, 6, 3] : vector<4xf32>
  %su = llvm.mlir.undef : !llvm.struct<(i32, f32)>
  %s0 = llvm.insertvalue %i, %su[0] : !llvm.struct<(i32, f32)>
  %st = llvm.insertvalue %y, %s0[1] : !llvm.struct<(i32, f32)>
"""


def kernel_source() -> str:
    """``@k``: fo[g * NF + n] = FLOAT_OPS[n], io[g * NI + n] = INT_OPS[n]."""
    lines = [
        HELPER,
        "func.func @k(%xs_: memref<?xf32>, %ys_: memref<?xf32>, %is_: memref<?xi32>, "
        "%js_: memref<?xi32>, %fo: memref<?xf32>, %io: memref<?xi32>) "
        'attributes {mux.kernel = "entry_point"} {',
        "  %g = mux.get_global_id 0 : index",
        "  %x = memref.load %xs_[%g] : memref<?xf32>",
        "  %y = memref.load %ys_[%g] : memref<?xf32>",
        "  %i = memref.load %is_[%g] : memref<?xi32>",
        "  %j = memref.load %js_[%g] : memref<?xi32>",
        PRELUDE,
    ]
    for out, ops, t in (("fo", FLOAT_OPS, "f32"), ("io", INT_OPS, "i32")):
        lines += [f"  %n_{out} = arith.constant {len(ops)} : index",
                  f"  %b_{out} = arith.muli %g, %n_{out} : index"]
        for n, (name, text) in enumerate(ops):
            lines += [f"  %{name} = {text}", f"  %o_{name} = arith.constant {n} : index",
                      f"  %a_{name} = arith.addi %b_{out}, %o_{name} : index",
                      f"  memref.store %{name}, %{out}[%a_{name}] : memref<?x{t}>"]
    return "\n".join([*lines, "  func.return", "}"])


SOURCE = kernel_source()


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(3)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 3e38, -1e-40, 88.7, -104.0]
    n = 64
    x = np.concatenate([special, rng.standard_normal(n - len(special)) * 20]).astype(np.float32)
    y = np.concatenate([special[::-1], rng.uniform(-30, 30, n - len(special))]).astype(np.float32)
    y[3] = x[3]  # ordered equal
    i = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    i[:4] = [0, -1, 2**31 - 1, -(2**31)]
    j = (rng.integers(1, 200, n) * rng.choice([-1, 1], n)).astype(np.int32)
    j[:3] = [-1, 1, -(2**31)]
    return x, y, i, j


def run(call) -> tuple[np.ndarray, np.ndarray]:
    x, y, i, j = inputs()
    fo = np.zeros(len(x) * len(FLOAT_OPS), np.float32)
    io = np.zeros(len(x) * len(INT_OPS), np.int32)
    call(x, y, i, j, fo, io)
    return fo.reshape(len(x), -1), io.reshape(len(x), -1)


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ia, ib = (v.view(np.int32).astype(np.int64) for v in (a, b))
    ia = np.where(ia < 0, -(2**31) - ia, ia)
    ib = np.where(ib < 0, -(2**31) - ib, ib)
    d = np.abs(ia - ib)
    return np.where(np.isnan(a) & np.isnan(b), 0, np.where(np.isnan(a) != np.isnan(b), 2**40, d))


def _mismatches(fo, io, ref_fo, ref_io, max_ulps: int = 0, skip: tuple[str, ...] = ()
                ) -> list[str]:
    x, y, i, j = inputs()
    bad = []
    for n, (name, _) in enumerate(FLOAT_OPS):
        if name in skip:
            continue
        d = ulps(fo[:, n], ref_fo[:, n])
        if d.max() > max_ulps:
            r = int(np.argmax(d))
            bad.append(f"{name}(x={x[r]!r}, y={y[r]!r}, i={i[r]}): {fo[r, n]!r} vs "
                       f"{ref_fo[r, n]!r}")
    for n, (name, _) in enumerate(INT_OPS):
        if (io[:, n] != ref_io[:, n]).any():
            r = int(np.argmax(io[:, n] != ref_io[:, n]))
            bad.append(f"{name}(x={x[r]!r}, i={i[r]}, j={j[r]}): {io[r, n]} vs {ref_io[r, n]}")
    return bad


@pytest.fixture(scope="module")
def cpu_results() -> tuple[np.ndarray, np.ndarray]:
    prog = xmux.compile(SOURCE, tune=False, specialize=False)
    return run(lambda *a: prog["k"](*a, global_size=(len(a[0]),), local_size=(16,)))


def test_interpreter_matches_the_cpu(cpu_results) -> None:
    got = run(lambda *a: xmux.interpret(SOURCE, "k", *a, global_size=len(a[0]), local_size=16))
    bad = _mismatches(*got, *cpu_results)
    assert not bad, "\n".join(bad)


def test_interpreter_errors_name_the_op() -> None:
    """Poison and immediate UB stop the interpreter with the op; unsupported ops are named."""
    src = """
func.func @k(%o: memref<1xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %a = llvm.mlir.constant(7 : i32) : i32
  %z = llvm.mlir.constant(0 : i32) : i32
  %r = llvm.sdiv %a, %z : i32
  memref.store %r, %o[%c0] : memref<1xi32>
  func.return
}
"""
    o = np.zeros(1, np.int32)
    with pytest.raises(UndefinedBehaviorError, match=r"signed division by zero .*'llvm.sdiv'"):
        xmux.interpret(src, "k", o, global_size=1)
    asm = src.replace("%r = llvm.sdiv %a, %z : i32",
                      '%r = llvm.inline_asm "mov.b32 $0, $1;", "=r,r" %a : (i32) -> i32')
    with pytest.raises(NotSupportedError, match=r"no implementation for op 'llvm.inline_asm'"):
        xmux.interpret(asm, "k", o, global_size=1)
    barrier = src.replace("%r = llvm.sdiv %a, %z : i32", "%r = llvm.call @h(%a) : (i32) -> i32")
    barrier = """
llvm.func @h(%p: i32) -> i32 {
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  llvm.return %p : i32
}""" + barrier
    with pytest.raises(NotSupportedError, match=r"a barrier inside the llvm.func @h .*llvm.call"):
        xmux.interpret(barrier, "k", o, global_size=1)


def test_the_gpus_math_on_the_cpu_within_an_ulp(cpu_results) -> None:
    """expand-math{all=true}: the CPU runs the code the NVPTX pipeline makes of the
    intrinsics (correctly rounded; glibc's sinf/cosf are an ulp off at times)."""
    passes = pipelines.cpu()
    passes[pipelines.index_of(passes, "expand-math")] = pipelines.make_pass("expand-math", all=True)
    prog = xmux.compile(SOURCE, pipeline=passes, tune=False, specialize=False)
    got = run(lambda *a: prog["k"](*a, global_size=(len(a[0]),), local_size=(16,)))
    bad = _mismatches(*got, *cpu_results, max_ulps=1)
    assert not bad, "\n".join(bad)


def test_ptx_has_no_calls_for_the_math_intrinsics() -> None:
    ptx = xmux.compile(SOURCE, target="nvptx").ptx
    assert ".entry k(" in ptx
    assert "call" not in ptx  # no libm function (LLVM inlines the helper)
    assert ".extern .func" not in ptx
    assert "ex2.approx" not in ptx and "sin.approx" not in ptx and "lg2.approx" not in ptx


@pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
def test_gpu_matches_the_cpu(cpu_results) -> None:
    """Integers exactly, floats within 1 ulp of the CPU's libm (the GPU's math is the
    correctly rounded expansion; glibc's f32 functions are within an ulp). Not frem: LLVM's
    NVPTX backend computes it as ``x - trunc(x / y) * y`` (div.rn, cvt.rzi, fma), not C's
    exact fmod: wrong where x / y rounds to an integer or exceeds 2^24 (arith.remf too)."""
    prog = xmux.compile(SOURCE, target="nvptx")
    got = run(lambda *a: prog["k"](*a, global_size=(len(a[0]),), local_size=(32,)))
    bad = _mismatches(*got, *cpu_results, max_ulps=1, skip=("fr",))
    assert not bad, "\n".join(bad)
