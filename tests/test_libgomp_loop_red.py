"""Ports of libgomp's reductions on loop directives (libgomp.oacc-c-c++-common/reduction-7 and
loop-red-g-1, -w-1, -w-2, -v-1, -v-2, -wv-1, -gwv-1) as upstream ``acc`` programs, on the cpu
target with sizes rotated over vector lengths 1-128 and worker counts 1-8, and on the host
target (tests/libgomp_ports.py has the builder).

The loop-red tests sum, per iteration, ``(g << 16) | (w << 8) | v`` of the position running it
on a device and the iteration number on the host (``acc_on_device``): here ``mux.get_group_id``
/ ``mux.get_local_id`` give the positions on the cpu target and the host program sums ``ix``.
The expected device sum follows xmux's documented schedule (docs/architecture.md, OpenACC
outlining), which differs from GCC's nvptx one only for worker loops: gangs take contiguous
chunks of ceil(n / gangs) iterations, workers contiguous chunks of whole vector rounds of their
gang's part, lanes adjacent iterations, and a level the loop does not partition contributes
position 0 (only position 0 of it performs the reduction's fini). A second reduction of the
same loop sums the iteration numbers: each iteration counts exactly once.
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
    loop,
    update,
    verify_ends_only,
)

N = 32 * 32 * 32 + 17


@pytest.fixture(autouse=True)
def _verify(monkeypatch) -> None:
    verify_ends_only(monkeypatch)


def positions(levels: str, n: int, ng: int, nw: int, vl: int) -> tuple[np.ndarray, ...]:
    """(gang, worker, lane) whose partial result carries iteration i, for i in [0, n)."""
    lv = levels.split()
    i = np.arange(n)
    chunk = -(-n // ng) if "gang" in lv else n
    g = i // chunk if "gang" in lv else np.zeros(n, dtype=np.int64)
    j = i % chunk
    w = np.zeros(n, dtype=np.int64)
    v = np.zeros(n, dtype=np.int64)
    if "worker" in lv:
        m = np.minimum(chunk, n - g * chunk)  # the gang's part
        vle = vl if "vector" in lv else 1
        wchunk = -(-m // (nw * vle)) * vle
        w, j = j // wchunk, j % wchunk
    if "vector" in lv:
        v = j % vl
    return g, w, v


def device_sum(levels: str, n: int, ng: int, nw: int, vl: int) -> int:
    g, w, v = positions(levels, n, ng, nw, vl)
    return int(np.int32(np.sum((g << 16) | (w << 8) | v) & 0xFFFFFFFF))


POS = ["%pg = mux.get_group_id 0 : index", "%pw = mux.get_local_id 1 : index",
       "%pv = mux.get_local_id 0 : index"]


def val_lines(m: Module, iv: str) -> list[str]:
    """``val``: the position code on the cpu target (a device), ``ix`` on the host."""
    if m.cfg.target == "host":
        return [f"%val = arith.index_cast {iv} : index to i32"]
    return [*POS, f"%sg = arith.shli %pg, {m.idx(16)} : index",
            f"%sw = arith.shli %pw, {m.idx(8)} : index", "%o1 = arith.ori %sg, %sw : index",
            "%code = arith.ori %o1, %pv : index",
            "%val = arith.index_cast %code : index to i32"]


def loop_red(m: Module, levels: str, ng: int | None, nw: bool, vl: bool, local: bool,
             name: str) -> None:
    """One loop-red test: ``t`` (copy, or with ``local`` a variable of the region initialised
    from the copy object ``q`` and stored back to it) reduced by ``loop <levels>``."""
    nws, vls = m.dims()
    q = m.scalar("i32", 0)
    cnt = m.scalar("i64", 0)
    cq = m.copy(q, "i32", "q")
    rc = m.reduction(m.copy(cnt, "i64", "n"), "add", "i64", "n")
    pre: list[str] = []
    post: list[str] = []
    if local:  # int t = q; ... q = t;
        pre = ["%t = memref.alloca() : memref<i32>", f"%q0 = memref.load {cq}[] : memref<i32>",
               "memref.store %q0, %t[] : memref<i32>"]
        rt = m.reduction("%t", "add", "i32", "t", where=pre)
        post = ["%t1 = memref.load %t[] : memref<i32>", f"memref.store %t1, {cq}[] : memref<i32>"]
    else:
        rt = m.reduction(cq, "add", "i32", "t")
    body = [*val_lines(m, "%ix"), *update(rt, "i32", "add", "%val", "t"),
            "%ix64 = arith.index_cast %ix : index to i64", *update(rc, "i64", "add", "%ix64", "c")]
    types = {rt: "memref<i32>", rc: "memref<i64>"}
    clauses = dict(ng=ng, nw=nws if nw else None, vl=vls if vl else None)
    m.parallel([*pre, *loop(m, levels, N, "%ix", body, reds=[rt, rc], t=types), *post],
               **clauses)
    if m.cfg.target == "host":
        want = int(np.int32(N * (N - 1) // 2))
    else:
        want = device_sum(levels, N, ng or 1, nws if nw else 1, vls if vl else 1)
    m.result(name, q, "i32", None, want)
    m.result(f"{name} iterations", cnt, "i64", None, N * (N - 1) // 2)


def loop_red_ports(cfg: Config) -> Module:
    m = Module(cfg)
    loop_red(m, "gang", 32, False, True, False, "loop-red-g-1")
    loop_red(m, "worker", None, True, True, False, "loop-red-w-1")
    loop_red(m, "worker", None, True, True, True, "loop-red-w-2")
    loop_red(m, "vector", None, False, True, False, "loop-red-v-1")
    loop_red(m, "vector", None, False, True, True, "loop-red-v-2")
    loop_red(m, "worker vector", None, True, True, False, "loop-red-wv-1")
    loop_red(m, "gang worker vector", 32, True, True, False, "loop-red-gwv-1")
    return m


# ---------------------------------------------------------------------------------------
# reduction-7: gangs 32, the C test's num_workers(32) / vector_length(32) rotated


def _iota(m: Module, n: int, t: str = "i32", fn: Callable[[str], list[str]] | None = None
          ) -> str:
    """arr[i] = i (or ``fn``'s lines computing ``%x`` from ``%i``) as type ``t``."""
    def body(k: str, out: str) -> list[str]:
        if t == "i32":
            return [f"{out} = arith.index_cast {k} : index to i32"]
        return [f"{out}_i = arith.index_cast {k} : index to i64",
                f"{out} = arith.sitofp {out}_i : i64 to {t}"]
    return m.filled(n, t, fn or body)


def _par(m: Module, body: list[str], **kw) -> None:
    nw, vl = m.dims()
    m.parallel(body, ng=32, nw=nw, vl=vl, **kw)


def reduction_7(cfg: Config) -> Module:
    m = Module(cfg)
    arr = _iota(m, 1024)
    ld = f"memref.load {arr}[%i] : memref<1024xi32>"
    a = np.arange(1024)

    # g_np_1, gv_np_1, gw_np_1, gwv_np_1 (+ over 1024), g_np_1's * over 12 (arr[0] = 0)
    for levels, op, n, init in (("gang", "add", 1024, 0), ("gang", "mul", 12, 1),
                                ("gang vector", "add", 1024, 0),
                                ("gang worker", "add", 1024, 0),
                                ("gang worker vector", "add", 1024, 0)):
        res = m.scalar("i32", init)
        r = m.reduction(m.copy(res, "i32", "res"), op, "i32", "res")
        _par(m, loop(m, levels, n, "%i", [f"%b = {ld}", *update(r, "i32", op, "%b", "0")],
                     reds=[r]))
        want = int(np.prod(a[:n])) if op == "mul" else int(a[:n].sum())
        m.result(f"{levels} np {op}", res, "i32", None, want)

    # gwv_np_2 (int) / gwv_np_3 (double): gang loop j < 32 around worker vector i < 1024
    big = 32768
    for t in ("i32", "f64"):
        arr2 = _iota(m, big, t)
        res = m.scalar(t, 0)
        r = m.reduction(m.copy(res, t, "res"), "add", t, "res")
        inner = ["%jk = arith.muli %j, %c1024 : index", "%ix = arith.addi %jk, %i : index",
                 f"%b = memref.load {arr2}[%ix] : memref<{big}x{t}>",
                 *update(r, t, "add", "%b", "0")]
        m.idx(1024)
        _par(m, loop(m, "gang", 32, "%j", loop(m, "worker vector", 1024, "%i", inner, reds=[r]),
                     reds=[r]))
        want = big * (big - 1) // 2
        m.result(f"gwv_np_{2 if t == 'i32' else 3}", res, t, None,
                 int(np.int32(want)) if t == "i32" else float(want))

    # gwv_np_4: float + and max, arr[i] = i % 512, two worker vector loops (the second reversed)
    arr4 = m.filled(big, "f32", lambda k, out: [
        f"{out}_m = arith.remui {k}, {m.idx(512)} : index",
        f"{out}_i = arith.index_cast {out}_m : index to i64",
        f"{out} = arith.sitofp {out}_i : i64 to f32"])
    res, mres = m.scalar("f32", 0), m.scalar("f32", 0)
    rs = m.reduction(m.copy(res, "f32", "res"), "add", "f32", "res")
    rm = m.reduction(m.copy(mres, "f32", "mres"), "max", "f32", "mres")

    def body4(rev: bool) -> list[str]:
        idx = ["%jk = arith.muli %j, %c1024 : index"]
        if rev:
            idx += [f"%ri = arith.subi {m.idx(1023)}, %i : index",
                    "%ix = arith.addi %jk, %ri : index"]
        else:
            idx += ["%ix = arith.addi %jk, %i : index"]
        return [*idx, f"%b = memref.load {arr4}[%ix] : memref<{big}xf32>",
                *update(rs, "f32", "add", "%b", "s"),
                f"%mo = memref.load {rm}[] : memref<f32>", "%gt = arith.cmpf ogt, %b, %mo : f32",
                "scf.if %gt {", f"  memref.store %b, {rm}[] : memref<f32>", "}"]

    _par(m, loop(m, "gang", 32, "%j", [
        *loop(m, "worker vector", 1024, "%i", body4(False), reds=[rs, rm]),
        *loop(m, "worker vector", 1024, "%i", body4(True), reds=[rs, rm])], reds=[rs, rm]))
    x4 = np.arange(big) % 512
    m.result("gwv_np_4 res", res, "f32", None, np.float32(2 * x4.sum()))
    m.result("gwv_np_4 mres", mres, "f32", None, np.float32(511))

    # v_p_1, w_p_1, wv_p_1: private(res) on the parallel, a gang loop over 32 rows, res = 0,
    # an inner <level> reduction over 32 columns, out[j] = res
    rows = a.reshape(32, 32).sum(1)
    for levels in ("vector", "worker", "worker vector"):
        out = m.array(np.zeros(32, dtype=np.int32), "i32")
        p = m.private("i32", name="res")
        pre: list[str] = ["%z = arith.constant 0 : i32", f"memref.store %z, {p}[] : memref<i32>"]
        rr = m.reduction(p, "add", "i32", "res", where=pre)
        inner = ["%jr = arith.muli %j, %c32 : index", "%ix = arith.addi %jr, %i : index",
                 f"%b = memref.load {arr}[%ix] : memref<1024xi32>",
                 *update(rr, "i32", "add", "%b", "0")]
        m.idx(32)
        body = [*pre, *loop(m, levels, 32, "%i", inner, reds=[rr], t={rr: "memref<i32>"}),
                f"%fv = memref.load {p}[] : memref<i32>",
                f"memref.store %fv, {out}[%j] : memref<32xi32>"]
        _par(m, loop(m, "gang", 32, "%j", body), private=[(p, "memref<i32>")])
        tag = {"vector": "v", "worker": "w", "worker vector": "wv"}[levels]
        m.result(f"{tag}_p_1", out, "i32", 32, rows)

    # wv_p_2: res = j, a worker loop then a reversed vector loop over row j of 32 x 1024
    arr2 = _iota(m, big)
    out = m.array(np.zeros(32, dtype=np.int32), "i32")
    p = m.private("i32", name="res")
    pre = ["%jv = arith.index_cast %j : index to i32", f"memref.store %jv, {p}[] : memref<i32>"]
    rr = m.reduction(p, "add", "i32", "res", where=pre)

    def row(rev: bool) -> list[str]:
        idx = ["%jk = arith.muli %j, %c1024 : index"]
        if rev:
            idx += [f"%ri = arith.subi {m.idx(1023)}, %i : index",
                    "%ix = arith.addi %jk, %ri : index"]
        else:
            idx += ["%ix = arith.addi %jk, %i : index"]
        return [*idx, f"%b = memref.load {arr2}[%ix] : memref<{big}xi32>",
                *update(rr, "i32", "add", "%b", "0")]

    tt = {rr: "memref<i32>"}
    body = [*pre, *loop(m, "worker", 1024, "%i", row(False), reds=[rr], t=tt),
            *loop(m, "vector", 1024, "%i", row(True), reds=[rr], t=tt),
            f"%fv = memref.load {p}[] : memref<i32>",
            f"memref.store %fv, {out}[%j] : memref<32xi32>"]
    _par(m, loop(m, "gang", 32, "%j", body), private=[(p, "memref<i32>")])
    hres = np.arange(32) + 2 * np.arange(big).reshape(32, 1024).sum(1)
    m.result("wv_p_2", out, "i32", 32, hres.astype(np.int64).astype(np.int32))
    return m


PORTS: dict[str, Callable[[Config], Module]] = {
    "loop-red": loop_red_ports,
    "reduction-7": reduction_7,
}


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
@pytest.mark.parametrize("port", list(PORTS))
def test_libgomp_loop_reduction(port: str, cfg: Config) -> None:
    check(PORTS[port](cfg))


def test_schedule_model() -> None:
    """The position model: the C test's own expectations where xmux's schedule is GCC's
    (gang chunks, lanes ix % 32, gang worker vector with 32 x 32 x 32 positions)."""
    g, w, v = positions("gang", N, 32, 1, 32)
    assert np.array_equal(g, np.arange(N) // ((N + 31) // 32)) and not w.any() and not v.any()
    _, _, v = positions("vector", N, 1, 1, 32)
    assert np.array_equal(v, np.arange(N) % 32)
    _, w, v = positions("worker vector", N, 1, 32, 32)
    assert v.max() == 31 and w.max() == 31 and np.bincount(w).min() > 0
