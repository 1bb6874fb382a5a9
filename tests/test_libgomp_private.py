"""Ports of libgomp's private-variables.c (libgomp.oacc-c-c++-common) as upstream ``acc``
programs: variables private to a gang, a worker or a vector lane — declared in the region
(``memref.alloca`` / SSA values in the loop body) or by ``private`` clauses on the loop or the
parallel construct (``acc.private``), scalars and 2-element aggregates / arrays — whose values
reach the partitioned loops inside. Each test updates ``arr[i * 1024 + j * 32 + k] += x * k``
(or a row form); the whole array is compared with the C test's formula. cpu target with the
sizes rotated over vector lengths 1-128 and worker counts 1-8 (the C tests' num_workers /
vector_length), and the host target.

Only the subtests whose updates all happen in partitioned (vector) loops are here; those that
update memory in gang / worker / vector-single code, use ``gang(static:1)``, or allocate an
aggregate in a worker loop body around vector loops (a wrong answer or rejected before issue
21's execution modes) are in tests/test_libgomp_modes.py, built by the functions below.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tests.libgomp_ports import CONFIGS, Config, Module, check, loop, verify_ends_only

I32 = "memref<i32>"
PT = "memref<2xi32>"
A3 = "memref<32768xi32>"
A2 = "memref<1024xi32>"


@pytest.fixture(autouse=True)
def _verify(monkeypatch) -> None:
    verify_ends_only(monkeypatch)


def _iota(m: Module, n: int) -> str:
    return m.filled(n, "i32", lambda k, out: [f"{out} = arith.index_cast {k} : index to i32"])


def xval(kind: str, out: str) -> list[str]:
    """``out`` (i32) = i ^ j * 3 (kind "xor") or i | j * 5 ("or") from the ivs %i, %j."""
    c, op = ("%c3", "xori") if kind == "xor" else ("%c5", "ori")
    return [f"{out}_m = arith.muli %j, {c} : index", f"{out}_x = arith.{op} %i, {out}_m : index",
            f"{out} = arith.index_cast {out}_x : index to i32"]


def add_xk(arr: str, x: str, tag: str) -> list[str]:
    """arr[i * 1024 + j * 32 + k] += x * k."""
    return [f"{tag}_a = arith.muli %i, %c1024 : index", f"{tag}_b = arith.muli %j, %c32 : index",
            f"{tag}_c = arith.addi {tag}_a, {tag}_b : index",
            f"{tag}_e = arith.addi {tag}_c, %k : index",
            f"{tag}_k = arith.index_cast %k : index to i32",
            f"{tag}_p = arith.muli {x}, {tag}_k : i32",
            f"{tag}_o = memref.load {arr}[{tag}_e] : {A3}",
            f"{tag}_n = arith.addi {tag}_o, {tag}_p : i32",
            f"memref.store {tag}_n, {arr}[{tag}_e] : {A3}"]


def want3(both: bool = True) -> np.ndarray:
    i, j, k = np.meshgrid(np.arange(32), np.arange(32), np.arange(32), indexing="ij")
    v = np.arange(32768).reshape(32, 32, 32) + (i ^ j * 3) * k
    if both:
        v = v + (i | j * 5) * k
    return v.ravel()


def nest(m: Module, name: str, worker_bodies: list[list[str]], arr: str, both: bool = True,
         worker_private: list[str] = ()) -> None:
    """``parallel num_gangs(32) <sizes> { loop gang i { loop worker j {body} ... } }`` with one
    worker loop per body; result: the whole array."""
    for c in (3, 5, 32, 1024):
        m.idx(c)
    body: list[str] = []
    for wb in worker_bodies:
        body += loop(m, "worker", 32, "%j", wb, private=worker_private)
    nw, vl = m.dims()
    m.parallel(loop(m, "gang", 32, "%i", body), ng=32, nw=nw, vl=vl)
    m.result(name, arr, "i32", 32768, want3(both))


def vec(m: Module, body: list[str]) -> list[str]:
    return loop(m, "vector", 32, "%k", body)


def local_w_1(m: Module) -> None:
    """Back-to-back worker loops, each with a local x (an SSA value) used by a vector loop."""
    arr = _iota(m, 32768)
    nest(m, "local_w_1", [[*xval("xor", "%x"), *vec(m, add_xk(arr, "%x", "%u"))],
                          [*xval("or", "%x"), *vec(m, add_xk(arr, "%x", "%u"))]], arr)


def local_w_2(m: Module) -> None:
    """One worker loop, x redefined between two vector loops."""
    arr = _iota(m, 32768)
    nest(m, "local_w_2", [[*xval("xor", "%x"), *vec(m, add_xk(arr, "%x", "%u")),
                           *xval("or", "%y"), *vec(m, add_xk(arr, "%y", "%v"))]], arr)


def local_w_3(m: Module) -> None:
    """local_w_3 / _4 / _5: a 2-element aggregate (struct, addressable struct, array) local to
    the worker loop body, both fields set before or between the vector loops."""
    for name, between in (("local_w_3", False), ("local_w_5", True)):
        arr = _iota(m, 32768)
        set0 = [*xval("xor", "%x"), f"memref.store %x, %pt[%c0] : {PT}"]
        set1 = [*xval("or", "%y"), f"memref.store %y, %pt[%c1] : {PT}"]
        use0 = vec(m, [f"%l0 = memref.load %pt[%c0] : {PT}", *add_xk(arr, "%l0", "%u")])
        use1 = vec(m, [f"%l1 = memref.load %pt[%c1] : {PT}", *add_xk(arr, "%l1", "%v")])
        m.idx(0)
        m.idx(1)
        body = [f"%pt = memref.alloca() : {PT}"]
        body += [*set0, *use0, *set1, *use1] if between else [*set0, *set1, *use0, *use1]
        nest(m, name, [body], arr)


def loop_v(m: Module) -> None:
    """loop_v_1: ``loop vector private(x)`` twice; loop_v_2: ``loop vector private(pt)`` of
    an int[2]."""
    arr = _iota(m, 32768)
    x = m.private("i32", name="x")
    wb = [*loop(m, "vector", 32, "%k", [*xval("xor", "%x"), f"memref.store %x, {x}[] : {I32}",
                                        f"%lx = memref.load {x}[] : {I32}",
                                        *add_xk(arr, "%lx", "%u")], private=[x]),
          *loop(m, "vector", 32, "%k", [*xval("or", "%x"), f"memref.store %x, {x}[] : {I32}",
                                        f"%lx = memref.load {x}[] : {I32}",
                                        *add_xk(arr, "%lx", "%u")], private=[x])]
    nest(m, "loop_v_1", [wb], arr)
    arr = _iota(m, 32768)
    pt = m.private("i32", (2,), name="pt")
    wb = loop(m, "vector", 32, "%k", [
        *xval("xor", "%x"), f"memref.store %x, {pt}[%c0] : {PT}",
        *xval("or", "%y"), f"memref.store %y, {pt}[%c1] : {PT}",
        f"%l0 = memref.load {pt}[%c0] : {PT}", *add_xk(arr, "%l0", "%u"),
        f"%l1 = memref.load {pt}[%c1] : {PT}", *add_xk(arr, "%l1", "%v")], private=[pt])
    nest(m, "loop_v_2", [wb], arr)


def loop_w(m: Module) -> None:
    """loop_w_2 .. loop_w_7: ``loop worker private(x)`` (scalar, or the int[2] / struct pt)
    whose value the vector loops inside read."""
    def use(p: str, at: str, tag: str) -> list[str]:
        sub = f"[{at}] : {PT}" if at else f"[] : {I32}"
        return vec(m, [f"{tag}l = memref.load {p}{sub}", *add_xk(m_arr[0], f"{tag}l", tag)])

    def put(p: str, at: str, kind: str, tag: str) -> list[str]:
        sub = f"[{at}] : {PT}" if at else f"[] : {I32}"
        return [*xval(kind, f"{tag}x"), f"memref.store {tag}x, {p}{sub}"]

    m_arr = [""]
    # loop_w_2: one vector loop
    m_arr[0] = _iota(m, 32768)
    x = m.private("i32", name="x")
    nest(m, "loop_w_2", [[*put(x, "", "xor", "%a"), *use(x, "", "%u")]], m_arr[0], both=False,
         worker_private=[x])
    # loop_w_3: back-to-back worker loops
    m_arr[0] = _iota(m, 32768)
    x = m.private("i32", name="x")
    nest(m, "loop_w_3", [[*put(x, "", "xor", "%a"), *use(x, "", "%u")],
                         [*put(x, "", "or", "%a"), *use(x, "", "%u")]], m_arr[0],
         worker_private=[x])
    # loop_w_4 / loop_w_5 (x set again through a pointer: the same memref here)
    m_arr[0] = _iota(m, 32768)
    x = m.private("i32", name="x")
    nest(m, "loop_w_4", [[*put(x, "", "xor", "%a"), *use(x, "", "%u"),
                          *put(x, "", "or", "%b"), *use(x, "", "%v")]], m_arr[0],
         worker_private=[x])
    # loop_w_6: struct pt, both fields set first; loop_w_7: int pt[2], set between
    for name, between in (("loop_w_6", False), ("loop_w_7", True)):
        m_arr[0] = _iota(m, 32768)
        pt = m.private("i32", (2,), name="pt")
        s0, s1 = put(pt, "%c0", "xor", "%a"), put(pt, "%c1", "or", "%b")
        u0, u1 = use(pt, "%c0", "%u"), use(pt, "%c1", "%v")
        body = [*s0, *u0, *s1, *u1] if between else [*s0, *s1, *u0, *u1]
        nest(m, name, [body], m_arr[0], worker_private=[pt])


# ---------------------------------------------------------------------------------------
# subtests with updates in single mode (tests/test_libgomp_modes.py runs them)


def _rows(m: Module, name: str, body_of: Callable[[str], list[str]], want: np.ndarray,
          private: list[str] = (), par_private: list[tuple[str, str]] = (), ng: int = 32) -> None:
    """``parallel num_gangs(32) <sizes> { loop gang i [private] {body} }`` over arr[1024] =
    iota (or arr[32] for want of 32 elements)."""
    n = want.size
    arr = _iota(m, n)
    m.idx(32)
    nw, vl = m.dims()
    m.parallel(loop(m, "gang", 32, "%i", body_of(arr), private=private), ng=ng, nw=nw, vl=vl,
               private=par_private)
    m.result(name, arr, "i32", n, want)


def row_add(arr: str, x: str, tag: str, col: str = "%j") -> list[str]:
    """arr[i * 32 + col] += x."""
    return [f"{tag}_a = arith.muli %i, %c32 : index",
            f"{tag}_e = arith.addi {tag}_a, {col} : index",
            f"{tag}_o = memref.load {arr}[{tag}_e] : {A2}",
            f"{tag}_n = arith.addi {tag}_o, {x} : i32",
            f"memref.store {tag}_n, {arr}[{tag}_e] : {A2}"]


def two_i(out: str) -> list[str]:
    return [f"{out}_i = arith.index_cast %i : index to i32", f"{out}_2 = arith.constant 2 : i32",
            f"{out} = arith.muli {out}_i, {out}_2 : i32"]


def single_mode(m: Module) -> None:
    """loop_g_1 .. loop_g_6, loop_w_1 and parallel_g_2: ``arr[...] += x`` in a gang loop body
    or a worker loop (gang / worker / vector-single code for the levels it does not
    partition): each element must be updated once."""
    idx = np.arange(1024)
    x = m.private("i32", name="x")
    arr32 = _iota(m, 32)
    m.parallel(loop(m, "gang", 32, "%i", [
        *two_i("%x2"), f"memref.store %x2, {x}[] : {I32}", f"%lx = memref.load {x}[] : {I32}",
        f"%o = memref.load {arr32}[%i] : memref<32xi32>", "%n = arith.addi %o, %lx : i32",
        f"memref.store %n, {arr32}[%i] : memref<32xi32>"], private=[x]),
        ng=32, **dict(zip(("nw", "vl"), m.dims(), strict=True)))
    m.result("loop_g_1", arr32, "i32", 32, np.arange(32) * 3)
    for name, level in (("loop_g_2", "worker"), ("loop_g_3", "vector"), ("loop_g_4", "worker")):
        x = m.private("i32", name="x")
        dec = ([f"%d = memref.load {x}[] : {I32}", "%m1 = arith.constant 1 : i32",
                "%dd = arith.subi %d, %m1 : i32", f"memref.store %dd, {x}[] : {I32}"]
               if name == "loop_g_4" else [])
        _rows(m, name, lambda arr, level=level, x=x, dec=dec: [
            *two_i("%x2"), f"memref.store %x2, {x}[] : {I32}",
            *loop(m, level, 32, "%j", [f"%lx = memref.load {x}[] : {I32}",
                                       *row_add(arr, "%lx", "%u")]), *dec],
            idx + (idx // 32) * 2, private=[x])
    xs = m.private("i32", (8,), name="x")
    _rows(m, "loop_g_5", lambda arr: [
        f"scf.for %s = %c0 to {m.idx(8)} step %c1 {{",
        "  %s32 = arith.index_cast %s : index to i32", "  %s2 = arith.addi %s32, %s32 : i32",
        f"  memref.store %s2, {xs}[%s] : memref<8xi32>", "}",
        *loop(m, "worker", 32, "%j", ["%j8 = arith.remui %j, %c8 : index",
                                      f"%lx = memref.load {xs}[%j8] : memref<8xi32>",
                                      *row_add(arr, "%lx", "%u")])],
        idx + (idx % 8) * 2, private=[xs])
    m.idx(0)
    m.idx(1)
    pt = m.private("i32", (16,), name="pt")  # struct {x, y, z, attr[13]}
    st = "memref<16xi32>"
    _rows(m, "loop_g_6", lambda arr: [
        "%iv = arith.index_cast %i : index to i32",
        *(ln for f, c in ((0, 1), (1, 2), (2, 4), (8, 6)) for ln in (
            f"%f{f} = arith.constant {c} : i32", f"%v{f} = arith.muli %iv, %f{f} : i32",
            f"memref.store %v{f}, {pt}[{m.idx(f)}] : {st}")),
        *loop(m, "worker", 32, "%j", [
            *(f"%g{f} = memref.load {pt}[{m.idx(f)}] : {st}" for f in (0, 1, 2, 8)),
            "%e1 = arith.addi %g0, %g1 : i32", "%e2 = arith.addi %e1, %g2 : i32",
            "%e3 = arith.addi %e2, %g8 : i32", *row_add(arr, "%e3", "%u")])],
        idx + (idx // 32) * 13, private=[pt])
    x = m.private("i32", name="x")
    _rows(m, "loop_w_1", lambda arr: loop(m, "worker", 32, "%j", [
        *xval("xor", "%xx"), f"memref.store %xx, {x}[] : {I32}",
        f"%lx = memref.load {x}[] : {I32}", *row_add(arr, "%lx", "%u")], private=[x]),
        idx + ((idx // 32) ^ (idx % 32) * 3))
    m.idx(3)
    xa = m.private("i32", (32,), name="x")
    _rows(m, "parallel_g_2", lambda arr: [
        "scf.for %s = %c0 to %c32 step %c1 {",
        "  %s32 = arith.index_cast %s : index to i32", "  %s2 = arith.addi %s32, %s32 : i32",
        f"  memref.store %s2, {xa}[%s] : memref<32xi32>", "}",
        *loop(m, "worker", 32, "%j", [f"%rj = arith.subi {m.idx(31)}, %j : index",
                                      f"%lx = memref.load {xa}[%rj] : memref<32xi32>",
                                      *row_add(arr, "%lx", "%u")])],
        idx + (31 - idx % 32) * 2, par_private=[(xa, "memref<32xi32>")])


def gang_static(m: Module) -> None:
    """local_g_1 / parallel_g_1: ``x`` (local to the region / private on the parallel) set by
    one ``loop gang(static:1)`` and read by a second one: the same gang runs iteration i of
    both (on the host the second loop recomputes x: acc_on_device)."""
    for name, par in (("local_g_1", False), ("parallel_g_1", True)):
        arr = m.filled(32, "i32", lambda k, out: [f"{out} = arith.constant 3 : i32"])
        m.idx(1)
        static = "gang({static=%c1 : index})"
        pre, pp = [], []
        if par:
            x = m.private("i32", name="x")
            pp = [(x, I32)]
        else:
            x = "%xl"
            pre = [f"%xl = memref.alloca() : {I32}"]
        second = [*two_i("%x3"), f"memref.store %x3, {x}[] : {I32}"] if m.cfg.target == "host" \
            else []
        body = [*pre,
                *loop(m, static, 32, "%i", [*two_i("%x2"), f"memref.store %x2, {x}[] : {I32}"]),
                *loop(m, static, 32, "%i", [
                    *second, f"%lx = memref.load {x}[] : {I32}",
                    f"%o = memref.load {arr}[%i] : memref<32xi32>", "%n = arith.addi %o, %lx : i32",
                    f"memref.store %n, {arr}[%i] : memref<32xi32>"])]
        nw, vl = m.dims()
        m.parallel(body, ng=32, nw=nw, vl=vl, private=pp)
        m.result(name, arr, "i32", 32, 3 + np.arange(32) * 2)


def build(parts: list[Callable[[Module], None]]) -> Callable[[Config], Module]:
    def make(cfg: Config) -> Module:
        m = Module(cfg)
        for part in parts:
            part(m)
        return m
    return make


PORTS: dict[str, Callable[[Config], Module]] = {
    "local_w": build([local_w_1, local_w_2]),
    "loop_v_w": build([loop_v, loop_w]),
}


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
@pytest.mark.parametrize("port", list(PORTS))
def test_libgomp_private_variables(port: str, cfg: Config) -> None:
    check(PORTS[port](cfg))
