"""Math without libm (expand-math, the NVPTX pipeline's): every math op builds PTX with no
calls; the expansion's results on the CPU against the C library in ULPs; on a GPU (skipped
without CuPy) the GPU's results against the CPU's.

The lead's GPU run: ``.venv/bin/pytest -q -n 0 -s tests/test_math_nvptx.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import xmux
from xmux import pipelines
from xmux.runtime import cuda

UNARY = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "atan",
         "asin", "acos", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "cbrt",
         "rsqrt")
BINARY = ("atan2", "powf")
OPS = (*UNARY, *BINARY, "fpowi")

#: the largest distance in ulps from the C library's f64 results measured over 200,000
#: inputs per op (glibc is itself up to ~1.5 ulps off: the test allows one more); f32
#: results are the correctly rounded ones (f64 evaluation, one rounding)
F64_ULPS = {"asinh": 2, "acosh": 2}

#: glibc's cbrt is 3 ulps off at times (cbrt(-3.230624759481535)), and so is numpy's where it
#: calls it (an AVX2 host; on AVX-512 hosts numpy has its own, exact there): the long double
#: cbrt rounded to f64 is the reference on every host
_REF = {"exp2": lambda x: 2.0**x, "rsqrt": lambda x: 1.0 / math.sqrt(x),
        "powf": math.pow, "atan2": math.atan2,
        "cbrt": lambda x: float(np.cbrt(np.longdouble(x)))}
#: how far the C library's own results may be from the correctly rounded ones (glibc)
LIBM_ULPS = {"cbrt": 3}
_NP = {"exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
       "log10": np.log10, "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan,
       "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh,
       "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
       "atanh": np.arctanh, "cbrt": np.cbrt, "rsqrt": lambda x: 1 / np.sqrt(x),
       "atan2": np.arctan2, "powf": np.power}


def kernel_source(t: str, ops: tuple[str, ...] = OPS) -> str:
    """``@math_<t>``: out[j * n + i] = op_j(x[i]) (y[i] second operand, e[i] fpowi's)."""
    lines = [
        f"func.func @math_{t}(%x: memref<?x{t}>, %y: memref<?x{t}>, %e: memref<?xi32>, "
        f"%o: memref<?x{t}>, %n: index) attributes {{mux.kernel = \"entry_point\"}} {{",
        "  %i = mux.get_global_id 0 : index",
        f"  %v = memref.load %x[%i] : memref<?x{t}>",
        f"  %w = memref.load %y[%i] : memref<?x{t}>",
        "  %k = memref.load %e[%i] : memref<?xi32>",
    ]
    for j, op in enumerate(ops):
        if op in BINARY:
            expr = f"math.{op} %v, %w : {t}"
        elif op == "fpowi":
            expr = f"math.fpowi %v, %k : {t}, i32"
        else:
            expr = f"math.{op} %v : {t}"
        lines += [f"  %r{j} = {expr}", f"  %c{j} = arith.constant {j} : index",
                  f"  %b{j} = arith.muli %c{j}, %n : index",
                  f"  %a{j} = arith.addi %b{j}, %i : index",
                  f"  memref.store %r{j}, %o[%a{j}] : memref<?x{t}>"]
    return "\n".join([*lines, "  func.return", "}"])


VECTOR = """
func.func @math_vec(%x: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %g = mux.get_global_id 0 : index
  %c4 = arith.constant 4 : index
  %i = arith.muli %g, %c4 : index
  %v = vector.load %x[%i] : memref<?xf32>, vector<4xf32>
  %a = math.exp %v : vector<4xf32>
  %b = math.powf %a, %v : vector<4xf32>
  %c = math.sin %b : vector<4xf32>
  vector.store %c, %x[%i] : memref<?xf32>, vector<4xf32>
  func.return
}
"""

IPOWI = """
func.func @ipowi(%x: memref<?xi32>, %e: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %k = memref.load %e[%i] : memref<?xi32>
  %r = math.ipowi %v, %k : i32
  memref.store %r, %x[%i] : memref<?xi32>
  func.return
}
"""

SOURCE = "\n".join((kernel_source("f32"), kernel_source("f64"), VECTOR, IPOWI))
#: f16 goes through the f32 code (extf, the f32 expansion, truncf): a few ops show it builds
F16 = kernel_source("f16", ("exp", "sin", "erf", "powf", "fpowi"))


def inputs(dt: type) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edge cases (0, -0, inf, nan, subnormals, huge, near overflow) and random values."""
    rng = np.random.default_rng(7)
    fi = np.finfo(dt)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, 0.84, 6.0,
               float(fi.tiny), float(fi.smallest_subnormal), -float(fi.smallest_subnormal),
               float(fi.max), -float(fi.max), 1e-20, 88.72, -103.9, 709.78, 710.0, -745.1,
               1e6, 1e22, 1e300, np.pi / 2, 3 * np.pi / 2, 1e4 * np.pi, 0.999999, 1.000001]
    with np.errstate(over="ignore"):
        special_t = np.array(special).astype(dt)
    n = 400
    randoms = [rng.standard_normal(n) * 3, rng.uniform(-1, 1, n),
               np.exp(rng.uniform(-60, 60, n)) * rng.choice([-1.0, 1.0], n)]
    bits = rng.integers(0, 2**63 if dt == np.float64 else 2**31, n, dtype=np.int64)
    raw = bits.view(np.float64) if dt == np.float64 else bits.astype(np.uint32).view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.concatenate([special_t, *(r.astype(dt) for r in randoms), raw.astype(dt)])
    y = np.concatenate([x[len(special_t):][::-1], special_t])[: len(x)]
    y[: len(special_t)] = special_t[::-1]
    y[-n:] = rng.uniform(-40, 40, n).astype(dt)  # powf with moderate exponents
    k = len(special_t)  # powf's exact results that are midpoints of f32 / f16: ties to even
    x[k : k + 2], y[k : k + 2] = [66049.0, 169 / 2**16], [1.5, 1.5]
    x[k + 2 : k + 4], y[k + 2 : k + 4] = [4.462226e-15, 1e-30], [20.439552, 12.0]  # underflow
    e = rng.integers(-40, 40, len(x)).astype(np.int32)
    e[:4] = [0, 2**31 - 1, -(2**31), 3]
    return x.astype(dt), y.astype(dt), e


def reference(op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The C library's f64 results (Python's math), numpy's where math raises."""
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):  # (math.erf raises nothing)
        fallback = _NP[op](x64, y64) if op in BINARY else _NP.get(op, np.copy)(x64)
    f = _REF.get(op) or getattr(math, op)
    out = np.empty_like(x64)
    for i, (a, b) in enumerate(zip(x64.tolist(), y64.tolist(), strict=True)):
        try:
            out[i] = f(a, b) if op in BINARY else f(a)
        except (ValueError, OverflowError, ZeroDivisionError):
            out[i] = fallback[i]
    return out


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place (nan = nan; nan against a number: huge)."""
    it = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(it).astype(np.int64), b.view(it).astype(np.int64)
    low = np.int64(np.iinfo(it).min)
    ia = np.where(ia < 0, low - ia, ia)
    ib = np.where(ib < 0, low - ib, ib)
    d = np.abs(ia - ib)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    d = np.where(nan_a & nan_b, 0, d)
    return np.where(nan_a != nan_b, np.int64(1) << 40, d)


def run_all(prog: xmux.Program, t: str, x: np.ndarray, y: np.ndarray,
            e: np.ndarray) -> np.ndarray:
    n = len(x)
    out = np.zeros(n * len(OPS), dtype=x.dtype)
    prog[f"math_{t}"](x, y, e, out, n, global_size=(n,), local_size=(32,))
    return out.reshape(len(OPS), n)


def cpu_expanded() -> list:
    """The CPU pipeline running the GPU's math (expand-math{all=true})."""
    passes = pipelines.cpu()
    passes[pipelines.index_of(passes, "expand-math")] = pipelines.make_pass("expand-math", all=True)
    return passes


@pytest.fixture(scope="module")
def cpu_prog() -> xmux.Program:
    return xmux.compile(SOURCE, pipeline=cpu_expanded(), tune=False, specialize=False)  # one build


def _check(t: str, dt: type, prog: xmux.Program) -> None:
    x, y, e = inputs(dt)
    n = len(x) - len(x) % 32
    x, y, e = x[:n], y[:n], e[:n]
    got = run_all(prog, t, x, y, e)
    failures = []
    for j, op in enumerate(OPS):
        if op == "fpowi":
            continue  # test_fpowi_is_the_cpu_powi
        with np.errstate(over="ignore"):
            want = reference(op, x, y).astype(dt)
        d = ulps(got[j], want)
        bound = F64_ULPS.get(op, 1) + 1 if dt == np.float64 else 0  # glibc's error: +1
        if d.max() > bound:
            i = int(np.argmax(d))
            failures.append(f"{op}({x[i]!r}, {y[i]!r}) = {got[j][i]!r}, libm {want[i]!r}: "
                            f"{int(d[i])} ulps > {bound}")
    assert not failures, "\n".join(failures)


def test_expanded_f32_is_correctly_rounded_on_the_cpu(cpu_prog) -> None:
    _check("f32", np.float32, cpu_prog)


def test_expanded_f64_is_within_its_bounds_on_the_cpu(cpu_prog) -> None:
    _check("f64", np.float64, cpu_prog)


def test_vectors_lane_by_lane_on_the_cpu(cpu_prog) -> None:
    x = np.linspace(-3, 3, 256, dtype=np.float32)
    got = x.copy()
    cpu_prog["math_vec"](got, global_size=(64,), local_size=(16,))
    with np.errstate(all="ignore"):
        a = np.exp(x.astype(np.float64)).astype(np.float32)
        b = np.power(a.astype(np.float64), x.astype(np.float64)).astype(np.float32)
        want = np.sin(b.astype(np.float64)).astype(np.float32)
    assert ulps(got, want).max() == 0


def test_fpowi_is_the_cpu_powi(cpu_prog) -> None:
    """fpowi: compiler-rt's multiply loop, bit for bit (the C library has no powi)."""
    x, y, e = inputs(np.float64)
    n = len(x) - len(x) % 32
    x, y, e = x[:n], y[:n], e[:n]
    got = run_all(cpu_prog, "f64", x, y, e)[OPS.index("fpowi")]
    want = np.empty_like(x)
    for i, (a, k) in enumerate(zip(x.tolist(), e.tolist(), strict=True)):
        r, b, neg = 1.0, abs(k), k < 0
        while True:
            if b & 1:
                r *= a
            b //= 2
            if b == 0:
                break
            a *= a
        want[i] = 1.0 / r if neg and r != 0 else (math.copysign(math.inf, r) if neg else r)
    assert (ulps(got, want) == 0).all()


def test_ipowi_on_the_cpu_pipeline() -> None:
    """math.ipowi had no lowering anywhere: expand-math expands it on the CPU too."""
    prog = xmux.compile(IPOWI)
    x = np.array([2, 3, -2, 1, -1, -1, 0, 7, 0, 2, 5], np.int32)
    e = np.array([10, 5, 3, -5, -3, -4, 0, 20, 3, 31, -2], np.int32)
    want = [int(np.int64(a) ** b) & 0xFFFFFFFF if b >= 0 else (a if abs(a) == 1 else 0)
            for a, b in zip(x.tolist(), e.tolist(), strict=True)]
    want = [w - 2**32 if w >= 2**31 else w for w in want]
    want[5] = 1  # (-1)^-4
    xi = x.copy()
    prog["ipowi"](x, e, global_size=(len(x),), local_size=(1,))
    assert x.tolist() == want
    xmux.interpret(IPOWI, "ipowi", xi, e, global_size=len(xi), local_size=1)
    assert xi.tolist() == want


def test_every_math_op_builds_ptx_without_calls() -> None:
    prog = xmux.compile(SOURCE + F16, target="nvptx")
    ptx = prog.ptx
    for name in ("math_f32", "math_f64", "math_f16", "math_vec", "ipowi"):
        assert f".entry {name}(" in ptx
    assert "call" not in ptx  # no libm function, no __powidf2
    assert ".extern .func" not in ptx
    assert "fma.rn.f64" in ptx and "sqrt.rn.f64" in ptx
    assert "ex2.approx" not in ptx and "sin.approx" not in ptx  # not exact: never used


needs_gpu = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")


@needs_gpu
@pytest.mark.parametrize(("t", "dt"), [("f32", np.float32), ("f64", np.float64)])
def test_gpu_matches_the_cpu(t: str, dt: type, cpu_prog) -> None:
    """The GPU against the CPU's libm (ulps as bounded above, plus libm's own error) and
    against the CPU running the same expansion: f32 at most 1 ulp, f64 2 (LLVM and ptxas
    may fuse a product into the addition that reads it: PTX's plain mul/add.f64)."""
    gpu = xmux.compile(SOURCE, target="nvptx")
    libm = xmux.compile(SOURCE, tune=False, specialize=False)
    x, y, e = inputs(dt)
    n = len(x) - len(x) % 32
    x, y, e = x[:n], y[:n], e[:n]
    on_gpu = run_all(gpu, t, x, y, e)
    on_cpu = run_all(libm, t, x, y, e)
    expanded = run_all(cpu_prog, t, x, y, e)
    report, failures = [], []
    for j, op in enumerate(OPS):
        d_libm = ulps(on_gpu[j], on_cpu[j])
        d_same = ulps(on_gpu[j], expanded[j])
        report.append(f"{op}: {int(d_libm.max())} ulps from the CPU's libm, "
                      f"{int(d_same.max())} from the CPU's expansion")
        slack = LIBM_ULPS.get(op, 2)
        bound = 0 if op == "fpowi" else (F64_ULPS.get(op, 1) if dt == np.float64 else 0) + slack
        same = 0 if op == "fpowi" else (2 if dt == np.float64 else 1)
        if d_libm.max() > bound or d_same.max() > same:
            i = int(np.argmax(d_libm))
            failures.append(f"{op}({x[i]!r}, {y[i]!r}): gpu {on_gpu[j][i]!r} "
                            f"cpu {on_cpu[j][i]!r} expanded {expanded[j][i]!r}")
    print(f"\n{t} on {cuda.device_arch()}:\n  " + "\n  ".join(report))
    assert not failures, "\n".join(failures)


@needs_gpu
def test_gpu_vectors_and_ipowi() -> None:
    gpu = xmux.compile(SOURCE, target="nvptx")
    cpu = xmux.compile(SOURCE)
    x = np.linspace(-3, 3, 256, dtype=np.float32)
    a, b = x.copy(), x.copy()
    gpu["math_vec"](a, global_size=(64,), local_size=(32,))
    cpu["math_vec"](b, global_size=(64,), local_size=(32,))
    assert ulps(a[:256], b[:256]).max() <= 2
    xs = np.arange(-8, 8, dtype=np.int32)
    es = np.arange(0, 16, dtype=np.int32) - 3
    g, c = xs.copy(), xs.copy()
    gpu["ipowi"](g, es, global_size=(16,), local_size=(16,))
    cpu["ipowi"](c, es, global_size=(16,), local_size=(16,))
    assert g.tolist() == c.tolist()
