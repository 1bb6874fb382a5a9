"""Ports of libgomp OpenACC tests that issue 21's fixes made run: each gave a wrong answer or
was rejected before, on the cpu target (two size rotations) and the host target.

- single mode (code outside partitioned loops ran in every work-item): private-variables'
  loop_g_1 .. loop_g_6, loop_w_1, parallel_g_2 (``arr[...] += x`` in gang / worker /
  vector-single code);
- level-less reducing loops (counted once per vector lane): reduction-4, reduction-initial-1;
- ``gang(static:1)``: private-variables' local_g_1 / parallel_g_1, reduction-7's wv_p_3;
- atomics in a compute region: par-reduction-1 / -2 (``acc.atomic.update`` in gang-redundant
  code, once per gang);
- a sequential loop around a vector reduction inside ``loop gang worker`` (masked remainder
  round): reduction-7's v_p_2; an aggregate allocated in a worker loop body around vector
  loops: private-variables' local_w_3 / local_w_5.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tests.libgomp_ports import CONFIGS, Config, Module, check, loop, update
from tests.test_libgomp_private import build, gang_static, local_w_3, single_mode


def reduction_4(m: Module) -> None:
    """reduction-4.c: ``parallel vector_length(32)`` + ``loop reduction(+:result)`` (no level)
    of a double complex array[i] = i over 1000; then && / || of (5 > array[i]) into false."""
    vl = m.dims()[1]
    arr = m.array(np.arange(1000).astype(np.complex128), "c64")
    res = m.scalar("c64", 0)
    r = m.reduction(m.copy(res, "c64", "result"), "add", "c64", "result")
    m.parallel(loop(m, "", 1000, "%i", [f"%b = memref.load {arr}[%i] : memref<1000xcomplex<f64>>",
                                         *update(r, "c64", "add", "%b", "0")], reds=[r]), vl=vl)
    m.result("reduction-4 +", res, "c64", None, complex(499500))
    for op, want in (("land", 0), ("lor", 1)):
        vl = m.dims()[1]
        lres = m.scalar("i32", 0)
        r = m.reduction(m.copy(lres, "i32", "lresult"), op, "i32", "lresult")
        body = [f"%b = memref.load {arr}[%i] : memref<1000xcomplex<f64>>",
                "%re = complex.re %b : complex<f64>", "%five = arith.constant 5.0 : f64",
                "%gt = arith.cmpf ogt, %five, %re : f64", "%g = arith.extui %gt : i1 to i32",
                *update(r, "i32", op, "%g", "0")]
        m.parallel(loop(m, "", 1000, "%i", body, reds=[r]), vl=vl)
        m.result(f"reduction-4 {op}", lres, "i32", None, want)


def reduction_initial_1(m: Module) -> None:
    """reduction-initial-1.c: s = 5, ``parallel vector_length(32) copy(s)``, ``loop
    reduction(+:s)`` (no level) adding a = 8 thirty-two times: 261."""
    s = m.scalar("i32", 5)
    r = m.reduction(m.copy(s, "i32", "s"), "add", "i32", "s")
    m.parallel(loop(m, "", 32, "%i", ["%a = arith.constant 8 : i32",
                                      *update(r, "i32", "add", "%a", "0")], reds=[r]),
               vl=m.dims()[1])
    m.result("reduction-initial-1", s, "i32", None, 5 + 32 * 8)


def reduction_7_v_p_2(m: Module) -> None:
    """reduction-7's v_p_2: ``loop gang worker`` over k < 32, a sequential j < 32 inside, acc
    private, ``loop vector reduction(+:acc)`` of ina[k][i] * inb[i][j]: out = (k + j) * 2."""
    ii, jj = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    ina = m.array(np.where(ii == jj, 2.0, 0.0).ravel(), "f64")  # ina[j * 32 + i]: j = row
    inb = m.array((ii + jj).astype(np.float64).T.ravel(), "f64")
    out = m.array(np.zeros(1024), "f64")
    acc = m.private("f64", name="acc")
    pre = ["%z = arith.constant 0.0 : f64", f"memref.store %z, {acc}[] : memref<f64>"]
    ra = m.reduction(acc, "add", "f64", "acc", where=pre)
    for c in (0, 1, 32):
        m.idx(c)
    inner = ["%ka = arith.muli %k, %c32 : index", "%xa = arith.addi %ka, %i : index",
             "%ib = arith.muli %i, %c32 : index", "%xb = arith.addi %ib, %j : index",
             f"%va = memref.load {ina}[%xa] : memref<1024xf64>",
             f"%vb = memref.load {inb}[%xb] : memref<1024xf64>", "%pr = arith.mulf %va, %vb : f64",
             *update(ra, "f64", "add", "%pr", "0")]
    body = ["scf.for %j = %c0 to %c32 step %c1 {", *("  " + s for s in [
        *pre, *loop(m, "vector", 32, "%i", inner, reds=[ra], t={ra: "memref<f64>"}),
        f"%fv = memref.load {acc}[] : memref<f64>", "%kk = arith.muli %k, %c32 : index",
        "%o = arith.addi %kk, %j : index", f"memref.store %fv, {out}[%o] : memref<1024xf64>"]),
        "}"]
    nw, vl = m.dims()
    m.parallel(loop(m, "gang worker", 32, "%k", body), ng=32, nw=nw, vl=vl,
               private=[(acc, "memref<f64>")])
    m.result("reduction-7 v_p_2", out, "f64", 1024, ((ii + jj) * 2).ravel().astype(np.float64))


def reduction_7_wv_p_3(m: Module) -> None:
    """reduction-7's wv_p_3: private res = 0 in gang-redundant code, ``loop worker vector
    reduction(+:res)`` of arr[i] = i ^ 33 over 1024, ``loop gang(static:1)`` storing res into
    out[0..31]: every element the sum."""
    arr = m.filled(1024, "i32", lambda k, out: [
        f"{out}_x = arith.xori {k}, {m.idx(33)} : index",
        f"{out} = arith.index_cast {out}_x : index to i32"])
    out = m.array(np.zeros(32, dtype=np.int32), "i32")
    res = m.private("i32", name="res")
    pre = ["%z = arith.constant 0 : i32", f"memref.store %z, {res}[] : memref<i32>"]
    rr = m.reduction(res, "add", "i32", "res", where=pre)
    m.idx(1)
    body = [*pre,
            *loop(m, "worker vector", 1024, "%i", [
                f"%b = memref.load {arr}[%i] : memref<1024xi32>",
                *update(rr, "i32", "add", "%b", "0")], reds=[rr], t={rr: "memref<i32>"}),
            *loop(m, "gang({static=%c1 : index})", 32, "%i", [
                f"%v = memref.load {res}[] : memref<i32>",
                f"memref.store %v, {out}[%i] : memref<32xi32>"])]
    nw, vl = m.dims()
    m.parallel(body, ng=32, nw=nw, vl=vl, private=[(res, "memref<i32>")])
    m.result("reduction-7 wv_p_3", out, "i32", 32, np.full(32, int((np.arange(1024) ^ 33).sum())))


def par_reduction(m: Module) -> None:
    """par-reduction-1 / -2 (the async clause changes nothing here): ``parallel
    num_gangs(G) reduction(+:res1)`` with ``res1 += 5`` and ``acc atomic`` ``res2 += 5`` in
    gang-redundant code: both G * 5 (G = 256, host 1); then ``*`` with G = 8: 5^G."""
    for op, ng, init in (("add", 256, 0), ("mul", 8, 1)):
        nw, vl = m.dims()
        res1, res2 = m.scalar("i32", init), m.scalar("i32", init)
        c1, c2 = m.copy(res1, "i32", "res1"), m.copy(res2, "i32", "res2")
        r1 = m.reduction(c1, op, "i32", "res1")
        arith = "addi" if op == "add" else "muli"
        body = ["%five = arith.constant 5 : i32", *update(r1, "i32", op, "%five", "0"),
                f"acc.atomic.update {c2} : memref<i32> {{",
                "^bb0(%xv: i32):", f"  %nv = arith.{arith} %xv, %five : i32",
                "  acc.yield %nv : i32", "}"]
        m.parallel(body, ng=ng, nw=nw, vl=vl, reduction=[(r1, "memref<i32>")])
        g = m.cfg.gangs(ng)
        want = 5 * g if op == "add" else 5 ** g
        m.result(f"par-reduction {op} res1", res1, "i32", None, want)
        m.result(f"par-reduction {op} res2 (atomic)", res2, "i32", None, want)


PORTS: dict[str, Callable[[Config], Module]] = {
    "private-variables single mode": build([single_mode]),
    "private-variables gang static": build([gang_static]),
    "private-variables local_w_3/5": build([local_w_3]),
    "reduction-4": build([reduction_4]),
    "reduction-initial-1": build([reduction_initial_1]),
    "reduction-7 v_p_2": build([reduction_7_v_p_2]),
    "reduction-7 wv_p_3": build([reduction_7_wv_p_3]),
    "par-reduction-1/2": build([par_reduction]),
}


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
@pytest.mark.parametrize("port", list(PORTS))
def test_port(port: str, cfg: Config, monkeypatch) -> None:
    monkeypatch.setenv("XMUX_VERIFY_EACH", "0")
    check(PORTS[port](cfg))

