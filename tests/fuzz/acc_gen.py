"""Random OpenACC programs for differential fuzzing (issue 21): upstream ``acc`` constructs
in a host ``@main``, with a sequential Python model of what they compute.

A program is a list of *constructs* (``acc.parallel`` with random num_gangs / num_workers /
vector_length, or ``acc.serial``), each one of the shapes below, over exact data (integers, or
floats that are small multiples of 1/4, and products of a few powers of two), so every
reduction result is independent of the combination order and compares bit for bit:

- ``flat``: one loop at a random subset of gang / worker / vector reducing 1-3 copy variables
  (random operator and type each);
- ``rows``: ``loop gang private(p...)`` over rows; per row ``p = start``, an inner worker /
  vector / worker vector loop reducing the private p into ``out[row]``, and optionally a copy
  variable reduced by both loops (or only by the inner one: the dummy gang reduction);
- ``nest3``: gang > worker > vector loops reducing one copy variable at every level;
- ``par``: ``acc.parallel reduction(v)`` with ``v = v OP c`` in gang-redundant code (once per
  gang) and an inner gang loop reducing v;
- ``elem``: an element-wise loop ``out[i] = x[i] OP c`` through a loop-private scratch;
- with ``modes=True`` (single-mode side effects, issue 21's execution modes): ``single``, a
  gang loop whose body does ``out[row] += x[row]`` and, in a worker loop, ``out2[...] += 1``
  (each must happen once: GCC neuters the inner levels);
- with ``levelless=True``: ``flat`` loops with no level clause (GCC's automatic levels make
  a lone loop ``gang vector``: each iteration counts once) or ``seq`` (sequential in
  gang-redundant mode: once per gang).
- with ``privates=True`` (issue 36, item 12): ``priv``, private / first-private arrays and
  scalars of the construct and of gang / worker / vector loops, written at one level and read
  at another where OpenACC 3.3 defines the result (``acc_privates.py``; the same on every
  target).

Loops that are not gang-partitioned run in every gang (gang-redundant mode), so their
reductions of copy variables contribute once per gang, as the cpu target runs them; the host
target runs one gang. ``expected(program, target)`` gives every printed result.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from tests.fuzz import acc_privates
from tests.libgomp_ports import TYPES as DTYPES
from tests.libgomp_ports import Config, Module, const, fold, loop, mlir_type, update

INT_OPS = ["add", "mul", "max", "min", "iand", "ior", "xor", "land", "lor"]
FLOAT_OPS = ["add", "mul", "max", "min"]
TYPES = ["i32", "i64", "f32", "f64"]
SIZES = [(1, 1), (1, 4), (2, 8), (4, 32), (8, 32), (1, 128), (3, 8), (2, 1), (8, 1), (4, 16),
         (2, 64), (1, 32), (5, 3), (8, 128)]
GANGS = [1, 2, 3, 5, 8]
LEVEL_SETS = ["gang", "worker", "vector", "gang worker", "gang vector", "worker vector",
              "gang worker vector"]


def values(rng: np.random.Generator, op: str, t: str, n: int) -> np.ndarray:
    """Data for ``op`` whose fold is exact in any order."""
    dt = np.dtype(DTYPES[t][1])
    flt = t.startswith("f")
    if op == "add":
        v = rng.integers(-64, 65, n) * (0.5 if flt else 1)
    elif op == "mul":
        v = np.ones(n)
        for k in rng.choice(n, size=min(n, 6), replace=False):
            v[k] = rng.choice([2, -1, 0.5] if flt else [3, -1, 5, -7])
    elif op in ("max", "min"):
        v = rng.integers(-4000, 4001, n) * (0.25 if flt else 1)
    elif op == "iand":
        v = np.where(rng.random(n) < 0.05, ~(1 << rng.integers(0, 30, n)), -1)
    elif op == "ior":
        v = np.where(rng.random(n) < 0.05, 1 << rng.integers(0, 30, n), 0)
    elif op == "xor":
        v = rng.integers(0, 1 << 20, n)
    elif op == "land":
        v = np.where(rng.random(n) < 1.5 / max(n, 1), 0, rng.integers(1, 9, n))
    else:  # lor
        v = np.where(rng.random(n) < 1.5 / max(n, 1), rng.integers(1, 9, n), 0)
    return np.asarray(v).astype(dt)


@dataclass
class Red:
    """One reduction: operator, type, initial value and the data its loop folds."""

    op: str
    t: str
    init: object
    data: np.ndarray


@dataclass
class Construct:
    shape: str  # flat | rows | nest3 | par | elem | single
    serial: bool = False
    ng: int = 1
    nw: int = 1
    vl: int = 1
    levels: str = ""  # flat / elem: the loop's levels ("" no level, "seq")
    n: int = 1  # flat / elem / par: iterations; rows / single: rows
    m: int = 1  # rows / single: columns; nest3: (n, m, k) sizes
    k: int = 1
    reds: list[Red] = field(default_factory=list)
    copy: Red | None = None  # rows: a copy variable reduced in the nest
    gang_red: bool = True  # rows: the gang loop reduces the copy variable too
    c: object = 0  # par / elem: the constant
    priv: acc_privates.Priv | None = None  # priv: the private variables (acc_privates.py)

    def gangs(self, target: str) -> int:
        return 1 if self.serial or target == "host" else self.ng


@dataclass
class Program:
    seed: int
    constructs: list[Construct]


def _red(rng: np.random.Generator, n: int, t: str | None = None, op: str | None = None) -> Red:
    t = t or str(rng.choice(TYPES))
    op = op or str(rng.choice(FLOAT_OPS if t.startswith("f") else INT_OPS))
    init = {"add": 3, "mul": 2, "max": -5000, "min": 5000, "iand": -1, "ior": 4, "xor": 5,
            "land": 1, "lor": 0}[op]
    if rng.random() < 0.3:
        init = int(rng.integers(-9, 10)) if op not in ("land", "lor") else int(rng.integers(0, 2))
    return Red(op, t, init, values(rng, op, t, n))


def generate(seed: int, modes: bool = False, levelless: bool = False,
             privates: bool = False) -> Program:
    rng = np.random.default_rng(seed)
    shapes = ["flat", "flat", "rows", "nest3", "par", "elem"]
    if modes:
        shapes += ["single", "single"]
    if privates:
        shapes += ["priv"] * 6
    out = []
    for _ in range(int(rng.integers(1, 4))):
        shape = str(rng.choice(shapes))
        nw, vl = SIZES[int(rng.integers(len(SIZES)))]
        c = Construct(shape, ng=int(rng.choice(GANGS)), nw=nw, vl=vl)
        if shape == "flat":
            c.serial = rng.random() < 0.15
            c.levels = str(rng.choice(LEVEL_SETS))
            if levelless and rng.random() < 0.5:
                c.levels = str(rng.choice(["", "seq"]))
            c.n = int(rng.integers(1, 300))
            c.reds = [_red(rng, c.n) for _ in range(int(rng.integers(1, 4)))]
        elif shape == "rows":
            c.levels = str(rng.choice(["worker", "vector", "worker vector"]))
            c.n, c.m = int(rng.integers(1, 12)), int(rng.integers(1, 70))
            c.reds = [_red(rng, c.n * c.m) for _ in range(int(rng.integers(1, 3)))]
            if rng.random() < 0.5:
                c.copy = _red(rng, c.n * c.m)
                c.gang_red = rng.random() < 0.6
        elif shape == "nest3":
            c.n, c.m, c.k = (int(rng.integers(1, 9)) for _ in range(3))
            c.reds = [_red(rng, c.n * c.m * c.k)]
        elif shape == "par":
            c.n = int(rng.integers(1, 200))
            c.reds = [_red(rng, c.n)]
            c.c = values(rng, c.reds[0].op, c.reds[0].t, 1)[0]
        elif shape == "priv":
            acc_privates.generate(rng, c)
        elif shape == "elem":
            c.levels = str(rng.choice(LEVEL_SETS))
            c.n = int(rng.integers(1, 300))
            t = str(rng.choice(TYPES))
            op = str(rng.choice(["add", "mul"] if t.startswith("f") else ["add", "mul", "xor"]))
            c.reds = [Red(op, t, 0, values(rng, "add", t, c.n))]
            c.c = values(rng, "add", t, 1)[0]
        else:  # single
            c.n, c.m = int(rng.integers(1, 12)), int(rng.integers(0, 40))
            c.reds = [Red("add", "i32", 0, values(rng, "add", "i32", c.n))]
        out.append(c)
    return Program(seed, out)


# ---------------------------------------------------------------------------------------
# the sequential model


def _repeat(r: Red, data: np.ndarray, times: int):
    """init OP (data folded ``times`` times): the contributions of ``times`` gangs."""
    return fold(r.op, r.t, r.init, np.tile(data, times))


def expected(p: Program, target: str) -> list[np.ndarray]:
    """Every printed result of ``p`` on ``target``, in print order."""
    out: list[np.ndarray] = []
    for c in p.constructs:
        g = c.gangs(target)
        if c.shape == "flat":
            # a lone loop with no level clause gets GCC's automatic levels, gang vector
            # (transforms/openacc/auto_levels.py); seq and worker / vector loops run in
            # every gang
            reps = 1 if "gang" in c.levels.split() or not c.levels else g
            out += [np.asarray(_repeat(r, r.data, reps)) for r in c.reds]
        elif c.shape == "rows":
            for r in c.reds:
                rows = r.data.reshape(c.n, c.m)
                out.append(np.array([fold(r.op, r.t, r.init, rows[i]) for i in range(c.n)]))
            if c.copy is not None:
                out.append(np.asarray(_repeat(c.copy, c.copy.data, 1)))
        elif c.shape == "nest3":
            out.append(np.asarray(_repeat(c.reds[0], c.reds[0].data, 1)))
        elif c.shape == "par":
            r = c.reds[0]
            out.append(np.asarray(fold(r.op, r.t, r.init,
                                       np.concatenate([np.full(g, c.c), r.data]))))
        elif c.shape == "priv":
            out += acc_privates.expected(c)
        elif c.shape == "elem":
            r = c.reds[0]
            cc = r.data.dtype.type(c.c)
            with np.errstate(over="ignore"):
                if r.op == "add":
                    v = r.data + cc
                elif r.op == "mul":
                    v = r.data * cc
                else:
                    v = r.data ^ cc
            out.append(v.astype(r.data.dtype))
        else:  # single
            x = c.reds[0].data
            out.append(x.astype(np.int32))  # out[row] = 0 + x[row], once
            if c.m:
                out.append(np.ones(c.n * c.m, dtype=np.int32))
    return out


# ---------------------------------------------------------------------------------------
# MLIR


def _clauses(c: Construct) -> dict:
    return dict(ng=c.ng, nw=c.nw, vl=c.vl, serial=c.serial)


def _loop(m: Module, levels: str, n: int, iv: str, body: list[str], **kw) -> list[str]:
    if levels == "seq":
        return loop(m, "", n, iv, body, seq=True, **kw)
    return loop(m, levels, n, iv, body, **kw)


def emit(p: Program) -> Module:
    """The program as a module (``Module.text()``); results in ``expected``'s order."""
    m = Module(Config("cpu"))
    for ci, c in enumerate(p.constructs):
        tag = f"c{ci}"
        if c.shape == "flat":
            xs = [m.array(r.data, r.t) for r in c.reds]
            vars_ = [m.scalar(r.t, r.init) for r in c.reds]
            reds = [m.reduction(m.copy(v, r.t, f"{tag}r{k}"), r.op, r.t, f"{tag}r{k}")
                    for k, (v, r) in enumerate(zip(vars_, c.reds, strict=True))]
            body = []
            for k, (x, red, r) in enumerate(zip(xs, reds, c.reds, strict=True)):
                body += [f"%x{k} = memref.load {x}[%i] : memref<{c.n}x{mlir_type(r.t)}>",
                         *update(red, r.t, r.op, f"%x{k}", f"{k}")]
            m.parallel(_loop(m, c.levels, c.n, "%i", body, reds=reds), **_clauses(c))
            for k, (v, r) in enumerate(zip(vars_, c.reds, strict=True)):
                m.result(f"{tag} flat {c.levels or 'auto'} {r.op} {r.t} #{k}", v, r.t, None, 0)
        elif c.shape == "rows":
            _emit_rows(m, c, tag)
        elif c.shape == "nest3":
            r = c.reds[0]
            x = m.array(r.data, r.t)
            v = m.scalar(r.t, r.init)
            red = m.reduction(m.copy(v, r.t, tag), r.op, r.t, tag)
            mt = mlir_type(r.t)
            idx = [f"%ga = arith.muli %g, {m.idx(c.m * c.k)} : index",
                   f"%wa = arith.muli %w, {m.idx(c.k)} : index",
                   "%gw = arith.addi %ga, %wa : index",
                   "%ix = arith.addi %gw, %v : index",
                   f"%xv = memref.load {x}[%ix] : memref<{c.n * c.m * c.k}x{mt}>"]
            inner = loop(m, "vector", c.k, "%v", [*idx, *update(red, r.t, r.op, "%xv", "0")],
                         reds=[red])
            mid = loop(m, "worker", c.m, "%w", inner, reds=[red])
            m.parallel(loop(m, "gang", c.n, "%g", mid, reds=[red]), **_clauses(c))
            m.result(f"{tag} nest3 {r.op} {r.t}", v, r.t, None, 0)
        elif c.shape == "par":
            r = c.reds[0]
            mt = mlir_type(r.t)
            x = m.array(r.data, r.t)
            v = m.scalar(r.t, r.init)
            red = m.reduction(m.copy(v, r.t, tag), r.op, r.t, tag)
            body = [f"%cc = {const(r.t, c.c)}", *update(red, r.t, r.op, "%cc", "p"),
                    *loop(m, "gang", c.n, "%i", [
                        f"%xv = memref.load {x}[%i] : memref<{c.n}x{mt}>",
                        *update(red, r.t, r.op, "%xv", "0")], reds=[red])]
            m.parallel(body, **_clauses(c), reduction=[(red, f"memref<{mt}>")])
            m.result(f"{tag} par {r.op} {r.t}", v, r.t, None, 0)
        elif c.shape == "elem":
            _emit_elem(m, c, tag)
        elif c.shape == "priv":
            acc_privates.emit(m, c, tag, _clauses(c))
        else:
            _emit_single(m, c, tag)
    return m


def _emit_rows(m: Module, c: Construct, tag: str) -> None:
    n, cols = c.n, c.m
    pre: list[str] = []
    inner_body: list[str] = []
    after: list[str] = []
    privs, inner_reds, outs = [], [], []
    types: dict[str, str] = {}
    for k, r in enumerate(c.reds):
        mt = mlir_type(r.t)
        x = m.array(r.data, r.t)
        p = m.private(r.t, name=f"{tag}p{k}")
        o = m.array(np.zeros(n, dtype=r.data.dtype), r.t)
        pre += [f"%st{k} = {const(r.t, r.init)}", f"memref.store %st{k}, {p}[] : memref<{mt}>"]
        rr = m.reduction(p, r.op, r.t, f"{tag}p{k}", where=pre)
        types[rr] = f"memref<{mt}>"
        inner_reds.append(rr)
        inner_body += [f"%xv{k} = memref.load {x}[%ix] : memref<{n * cols}x{mt}>",
                       *update(rr, r.t, r.op, f"%xv{k}", f"{k}")]
        after += [f"%fv{k} = memref.load {p}[] : memref<{mt}>",
                  f"memref.store %fv{k}, {o}[%row] : memref<{n}x{mt}>"]
        privs.append(p)
        outs.append((o, r))
    gang_reds = []
    if c.copy is not None:
        r = c.copy
        mt = mlir_type(r.t)
        x = m.array(r.data, r.t)
        v = m.scalar(r.t, r.init)
        red = m.reduction(m.copy(v, r.t, f"{tag}c"), r.op, r.t, f"{tag}c")
        types[red] = f"memref<{mt}>"
        inner_reds.append(red)
        inner_body += [f"%xc = memref.load {x}[%ix] : memref<{n * cols}x{mt}>",
                       *update(red, r.t, r.op, "%xc", "c")]
        if c.gang_red:
            gang_reds.append(red)
    body = [*pre,
            *loop(m, c.levels, cols, "%col", [f"%rm = arith.muli %row, {m.idx(cols)} : index",
                                              "%ix = arith.addi %rm, %col : index", *inner_body],
                  reds=inner_reds, t=types),
            *after]
    m.parallel(loop(m, "gang", n, "%row", body, private=privs, reds=gang_reds, t=types),
               **_clauses(c))
    for k, (o, r) in enumerate(outs):
        m.result(f"{tag} rows {c.levels} private {r.op} {r.t} #{k}", o, r.t, n, 0)
    if c.copy is not None:
        m.result(f"{tag} rows {c.levels} copy {c.copy.op} {c.copy.t}"
                 f"{'' if c.gang_red else ' (inner only)'}", v, c.copy.t, None, 0)


def _emit_elem(m: Module, c: Construct, tag: str) -> None:
    r = c.reds[0]
    mt = mlir_type(r.t)
    x = m.array(r.data, r.t)
    o = m.array(np.zeros(c.n, dtype=r.data.dtype), r.t)
    s = m.private(r.t, name=f"{tag}s")
    arith = {"add": "addf" if r.t.startswith("f") else "addi",
             "mul": "mulf" if r.t.startswith("f") else "muli", "xor": "xori"}[r.op]
    body = [f"%xv = memref.load {x}[%i] : memref<{c.n}x{mt}>", f"%cc = {const(r.t, c.c)}",
            f"%y = arith.{arith} %xv, %cc : {mt}", f"memref.store %y, {s}[] : memref<{mt}>",
            f"%z = memref.load {s}[] : memref<{mt}>",
            f"memref.store %z, {o}[%i] : memref<{c.n}x{mt}>"]
    m.parallel(loop(m, c.levels, c.n, "%i", body, private=[s]), **_clauses(c))
    m.result(f"{tag} elem {c.levels} {r.op} {r.t}", o, r.t, c.n, 0)


def _emit_single(m: Module, c: Construct, tag: str) -> None:
    x = m.array(c.reds[0].data, "i32")
    o = m.array(np.zeros(c.n, dtype=np.int32), "i32")
    o2 = m.array(np.zeros(max(c.n * c.m, 1), dtype=np.int32), "i32")
    n2 = max(c.n * c.m, 1)
    body = [f"%xv = memref.load {x}[%row] : memref<{c.n}xi32>",
            f"%ov = memref.load {o}[%row] : memref<{c.n}xi32>", "%nv = arith.addi %ov, %xv : i32",
            f"memref.store %nv, {o}[%row] : memref<{c.n}xi32>"]
    if c.m:
        body += loop(m, "worker", c.m, "%j", [
            f"%rm = arith.muli %row, {m.idx(c.m)} : index", "%ix = arith.addi %rm, %j : index",
            "%one = arith.constant 1 : i32", f"%o2 = memref.load {o2}[%ix] : memref<{n2}xi32>",
            "%n2 = arith.addi %o2, %one : i32", f"memref.store %n2, {o2}[%ix] : memref<{n2}xi32>"])
    m.parallel(loop(m, "gang", c.n, "%row", body), **_clauses(c))
    m.result(f"{tag} single gang-body += (nw {c.nw}, vl {c.vl})", o, "i32", c.n, 0)
    if c.m:
        m.result(f"{tag} single worker-body += (vl {c.vl})", o2, "i32", n2, 0)


def describe(p: Program) -> str:
    lines = []
    for k, c in enumerate(p.constructs):
        kind = "serial" if c.serial else f"parallel ng={c.ng} nw={c.nw} vl={c.vl}"
        if c.priv is not None:
            lines.append(f"c{k}: priv {kind} n={c.n} m={c.m} {acc_privates.describe(c)}")
            continue
        reds = ", ".join(f"{r.op}:{r.t}" for r in c.reds)
        lines.append(f"c{k}: {c.shape} {kind} levels={c.levels!r} n={c.n} m={c.m} k={c.k} "
                     f"[{reds}]" + (f" copy {c.copy.op}:{c.copy.t} gang_red={c.gang_red}"
                                    if c.copy else ""))
    return "\n".join(lines)


def shrink_candidates(p: Program):
    """Smaller programs, largest cuts first (the minimiser keeps those that still fail)."""
    cs = p.constructs
    for i in range(len(cs)):
        if len(cs) > 1:
            yield replace(p, constructs=cs[:i] + cs[i + 1:])
    for i, c in enumerate(cs):
        def with_(i=i, c=c, **kw) -> Program:
            return replace(p, constructs=[*cs[:i], replace(c, **kw), *cs[i + 1:]])
        if len(c.reds) > 1:
            for j in range(len(c.reds)):
                yield with_(reds=c.reds[:j] + c.reds[j + 1:])
        if c.copy is not None and c.reds:
            yield with_(copy=None)
        for attr in ("ng", "nw", "vl"):
            if getattr(c, attr) > 1:
                yield with_(**{attr: 1})
                yield with_(**{attr: getattr(c, attr) // 2})
        if c.shape in ("flat", "par", "elem") and c.n > 1:
            for n in (1, c.n // 2):
                yield with_(n=n, reds=[replace(r, data=r.data[:n]) for r in c.reds])
        if c.priv is not None:
            for small in acc_privates.shrink(c):
                yield replace(p, constructs=[*cs[:i], small, *cs[i + 1:]])
        if c.shape == "rows":
            for n, mm in ((1, c.m), (c.n, 1), (c.n, max(1, c.m // 2))):
                if (n, mm) != (c.n, c.m):
                    def cut(r: Red, n=n, mm=mm, c=c) -> Red:
                        return replace(r, data=r.data.reshape(c.n, c.m)[:n, :mm].ravel())
                    yield with_(n=n, m=mm, reds=[cut(r) for r in c.reds],
                                copy=cut(c.copy) if c.copy else None)

