"""Ports of libgomp's OpenACC reduction tests (libgomp.oacc-c-c++-common/reduction-1, -2, -3,
-5, -6, -8, reduction-flt, reduction-dbl, reduction-cplx-flt, reduction-cplx-dbl and the
non-atomic half of par-reduction-1 / -2) as upstream
``acc`` programs, exact against the C tests' sequential checks on the cpu target at vector
lengths 1, 8, 32, 128 and worker counts 1-8 (each construct takes its sizes from the
rotation of tests/libgomp_ports.py, at two rotations), and on the host target.

reduction.h's ``check_reduction_op`` / ``check_reduction_macro``: ``res = init``; a parallel
construct with the test's clauses and ``copy(res)`` around ``loop <levels> reduction(op:res)``
over ``res = res op b``; the result must equal the sequential fold. Each C test's constructs
are one module here (one compile per configuration).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tests.libgomp_ports import (
    CONFIGS,
    Config,
    Module,
    check,
    fold,
    loop,
    mlir_type,
    update,
    verify_ends_only,
)

NG = 8  # the C tests' ng; nw and vl come from the configuration

#: the C tests' level / parallel-clause pairs (``gwv_par``, ``gwv_loop``)
LEVELS = {
    "gang": dict(ng=NG),
    "worker": dict(nw=True),
    "vector": dict(vl=True),
    "gang worker vector": dict(ng=NG, nw=True, vl=True),
}


def _clauses(m: Module, levels: str) -> dict:
    """The C test's clauses for ``levels``, with this construct's sizes."""
    c = dict(LEVELS[levels])
    nw, vl = m.dims()
    if c.get("nw"):
        c["nw"] = nw
    if c.get("vl"):
        c["vl"] = vl
    return c


def check_reduction(m: Module, t: str, op: str, init, levels: str, n: int,
                    b: Callable[[str], list[str]], values: np.ndarray, rtol: float = 0.0,
                    name: str = "") -> None:
    """reduction.h: ``res = init``, ``parallel <clauses> copy(res)`` + ``loop <levels>
    reduction(op:res)`` over ``res = res op b(i)``; expected: the sequential fold of values."""
    res = m.scalar(t, init)
    cp = m.copy(res, t, "res")
    red = m.reduction(cp, op, t, "res")
    body = [*b("%i"), *update(red, t, op, "%b", "0")]
    m.parallel(loop(m, levels, n, "%i", body, reds=[red]), **_clauses(m, levels))
    want = fold(op, t, init, values)
    m.result(name or f"{levels} {op} {t}", res, t, None, want, rtol)


def load_b(arr: str, t: str, n: int) -> Callable[[str], list[str]]:
    return lambda i: [f"%b = memref.load {arr}[{i}] : memref<{n}x{mlir_type(t)}>"]


def reduction_1(cfg: Config) -> Module:
    """reduction-1.c: int + * & | ^ over 1..100, && / || of (5 > i) over 0..999, min / max over
    0..999 (inits n + 1, -1), at gang, worker, vector and gang worker vector."""
    m = Module(cfg)
    a100 = np.arange(1, 101, dtype=np.int32)
    arr = m.array(a100, "i32")
    for levels in LEVELS:
        for op, init in (("add", 0), ("mul", 1), ("iand", -1), ("ior", 0), ("xor", 0)):
            check_reduction(m, "i32", op, init, levels, 100, load_b(arr, "i32", 100), a100)
    a1000 = np.arange(1000, dtype=np.int32)
    arr2 = m.array(a1000, "i32")
    c5 = m.i32(5)

    def cmp_b(i: str) -> list[str]:
        return [f"%x = memref.load {arr2}[{i}] : memref<1000xi32>",
                f"%bc = arith.cmpi sgt, {c5}, %x : i32", "%b = arith.extui %bc : i1 to i32"]

    for levels in LEVELS:
        for op, init in (("land", 1), ("lor", 0)):
            check_reduction(m, "i32", op, init, levels, 1000, cmp_b,
                            (a1000 < 5).astype(np.int32))
        for op, init in (("min", 1001), ("max", -1)):
            check_reduction(m, "i32", op, init, levels, 1000,
                            load_b(arr2, "i32", 1000), a1000)
    return m


def reduction_float(cfg: Config, t: str, n: int) -> Module:
    """reduction-2.c (float, n = 100) / reduction-3.c (double, n = 10): + and * over 1..n,
    min / max over 0..999, at every level. The + and * results are exact (integers below
    2^24; 100! overflows to inf in float as in C, products of 1..10 are exact)."""
    m = Module(cfg)
    dt = np.float32 if t == "f32" else np.float64
    vals = np.arange(1, n + 1).astype(dt)
    arr = m.array(vals, t)
    for levels in LEVELS:
        for op, init in (("add", 0), ("mul", 1)):
            check_reduction(m, t, op, init, levels, n, load_b(arr, t, n), vals)
    v1000 = np.arange(1000).astype(dt)
    arr2 = m.array(v1000, t)
    for levels in LEVELS:
        for op, init in (("min", 1001), ("max", -1)):
            check_reduction(m, t, op, init, levels, 1000, load_b(arr2, t, 1000), v1000)
    return m


def reduction_5(cfg: Config) -> Module:
    """reduction-5.c: two sums in one loop (s1 += 3, s2 += 5 from 2 and 5, n = 100)."""
    m = Module(cfg)
    for levels in LEVELS:
        s1, s2 = m.scalar("i32", 2), m.scalar("i32", 5)
        c1, c2 = m.copy(s1, "i32", "s1"), m.copy(s2, "i32", "s2")
        r1, r2 = m.reduction(c1, "add", "i32", "s1"), m.reduction(c2, "add", "i32", "s2")
        body = ["%t3 = arith.constant 3 : i32", "%t5 = arith.constant 5 : i32",
                *update(r1, "i32", "add", "%t3", "1"), *update(r2, "i32", "add", "%t5", "2")]
        m.parallel(loop(m, levels, 100, "%i", body, reds=[r1, r2]), **_clauses(m, levels))
        m.result(f"{levels} s1", s1, "i32", None, 2 + 3 * 100)
        m.result(f"{levels} s2", s2, "i32", None, 5 + 5 * 100)
    return m


def reduction_6(cfg: Config) -> Module:
    """reduction-6.c: ``loop gang private(v)`` over 10 rows, ``v = j``, ``loop vector
    reduction(+:v)`` adding 1 a hundred times, ``red[j] = v``: red[j] = j + 100."""
    m = Module(cfg)
    red = m.array(np.full(10, -1, dtype=np.int32), "i32")
    v = m.private("i32", name="v")
    inner: list[str] = []
    rv = m.reduction(v, "add", "i32", "v", where=inner)
    body = ["%j32 = arith.index_cast %j : index to i32", f"memref.store %j32, {v}[] : memref<i32>",
            *inner,
            *loop(m, "vector", 100, "%i", ["%one = arith.constant 1 : i32",
                                          *update(rv, "i32", "add", "%one", "0")], reds=[rv],
                  t={rv: "memref<i32>"}),
            f"%fv = memref.load {v}[] : memref<i32>",
            f"memref.store %fv, {red}[%j] : memref<10xi32>"]
    m.parallel(loop(m, "gang", 10, "%j", body, private=[v]), vl=m.dims()[1])
    m.result("red", red, "i32", 10, np.arange(10) + 100)
    return m


def reduction_8(cfg: Config) -> Module:
    """reduction-8.c: ``parallel loop num_gangs(10) gang reduction(+:s)`` of i + 1 over
    0..99 (the async clause has no effect on the result): 5050."""
    m = Module(cfg)
    s = m.scalar("i32", 0)
    r = m.reduction(m.copy(s, "i32", "s"), "add", "i32", "s")
    body = ["%i32 = arith.index_cast %i : index to i32", "%c1i = arith.constant 1 : i32",
            "%b = arith.addi %i32, %c1i : i32", *update(r, "i32", "add", "%b", "0")]
    m.parallel(loop(m, "gang", 100, "%i", body, reds=[r]), ng=10)
    m.result("async_sum", s, "i32", None, 5050)
    return m


def par_reduction(cfg: Config) -> Module:
    """par-reduction-1.c / -2.c without their ``acc atomic`` half (test_libgomp_modes.py has the
    whole tests): ``parallel num_gangs(G) reduction(+:res1)``, ``res1 += 5`` in gang-redundant
    code: G * 5 (G = 256; the host target runs one gang); ``*`` with G = 8: 5^G."""
    m = Module(cfg)
    for op, ng, init in (("add", 256, 0), ("mul", 8, 1)):
        nw, vl = m.dims()
        res1 = m.scalar("i32", init)
        r1 = m.reduction(m.copy(res1, "i32", "res1"), op, "i32", "res1")
        m.parallel(["%five = arith.constant 5 : i32", *update(r1, "i32", op, "%five", "0")],
                   ng=ng, nw=nw, vl=vl, reduction=[(r1, "memref<i32>")])
        g = cfg.gangs(ng)
        m.result(f"res1 {op}", res1, "i32", None, 5 * g if op == "add" else 5 ** g)
    return m


FRAC = 1.0 / (1 << 20)  # reduction-flt / -cplx-flt: "close enough" relative difference


def reduction_frac(cfg: Config, t: str) -> Module:
    """reduction-flt.c / -dbl.c / -cplx-flt.c / -cplx-dbl.c: sum and product of
    ary[ix] = frac (real) or frac + (2 frac - 1) i (complex), frac = ix / 1024 + 1 over 100
    elements, at vector (vector_length 32), worker (num_workers 32) and gang (num_gangs 32),
    compared with the sequential values as the C tests' close_enough does (relative error
    below 2^-20; the complex tests compare squared magnitudes)."""
    m = Module(cfg)
    frac = np.arange(100) * (1.0 / 1024) + 1.0
    dt = {"f32": np.float32, "f64": np.float64, "c32": np.complex64, "c64": np.complex128}[t]
    ary = (frac + (frac * 2.0 - 1.0) * 1j if t.startswith("c") else frac).astype(dt)
    arr = m.array(ary, t)
    ssum, sprod = dt(0), dt(1)
    for v in ary:
        ssum, sprod = dt(ssum + v), dt(sprod * v)
    for levels, clause in (("vector", dict(vl=m.dims()[1])), ("worker", dict(nw=m.dims()[0])),
                           ("gang", dict(ng=32))):
        tsum, tprod = m.scalar(t, 0), m.scalar(t, 1)
        rs = m.reduction(m.copy(tsum, t, "tsum"), "add", t, "tsum")
        rp = m.reduction(m.copy(tprod, t, "tprod"), "mul", t, "tprod")
        body = [f"%b = memref.load {arr}[%ix] : memref<100x{mlir_type(t)}>",
                *update(rs, t, "add", "%b", "s"), *update(rp, t, "mul", "%b", "p")]
        m.parallel(loop(m, levels, 100, "%ix", body, reds=[rs, rp]), **clause)
        m.result(f"{levels} sum", tsum, t, None, ssum, FRAC)
        m.result(f"{levels} prod", tprod, t, None, sprod, FRAC)
    return m


PORTS: dict[str, Callable[[Config], Module]] = {
    "reduction-1": reduction_1,
    "reduction-2": lambda c: reduction_float(c, "f32", 100),
    "reduction-3": lambda c: reduction_float(c, "f64", 10),
    "reduction-5": reduction_5,
    "reduction-6": reduction_6,
    "reduction-8": reduction_8,
    "par-reduction": par_reduction,
    "reduction-flt": lambda c: reduction_frac(c, "f32"),
    "reduction-dbl": lambda c: reduction_frac(c, "f64"),
    "reduction-cplx-flt": lambda c: reduction_frac(c, "c32"),
    "reduction-cplx-dbl": lambda c: reduction_frac(c, "c64"),
}


@pytest.fixture(autouse=True)
def _verify(monkeypatch) -> None:
    verify_ends_only(monkeypatch)


#: the ports that repeat one construct shape for many operators run at one rotation of the
#: sizes (their constructs cover every size of it); the others at two
ONE_ROTATION = {"reduction-1", "reduction-2", "reduction-3"}


@pytest.mark.parametrize(("port", "cfg"), [
    (p, c) for p in PORTS for c in CONFIGS if not (p in ONE_ROTATION and c.shift)
], ids=str)
def test_libgomp_reduction(port: str, cfg: Config) -> None:
    check(PORTS[port](cfg))
