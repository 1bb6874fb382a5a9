"""OpenACC execution modes end to end (issue 21): gang-redundant, worker-single and
vector-single code runs once per gang / worker / vector lane group, values it defines reach
the partitioned loops (broadcast), level-less loops count each iteration once, and
``acc.kernels`` regions run.

The mode transitions are those of libgomp's ``mode-transitions.c`` (t1..t28), written as
upstream ``acc`` programs (our own MLIR; the facts — which loops, which modes, which results —
carry over). Every construct is run with ``num_workers`` 1 or 8 and ``vector_length`` 1, 8 or
32 (the C test's fixed values replaced) on the ``cpu`` target, and on the ``host`` target (one
gang of one work-item). Each result is compared with a sequential numpy model of the C test:
partitioned loops run every iteration once, gang-redundant code once per gang that runs (the
C test's num_gangs on cpu, 1 on host).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

INDEP = "attributes {independent = [#acc.device_type<none>]}"
SEQ = "attributes {seq = [#acc.device_type<none>]}"

Expect = Callable[[str], np.ndarray]  # target -> expected array


@dataclass
class Mod:
    """One module: host arrays, many acc.parallel constructs in @main, printed results."""

    nw: int = 8
    vl: int = 32
    globals_: list[str] = field(default_factory=list)
    funcs: list[str] = field(default_factory=list)
    consts: list[str] = field(default_factory=list)
    main: list[str] = field(default_factory=list)
    prints: list[str] = field(default_factory=list)
    checks: list[tuple[str, Expect, str]] = field(default_factory=list)
    n: int = 0

    def fresh(self, base: str = "v") -> str:
        self.n += 1
        return f"%{base}{self.n}"

    def c(self, v: int) -> str:
        name = f"%c{v}".replace("-", "m")
        line = f"  {name} = arith.constant {v} : index"
        if line not in self.consts:
            self.consts.append(line)
        return name

    def i(self, v: int) -> str:
        name = f"%i{v}".replace("-", "m")
        line = f"  {name} = arith.constant {v} : i32"
        if line not in self.consts:
            self.consts.append(line)
        return name

    def arr(self, init: np.ndarray, t: str = "i32") -> str:
        """A host memref holding ``init``: filled by a loop when it is ``a * i + b``
        (parsing big dense constants is slow), else copied from a constant global."""
        n = init.size
        a = int(init[1] - init[0]) if n > 1 and t == "i32" else None
        if a is not None and np.array_equal(init, a * np.arange(n) + init[0]):
            v = self.fresh("a")
            self.main += [
                f"  {v} = memref.alloc() : memref<{n}x{t}>",
                f"  scf.for {v}_i = {self.c(0)} to {self.c(n)} step {self.c(1)} {{",
                f"    {v}_x = arith.index_cast {v}_i : index to i32",
                f"    {v}_y = arith.muli {v}_x, {self.i(a)} : i32",
                f"    {v}_z = arith.addi {v}_y, {self.i(int(init[0]))} : i32",
                f"    memref.store {v}_z, {v}[{v}_i] : memref<{n}x{t}>", "  }"]
            return v
        g = f"g{len(self.globals_)}"
        fmt = (lambda v: repr(float(v))) if t.startswith("f") else (lambda v: str(int(v)))
        self.globals_.append(
            f'"memref.global"() <{{sym_name = "{g}", sym_visibility = "private", '
            f"type = memref<{n}x{t}>, initial_value = dense<[{', '.join(map(fmt, init))}]> : "
            f"tensor<{n}x{t}>, constant}}> : () -> ()")
        v = self.fresh("a")
        self.main += [f"  {v}_g = memref.get_global @{g} : memref<{n}x{t}>",
                      f"  {v} = memref.alloc() : memref<{n}x{t}>",
                      f'  "memref.copy"({v}_g, {v}) : (memref<{n}x{t}>, memref<{n}x{t}>) -> ()']
        return v

    def check(self, name: str, ref: str, n: int, expected: Expect, t: str = "i32") -> None:
        """Print host memref ``ref`` (``n`` elements; 0: a rank-0 memref) at the end."""
        fn = {"i32": "printMemrefI32", "f32": "printMemrefF32"}[t]
        u = self.fresh("u")
        mt = f"memref<{n}x{t}>" if n else f"memref<{t}>"
        self.prints += [f'  {u} = "memref.cast"({ref}) : ({mt}) -> memref<*x{t}>',
                        f"  func.call @{fn}({u}) : (memref<*x{t}>) -> ()"]
        self.checks.append((name, expected, t))

    def parallel(self, body: list[str], ng: int, *, nw: int | None = None,
                 vl: int | None = None, kind: str = "parallel") -> None:
        nw = self.nw if nw is None else nw
        vl = self.vl if vl is None else vl
        self.main += [f"  acc.{kind} num_gangs({{{self.i(ng)} : i32}}) "
                      f"num_workers({self.i(nw)} : i32) vector_length({self.i(vl)} : i32) {{",
                      *("    " + line for line in body), "    acc.yield" if kind == "parallel"
                      else "    acc.terminator", "  }"]

    def text(self) -> str:
        return "\n".join([
            *self.globals_, *self.funcs,
            "func.func private @printMemrefI32(memref<*xi32>)",
            "func.func private @printMemrefF32(memref<*xf32>)",
            "func.func @main() {", *self.consts, *self.main, *self.prints,
            "  func.return", "}"])


# ---------------------------------------------------------------------------------------
# body helpers (MLIR lines)


def loop(m: Mod, levels: str, n: int, iv: str, body: list[str], attrs: str | None = None,
         lb: int = 0) -> list[str]:
    head = "acc.loop" + "".join(f" {lv}" for lv in levels.split())
    if attrs is None:
        attrs = INDEP if levels else SEQ
    return [f"{head} control({iv} : index) = ({m.c(lb)} : index) to ({m.c(n)} : index) "
            f"step ({m.c(1)} : index) {{", *("  " + b for b in body), "  acc.yield",
            f"}} {attrs}"]


def add(m: Mod, arr: str, n: int, idx: str, amount: str) -> list[str]:
    """arr[idx] += amount (i32)."""
    a, b = m.fresh(), m.fresh()
    return [f"{a} = memref.load {arr}[{idx}] : memref<{n}xi32>",
            f"{b} = arith.addi {a}, {amount} : i32",
            f"memref.store {b}, {arr}[{idx}] : memref<{n}xi32>"]


def atomic_add(m: Mod, arr: str, n: int, idx: str, amount: str) -> list[str]:
    """#pragma acc atomic: arr[idx] += amount (memref.atomic_rmw addi)."""
    return [f'{m.fresh()} = "memref.atomic_rmw"({amount}, {arr}, {idx}) <{{kind = 1 : i64}}> '
            f": (i32, memref<{n}xi32>, index) -> i32"]


def lin(m: Mod, out: str, terms: list[tuple[str, int]], const: int = 0) -> list[str]:
    """out = sum(v * k) + const (index)."""
    lines, acc_ = [], None
    for v, k in terms:
        t = v
        if k != 1:
            t = m.fresh()
            lines.append(f"{t} = arith.muli {v}, {m.c(k)} : index")
        if acc_ is None:
            acc_ = t
        else:
            s = m.fresh()
            lines.append(f"{s} = arith.addi {acc_}, {t} : index")
            acc_ = s
    if const:
        s = m.fresh()
        lines.append(f"{s} = arith.addi {acc_}, {m.c(const)} : index")
        acc_ = s
    lines.append(f"{out} = arith.addi {acc_}, {m.c(0)} : index")
    return lines


def rem_is(m: Mod, out: str, v: str, d: int, r: int) -> list[str]:
    """out: i1 = (v % d == r) for an index v."""
    t = m.fresh()
    return [f"{t} = arith.remui {v}, {m.c(d)} : index",
            f"{out} = arith.cmpi eq, {t}, {m.c(r)} : index"]


def if_(cond: str, then: list[str], other: list[str] | None = None) -> list[str]:
    out = [f"scf.if {cond} {{", *("  " + b for b in then)]
    if other is not None:
        out += ["} else {", *("  " + b for b in other)]
    return out + ["}"]


def switch(m: Mod, v: str, cases: dict[int, list[str]], default: list[str] | None = None,
           ) -> list[str]:
    out = [f"scf.index_switch {v}"]
    for k, body in cases.items():
        out += [f"case {k} {{", *("  " + b for b in body), "  scf.yield", "}"]
    out += ["default {", *("  " + b for b in (default or [])), "  scf.yield", "}"]
    return out


def to_i32(m: Mod, out: str, v: str) -> list[str]:
    return [f"{out} = arith.index_cast {v} : index to i32"]


def gangs_run(target: str, ng: int) -> int:
    return 1 if target == "host" else ng


# ---------------------------------------------------------------------------------------
# mode-transitions.c, t1..t28


def t1(m: Mod) -> None:
    """vector-single / vector-partitioned / vector-single in one gang."""
    n, arr = m.arr(np.zeros(1, np.int32)), m.arr(np.zeros(32, np.int32))
    m.parallel([*add(m, n, 1, m.c(0), m.i(1)),
                *loop(m, "vector", 32, "%t1j", add(m, arr, 32, "%t1j", m.i(1))),
                *add(m, n, 1, m.c(0), m.i(1))], 1)
    m.check("t1 n", n, 1, lambda tg: np.array([2]))
    m.check("t1 arr", arr, 32, lambda tg: np.ones(32))


def _n_gang_inc(m: Mod, n: str, iv: str) -> list[str]:
    return loop(m, "gang", 32, iv, add(m, n, 32, iv, m.i(1)))


def t2(m: Mod) -> None:
    n, arr = m.arr(np.zeros(32, np.int32)), m.arr(np.zeros(1024, np.int32))
    k = "%t2i"
    inner = loop(m, "vector", 32, "%t2k", [*lin(m, k, [("%t2j", 32), ("%t2k", 1)]),
                                          *add(m, arr, 1024, k, m.i(1))])
    m.parallel([*_n_gang_inc(m, n, "%t2a"), *loop(m, "gang", 32, "%t2j", inner),
                *_n_gang_inc(m, n, "%t2b")], 32)
    m.check("t2 n", n, 32, lambda tg: np.full(32, 2))
    m.check("t2 arr", arr, 1024, lambda tg: np.ones(1024))


def t3(m: Mod) -> None:
    n, arr = m.arr(np.zeros(32, np.int32)), m.arr(np.zeros(1024, np.int32))

    def vec(tag: str, amount: int) -> list[str]:
        k = f"%t3i{tag}"
        return loop(m, "vector", 32, f"%t3k{tag}", [
            *lin(m, k, [("%t3j", 32), (f"%t3k{tag}", 1)]), *add(m, arr, 1024, k, m.i(amount))])

    body = [*rem_is(m, "%t3c", "%t3j", 2, 0), *if_("%t3c", vec("a", 1), vec("b", -1))]
    m.parallel([*_n_gang_inc(m, n, "%t3x"), *loop(m, "gang", 32, "%t3j", body),
                *_n_gang_inc(m, n, "%t3y")], 32)
    m.check("t3 n", n, 32, lambda tg: np.full(32, 2))
    m.check("t3 arr", arr, 1024, lambda tg: np.where(np.arange(1024) % 64 < 32, 1, -1))


def _double_odd(m: Mod, arr: str, n: int, k: str) -> list[str]:
    """if (arr[k] % 2 != 0) arr[k] *= 2."""
    a, r, c, d = m.fresh(), m.fresh(), m.fresh(), m.fresh()
    return [f"{a} = memref.load {arr}[{k}] : memref<{n}xi32>",
            f"{r} = arith.remsi {a}, {m.i(2)} : i32",
            f"{c} = arith.cmpi ne, {r}, {m.i(0)} : i32",
            *if_(c, [f"{d} = arith.muli {a}, {m.i(2)} : i32",
                     f"memref.store {d}, {arr}[{k}] : memref<{n}xi32>"])]


def t4(m: Mod) -> None:
    n, arr = m.arr(np.zeros(32, np.int32)), m.arr(np.arange(1024, dtype=np.int32))
    inner = loop(m, "vector", 32, "%t4k", [*lin(m, "%t4i", [("%t4j", 32), ("%t4k", 1)]),
                                          *_double_odd(m, arr, 1024, "%t4i")])
    m.parallel([*_n_gang_inc(m, n, "%t4x"), *loop(m, "gang", 32, "%t4j", inner),
                *_n_gang_inc(m, n, "%t4y")], 32)
    i = np.arange(1024)
    m.check("t4 n", n, 32, lambda tg: np.full(32, 2))
    m.check("t4 arr", arr, 1024, lambda tg: np.where(i % 2 == 0, i, 2 * i))


def t5(m: Mod) -> None:
    n, arr = m.arr(np.zeros(32, np.int32)), m.arr(np.arange(1024, dtype=np.int32))
    m.parallel([*_n_gang_inc(m, n, "%t5x"),
                *loop(m, "gang vector", 1024, "%t5j", _double_odd(m, arr, 1024, "%t5j")),
                *_n_gang_inc(m, n, "%t5y")], 32)
    i = np.arange(1024)
    m.check("t5 n", n, 32, lambda tg: np.full(32, 2))
    m.check("t5 arr", arr, 1024, lambda tg: np.where(i % 2 == 0, i, 2 * i))


def t6(m: Mod) -> None:
    n, arr = m.arr(np.arange(32, dtype=np.int32) % 5), m.arr(np.zeros(1024, np.int32))
    cases = {}
    for c in range(1, 6):
        k = f"%t6i{c}"
        cases[c] = loop(m, "vector", 32, f"%t6k{c}", [
            *lin(m, k, [("%t6j", 32), (f"%t6k{c}", 1)]), *add(m, arr, 1024, k, m.i(c))])
    body = ["%t6v = memref.load " + n + "[%t6j] : memref<32xi32>",
            "%t6s = arith.index_cast %t6v : i32 to index", *switch(m, "%t6s", cases)]
    m.parallel([*_n_gang_inc(m, n, "%t6x"), *loop(m, "gang", 32, "%t6j", body),
                *_n_gang_inc(m, n, "%t6y")], 32)
    m.check("t6 n", n, 32, lambda tg: np.arange(32) % 5 + 2)
    m.check("t6 arr", arr, 1024, lambda tg: (np.arange(1024) // 32) % 5 + 1)


def t7(m: Mod) -> None:
    n = m.arr(np.zeros(1, np.int32))
    m.parallel(add(m, n, 1, m.c(0), m.i(1)), 1)
    m.check("t7 n", n, 1, lambda tg: np.array([1]))


def t8_9_10(m: Mod) -> None:
    for gangs in (1, 5, 32):
        a8, a9, a10 = (m.arr(np.zeros(1024, np.int32)) for _ in range(3))
        j = f"%t8j{gangs}"
        body9 = [*rem_is(m, f"{j}c", j, 3, 0),
                 *if_(f"{j}c", add(m, a9, 1024, j, m.i(1)), add(m, a9, 1024, j, m.i(2)))]
        r = f"{j}r"
        body10 = [f"{r} = arith.remui {j}, {m.c(5)} : index",
                  *switch(m, r, {c: add(m, a10, 1024, j, m.i(c + 1)) for c in range(5)},
                          add(m, a10, 1024, j, m.i(99)))]
        m.parallel(loop(m, "gang", 1024, j, add(m, a8, 1024, j, m.i(1)) + body9 + body10),
                   gangs)
        i = np.arange(1024)
        m.check(f"t8 gangs {gangs}", a8, 1024, lambda tg: np.ones(1024))
        m.check(f"t9 gangs {gangs}", a9, 1024, lambda tg, i=i: np.where(i % 3 == 0, 1, 2))
        m.check(f"t10 gangs {gangs}", a10, 1024, lambda tg, i=i: i % 5 + 1)


def t11(m: Mod) -> None:
    arr = m.arr(np.full(1024, 99, np.int32))
    r = "%t11r"
    body = [f"{r} = arith.remui %t11k, {m.c(5)} : index",
            *switch(m, r, {c: add(m, arr, 1024, "%t11k", m.i(c + 1)) for c in range(5)},
                    add(m, arr, 1024, "%t11k", m.i(99)))]
    m.parallel([*loop(m, "gang", 1024, "%t11j",
                      [f"memref.store {m.i(0)}, {arr}[%t11j] : memref<1024xi32>"]),
                *loop(m, "gang", 1024, "%t11k", body)], 64)
    m.check("t11 arr", arr, 1024, lambda tg: np.arange(1024) % 5 + 1)


def t12(m: Mod) -> None:
    n = 300
    fizz, buzz, fb = (m.arr(np.full(n, 7, np.int32)) for _ in range(3))
    z = [f"memref.store {m.i(0)}, {a}[%t12j] : memref<{n}xi32>" for a in (fizz, buzz, fb)]
    one = m.i(1)
    body = [*rem_is(m, "%t12a", "%t12k", 3, 0), *rem_is(m, "%t12b", "%t12k", 5, 0),
            "%t12c = arith.andi %t12a, %t12b : i1",
            *if_("%t12c", [f"memref.store {one}, {fb}[%t12k] : memref<{n}xi32>"],
                 if_("%t12a", [f"memref.store {one}, {fizz}[%t12k] : memref<{n}xi32>"],
                     if_("%t12b", [f"memref.store {one}, {buzz}[%t12k] : memref<{n}xi32>"])))]
    m.parallel([*loop(m, "gang", n, "%t12j", z), *loop(m, "gang", n, "%t12k", body)], n)
    i = np.arange(n)
    m.check("t12 fizzbuzz", fb, n, lambda tg: (i % 15 == 0).astype(int))
    m.check("t12 fizz", fizz, n, lambda tg: ((i % 3 == 0) & (i % 5 != 0)).astype(int))
    m.check("t12 buzz", buzz, n, lambda tg: ((i % 3 != 0) & (i % 5 == 0)).astype(int))


def t13(m: Mod) -> None:
    arr = m.arr(np.zeros(256, np.int32))
    inner = loop(m, "worker", 8, "%t13k", [*lin(m, "%t13i", [("%t13j", 8), ("%t13k", 1)]),
                                          *to_i32(m, "%t13v", "%t13i"),
                                          *add(m, arr, 256, "%t13i", "%t13v")])
    m.parallel(loop(m, "gang", 32, "%t13j", inner), 8)
    m.check("t13 arr", arr, 256, lambda tg: np.arange(256))


def _t14_15(m: Mod, tag: str, ncase: int) -> str:
    arr = m.arr(np.arange(8192, dtype=np.int32))
    j, k = f"%{tag}j", f"%{tag}k"

    def vec(c: int) -> list[str]:
        mm, i = f"%{tag}m{c}", f"%{tag}i{c}"
        return loop(m, "vector", 32, mm, [*lin(m, i, [(j, 256), (k, 32), (mm, 1)]),
                                          *add(m, arr, 8192, i, m.i(c + 1))])

    if ncase == 2:
        body = [*rem_is(m, f"{k}c", k, 2, 0), *if_(f"{k}c", vec(0), vec(1))]
    else:
        body = [*lin(m, f"{k}x", [(j, 32), (k, 1)]), f"{k}r = arith.remui {k}x, {m.c(3)} : index",
                *switch(m, f"{k}r", {c: vec(c) for c in range(3)})]
    m.parallel(loop(m, "gang", 32, j, loop(m, "worker", 8, k, body)), 8)
    return arr


def t14_15(m: Mod) -> None:
    i = np.arange(8192)
    m.check("t14 arr", _t14_15(m, "t14", 2), 8192, lambda tg: i + (i // 32) % 2 + 1)
    m.check("t15 arr", _t14_15(m, "t15", 3), 8192, lambda tg: i + (i // 32) % 3 + 1)


def t16(m: Mod) -> None:
    n, arr = m.arr(np.zeros(32, np.int32)), m.arr(np.zeros(1024, np.int32))
    body = add(m, n, 32, "%t16j", m.i(1))
    for r in range(3):
        k, i = f"%t16k{r}", f"%t16i{r}"
        body += loop(m, "worker", 32, k, [*lin(m, i, [("%t16j", 32), (k, 1)]),
                                          *add(m, arr, 1024, i, m.i(1))])
        body += add(m, n, 32, "%t16j", m.i(1))
    m.parallel(loop(m, "gang", 32, "%t16j", body), 8)
    m.check("t16 n", n, 32, lambda tg: np.full(32, 4))
    m.check("t16 arr", arr, 1024, lambda tg: np.full(1024, 3))


def _mirror(m: Mod, tag: str, levels: str, size: int, src: str, dst: str, total: int,
            ) -> list[str]:
    """for k < size: dst[j*size + (size-1-k)] = src[j*size + k] * 2."""
    k, j = f"%{tag}k", "%" + tag.split("_")[0] + "j"
    return loop(m, levels, size, k, [
        *lin(m, f"{k}s", [(j, size), (k, 1)]), *lin(m, f"{k}t", [(j, size), (k, -1)], size - 1),
        f"{k}v = memref.load {src}[{k}s] : memref<{total}xi32>",
        f"{k}w = arith.muli {k}v, {m.i(2)} : i32",
        f"memref.store {k}w, {dst}[{k}t] : memref<{total}xi32>"])


def t17_18(m: Mod) -> None:
    for tag, levels, size in (("t17", "worker", 32), ("t18", "worker vector", 1024)):
        total = 32 * size
        for gangs in (1, 8):
            t = f"{tag}g{gangs}"
            a, b = m.arr(np.arange(total, dtype=np.int32)), m.arr(np.zeros(total, np.int32))
            body = (_mirror(m, f"{t}_0", levels, size, a, b, total)
                    + _mirror(m, f"{t}_1", levels, size, b, a, total)
                    + _mirror(m, f"{t}_2", levels, size, a, b, total))
            m.parallel(loop(m, "gang", 32, f"%{t}j", body), gangs)
            i = np.arange(total)
            m.check(f"{tag} gangs {gangs}", b, total,
                    lambda tg, i=i, s=size: (i ^ (s - 1)) * 8)


def t19(m: Mod) -> None:
    total = 32768
    n = m.arr(np.zeros(1024, np.int32))
    a, b = m.arr(np.arange(total, dtype=np.int32)), m.arr(np.zeros(total, np.int32))
    j, k = "%t19j", "%t19k"

    def vec(tag: str, src: str, dst: str, d: int, f_if: int, f_else: int) -> list[str]:
        mm = f"%t19m{tag}"
        s, t, idx = f"{mm}s", f"{mm}t", f"{mm}x"
        return loop(m, "vector", 32, mm, [
            *lin(m, s, [(j, 1024), (k, 32), (mm, 1)]),
            *lin(m, t, [(j, 1024), (k, 32), (mm, -1)], 31),
            f"{idx} = arith.remui {s}, {m.c(d)} : index",
            f"{idx}c = arith.cmpi eq, {idx}, {m.c(0)} : index",
            f"{mm}v = memref.load {src}[{s}] : memref<{total}xi32>",
            f"{mm}f = arith.select {idx}c, {m.i(f_if)}, {m.i(f_else)} : i32",
            f"{mm}w = arith.muli {mm}v, {mm}f : i32",
            f"memref.store {mm}w, {dst}[{t}] : memref<{total}xi32>"])

    body = [*lin(m, f"{k}n", [(j, 32), (k, 1)]), *add(m, n, 1024, f"{k}n", m.i(1)),
            *vec("a", a, b, 2, 2, 3), *add(m, n, 1024, f"{k}n", m.i(1)),
            *vec("b", b, a, 3, 5, 7), *vec("c", a, b, 2, 3, 2)]
    m.parallel(loop(m, "gang", 32, j, loop(m, "worker", 32, k, body)), 8)
    i = np.arange(total)
    m.check("t19 n", n, 1024, lambda tg: np.full(1024, 2))
    m.check("t19 arr_b", b, total, lambda tg: (i ^ 31) * 6 * np.where(i % 3 == 0, 5, 7))


def t20(m: Mod) -> None:
    """Worker state propagation of a variable of the region (a private alloca)."""
    w = [m.arr(np.zeros(1, np.int32)) for _ in range(8)]
    body = ["%t20int = memref.alloca() : memref<i32>",
            f"memref.store {m.i(100)}, %t20int[] : memref<i32>",
            *loop(m, "worker", 8, "%t20i", switch(m, "%t20i", {
                c: [f"%t20v{c} = memref.load %t20int[] : memref<i32>",
                    f"memref.store %t20v{c}, {w[c]}[{m.c(0)}] : memref<1xi32>"]
                for c in range(8)}))]
    m.parallel(body, 1)
    for c in range(8):
        m.check(f"t20 w{c}", w[c], 1, lambda tg: np.array([100]))


def t21_22_23_24(m: Mod) -> None:
    a21, a22 = m.arr(np.zeros(32, np.int32)), m.arr(np.zeros(32, np.int32))
    a23, a24 = m.arr(np.arange(32, dtype=np.int32)), m.arr(np.arange(32, dtype=np.int32))
    j = "%t21j"
    b23 = ["%t23v = memref.load " + a23 + f"[{j}] : memref<32xi32>",
           f"%t23r = arith.remsi %t23v, {m.i(2)} : i32",
           f"%t23c = arith.cmpi ne, %t23r, {m.i(0)} : i32",
           *if_("%t23c", add(m, a23, 32, j, m.i(1)), add(m, a23, 32, j, m.i(2)))]
    b24 = ["%t24v = memref.load " + a24 + f"[{j}] : memref<32xi32>",
           f"%t24r = arith.remsi %t24v, {m.i(5)} : i32",
           "%t24s = arith.index_cast %t24r : i32 to index",
           *switch(m, "%t24s", {c: add(m, a24, 32, j, m.i(c + 1)) for c in range(5)},
                   add(m, a24, 32, j, m.i(99)))]
    m.parallel(loop(m, "gang", 32, j, [*add(m, a21, 32, j, m.i(1)),
                                       *atomic_add(m, a22, 32, j, m.i(1)), *b23, *b24]), 8)
    i = np.arange(32)
    m.check("t21 arr", a21, 32, lambda tg: np.ones(32))
    m.check("t22 arr (atomic)", a22, 32, lambda tg: np.ones(32))
    m.check("t23 arr", a23, 32, lambda tg: np.where(i % 2 != 0, i + 1, i + 2))
    m.check("t24 arr", a24, 32, lambda tg: i + i % 5 + 1)


def t25_26(m: Mod) -> None:
    a25, a26 = m.arr(np.arange(1024, dtype=np.int32)), m.arr(np.arange(1024, dtype=np.int32))
    j = "%t25j"
    v25 = loop(m, "vector", 32, "%t25k", [*lin(m, "%t25i", [(j, 32), ("%t25k", 1)]),
                                         *atomic_add(m, a25, 1024, "%t25i", m.i(1))])

    def vec(tag: str, amount: int) -> list[str]:
        return loop(m, "vector", 32, f"%t26k{tag}", [
            *lin(m, f"%t26i{tag}", [(j, 32), (f"%t26k{tag}", 1)]),
            *atomic_add(m, a26, 1024, f"%t26i{tag}", m.i(amount))])

    b26 = [*rem_is(m, "%t26a", j, 3, 0), *rem_is(m, "%t26b", j, 3, 1),
           *if_("%t26a", vec("a", 3), if_("%t26b", vec("b", 7)))]
    m.parallel(loop(m, "gang", 32, j, [*v25, *b26]), 8)
    i = np.arange(1024)
    m.check("t25 arr", a25, 1024, lambda tg: i + 1)
    r = (i // 32) % 3
    m.check("t26 arr", a26, 1024, lambda tg: i + np.where(r == 0, 3, np.where(r == 1, 7, 0)))


def t27(m: Mod) -> None:
    n, arr = m.arr(np.zeros(1, np.int32)), m.arr(np.zeros(32, np.int32))
    m.parallel([*atomic_add(m, n, 1, m.c(0), m.i(1)),
                *loop(m, "vector", 32, "%t27j", atomic_add(m, arr, 32, "%t27j", m.i(1))),
                *atomic_add(m, n, 1, m.c(0), m.i(1))], 8)
    m.check("t27 n", n, 1, lambda tg: np.array([2 * gangs_run(tg, 8)]))
    m.check("t27 arr", arr, 32, lambda tg: np.full(32, gangs_run(tg, 8)))


def t28(m: Mod) -> None:
    """A call's result in gang-redundant, worker-/vector-single code reaches the lanes."""
    m.funcs.append("func.func @t28_routine() -> f32 {\n"
                   "  %r = arith.constant 2.710000e+00 : f32\n  func.return %r : f32\n}")
    threads = m.arr(np.full(32, -1.0, np.float32), "f32")
    v1 = m.arr(np.array([3.14], np.float32), "f32")
    body = ["%t28val = func.call @t28_routine() : () -> f32",
            f"%t28v1 = memref.load {v1}[{m.c(0)}] : memref<1xf32>",
            *loop(m, "vector", 32, "%t28i", [
                "%t28ii = arith.index_cast %t28i : index to i32",
                "%t28f = arith.sitofp %t28ii : i32 to f32",
                "%t28m = arith.mulf %t28v1, %t28f : f32",
                "%t28s = arith.addf %t28val, %t28m : f32",
                f"memref.store %t28s, {threads}[%t28i] : memref<32xf32>"])]
    m.parallel(body, 1)
    m.check("t28 threads", threads, 32,
            lambda tg: np.float32(2.71) + np.float32(3.14) * np.arange(32, dtype=np.float32),
            "f32")


MODE_TRANSITIONS = (t1, t2, t3, t4, t5, t6, t7, t8_9_10, t11, t12, t13, t14_15, t16, t17_18,
                    t19, t20, t21_22_23_24, t25_26, t27, t28)


# ---------------------------------------------------------------------------------------
# running


def run(m: Mod, target: str, capfd) -> list[tuple[str, np.ndarray, np.ndarray]]:
    from xmux.runner import HostProgram

    HostProgram(m.text(), oacc_target=target).run_main()
    out = capfd.readouterr().out
    blocks = re.findall(r"data =\s*\[(.*?)\]\s*$", out, re.S | re.M)
    assert len(blocks) == len(m.checks), out[-2000:]
    got = []
    for (name, expected, _t), text in zip(m.checks, blocks, strict=True):
        vals = np.array([float(v) for v in text.replace("\n", " ").split(",")])
        got.append((name, vals, np.asarray(expected(target), dtype=np.float64)))
    return got


def assert_all(results: list[tuple[str, np.ndarray, np.ndarray]], target: str) -> None:
    bad = [f"{name}: got {got[:40]}..., want {want[:40]}..."
           for name, got, want in results
           if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-4)]
    assert not bad, f"{len(bad)} wrong on {target}:\n" + "\n".join(bad)


#: every worker count (1, 8) and vector length (1, 8, 32) of the cpu target, each module
#: compiled once per configuration (the suite's time), and the host target
CONFIGS = [("cpu", 1, 1), ("cpu", 8, 8), ("cpu", 1, 32), ("cpu", 8, 32), ("host", 8, 32)]


@pytest.mark.parametrize("target,nw,vl", CONFIGS)
def test_mode_transitions(target: str, nw: int, vl: int, capfd) -> None:
    m = Mod(nw=nw, vl=vl)
    for case in MODE_TRANSITIONS:
        case(m)
    assert_all(run(m, target, capfd), target)


# ---------------------------------------------------------------------------------------
# the issue's wrong answers, level-less loops, acc.kernels, seq loops in masked rounds

ADD_I32 = """acc.reduction.recipe @add_i32 : memref<i32> reduction_operator <add> init {
^bb0(%arg0: memref<i32>):
  %z = arith.constant 0 : i32
  %p = memref.alloca() : memref<i32>
  memref.store %z, %p[] : memref<i32>
  acc.yield %p : memref<i32>
} combiner {
^bb0(%x: memref<i32>, %y: memref<i32>):
  %a = memref.load %x[] : memref<i32>
  %b = memref.load %y[] : memref<i32>
  %c = arith.addi %a, %b : i32
  memref.store %c, %x[] : memref<i32>
  acc.yield %x : memref<i32>
}"""


def wrong_answers(m: Mod) -> None:
    """Issue 21, wrong answer 1: arr[j] += 1 in the body of a worker loop, of a gang loop,
    of a vector loop outside worker loops, and before / after them, once per iteration."""
    aw, ag, av = (m.arr(np.zeros(16, np.int32)) for _ in range(3))
    red = m.arr(np.zeros(1, np.int32))
    body = [*loop(m, "worker", 16, "%wa_j", add(m, aw, 16, "%wa_j", m.i(1))),
            *loop(m, "gang", 16, "%wa_g", add(m, ag, 16, "%wa_g", m.i(1))),
            *loop(m, "vector", 16, "%wa_v", add(m, av, 16, "%wa_v", m.i(1))),
            *add(m, red, 1, m.c(0), m.i(1))]
    m.parallel(body, 3)
    m.check("worker loop body", aw, 16, lambda tg: np.full(16, gangs_run(tg, 3)))
    m.check("gang loop body", ag, 16, lambda tg: np.ones(16))
    m.check("vector loop body", av, 16, lambda tg: np.full(16, gangs_run(tg, 3)))
    m.check("gang-redundant", red, 1, lambda tg: np.array([gangs_run(tg, 3)]))


def _red_loop(m: Mod, red: str, attrs: str, n: int, iv: str, amount: str) -> list[str]:
    a, b = m.fresh(), m.fresh()
    return [f"acc.loop reduction({red} : memref<i32>) control({iv} : index) = "
            f"({m.c(0)} : index) to ({m.c(n)} : index) step ({m.c(1)} : index) {{",
            f"  {a} = memref.load {red}[] : memref<i32>",
            f"  {b} = arith.addi {a}, {amount} : i32",
            f"  memref.store {b}, {red}[] : memref<i32>",
            "  acc.yield", f"}} {attrs}"]


def levelless(m: Mod) -> None:
    """Wrong answer 2 (reduction-initial-1): ``loop reduction(+:s)`` with no level, or
    ``seq``, adds 8 per iteration once: 5 + 32 * 8 on one gang; seq in gang-redundant mode
    once per gang."""
    for attrs, name, ng in ((INDEP, "no level", 1), (SEQ, "seq", 1), (SEQ, "seq, 3 gangs", 3),
                            ("attributes {auto_ = [#acc.device_type<none>]}", "auto", 3)):
        s = m.fresh("s")
        red = f"{s}r"
        m.main += [f"  {s} = memref.alloc() : memref<i32>",
                   f"  memref.store {m.i(5)}, {s}[] : memref<i32>",
                   f"  {s}c = acc.copyin varPtr({s} : memref<i32>) -> memref<i32> "
                   '{dataClause = #acc<data_clause acc_copy>, name = "s"}',
                   f"  {red} = acc.reduction varPtr({s}c : memref<i32>) recipe(@add_i32) "
                   '-> memref<i32> {name = "s"}']
        if ADD_I32 not in m.funcs:
            m.funcs.append(ADD_I32)
        m.parallel(_red_loop(m, red, attrs, 32, f"{s}i", m.i(8)), ng)
        seq_gangs = ng if attrs == SEQ else 1
        m.check(f"reduction-initial-1, {name}", s, 0,
                lambda tg, g=seq_gangs: np.array([5 + 32 * 8 * gangs_run(tg, g)]))


def kernels(m: Mod) -> None:
    """acc.kernels: gang-single code once, a loop with no clause sequential (auto, not
    independent), an independent loop and an explicit worker vector loop partitioned."""
    n, a, b = m.arr(np.zeros(1, np.int32)), m.arr(np.zeros(64, np.int32)), m.arr(
        np.arange(64, dtype=np.int32))
    c = m.arr(np.zeros(64, np.int32))
    prefix = [f"%kr_p{k} = memref.load {b}[{m.c(k)}] : memref<64xi32>" for k in (0,)]
    body = [*add(m, n, 1, m.c(0), m.i(1)),
            # sequential: a[i] = a[i-1] + b[i] needs the iterations in order
            *loop(m, "", 64, "%kr_i", [
                f"%kr_q = arith.subi %kr_i, {m.c(1)} : index",
                f"%kr_q2 = arith.maxsi %kr_q, {m.c(0)} : index",
                f"%kr_x = memref.load {a}[%kr_q2] : memref<64xi32>",
                f"%kr_y = memref.load {b}[%kr_i] : memref<64xi32>",
                "%kr_z = arith.addi %kr_x, %kr_y : i32",
                f"memref.store %kr_z, {a}[%kr_i] : memref<64xi32>"], lb=1,
                attrs="attributes {auto_ = [#acc.device_type<none>]}"),
            *prefix,
            *loop(m, "", 64, "%kr_j", add(m, c, 64, "%kr_j", "%kr_p0"), attrs=INDEP),
            *loop(m, "worker vector", 64, "%kr_k", add(m, c, 64, "%kr_k", m.i(1))),
            *add(m, n, 1, m.c(0), m.i(1))]
    m.parallel(body, 4, kind="kernels")
    m.check("kernels n", n, 1, lambda tg: np.array([2]))
    m.check("kernels sequential loop", a, 64,
            lambda tg: np.concatenate([[0], np.cumsum(np.arange(64))[1:]]))
    m.check("kernels partitioned loops", c, 64, lambda tg: np.ones(64))


def seq_in_masked_round(m: Mod) -> None:
    """A seq loop inside ``loop gang worker`` around a vector reduction, trip count 13 (not
    a multiple of gangs x workers): out[i] = sum over r < 3, k < 20 of (i + r + k)."""
    out = m.arr(np.zeros(13, np.int32))
    if ADD_I32 not in m.funcs:
        m.funcs.append(ADD_I32)
    inner = [
        "%sq_p = memref.alloca() : memref<i32>",
        f"memref.store {m.i(0)}, %sq_p[] : memref<i32>",
        "%sq_red = acc.reduction varPtr(%sq_p : memref<i32>) recipe(@add_i32) -> memref<i32>",
        *loop(m, "", 3, "%sq_r", [
            "acc.loop vector reduction(%sq_red : memref<i32>) control(%sq_k : index) = "
            f"({m.c(0)} : index) to ({m.c(20)} : index) step ({m.c(1)} : index) {{",
            "  %sq_a = arith.addi %sq_i, %sq_r : index",
            "  %sq_b = arith.addi %sq_a, %sq_k : index",
            "  %sq_v = arith.index_cast %sq_b : index to i32",
            "  %sq_o = memref.load %sq_red[] : memref<i32>",
            "  %sq_n = arith.addi %sq_o, %sq_v : i32",
            "  memref.store %sq_n, %sq_red[] : memref<i32>",
            "  acc.yield", f"}} {INDEP}"]),
        "%sq_t = memref.load %sq_p[] : memref<i32>",
        f"memref.store %sq_t, {out}[%sq_i] : memref<13xi32>"]
    m.parallel(loop(m, "gang worker", 13, "%sq_i", inner), 2)
    i = np.arange(13)
    m.check("seq loop in a masked round", out, 13,
            lambda tg: np.array([sum(j + r + k for r in range(3) for k in range(20))
                                 for j in i]))


def broadcasts(m: Mod) -> None:
    """Values only position 0 computes (a call's result) reach every work-item: as a vector
    loop's operand, through a private variable, and as the condition of an ``scf.if`` around
    a vector loop (its forks need every lane to take the same branch)."""
    m.funcs.append("func.func @bc_seven() -> i32 {\n"
                   "  %r = arith.constant 7 : i32\n  func.return %r : i32\n}")
    a, b = m.arr(np.zeros(24, np.int32)), m.arr(np.zeros(24, np.int32))
    body = ["%bc_v = func.call @bc_seven() : () -> i32",
            "%bc_p = memref.alloca() : memref<i32>",
            "memref.store %bc_v, %bc_p[] : memref<i32>",
            f"%bc_c = arith.cmpi eq, %bc_v, {m.i(7)} : i32",
            *loop(m, "vector", 24, "%bc_i", [
                "%bc_x = memref.load %bc_p[] : memref<i32>",
                f"memref.store %bc_x, {a}[%bc_i] : memref<24xi32>"]),
            *if_("%bc_c", loop(m, "vector", 24, "%bc_j", add(m, b, 24, "%bc_j", "%bc_v"))),
            # a division by the call's result: the positions that do not call must not
            # divide by their zero
            f"%bc_q = arith.divsi {m.i(70)}, %bc_v : i32",
            *loop(m, "vector", 24, "%bc_k", add(m, b, 24, "%bc_k", "%bc_q"))]
    m.parallel(loop(m, "gang", 2, "%bc_g", body), 2)
    m.check("broadcast through a private variable", a, 24, lambda tg: np.full(24, 7))
    m.check("broadcast of a condition, a quotient", b, 24, lambda tg: np.full(24, 34))


ISSUE_CASES = (wrong_answers, levelless, kernels, seq_in_masked_round, broadcasts)


@pytest.mark.parametrize("target,nw,vl", CONFIGS)
def test_issue_cases(target: str, nw: int, vl: int, capfd) -> None:
    m = Mod(nw=nw, vl=vl)
    for case in ISSUE_CASES:
        case(m)
    assert_all(run(m, target, capfd), target)
