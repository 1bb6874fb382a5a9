"""OpenACC end to end: upstream ``acc`` programs -> convert-acc-to-oacc -> expand-oacc-reductions
-> JIT, on both expansion targets, against numpy. Re-creates the semantics of libgomp's OpenACC
reduction tests (reduction-1..7, loop-red) with our own programs, generated from the templates
below: 8 gangs, 4 workers, vector length 32.

* every operator over int (i32), float (f32), double (f64) and complex (complex<f32>) at gang,
  worker, vector and all three levels; each loop reduces all the operators of a type at once
  (several variables reduced in one loop, one rid each). Gang and gang+worker+vector loops
  reduce copy objects; worker, vector and worker+vector loops reduce a gang-private variable
  (a private clause of the enclosing gang loop) that the gang then stores to ``out[row]``;
* copy-out (non-private) vs private results in all nestings (reduction-7 style);
* reductions on the parallel construct: ``s += 5`` / ``p *= 5`` in gang-redundant code give
  ``s0 + 5 * gangs`` / ``p0 * 5 ** gangs``; a reduction on ``acc.serial`` (one gang);
* loop-red style schedule sums: every iteration adds ``(i + 1) * 4096 + code(gang, worker,
  lane)`` read with ``mux.get_group_id`` / ``mux.get_local_id`` inside the loop, so the sum
  checks which position ran which iteration (gangs take contiguous chunks of ceil(n / gangs)
  iterations, workers contiguous chunks of whole vector rounds of their gang's part, lanes
  adjacent iterations; positions of other levels are 0 except the gang: every gang runs a
  loop that is not gang-partitioned and contributes through the dummy gang reduction).

The ``host`` target runs one gang of one work-item (every position 0, gangs = 1).

Results reach the test as i64 bit patterns printed by ``printMemrefI64``. Tolerances: the data
make every float result exact (small integers, powers of two), so f32/complex<f32> compare
with rtol 1e-6 and f64 with rtol 1e-12: only reassociation rounding could differ.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

NG, NW, VL = 8, 4, 32
TARGETS = ("host", "cpu")
GANGS = {"host": 1, "cpu": NG}  # gangs that run gang-redundant code

#: name -> (mlir type, class, numpy dtype of the value, i64 slots)
TYPES = {
    "i32": ("i32", "int", np.int32),
    "i64": ("i64", "int", np.int64),
    "f32": ("f32", "float", np.float32),
    "f64": ("f64", "float", np.float64),
    "c64": ("complex<f32>", "complex", np.complex64),
}
OPS = {
    "int": ["add", "mul", "max", "min", "iand", "ior", "xor", "land", "lor"],
    "float": ["add", "mul", "max", "min", "land", "lor"],
    "complex": ["add", "mul"],
}
SWEEP_TYPES = ("i32", "f32", "f64", "c64")


# ---------------------------------------------------------------------------------------
# data and the sequential reference


def data(op: str, cls: str, k: np.ndarray) -> np.ndarray:
    """The values reduced by operator ``op`` at iteration numbers ``k`` (any shape)."""
    if op == "add":
        v = (k + 1).astype(np.float64)
        return v + 1j * (k % 5) if cls == "complex" else v
    if op == "mul":
        if cls == "complex":
            return np.where(k % 7 == 0, 1j, np.where(k % 11 == 3, -1, 1)).astype(np.complex128)
        v = np.where(k % 23 == 0, 2.0, 1.0)
        v = np.where(k % 37 == 5, -1.0, v)
        return np.where(k % 41 == 7, 0.5 if cls == "float" else 3.0, v)
    if op in ("max", "min"):
        v = ((k * 37) % 1001 - 500).astype(np.float64)
        return v - 0.25 if cls == "float" else v
    if op == "iand":
        return np.where(k % 13 == 0, ~(1 << (k % 31)), -1).astype(np.float64)
    if op == "ior":
        return np.where(k % 7 == 0, 1 << (k % 31), 0).astype(np.float64)
    if op == "xor":
        return ((k * 2654435761) % (1 << 31)).astype(np.float64)
    if op == "land":
        # zero in some rows / iteration ranges only: both outcomes occur
        return np.where((k % 97 == 40) & (k // 100 % 3 == 0), 0.0, 2.5 if cls == "float" else 3)
    if op == "lor":
        return np.where((k % 89 == 11) & (k // 100 % 2 == 0), 2.5 if cls == "float" else 5, 0.0)
    raise AssertionError(op)


def start(op: str, cls: str) -> complex:
    """The initial value of the reduction variable."""
    s = {"add": 3, "mul": 3, "max": -700, "min": 700, "iand": 0x7FFFFFF7, "ior": 0x100,
         "xor": 0x5A5A, "land": 5, "lor": 0}[op]
    if cls == "complex":
        return complex(s, 1)
    return s


def fold(op: str, tname: str, init, values: np.ndarray):
    """``init OP v0 OP v1 ...`` computed sequentially (integers wrap at the type's width)."""
    t, cls, dt = TYPES[tname]
    vals = list(values.ravel())
    if cls == "int":
        bits = np.dtype(dt).itemsize * 8
        acc_ = int(init)
        for v in vals:
            v = int(v)
            acc_ = {"add": acc_ + v, "mul": acc_ * v, "max": max(acc_, v), "min": min(acc_, v),
                    "iand": acc_ & v, "ior": acc_ | v, "xor": acc_ ^ v,
                    "land": int(bool(acc_) and bool(v)), "lor": int(bool(acc_) or bool(v))}[op]
            acc_ = (acc_ + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
        return acc_
    acc_ = complex(init) if cls == "complex" else float(init)
    for v in vals:
        acc_ = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "max": max, "min": min,
                "land": lambda a, b: float(bool(a) and bool(b)),
                "lor": lambda a, b: float(bool(a) or bool(b))}[op](acc_, v)
    return acc_


# ---------------------------------------------------------------------------------------
# MLIR text helpers


def _const(t: str, v) -> str:
    if t.startswith("complex"):
        e = t[len("complex<"):-1]
        return f"complex.constant [{float(np.real(v))!r} : {e}, {float(np.imag(v))!r} : {e}] : {t}"
    if t.startswith("f"):
        if np.isinf(v):  # MLIR spells infinities as bit patterns
            bits = {"f32": 0x7F800000, "f64": 0x7FF0000000000000}[t]
            sign = {"f32": 1 << 31, "f64": 1 << 63}[t] if v < 0 else 0
            return f"arith.constant {hex(bits | sign)} : {t}"
        return f"arith.constant {float(v)!r} : {t}"
    return f"arith.constant {int(v)} : {t}"


def _identity(op: str, tname: str):
    t, cls, dt = TYPES[tname]
    if op in ("add", "ior", "xor", "lor"):
        return 0
    if op in ("mul", "land"):
        return 1
    if op == "iand":
        return -1
    if cls == "int":
        info = np.iinfo(dt)
        return info.min if op == "max" else info.max
    return -np.inf if op == "max" else np.inf


def _combine(op: str, t: str, a: str, b: str, out: str) -> list[str]:
    """The user's ``out = a OP b``."""
    if t.startswith("complex"):
        return [f"{out} = complex.{op} {a}, {b} : {t}"]
    flt = t.startswith("f")
    if op in ("land", "lor"):
        logic = "andi" if op == "land" else "ori"
        cmp = (f"arith.cmpf une, {{x}}, {out}_z : {t}" if flt
               else f"arith.cmpi ne, {{x}}, {out}_z : {t}")
        return [
            f"{out}_z = {_const(t, 0)}",
            f"{out}_o = {_const(t, 1)}",
            f"{out}_a = {cmp.format(x=a)}",
            f"{out}_b = {cmp.format(x=b)}",
            f"{out}_c = arith.{logic} {out}_a, {out}_b : i1",
            f"{out} = arith.select {out}_c, {out}_o, {out}_z : {t}",
        ]
    names = ({"add": "addf", "mul": "mulf", "max": "maxnumf", "min": "minnumf"} if flt else
             {"add": "addi", "mul": "muli", "max": "maxsi", "min": "minsi", "iand": "andi",
              "ior": "ori", "xor": "xori"})
    return [f"{out} = arith.{names[op]} {a}, {b} : {t}"]


def _recipe(op: str, tname: str) -> str:
    t = TYPES[tname][0]
    m = f"memref<{t}>"
    return "\n".join([
        f"acc.reduction.recipe @red_{op}_{tname} : {m} reduction_operator <{op}> init {{",
        f"^bb0(%arg0: {m}):",
        f"  %id = {_const(t, _identity(op, tname))}",
        f"  %p = memref.alloca() : {m}",
        f"  memref.store %id, %p[] : {m}",
        f"  acc.yield %p : {m}",
        "} combiner {",
        f"^bb0(%x: {m}, %y: {m}):",
        f"  %a = memref.load %x[] : {m}",
        f"  %b = memref.load %y[] : {m}",
        *("  " + line for line in _combine(op, t, "%a", "%b", "%c")),
        f"  memref.store %c, %x[] : {m}",
        f"  acc.yield %x : {m}",
        "}",
    ])


def _dense(a: np.ndarray, t: str) -> str:
    fmt = (lambda v: repr(float(v))) if t.startswith("f") else (lambda v: str(int(v)))
    return f"dense<[{', '.join(fmt(v) for v in a.ravel())}]> : tensor<{a.size}x{t}>"


INDEP = "attributes {independent = [#acc.device_type<none>]}"


@dataclass
class Slot:
    """Printed i64 values of one result and how to decode/compare them."""

    name: str
    tname: str
    expected: Callable[[str], object]  # target -> expected value (scalar or array)
    count: int = 1


@dataclass
class Program:
    """Builds one module: globals, recipes, and @main with many acc.parallel constructs."""

    globals_: list[str] = field(default_factory=list)
    recipes: dict[str, str] = field(default_factory=dict)
    main: list[str] = field(default_factory=list)
    stores: list[str] = field(default_factory=list)
    slots: list[Slot] = field(default_factory=list)
    nslots: int = 0
    n: int = 0

    def fresh(self, base: str) -> str:
        self.n += 1
        return f"%{base}{self.n}"

    def recipe(self, op: str, tname: str) -> str:
        self.recipes.setdefault(f"{op}_{tname}", _recipe(op, tname))
        return f"@red_{op}_{tname}"

    def __post_init__(self) -> None:
        self._consts: list[str] = []  # constants at the top of @main

    def index(self, v: int) -> str:
        name = f"%ci{v}"
        line = f"  {name} = arith.constant {v} : index"
        if line not in self._consts:
            self._consts.append(line)
        return name

    def input(self, values: np.ndarray, tname: str) -> list[str]:
        """Host memrefs (1-D) holding ``values``: one, or re/im for complex."""
        t, cls, _ = TYPES[tname]
        parts = [values.real, values.imag] if cls == "complex" else [values]
        out = []
        for arr in parts:
            et = "f32" if cls == "complex" else t
            g = f"g{len(self.globals_)}"
            mt = f"memref<{arr.size}x{et}>"
            self.globals_.append(
                f'"memref.global"() <{{sym_name = "{g}", sym_visibility = "private", '
                f"type = {mt}, initial_value = {_dense(np.asarray(arr), et)}, constant}}>"
                " : () -> ()"
            )
            v = self.fresh("in")
            self.main.append(f"  {v} = memref.get_global @{g} : {mt}")
            out.append(v)
        return out

    def load(self, xs: list[str], tname: str, idx: str, n: int, out: str) -> list[str]:
        """Body lines loading element ``idx`` of an input made by ``input``."""
        t, cls, _ = TYPES[tname]
        if cls == "complex":
            return [f"{out}_r = memref.load {xs[0]}[{idx}] : memref<{n}xf32>",
                    f"{out}_i = memref.load {xs[1]}[{idx}] : memref<{n}xf32>",
                    f"{out} = complex.create {out}_r, {out}_i : {t}"]
        return [f"{out} = memref.load {xs[0]}[{idx}] : memref<{n}x{t}>"]

    def scalar(self, tname: str, init) -> str:
        """A host copy object ``memref<T>`` initialized to ``init``."""
        t = TYPES[tname][0]
        v = self.fresh("r")
        self.main += [f"  {v} = memref.alloc() : memref<{t}>",
                      f"  {v}_i = {_const(t, init)}",
                      f"  memref.store {v}_i, {v}[] : memref<{t}>"]
        return v

    def array(self, tname: str, n: int) -> str:
        v = self.fresh("o")
        self.main.append(f"  {v} = memref.alloc() : memref<{n}x{TYPES[tname][0]}>")
        return v

    def copy_reduction(self, op: str, tname: str, var: str, name: str) -> str:
        """``acc.copyin`` + ``acc.reduction`` of a host copy object; the reduction value."""
        t = TYPES[tname][0]
        c, r = self.fresh("cp"), self.fresh("red")
        self.main += [
            f"  {c} = acc.copyin varPtr({var} : memref<{t}>) -> memref<{t}> "
            f'{{dataClause = #acc<data_clause acc_copy>, name = "{name}"}}',
            f"  {r} = acc.reduction varPtr({c} : memref<{t}>) recipe({self.recipe(op, tname)}) "
            f'-> memref<{t}> {{name = "{name}"}}',
        ]
        return r

    def result(self, name: str, tname: str, ref: str, n: int | None,
               expected: Callable[[str], object]) -> None:
        """Print the host memref ``ref`` (scalar or n-element) as i64 bit patterns."""
        t, cls, _ = TYPES[tname]
        count = 1 if n is None else n
        width = 2 if cls == "complex" else 1
        v = self.fresh("v")
        if n is None:
            self.stores.append(f"  {v} = memref.load {ref}[] : memref<{t}>")
            slot = [self.index(self.nslots + w) for w in range(width)]
        else:  # a loop over the elements: slot nslots + k * width + part
            k = self.fresh("k")
            self.stores += [
                f"  scf.for {k} = {self.index(0)} to {self.index(n)} step {self.index(1)} {{",
                f"  {v} = memref.load {ref}[{k}] : memref<{n}x{t}>",
                f"  {k}_w = arith.muli {k}, {self.index(width)} : index",
            ]
            slot = []
            for w in range(width):
                self.stores.append(
                    f"  {k}_s{w} = arith.addi {k}_w, {self.index(self.nslots + w)} : index")
                slot.append(f"{k}_s{w}")
        vals = [v]
        if cls == "complex":
            self.stores += [f"  {v}_re = complex.re {v} : {t}", f"  {v}_im = complex.im {v} : {t}"]
            vals = [f"{v}_re", f"{v}_im"]
        for val, at in zip(vals, slot, strict=True):
            et = "f32" if cls == "complex" else t
            b = self.fresh("b")
            if et == "f32":
                self.stores += [f"  {b}_a = arith.bitcast {val} : f32 to i32",
                                f"  {b} = arith.extui {b}_a : i32 to i64"]
            elif et == "f64":
                self.stores.append(f"  {b} = arith.bitcast {val} : f64 to i64")
            elif et == "i64":
                b = val
            else:
                self.stores.append(f"  {b} = arith.extsi {val} : {et} to i64")
            self.stores.append(f"  memref.store {b}, %out[{at}] : memref<NSLOTSxi64>")
        if n is not None:
            self.stores.append("  }")
        self.nslots += count * width
        self.slots.append(Slot(name, tname, expected, count))

    def text(self) -> str:
        consts = self._consts
        body = (["func.func @main() {"] + consts
                + [f"  %out = memref.alloc() : memref<{self.nslots}xi64>"]
                + self.main + self.stores
                + [f'  %u = "memref.cast"(%out) : (memref<{self.nslots}xi64>) -> memref<*xi64>',
                   "  func.call @printMemrefI64(%u) : (memref<*xi64>) -> ()",
                   "  func.return", "}",
                   "func.func private @printMemrefI64(memref<*xi64>)"])
        text = "\n".join(self.globals_ + list(self.recipes.values()) + body)
        return text.replace("NSLOTS", str(self.nslots))

    # ---- constructs

    def parallel(self, body: list[str], *, ng: int = NG, nw: int = NW, vl: int = VL,
                 private: list[tuple[str, str]] = (), reduction: list[tuple[str, str]] = ()
                 ) -> None:
        def c32(v: int) -> str:
            name = f"%k{v}"
            line = f"  {name} = arith.constant {v} : i32"
            if line not in self._consts:
                self._consts.append(line)
            return name

        clauses = f"num_gangs({{{c32(ng)} : i32}}) num_workers({c32(nw)} : i32)"
        if private:
            clauses += (f" private({', '.join(v for v, _ in private)} : "
                        f"{', '.join(t for _, t in private)})")
        clauses += f" vector_length({c32(vl)} : i32)"
        if reduction:
            clauses += (f" reduction({', '.join(v for v, _ in reduction)} : "
                        f"{', '.join(t for _, t in reduction)})")
        self.main += [f"  acc.parallel {clauses} {{", *("    " + b for b in body),
                      "    acc.yield", "  }"]

    def private_var(self, tname: str, name: str) -> str:
        """An ``acc.private`` of a host scratch scalar (the recipe allocates a new one)."""
        t = TYPES[tname][0]
        h, p = self.fresh("h"), self.fresh("priv")
        self.recipes.setdefault(f"priv_{tname}", "\n".join([
            f"acc.private.recipe @priv_{tname} : memref<{t}> init {{",
            f"^bb0(%arg0: memref<{t}>):",
            f"  %p = memref.alloca() : memref<{t}>",
            f"  acc.yield %p : memref<{t}>",
            "}"]))
        self.main += [f"  {h} = memref.alloca() : memref<{t}>",
                      f"  {p} = acc.private varPtr({h} : memref<{t}>) recipe(@priv_{tname}) "
                      f'-> memref<{t}> {{name = "{name}"}}']
        return p


def loop(levels: str, n: int, iv: str, body: list[str], *, reds: list[tuple[str, str]] = (),
         private: list[tuple[str, str]] = (), prog: Program) -> list[str]:
    """``acc.loop <levels> [private] [reduction] control(iv) = (0) to (n) step (1)``."""
    head = "acc.loop" + "".join(f" {lv}" for lv in levels.split())
    attrs_ = INDEP if levels else "attributes {seq = [#acc.device_type<none>]}"
    if private:
        head += f" private({', '.join(v for v, _ in private)} : {', '.join(t for _, t in private)})"
    if reds:
        head += f" reduction({', '.join(v for v, _ in reds)} : {', '.join(t for _, t in reds)})"
    zero, one, ub = prog.index(0), prog.index(1), prog.index(n)
    return [f"{head} control({iv} : index) = ({zero} : index) to ({ub} : index) "
            f"step ({one} : index) {{", *("  " + b for b in body), "  acc.yield",
            f"}} {attrs_}"]


def accumulate(prog: Program, op: str, tname: str, var: str, xs: list[str], idx: str, n: int,
               tag: str) -> list[str]:
    """Body lines: ``var = var OP x[idx]``."""
    t = TYPES[tname][0]
    return [*prog.load(xs, tname, idx, n, f"%x{tag}"),
            f"%a{tag} = memref.load {var}[] : memref<{t}>",
            *_combine(op, t, f"%a{tag}", f"%x{tag}", f"%s{tag}"),
            f"memref.store %s{tag}, {var}[] : memref<{t}>"]


def _values(op: str, tname: str, k: np.ndarray) -> np.ndarray:
    t, cls, dt = TYPES[tname]
    v = data(op, cls, k)
    return v.astype(np.complex64) if cls == "complex" else v.astype(dt)


# ---------------------------------------------------------------------------------------
# the programs


N_GANG = 100  # + over 1..100 = 5050
N_GWV = 1100  # 1024 positions: one full round and a guarded remainder
ROWS, M = 8, 100  # private-row sweeps: one row per gang, 100 columns


def sweep_copy(prog: Program, tname: str, levels: str, n: int) -> None:
    """One loop at ``levels`` reducing every operator of the type into copy objects."""
    t, cls, _ = TYPES[tname]
    k = np.arange(n)
    reds, body = [], []
    for j, op in enumerate(OPS[cls]):
        vals = _values(op, tname, k)
        xs = prog.input(vals, tname)
        var = prog.scalar(tname, start(op, cls))
        red = prog.copy_reduction(op, tname, var, f"{op}_{tname}")
        reds.append((red, f"memref<{t}>"))
        body += accumulate(prog, op, tname, red, xs, "%i", n, f"{j}")
        want = fold(op, tname, start(op, cls), vals)
        prog.result(f"{levels} {op} {tname}", tname, var, None, lambda _t, w=want: w)
    prog.parallel(loop(levels, n, "%i", body, reds=reds, prog=prog))


def sweep_private(prog: Program, tname: str, levels: str) -> None:
    """A gang loop over rows; per row a private variable per operator, reduced by an inner
    loop at ``levels`` (worker, vector, worker vector) and stored to out[row]."""
    t, cls, _ = TYPES[tname]
    k = np.arange(ROWS * M).reshape(ROWS, M)
    privs, inner_reds, inner, after, init = [], [], [], [], []
    for j, op in enumerate(OPS[cls]):
        vals = _values(op, tname, k)
        xs = prog.input(vals.ravel(), tname)
        p = prog.private_var(tname, f"t_{op}")
        privs.append((p, f"memref<{t}>"))
        out = prog.array(tname, ROWS)
        init += [f"%st{j} = {_const(t, start(op, cls))}",
                 f"memref.store %st{j}, {p}[] : memref<{t}>",
                 f"%rr{j} = acc.reduction varPtr({p} : memref<{t}>) "
                 f"recipe({prog.recipe(op, tname)}) -> memref<{t}>"]
        inner_reds.append((f"%rr{j}", f"memref<{t}>"))
        inner += accumulate(prog, op, tname, f"%rr{j}", xs, "%ix", ROWS * M, f"{j}")
        after += [f"%fv{j} = memref.load {p}[] : memref<{t}>",
                  f"memref.store %fv{j}, {out}[%row] : memref<{ROWS}x{t}>"]
        want = np.array([fold(op, tname, start(op, cls), vals[r]) for r in range(ROWS)])
        prog.result(f"{levels} private {op} {tname}", tname, out, ROWS, lambda _t, w=want: w)
    m = prog.index(M)
    body = [*init,
            *loop(levels, M, "%col", [f"%rm = arith.muli %row, {m} : index",
                                      "%ix = arith.addi %rm, %col : index", *inner],
                  reds=inner_reds, prog=prog),
            *after]
    prog.parallel(loop("gang", ROWS, "%row", body, private=privs, prog=prog))


def build_sweep(tnames: tuple[str, ...]) -> Program:
    prog = Program()
    for tname in tnames:
        sweep_copy(prog, tname, "gang", N_GANG)
        sweep_copy(prog, tname, "gang worker vector", N_GWV)
        for levels in ("worker", "vector"):  # worker vector: see build_nestings
            sweep_private(prog, tname, levels)
    return prog


# reduction-7 style nestings: i64 sums of x[k] = (7k mod 13) + 1 over 1024 elements
NEST = 1024
X7 = ((np.arange(NEST) * 7) % 13 + 1).astype(np.int64)
R0 = 11


def build_nestings() -> Program:
    prog = Program()
    xs = prog.input(X7, "i64")
    x = xs[0]
    ld = f"memref<{NEST}xi64>"

    def add(var: str, idx: str, tag: str) -> list[str]:
        return [f"%x{tag} = memref.load {x}[{idx}] : {ld}",
                f"%a{tag} = memref.load {var}[] : memref<i64>",
                f"%s{tag} = arith.addi %a{tag}, %x{tag} : i64",
                f"memref.store %s{tag}, {var}[] : memref<i64>"]

    total = int(X7.sum())

    def np_case(name: str, body_of: Callable[[str], list[str]], gangs_all: bool = False,
                total_of: int = total):
        var = prog.scalar("i64", R0)
        red = prog.copy_reduction("add", "i64", var, name)
        prog.parallel(body_of(red))
        # a loop that is not gang-partitioned runs in every gang (gang-redundant mode)
        prog.result(name, "i64", var, None,
                    lambda t: R0 + total_of * (GANGS[t] if gangs_all else 1))

    for lv in ("gang", "gang vector", "gang worker", "gang worker vector"):
        np_case(f"{lv} np", lambda r, lv=lv: loop(
            lv, NEST, "%i", add(r, "%i", "0"), reds=[(r, "memref<i64>")], prog=prog))
    for lv in ("worker", "vector", "worker vector"):
        np_case(f"{lv} np (every gang)", lambda r, lv=lv: loop(
            lv, NEST, "%i", add(r, "%i", "0"), reds=[(r, "memref<i64>")], prog=prog),
            gangs_all=True)
    c32, c128 = prog.index(32), prog.index(128)
    c16 = prog.index(16)
    idx32 = [f"%jr = arith.muli %j, {c32} : index", "%ix = arith.addi %jr, %i : index"]
    # gang loop reducing, inner worker vector loop reducing the same copy object
    np_case("gang > worker vector np", lambda r: loop(
        "gang", 32, "%j", loop("worker vector", 32, "%i", idx32 + add(r, "%ix", "0"),
                               reds=[(r, "memref<i64>")], prog=prog),
        reds=[(r, "memref<i64>")], prog=prog))
    # gang loop without reduction: the inner worker vector reduction of the copy object gets
    # the dummy gang reduction inside the gang loop
    np_case("gang (no red) > worker vector np", lambda r: loop(
        "gang", 32, "%j", loop("worker vector", 32, "%i", idx32 + add(r, "%ix", "0"),
                               reds=[(r, "memref<i64>")], prog=prog), prog=prog))
    # gang > worker > vector, all reducing the copy object
    np_case("gang > worker > vector np", lambda r: loop(
        "gang", 8, "%j", loop(
            "worker", 8, "%k", loop(
                "vector", 16, "%i",
                [f"%jr = arith.muli %j, {c128} : index", f"%kr = arith.muli %k, {c16} : index",
                 "%jk = arith.addi %jr, %kr : index", "%ix = arith.addi %jk, %i : index",
                 *add(r, "%ix", "0")], reds=[(r, "memref<i64>")], prog=prog),
            reds=[(r, "memref<i64>")], prog=prog),
        reds=[(r, "memref<i64>")], prog=prog))

    # a worker loop with a remainder round (6 rows over 4 workers) around a vector loop: the
    # round runs masked on every work-item; the store of a masked worker must not happen
    c40 = prog.index(40)
    mark = prog.array("i64", 8)
    prog.main += [f"  scf.for %mi = {prog.index(0)} to {prog.index(8)} step {prog.index(1)} {{",
                  f"    %mm = {_const('i64', -1)}",
                  f"    memref.store %mm, {mark}[%mi] : memref<8xi64>", "  }"]
    np_case("worker (remainder) > vector np", lambda r: loop(
        "worker", 6, "%k", [
            f"%k1 = arith.addi %k, {prog.index(1)} : index",
            "%kv = arith.index_cast %k1 : index to i64",
            f"memref.store %kv, {mark}[%k] : memref<8xi64>",
            *loop("vector", 40, "%i", [f"%kr = arith.muli %k, {c40} : index",
                                       "%ix = arith.addi %kr, %i : index",
                                       *add(r, "%ix", "0")],
                  reds=[(r, "memref<i64>")], prog=prog)],
        reds=[(r, "memref<i64>")], prog=prog), gangs_all=True,
        total_of=int(X7[:240].sum()))
    prog.result("worker (remainder) stores", "i64", mark, 8,
                lambda _t: np.array([1, 2, 3, 4, 5, 6, -1, -1]))

    # private results: out[j] = R0 + sum of row j (32 rows of 32)
    rows = X7.reshape(32, 32).sum(1) + R0

    def p_case(name: str, inner: Callable[[str], list[str]]):
        p = prog.private_var("i64", "res")
        out = prog.array("i64", 32)
        rr = "%pr"
        body = [f"%z = {_const('i64', R0)}", f"memref.store %z, {p}[] : memref<i64>",
                f"{rr} = acc.reduction varPtr({p} : memref<i64>) "
                f"recipe({prog.recipe('add', 'i64')}) -> memref<i64>",
                *inner(rr),
                f"%fv = memref.load {p}[] : memref<i64>",
                f"memref.store %fv, {out}[%j] : memref<32xi64>"]
        prog.parallel(loop("gang", 32, "%j", body, private=[(p, "memref<i64>")], prog=prog))
        prog.result(name, "i64", out, 32, lambda _t: rows)

    for lv in ("vector", "worker", "worker vector"):
        p_case(f"{lv} p", lambda r, lv=lv: loop(
            lv, 32, "%i", idx32 + add(r, "%ix", "0"), reds=[(r, "memref<i64>")], prog=prog))
    c8 = prog.index(8)
    p_case("worker > vector p", lambda r: loop(
        "worker", 4, "%k", loop(
            "vector", 8, "%i",
            [f"%jr = arith.muli %j, {c32} : index", f"%kr = arith.muli %k, {c8} : index",
             "%jk = arith.addi %jr, %kr : index", "%ix = arith.addi %jk, %i : index",
             *add(r, "%ix", "0")], reds=[(r, "memref<i64>")], prog=prog),
        reds=[(r, "memref<i64>")], prog=prog))
    return prog


def build_parallel() -> Program:
    """Reductions on the parallel construct: gang-redundant s += 5, p *= 5 (i32 and f64), with
    an inner gang loop reducing s over x as well."""
    prog = Program()
    x = np.arange(300) % 7
    for tname in ("i32", "f64"):
        t = TYPES[tname][0]
        xs = prog.input(x.astype(TYPES[tname][2]), tname)
        s = prog.scalar(tname, 1)
        p = prog.scalar(tname, 2)
        rs = prog.copy_reduction("add", tname, s, "s")
        rp = prog.copy_reduction("mul", tname, p, "p")
        five = _const(t, 5)
        add, mul = ("addi", "muli") if tname == "i32" else ("addf", "mulf")
        body = [f"%f5 = {five}",
                f"%s0 = memref.load {rs}[] : memref<{t}>", f"%s1 = arith.{add} %s0, %f5 : {t}",
                f"memref.store %s1, {rs}[] : memref<{t}>",
                f"%p0 = memref.load {rp}[] : memref<{t}>", f"%p1 = arith.{mul} %p0, %f5 : {t}",
                f"memref.store %p1, {rp}[] : memref<{t}>",
                *loop("gang", 300, "%i", accumulate(prog, "add", tname, rs, xs, "%i", 300, "g"),
                      reds=[(rs, f"memref<{t}>")], prog=prog)]
        prog.parallel(body, reduction=[(rs, f"memref<{t}>"), (rp, f"memref<{t}>")])
        prog.result(f"parallel + {tname}", tname, s,
                    None, lambda tg: 1 + 5 * GANGS[tg] + int(x.sum()))
        prog.result(f"parallel * {tname}", tname, p, None, lambda tg: 2 * 5 ** GANGS[tg])
    # reduction on the parallel construct with an inner worker vector loop of the same
    # variable: the inner RESULT is the parallel's private LOCAL (no dummy gang level)
    xs = prog.input(x.astype(np.int64), "i64")
    s = prog.scalar("i64", 7)
    rs = prog.copy_reduction("add", "i64", s, "s")
    body = ["%f5 = arith.constant 5 : i64", f"%s0 = memref.load {rs}[] : memref<i64>",
            "%s1 = arith.addi %s0, %f5 : i64", f"memref.store %s1, {rs}[] : memref<i64>",
            *loop("worker vector", 300, "%i",
                  accumulate(prog, "add", "i64", rs, xs, "%i", 300, "w"),
                  reds=[(rs, "memref<i64>")], prog=prog)]
    prog.parallel(body, reduction=[(rs, "memref<i64>")])
    prog.result("parallel + i64 > worker vector", "i64", s, None,
                lambda tg: 7 + GANGS[tg] * (5 + int(x.sum())))
    # acc.serial: one gang on both targets
    xs = prog.input(x.astype(np.int32), "i32")
    s = prog.scalar("i32", 4)
    rs = prog.copy_reduction("add", "i32", s, "s")
    body = ["%f5 = arith.constant 5 : i32", "%s0 = memref.load {rs}[] : memref<i32>",
            "%s1 = arith.addi %s0, %f5 : i32", "memref.store %s1, {rs}[] : memref<i32>",
            *loop("", 300, "%i", accumulate(prog, "add", "i32", rs, xs, "%i", 300, "q"),
                  prog=prog)]
    prog.main += [f"  acc.serial reduction({rs} : memref<i32>) {{",
                  *("    " + line.replace("{rs}", rs) for line in body), "    acc.yield", "  }"]
    prog.result("serial + i32", "i32", s, None, lambda _tg: 4 + 5 + int(x.sum()))
    return prog


SCHEDULES = ("gang", "worker", "vector", "gang worker", "gang vector", "worker vector",
             "gang worker vector")
N_SCHED = 1500


def schedule_sum(levels: str, target: str) -> int:
    """The loop-red sum. Gangs take contiguous chunks of ceil(n / gangs) iterations; inside
    its chunk (or the whole range without gang) of m iterations, workers take contiguous
    chunks of ceil(m / (workers * vl)) whole vector rounds (vl = 1 without vector), and
    iteration j of a worker's chunk (or of the gang's, without worker) runs on lane j mod vl."""
    lv = levels.split()
    if target == "host":
        return sum((i + 1) * 4096 for i in range(N_SCHED))
    vl = VL if "vector" in lv else 1
    chunk = -(-N_SCHED // NG) if "gang" in lv else N_SCHED
    total = 0
    gangs = [None] if "gang" in lv else list(range(NG))
    for g_fixed in gangs:
        for i in range(N_SCHED):
            g = i // chunk if g_fixed is None else g_fixed
            j = i % chunk
            m = min(chunk, N_SCHED - (i // chunk) * chunk)  # this gang's iterations
            worker = 0
            if "worker" in lv:
                wchunk = -(-m // (NW * vl)) * vl
                worker, j = j // wchunk, j % wchunk
            total += (i + 1) * 4096 + g * 128 + worker * 32 + j % vl
    return total


def build_schedule() -> Program:
    prog = Program()
    c4096, c128, c32 = prog.index(4096), prog.index(128), prog.index(32)
    c1 = prog.index(1)
    for levels in SCHEDULES:
        var = prog.scalar("i64", 0)
        red = prog.copy_reduction("add", "i64", var, "sum")
        body = ["%g = mux.get_group_id 0 : index", "%w = mux.get_local_id 1 : index",
                "%l = mux.get_local_id 0 : index", f"%gc = arith.muli %g, {c128} : index",
                f"%wc = arith.muli %w, {c32} : index", "%e1 = arith.addi %gc, %wc : index",
                "%e = arith.addi %e1, %l : index", f"%i1 = arith.addi %i, {c1} : index",
                f"%ic = arith.muli %i1, {c4096} : index", "%vi = arith.addi %ic, %e : index",
                "%v = arith.index_cast %vi : index to i64",
                f"%a = memref.load {red}[] : memref<i64>", "%s = arith.addi %a, %v : i64",
                f"memref.store %s, {red}[] : memref<i64>"]
        prog.parallel(loop(levels, N_SCHED, "%i", body, reds=[(red, "memref<i64>")], prog=prog))
        prog.result(f"schedule {levels}", "i64", var, None,
                    lambda tg, lv=levels: schedule_sum(lv, tg))
    return prog


# ---------------------------------------------------------------------------------------
# running and checking

BUILDERS: dict[str, Callable[[], Program]] = {
    "sweep": lambda: build_sweep(SWEEP_TYPES),
    "nestings": build_nestings,
    "parallel": build_parallel,
    "schedule": build_schedule,
}


def _decode(tname: str, bits: list[int]):
    t, cls, dt = TYPES[tname]
    a = np.array(bits, dtype=np.int64)
    if cls == "complex":
        f = (a & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
        return f[0::2] + 1j * f[1::2]
    if t == "f32":
        return (a & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    if t == "f64":
        return a.view(np.float64)
    return a


def run(prog: Program, target: str, capfd) -> list[tuple[Slot, np.ndarray]]:
    from xmux.runner import HostProgram

    HostProgram(prog.text(), oacc_target=target).run_main()
    out = capfd.readouterr().out
    m = re.search(r"data = \s*\[(.*?)\]", out, re.S)
    assert m is not None, out
    bits = [int(v) for v in m.group(1).replace("\n", " ").split(",")]
    assert len(bits) == prog.nslots
    got, pos = [], 0
    for slot in prog.slots:
        width = 2 if TYPES[slot.tname][1] == "complex" else 1
        vals = _decode(slot.tname, bits[pos: pos + slot.count * width])
        pos += slot.count * width
        got.append((slot, vals))
    return got


def check(results: list[tuple[Slot, np.ndarray]], target: str) -> None:
    bad = []
    for slot, vals in results:
        want = np.atleast_1d(np.asarray(slot.expected(target)))
        cls = TYPES[slot.tname][1]
        if cls == "int":
            ok = np.array_equal(vals.astype(np.int64), want.astype(np.int64))
        else:
            rtol = 1e-12 if slot.tname == "f64" else 1e-6
            ok = np.allclose(vals, want, rtol=rtol, atol=0)
        if not ok:
            bad.append(f"{slot.name}: got {vals}, want {want}")
    assert not bad, f"{len(bad)} wrong result(s) on {target}:\n" + "\n".join(bad)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("which", list(BUILDERS))
def test_openacc(which: str, target: str, capfd) -> None:
    prog = BUILDERS[which]()
    check(run(prog, target, capfd), target)


def test_reference_values() -> None:
    """The sequential reference itself: + over 1..100 and the nesting totals."""
    assert fold("add", "i32", 0, data("add", "int", np.arange(100))) == 5050
    assert fold("iand", "i32", -1, np.array([6, 3])) == 2
    assert fold("land", "f32", 5, np.array([1.0, 0.0])) == 0.0
    assert schedule_sum("gang", "host") == 4096 * N_SCHED * (N_SCHED + 1) // 2



UNSIGNED_REDUCTION = """module {
  acc.reduction.recipe @KIND_i32 : memref<i32> reduction_operator <OPK> init {
  ^bb0(%arg0: memref<i32>):
    %id = arith.constant IDENT : i32
    %p = memref.alloca() : memref<i32>
    memref.store %id, %p[] : memref<i32>
    acc.yield %p : memref<i32>
  } combiner {
  ^bb0(%a: memref<i32>, %b: memref<i32>):
    %0 = memref.load %a[] : memref<i32>
    %1 = memref.load %b[] : memref<i32>
    %2 = arith.COMB %0, %1 : i32
    memref.store %2, %a[] : memref<i32>
    acc.yield %a : memref<i32>
  }
  "memref.global"() <{sym_name = "vals", sym_visibility = "private", type = memref<6xi32>,
      initial_value = dense<[0, -1294967296, 7, 1, -5, 2000000000]> : tensor<6xi32>,
      constant}> : () -> ()
  func.func private @printMemrefI32(memref<*xi32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 6 : index
    %ng = arith.constant 2 : i32
    %vl = arith.constant VL : i32
    %x = memref.alloc(%n) : memref<?xi32>
    %g = memref.get_global @vals : memref<6xi32>
    %r = memref.alloc() : memref<i32>
    %start = arith.constant START : i32
    memref.store %start, %r[] : memref<i32>
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %g[%i] : memref<6xi32>
      memref.store %v, %x[%i] : memref<?xi32>
    }
    %xin = acc.copyin varPtr(%x : memref<?xi32>) -> memref<?xi32> {name = "x"}
    %s = acc.copyin varPtr(%r : memref<i32>) -> memref<i32>
        {dataClause = #acc<data_clause acc_copy>, name = "r"}
    %red = acc.reduction varPtr(%s : memref<i32>) recipe(@KIND_i32) -> memref<i32>
        {name = "r"}
    acc.parallel dataOperands(%xin, %s : memref<?xi32>, memref<i32>) num_gangs({%ng : i32})
        vector_length(%vl : i32) {
      acc.loop gang vector reduction(%red : memref<i32>) control(%i : index) = (%c0 : index)
          to (%n : index) step (%c1 : index) {
        %v = memref.load %xin[%i] : memref<?xi32>
        %acc = memref.load %red[] : memref<i32>
        %t = arith.COMB %acc, %v : i32
        memref.store %t, %red[] : memref<i32>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    acc.copyout accPtr(%s : memref<i32>) to varPtr(%r : memref<i32>)
        {dataClause = #acc<data_clause acc_copy>, name = "r"}
    %u = "memref.cast"(%r) : (memref<i32>) -> memref<*xi32>
    func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    func.return
  }
}
"""


@pytest.mark.parametrize("target", ["cpu", "host"])
@pytest.mark.parametrize("vl", [1, 32])
@pytest.mark.parametrize(
    "opk,comb,ident,name,want",
    [
        ("max", "maxui", "0", "umax", 4294967291),  # -5 read unsigned
        ("min", "minui", "-1", "umin", 0),
        ("max", "maxsi", "-2147483648", "smax", 2000000000),
        ("min", "minsi", "2147483647", "smin", -1294967296),  # 3000000000u read signed
    ],
)
def test_max_min_reductions_follow_the_recipe_combiner(tmp_path, capsys, target, vl, opk, comb,
                                                       ident, name, want):
    """Upstream's operator enum has one max and one min; an arith.maxui / minui combiner makes
    the reduction unsigned (it reduced signed: {0, 3000000000u} gave 0)."""
    from xmux import runner

    src = (UNSIGNED_REDUCTION.replace("OPK", opk).replace("KIND", name).replace("COMB", comb)
           .replace("IDENT", ident).replace("START", ident).replace("VL", str(vl)))
    path = tmp_path / "red.mlir"
    path.write_text(src)
    assert runner.main([f"--oacc-target={target}", str(path)]) == 0
    out = capsys.readouterr().out.strip().splitlines()[-1]
    assert out == f"[{np.int32(np.uint32(want & 0xFFFFFFFF))}]"


def _logical_reduction(pred: str, opk: str, start: int, vl: int) -> str:
    """UNSIGNED_REDUCTION with Fortran's .eqv. / .neqv. (on i32 logicals) as the operation."""
    def logic(a: str, b: str, out: str) -> str:
        return (f"%z_{out} = arith.constant 0 : i32\n"
                f"    %a_{out} = arith.cmpi ne, {a}, %z_{out} : i32\n"
                f"    %b_{out} = arith.cmpi ne, {b}, %z_{out} : i32\n"
                f"    %e_{out} = arith.cmpi {pred}, %a_{out}, %b_{out} : i1\n"
                f"    %{out} = arith.extui %e_{out} : i1 to i32")
    src = UNSIGNED_REDUCTION.replace("%2 = arith.COMB %0, %1 : i32", logic("%0", "%1", "2"))
    src = src.replace("%t = arith.COMB %acc, %v : i32", logic("%acc", "%v", "t"))
    ident = "1" if opk == "eqv" else "0"
    return (src.replace("OPK", opk).replace("KIND", opk).replace("IDENT", ident)
            .replace("START", str(start)).replace("VL", str(vl)))


@pytest.mark.parametrize("target", ["cpu", "host"])
@pytest.mark.parametrize("vl", [1, 32])
@pytest.mark.parametrize("opk,pred", [("eqv", "eq"), ("neqv", "ne")])
@pytest.mark.parametrize("start", [0, 1, 9])
def test_eqv_and_neqv_reductions(tmp_path, capsys, target, vl, opk, pred, start):
    """.eqv. / .neqv. reductions (they were rejected): the logical equivalence / difference of
    the initial value and every element, non-zero being true, the result 0 or 1."""
    from xmux import runner

    values = [0, -1294967296, 7, 1, -5, 2000000000]
    want = bool(start)
    for v in values:
        want = (want == bool(v)) if opk == "eqv" else (want != bool(v))
    path = tmp_path / "red.mlir"
    path.write_text(_logical_reduction(pred, opk, start, vl))
    assert runner.main([f"--oacc-target={target}", str(path)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"[{int(want)}]"
