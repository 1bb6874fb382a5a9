"""Private and first-private variables for the OpenACC fuzzer (issue 36, item 12):
``acc_gen.generate(..., privates=True)`` adds ``priv`` constructs, each one of three kinds,
whose arrays are written at one level and read at another, only in ways OpenACC 3.3 defines
(a race-free program whose reads see values written before a join or in the same work-item's
redundant code):

- ``gang``: an array ``P[K]`` private (or first-private) to the ``parallel`` construct, to a
  ``gang`` loop over rows, or allocated in the gang loop's body: one copy per gang, shared by
  its workers and vector lanes. Per row: an *init* loop (``seq`` in gang-redundant code, or
  ``worker`` / ``vector`` / ``worker vector`` partitioned) writes ``P[k] = x[row, k]``; an
  optional *update* loop at other levels does ``P[k] += y[row, k]`` (reading what another
  lane wrote, after the init loop's join); a *read* loop at other levels stores
  ``out2[row, k] = P[(k + s) % K] (+ sc)``; single-mode code sums ``P`` with a ``seq`` loop
  into ``out[row]`` (through a scalar private of the gang loop, of the construct or of the
  region, or straight into ``out``). A private of the construct may instead be filled once
  per gang by a *pre* loop before the gang loop (then only read inside it); a first-private
  one starts from the host array ``h`` (the pre loop adds ``z``: ``P = h + z`` per gang),
  a first-private one of the gang loop is read, or first updated by an *idempotent* loop
  (``P[k] = max(P[k], z[k])``: the same result whether a copy serves one iteration or all
  the gang's). ``sc``: an optional scalar, private (``sc = c``) or first-private
  (``sc = host + c``) of the construct, written in redundant code before the gang loop, or
  private (``sc = c + x[row, 0]``) or first-private (``sc = max(sc, c)``) of the gang loop,
  written in the row's redundant code; read by the read loop: scalars are only written in
  redundant code, where per-work-item copies (private_storage.py keeps scalars so) and
  per-gang copies agree.
- ``worker``: an array private (first-private, or allocated in the body) of a ``worker`` loop
  nested in the gang loop: one copy per worker, shared by its vector lanes; init / update /
  read loops are ``vector`` or ``seq`` (vector-single code), the sum goes through a scalar
  private of the worker loop (or straight into ``out``); a first-private one is read (plus
  ``x``), optionally after an idempotent ``max`` update.
- ``vector``: a loop (``vector``, ``worker vector`` or ``worker``) in the gang loop with a
  private array ``V[K]`` and scalar ``S``, each iteration writing all of ``V`` with ``seq``
  loops before reading it (the result does not depend on whether a copy lives per iteration
  or per lane); an optional first-private scalar ``f`` is only read, an optional
  first-private array ``F`` is updated idempotently (``F = max(F, z)``) each iteration:
  ``V = x + max(h, z) + f``.

First-private variables are never copied back: the host copies are printed too. A
first-private variable is only modified where the modification happens once per copy (the
construct's pre loop) or is idempotent, so the results do not depend on how gang-loop iterations are
distributed over gangs. The results are therefore the same on every target (cpu, host,
nvptx): ``expected`` takes no target.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from tests.libgomp_ports import INDEPENDENT, SEQ, Module, combine, const, mlir_type
from tests.libgomp_ports import TYPES as DTYPES

TYPES = ["i32", "i64", "f32", "f64"]
GANG_LEVELS = ["seq", "worker", "vector", "worker vector"]
INNER_LEVELS = ["seq", "vector"]
VECTOR_LOOP = ["vector", "worker vector", "worker"]


@dataclass
class Priv:
    kind: str  # gang | worker | vector
    t: str
    K: int
    decl: str  # gang kind: parallel | gang | region; worker: worker | region; vector: vector
    first: bool = False  # the array is first-private (read-only in the loops)
    pre: str | None = None  # gang kind, decl parallel: levels of the once-per-gang fill
    init: str = "seq"  # levels of the loop writing the array per row
    upd: str | None = None  # levels of the loop adding y
    rd: str = "seq"  # levels of the loop reading it shifted
    shift: int = 0
    acc: str = "global"  # where the sum goes through: global | gang | parallel | region | worker
    sc: str | None = None  # gang kind: None | private | first (of the construct) | gangpriv |
    # gangfirst (of the gang loop)
    idem: str | None = None  # levels of the loop doing P[k] = max(P[k], z[k]) on a first-private
    farr: bool = False  # vector kind: a first-private array F too (V = x + max(F, z) + f)
    sinit: object = 0
    c: object = 0  # sc's addend / the vector kind's first-private scalar
    c0: object = 0  # host value of a first-private scalar
    x: np.ndarray | None = None  # rows x (m x) K
    y: np.ndarray | None = None
    h: np.ndarray | None = None  # host array of a first-private array
    z: np.ndarray | None = None  # the pre loop's addend


def _vals(rng: np.random.Generator, t: str, shape) -> np.ndarray:
    dt = np.dtype(DTYPES[t][1])
    v = rng.integers(-64, 65, shape) * (0.5 if t.startswith("f") else 1)
    return np.asarray(v).astype(dt)


def _scalar(rng: np.random.Generator, t: str):
    return _vals(rng, t, 1)[0]


def generate(rng: np.random.Generator, c) -> None:
    """Fill construct ``c`` (shape ``priv``, sizes chosen) with a random ``Priv``."""
    kind = str(rng.choice(["gang", "gang", "worker", "vector"]))
    t = str(rng.choice(TYPES))
    K = int(rng.choice([1, 2, 3, 4, 5, 8, 13, 16, 32, 40]))
    c.n = int(rng.integers(1, 7))
    c.m = int(rng.integers(1, 7)) if kind != "gang" else 1
    p = Priv(kind, t, K, decl="", shift=int(rng.integers(0, K)),
             sinit=_scalar(rng, t), c=_scalar(rng, t), c0=_scalar(rng, t))
    if kind == "gang":
        p.decl = str(rng.choice(["parallel", "gang", "region"]))
        p.first = p.decl != "region" and rng.random() < 0.35
        if p.decl == "parallel" and (p.first or rng.random() < 0.4):
            p.pre = str(rng.choice(GANG_LEVELS))
        p.x = _vals(rng, t, (c.n, K))
        p.y = _vals(rng, t, (c.n, K))
        if not (p.first or p.pre):
            p.init = str(rng.choice(GANG_LEVELS))
            if rng.random() < 0.5:
                p.upd = str(rng.choice(GANG_LEVELS))
        p.rd = str(rng.choice(GANG_LEVELS))
        p.acc = str(rng.choice(["global", "gang", "parallel", "region"]))
        p.sc = [None, "private", "first", "gangpriv", "gangfirst"][int(rng.integers(0, 5))]
        if p.first and p.decl == "gang" and rng.random() < 0.6:
            p.idem = str(rng.choice(GANG_LEVELS))
    elif kind == "worker":
        p.decl = str(rng.choice(["worker", "region"]))
        p.first = p.decl == "worker" and rng.random() < 0.3
        p.x = _vals(rng, t, (c.n, c.m, K))
        p.y = _vals(rng, t, (c.n, c.m, K))
        if not p.first:
            p.init = str(rng.choice(INNER_LEVELS))
            if rng.random() < 0.5:
                p.upd = str(rng.choice(INNER_LEVELS))
        elif rng.random() < 0.6:
            p.idem = str(rng.choice(INNER_LEVELS))
        p.rd = str(rng.choice(INNER_LEVELS))
        p.acc = str(rng.choice(["global", "worker"]))
    else:
        p.decl = str(rng.choice(VECTOR_LOOP))
        p.first = rng.random() < 0.5  # a first-private scalar f
        p.farr = rng.random() < 0.4
        p.x = _vals(rng, t, (c.n, c.m, K))
    if (p.first and kind != "vector") or p.farr:
        p.h = _vals(rng, t, K)
    if p.pre or p.idem or p.farr:
        p.z = _vals(rng, t, K)
    c.priv = p


# ---------------------------------------------------------------------------------------
# the model


def expected(c) -> list[np.ndarray]:
    p: Priv = c.priv
    dt = np.dtype(DTYPES[p.t][1])
    out: list[np.ndarray] = []
    with np.errstate(over="ignore"):
        if p.kind == "gang":
            sc = {None: dt.type(0), "private": p.c, "first": dt.type(p.c0 + p.c),
                  "gangfirst": max(p.c0, p.c), "gangpriv": None}[p.sc]
            if p.pre:  # once per gang: P = (h if first-private) + z; read-only below
                base = (p.h if p.first else np.zeros(p.K, dt)) + p.z
            elif p.first:  # P = max(h, z): the same however often it runs
                base = np.maximum(p.h, p.z) if p.idem else p.h
            else:
                base = None
            sums, reads = [], []
            for row in range(c.n):
                a = base if base is not None else (
                    p.x[row] + p.y[row] if p.upd else p.x[row])
                a = a.astype(dt)
                s = dt.type(p.c + p.x[row, 0]) if p.sc == "gangpriv" else sc
                reads.append((np.roll(a, -p.shift) + s).astype(dt))
                sums.append(dt.type(p.sinit + a.sum(dtype=dt)))
            out += [np.array(sums, dtype=dt), np.concatenate(reads)]
            if p.first:
                out.append(p.h)  # the host copy is not written back
            if p.sc in ("first", "gangfirst"):
                out.append(np.array([p.c0], dtype=dt))
        elif p.kind == "worker":
            sums, reads = [], []
            for row in range(c.n):
                for j in range(c.m):
                    h = np.maximum(p.h, p.z) if p.idem else p.h
                    a = h if p.first else (
                        p.x[row, j] + p.y[row, j] if p.upd else p.x[row, j])
                    a = a.astype(dt)
                    r = np.roll(a, -p.shift)
                    reads.append((r + p.x[row, j] if p.first else r).astype(dt))
                    sums.append(dt.type(p.sinit + a.sum(dtype=dt)))
            out += [np.array(sums, dtype=dt), np.concatenate(reads)]
            if p.first:
                out.append(p.h)
        else:
            f = p.c0 if p.first else dt.type(0)
            fa = np.maximum(p.h, p.z) if p.farr else np.zeros(p.K, dt)
            sums, reads = [], []
            for row in range(c.n):
                for i in range(c.m):
                    v = (p.x[row, i] + fa + f).astype(dt)
                    reads.append(np.roll(v, -p.shift))
                    sums.append(dt.type(p.sinit + v.sum(dtype=dt)))
            out += [np.array(sums, dtype=dt), np.concatenate(reads)]
            if p.farr:
                out.append(p.h)
            if p.first:
                out.append(np.array([p.c0], dtype=dt))
    return out


# ---------------------------------------------------------------------------------------
# MLIR


def _mt(p: Priv, shape=None) -> str:
    dims = "" if shape == () else f"{p.K if shape is None else shape}x"
    return f"memref<{dims}{mlir_type(p.t)}>"


def _add(p: Priv, a: str, b: str, out: str) -> str:
    return f"{out} = arith.{'addf' if p.t.startswith('f') else 'addi'} {a}, {b} : {mlir_type(p.t)}"


def _first(m: Module, p: Priv, host: str, shape: tuple[int, ...], name: str) -> str:
    """``acc.firstprivate`` of host memref ``host``; the device value."""
    mt = "memref<" + "".join(f"{d}x" for d in shape) + mlir_type(p.t) + ">"
    rname = f"@fpriv_{p.t}_{'x'.join(map(str, shape)) or 's'}"
    copy = ([f"  memref.copy %a, %b : {mt} to {mt}"] if shape else
            [f"  %v = memref.load %a[] : {mt}", f"  memref.store %v, %b[] : {mt}"])
    m.recipes.setdefault(rname, "\n".join([
        f"acc.firstprivate.recipe {rname} : {mt} init {{", f"^bb0(%arg0: {mt}):",
        f"  %p = memref.alloca() : {mt}", f"  acc.yield %p : {mt}", "} copy {",
        f"^bb0(%a: {mt}, %b: {mt}):", *copy, "  acc.terminator", "}"]))
    v = m.fresh("fp")
    m.main.append(f"  {v} = acc.firstprivate varPtr({host} : {mt}) recipe({rname}) -> {mt} "
                  f'{{name = "{name}"}}')
    return v


def ploop(m: Module, levels: str, n: int, iv: str, body: list[str],
          private: list[tuple[str, str]] = (), first: list[tuple[str, str]] = ()) -> list[str]:
    """``acc.loop <levels> private(...) firstprivate(...)`` (``seq``: a sequential loop)."""
    head = "acc.loop" + ("" if levels == "seq" else "".join(f" {lv}" for lv in levels.split()))
    for kw, vals in (("private", private), ("firstprivate", first)):
        if vals:
            head += (f" {kw}({', '.join(v for v, _ in vals)} : "
                     f"{', '.join(t for _, t in vals)})")
    return [f"{head} control({iv} : index) = ({m.idx(0)} : index) to ({m.idx(n)} : index) "
            f"step ({m.idx(1)} : index) {{", *("  " + b for b in body), "  acc.yield",
            f"}} {SEQ if levels == 'seq' else INDEPENDENT}"]


def _fill(m: Module, p: Priv, levels: str, arr: str, x: str, nx: int, base: str,
          add: bool | str) -> list[str]:
    """``arr[k] = x[base + k]`` (``add``: ``arr[k] += x[base + k]``; ``"max"``:
    ``arr[k] = max(arr[k], x[base + k])``) over k < K."""
    k, q = m.fresh("k"), m.fresh("q")
    body = [f"{q}_i = arith.addi {base}, {k} : index",
            f"{q}_x = memref.load {x}[{q}_i] : memref<{nx}x{mlir_type(p.t)}>"]
    val = f"{q}_x"
    if add == "max":
        body += [f"{q}_o = memref.load {arr}[{k}] : {_mt(p)}",
                 *combine("max", p.t, f"{q}_o", f"{q}_x", f"{q}_s")]
        val = f"{q}_s"
    elif add:
        body += [f"{q}_o = memref.load {arr}[{k}] : {_mt(p)}",
                 _add(p, f"{q}_o", f"{q}_x", f"{q}_s")]
        val = f"{q}_s"
    return ploop(m, levels, p.K, k, [*body, f"memref.store {val}, {arr}[{k}] : {_mt(p)}"])


def _read(m: Module, p: Priv, levels: str, arr: str, out2: str, n2: int, base: str,
          extra: list[tuple[str, str | None]]) -> list[str]:
    """``out2[base + k] = arr[(k + shift) % K] (+ each extra)``; extra: (memref, index or
    None for a scalar)."""
    k, q = m.fresh("k"), m.fresh("q")
    mt = mlir_type(p.t)
    body = [f"{q}_a = arith.addi {k}, {m.idx(p.shift)} : index",
            f"{q}_b = arith.remui {q}_a, {m.idx(p.K)} : index",
            f"{q}_v0 = memref.load {arr}[{q}_b] : {_mt(p)}",
            f"{q}_i = arith.addi {base}, {k} : index"]
    val = f"{q}_v0"
    for e, (ref, at) in enumerate(extra):
        if at is None:
            body.append(f"{q}_e{e} = memref.load {ref}[] : memref<{mt}>")
        else:
            body.append(f"{q}_e{e} = memref.load {ref}[{q}_i] : memref<{n2}x{mt}>")
        body.append(_add(p, val, f"{q}_e{e}", f"{q}_v{e + 1}"))
        val = f"{q}_v{e + 1}"
    return ploop(m, levels, p.K, k, [*body, f"memref.store {val}, {out2}[{q}_i] : "
                                              f"memref<{n2}x{mt}>"])


def _sum(m: Module, p: Priv, arr: str, out: str, n: int, at: str, via: str | None) -> list[str]:
    """Single-mode code: ``out[at] = sinit + sum(arr)`` with a ``seq`` loop, accumulating in
    the scalar ``via`` (None: in ``out[at]`` itself)."""
    mt = mlir_type(p.t)
    k, q = m.fresh("k"), m.fresh("q")
    ref, idx, rt = (via, "", f"memref<{mt}>") if via else (out, at, f"memref<{n}x{mt}>")
    lines = [f"{q}_z = {const(p.t, p.sinit)}", f"memref.store {q}_z, {ref}[{idx}] : {rt}"]
    lines += ploop(m, "seq", p.K, k, [
        f"{q}_o = memref.load {ref}[{idx}] : {rt}", f"{q}_p = memref.load {arr}[{k}] : {_mt(p)}",
        _add(p, f"{q}_o", f"{q}_p", f"{q}_s"), f"memref.store {q}_s, {ref}[{idx}] : {rt}"])
    if via:
        lines += [f"{q}_f = memref.load {via}[] : {rt}",
                  f"memref.store {q}_f, {out}[{at}] : memref<{n}x{mt}>"]
    return lines


def emit(m: Module, c, tag: str, clauses: dict) -> None:
    p: Priv = c.priv
    mt = mlir_type(p.t)
    at = _mt(p)
    st = f"memref<{mt}>"
    rows = c.n * (c.m if p.kind != "gang" else 1)
    out = m.array(np.zeros(rows, dtype=DTYPES[p.t][1]), p.t)
    out2 = m.array(np.zeros(rows * p.K, dtype=DTYPES[p.t][1]), p.t)
    n2 = rows * p.K
    x = m.array(p.x, p.t)
    nx = p.x.size
    par_priv: list[tuple[str, str]] = []
    par_first: list[tuple[str, str]] = []
    host_h = m.array(p.h, p.t) if p.h is not None else None
    host_sc = None
    if p.kind == "gang":
        y = m.array(p.y, p.t) if p.upd else None
        z = m.array(p.z, p.t) if p.z is not None else None
        gang_priv: list[tuple[str, str]] = []
        gang_first: list[tuple[str, str]] = []
        arr = ""
        if p.decl != "region":
            if p.first:
                arr = _first(m, p, host_h, (p.K,), f"{tag}P")
                (par_first if p.decl == "parallel" else gang_first).append((arr, at))
            else:
                arr = m.private(p.t, (p.K,), name=f"{tag}P")
                (par_priv if p.decl == "parallel" else gang_priv).append((arr, at))
        top: list[str] = []
        sc = None
        if p.sc == "private":
            sc = m.private(p.t, name=f"{tag}sc")
            par_priv.append((sc, st))
            top += [f"%{tag}scc = {const(p.t, p.c)}", f"memref.store %{tag}scc, {sc}[] : {st}"]
        elif p.sc == "first":
            host_sc = m.scalar(p.t, p.c0)
            sc = _first(m, p, host_sc, (), f"{tag}sc")
            par_first.append((sc, st))
            top += [f"%{tag}sco = memref.load {sc}[] : {st}", f"%{tag}scc = {const(p.t, p.c)}",
                    _add(p, f"%{tag}sco", f"%{tag}scc", f"%{tag}scn"),
                    f"memref.store %{tag}scn, {sc}[] : {st}"]
        if p.pre:
            top += _fill(m, p, p.pre, arr, z, p.K, m.idx(0), add=p.first)
        via = None
        body: list[str] = []
        if p.decl == "region":
            arr = f"%{tag}P"
            body.append(f"{arr} = memref.alloca() : {at}")
        row = f"%{tag}row"
        if p.sc == "gangfirst":
            host_sc = m.scalar(p.t, p.c0)
            sc = _first(m, p, host_sc, (), f"{tag}sc")
            gang_first.append((sc, st))
            body += [f"%{tag}sco = memref.load {sc}[] : {st}", f"%{tag}scc = {const(p.t, p.c)}",
                     *combine("max", p.t, f"%{tag}sco", f"%{tag}scc", f"%{tag}scn"),
                     f"memref.store %{tag}scn, {sc}[] : {st}"]
        elif p.sc == "gangpriv":
            sc = m.private(p.t, name=f"{tag}sc")
            gang_priv.append((sc, st))
            body += [f"%{tag}r0 = arith.muli {row}, {m.idx(p.K)} : index",
                     f"%{tag}sx = memref.load {x}[%{tag}r0] : memref<{nx}x{mt}>",
                     f"%{tag}scc = {const(p.t, p.c)}",
                     _add(p, f"%{tag}sx", f"%{tag}scc", f"%{tag}scn"),
                     f"memref.store %{tag}scn, {sc}[] : {st}"]
        if p.acc == "gang":
            via = m.private(p.t, name=f"{tag}S")
            gang_priv.append((via, st))
        elif p.acc == "parallel":
            via = m.private(p.t, name=f"{tag}S")
            par_priv.append((via, st))
        elif p.acc == "region":
            via = f"%{tag}S"
            body.append(f"{via} = memref.alloca() : {st}")
        base = f"%{tag}base"
        body.append(f"{base} = arith.muli {row}, {m.idx(p.K)} : index")
        if p.idem:
            body += _fill(m, p, p.idem, arr, z, p.K, m.idx(0), add="max")
        if not (p.first or p.pre):
            body += _fill(m, p, p.init, arr, x, nx, base, add=False)
            if p.upd:
                body += _fill(m, p, p.upd, arr, y, nx, base, add=True)
        body += _read(m, p, p.rd, arr, out2, n2, base, [(sc, None)] if sc else [])
        body += _sum(m, p, arr, out, rows, row, via)
        top += ploop(m, "gang", c.n, row, body, gang_priv, gang_first)
    elif p.kind == "worker":
        y = m.array(p.y, p.t) if p.upd else None
        z = m.array(p.z, p.t) if p.z is not None else None
        wpriv: list[tuple[str, str]] = []
        wfirst: list[tuple[str, str]] = []
        body = []
        if p.decl == "region":
            arr = f"%{tag}W"
            body.append(f"{arr} = memref.alloca() : {at}")
        elif p.first:
            arr = _first(m, p, host_h, (p.K,), f"{tag}W")
            wfirst.append((arr, at))
        else:
            arr = m.private(p.t, (p.K,), name=f"{tag}W")
            wpriv.append((arr, at))
        via = None
        if p.acc == "worker":
            via = m.private(p.t, name=f"{tag}S")
            wpriv.append((via, st))
        row, j = f"%{tag}row", f"%{tag}j"
        rj, base = f"%{tag}rj", f"%{tag}base"
        body += [f"{rj}_a = arith.muli {row}, {m.idx(c.m)} : index",
                 f"{rj} = arith.addi {rj}_a, {j} : index",
                 f"{base} = arith.muli {rj}, {m.idx(p.K)} : index"]
        if not p.first:
            body += _fill(m, p, p.init, arr, x, nx, base, add=False)
            if p.upd:
                body += _fill(m, p, p.upd, arr, y, nx, base, add=True)
            body += _read(m, p, p.rd, arr, out2, n2, base, [])
        else:
            if p.idem:
                body += _fill(m, p, p.idem, arr, z, p.K, m.idx(0), add="max")
            body += _read(m, p, p.rd, arr, out2, n2, base, [(x, "")])
        body += _sum(m, p, arr, out, rows, rj, via)
        top = ploop(m, "gang", c.n, row, ploop(m, "worker", c.m, j, body, wpriv, wfirst))
    else:
        V = m.private(p.t, (p.K,), name=f"{tag}V")
        S = m.private(p.t, name=f"{tag}S")
        vfirst: list[tuple[str, str]] = []
        f = fa = None
        if p.farr:
            fa = _first(m, p, host_h, (p.K,), f"{tag}F")
            vfirst.append((fa, at))
            z = m.array(p.z, p.t)
        if p.first:
            host_sc = m.scalar(p.t, p.c0)
            f = _first(m, p, host_sc, (), f"{tag}f")
            vfirst.append((f, st))
        row, i = f"%{tag}row", f"%{tag}i"
        ri, base = f"%{tag}ri", f"%{tag}base"
        body = [f"{ri}_a = arith.muli {row}, {m.idx(c.m)} : index",
                f"{ri} = arith.addi {ri}_a, {i} : index",
                f"{base} = arith.muli {ri}, {m.idx(p.K)} : index"]
        if fa:
            body += _fill(m, p, "seq", fa, z, p.K, m.idx(0), add="max")
        k, q = m.fresh("k"), m.fresh("q")
        fill = [f"{q}_i = arith.addi {base}, {k} : index",
                f"{q}_x = memref.load {x}[{q}_i] : memref<{nx}x{mt}>"]
        val = f"{q}_x"
        if f:
            fill += [f"{q}_f = memref.load {f}[] : {st}", _add(p, f"{q}_x", f"{q}_f", f"{q}_s")]
            val = f"{q}_s"
        if fa:
            fill += [f"{q}_fa = memref.load {fa}[{k}] : {at}", _add(p, val, f"{q}_fa", f"{q}_t")]
            val = f"{q}_t"
        body += ploop(m, "seq", p.K, k, [*fill, f"memref.store {val}, {V}[{k}] : {at}"])
        body += _read(m, p, "seq", V, out2, n2, base, [])
        body += _sum(m, p, V, out, rows, ri, S)
        top = ploop(m, "gang", c.n, row, ploop(m, p.decl, c.m, i, body,
                                                [(V, at), (S, st)], vfirst))
    m.parallel(top, **{k: v for k, v in clauses.items() if k != "serial"}, private=par_priv)
    if par_first:
        for li in range(len(m.main) - 1, -1, -1):
            if m.main[li].startswith("  acc.parallel"):
                fp = (f"firstprivate({', '.join(v for v, _ in par_first)} : "
                      f"{', '.join(t for _, t in par_first)})")
                m.main[li] = m.main[li].replace("acc.parallel", f"acc.parallel {fp}", 1)
                break
    name = f"{tag} priv {p.kind} {p.decl}{' first' if p.first else ''} {p.t}"
    m.result(f"{name} sums", out, p.t, rows, 0)
    m.result(f"{name} reads", out2, p.t, n2, 0)
    if host_h is not None:
        m.result(f"{name} host array", host_h, p.t, p.K, 0)
    if host_sc is not None:
        m.result(f"{name} host scalar", host_sc, p.t, None, 0)


def describe(c) -> str:
    p: Priv = c.priv
    parts = [f"{p.kind} decl={p.decl}{' first' if p.first else ''} {p.t} K={p.K}"]
    if p.kind != "vector":
        parts += [f"pre={p.pre}" if p.pre else "", f"init={p.init}" if not (p.first or p.pre)
                  else "", f"upd={p.upd}" if p.upd else "", f"rd={p.rd}", f"acc={p.acc}"]
    parts += [f"idem={p.idem}" if p.idem else "", "farr" if p.farr else "",
              f"shift={p.shift}", f"sc={p.sc}" if p.sc else ""]
    return " ".join(x for x in parts if x)


def shrink(c):
    """Smaller ``priv`` constructs (fewer rows, columns; no update; K = 1)."""
    p: Priv = c.priv
    if c.n > 1:
        yield replace(c, n=1, priv=replace(p, x=p.x[:1], y=p.y[:1] if p.y is not None else None))
    if p.kind != "gang" and c.m > 1:
        yield replace(c, m=1, priv=replace(p, x=p.x[:, :1],
                                           y=p.y[:, :1] if p.y is not None else None))
    if p.upd:
        yield replace(c, priv=replace(p, upd=None))
    if p.sc:
        yield replace(c, priv=replace(p, sc=None))
    if p.K > 1:
        def cut(a):
            return None if a is None else a[..., :1]
        yield replace(c, priv=replace(p, K=1, shift=0, x=cut(p.x), y=cut(p.y), h=cut(p.h),
                                      z=cut(p.z)))
