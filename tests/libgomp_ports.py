"""Builder and runner for the ports of GCC's libgomp OpenACC tests
(libgomp/testsuite/libgomp.oacc-c-c++-common) as upstream-MLIR ``acc`` programs.

A port is one module: host arrays and copy objects, ``acc.parallel`` / ``acc.serial``
constructs written the way a front end would write the C test's pragmas, and an ``@main`` that
stores every result as i64 bit patterns into one memref printed by ``printMemrefI64``. Each
result carries the value the C test's own sequential check computes (a Python model of the C
code) for the module's configuration: the expansion target (``host`` runs one gang of one
work-item, as libgomp's host fallback) and the ``num_workers`` / ``vector_length`` each
construct takes from the ``DIMS`` rotation where the C test fixes its own.

Usage::

    m = Module(cfg)
    res = m.scalar("i32", 0)
    red = m.reduction(m.copy(res, "i32"), "add", "i32")
    nw, vl = m.dims()
    m.parallel(loop(m, "gang", 100, "%i", [...], reds=[red]), ng=8, nw=nw, vl=vl)
    m.result("sum", res, "i32", None, 5050)
    check(m)

The programs are ours; only the tests' facts (data, clauses, expected values) carry over.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass, field

import numpy as np

#: short name -> (MLIR type, numpy dtype)
TYPES: dict[str, tuple[str, type]] = {
    "i1": ("i1", np.bool_),
    "i32": ("i32", np.int32),
    "i64": ("i64", np.int64),
    "f32": ("f32", np.float32),
    "f64": ("f64", np.float64),
    "c32": ("complex<f32>", np.complex64),
    "c64": ("complex<f64>", np.complex128),
}


def mlir_type(t: str) -> str:
    return TYPES[t][0]


def is_complex(t: str) -> bool:
    return t.startswith("c")


def is_float(t: str) -> bool:
    return t.startswith("f")


def part_type(t: str) -> str:
    """The element type of a complex type (``c32`` -> ``f32``), else ``t``."""
    return {"c32": "f32", "c64": "f64"}.get(t, t)


#: (num_workers, vector_length) pairs the ports rotate through: vector lengths 1, 8, 32, 128
#: and worker counts 1, 2, 3, 4, 8 (at most 1024 work-items per gang)
DIMS = [(4, 1), (2, 8), (4, 32), (1, 128), (8, 32), (3, 8), (2, 128), (8, 1)]


@dataclass(frozen=True)
class Config:
    """One run of a port: the expansion target and where the construct sizes start in
    ``DIMS``. Construct k of a module takes ``DIMS[(shift + k) % len(DIMS)]`` where the C test
    writes its own num_workers / vector_length, so one compiled module covers several sizes and
    two shifts give every construct two of them."""

    target: str  # cpu | host | nvptx (the cpu expansion's sizes, kernels on the GPU)
    shift: int = 0

    def gangs(self, ng: int) -> int:
        """Gangs that run gang-redundant code (host: one)."""
        return 1 if self.target == "host" else ng

    def __str__(self) -> str:
        return self.target if self.target == "host" else f"{self.target}{self.shift}"


#: cpu at two rotations of DIMS, and the host target (one work-item: sizes do not matter)
CONFIGS = [Config("cpu", 0), Config("cpu", 3), Config("host")]
#: the same rotations with the kernels on the GPU (tests/test_nvptx_openacc.py)
GPU_CONFIGS = [Config("nvptx", 0), Config("nvptx", 3)]


def const(t: str, v) -> str:
    """``arith.constant`` / ``complex.constant`` text of ``v`` of type ``t``."""
    mt = mlir_type(t)
    if is_complex(t):
        e = part_type(t)
        return f"complex.constant [{float(np.real(v))!r} : {e}, {float(np.imag(v))!r} : {e}] : {mt}"
    if t == "i1":
        return f"arith.constant {'true' if v else 'false'}"
    if is_float(t):
        if np.isinf(v):
            bits = {"f32": 0x7F800000, "f64": 0x7FF0000000000000}[t]
            sign = {"f32": 1 << 31, "f64": 1 << 63}[t] if v < 0 else 0
            return f"arith.constant {hex(bits | sign)} : {mt}"
        return f"arith.constant {float(v)!r} : {mt}"
    return f"arith.constant {int(v)} : {mt}"


#: upstream reduction operator -> identity
def identity(op: str, t: str):
    if op in ("add", "ior", "xor", "lor", "neqv"):
        return 0
    if op in ("mul", "land", "eqv"):
        return 1
    if op == "iand":
        return -1
    if is_float(t):
        return -np.inf if op == "max" else np.inf
    info = np.iinfo(TYPES[t][1])
    return info.min if op == "max" else info.max


def combine(op: str, t: str, a: str, b: str, out: str) -> list[str]:
    """``out = a OP b`` as the C operator computes it (``&&`` / ``||`` give 0 or 1; max / min
    as the C tests' ``a > b ? a : b`` macros)."""
    mt = mlir_type(t)
    if is_complex(t):
        return [f"{out} = complex.{op} {a}, {b} : {mt}"]
    flt = is_float(t)
    if op in ("land", "lor"):
        logic = "andi" if op == "land" else "ori"
        zero = const(t, 0)
        ne = "arith.cmpf une" if flt else "arith.cmpi ne"
        return [f"{out}_z = {zero}", f"{out}_o = {const(t, 1)}",
                f"{out}_a = {ne}, {a}, {out}_z : {mt}", f"{out}_b = {ne}, {b}, {out}_z : {mt}",
                f"{out}_c = arith.{logic} {out}_a, {out}_b : i1",
                f"{out} = arith.select {out}_c, {out}_o, {out}_z : {mt}"]
    if op in ("max", "min"):
        pred = ("ogt" if op == "max" else "olt") if flt else ("sgt" if op == "max" else "slt")
        cmp = "arith.cmpf" if flt else "arith.cmpi"
        return [f"{out}_c = {cmp} {pred}, {a}, {b} : {mt}",
                f"{out} = arith.select {out}_c, {a}, {b} : {mt}"]
    names = ({"add": "addf", "mul": "mulf"} if flt else
             {"add": "addi", "mul": "muli", "iand": "andi", "ior": "ori", "xor": "xori"})
    return [f"{out} = arith.{names[op]} {a}, {b} : {mt}"]


def recipe_combiner(op: str, t: str, a: str, b: str, out: str) -> list[str]:
    """The combiner a front end writes into the recipe (max / min as arith ops)."""
    mt = mlir_type(t)
    if op in ("max", "min") and not is_complex(t):
        name = ({"max": "maximumf", "min": "minimumf"} if is_float(t)
                else {"max": "maxsi", "min": "minsi"})[op]
        return [f"{out} = arith.{name} {a}, {b} : {mt}"]
    return combine(op, t, a, b, out)


def fold(op: str, t: str, init, values) -> object:
    """``init OP v0 OP v1 ...`` in C's order; integers wrap at the type's width, f32 rounds
    every step (numpy scalars)."""
    dt = TYPES[t][1]
    acc = dt(init)
    with np.errstate(over="ignore"):
        for v in np.asarray(values, dtype=dt).ravel():
            if op == "add":
                acc = dt(acc + v)
            elif op == "mul":
                acc = dt(acc * v)
            elif op == "max":
                acc = acc if acc > v else v
            elif op == "min":
                acc = acc if acc < v else v
            elif op == "iand":
                acc = dt(acc & v)
            elif op == "ior":
                acc = dt(acc | v)
            elif op == "xor":
                acc = dt(acc ^ v)
            elif op == "land":
                acc = dt(1 if (acc != 0 and v != 0) else 0)
            elif op == "lor":
                acc = dt(1 if (acc != 0 or v != 0) else 0)
            else:
                raise AssertionError(op)
    return acc


INDEPENDENT = "attributes {independent = [#acc.device_type<none>]}"
SEQ = "attributes {seq = [#acc.device_type<none>]}"


@dataclass
class Result:
    name: str
    t: str
    count: int  # elements (1 for a scalar)
    expected: object
    rtol: float = 0.0  # 0: bit-exact (floats compared as values)


@dataclass
class Module:
    """One port module under construction (see the module docstring)."""

    cfg: Config
    globals_: list[str] = field(default_factory=list)
    recipes: dict[str, str] = field(default_factory=dict)
    consts: list[str] = field(default_factory=list)
    main: list[str] = field(default_factory=list)
    stores: list[str] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    nslots: int = 0
    n: int = 0
    constructs: int = 0

    def dims(self) -> tuple[int, int]:
        """(num_workers, vector_length) for the next construct (see ``Config``)."""
        self.constructs += 1
        return DIMS[(self.cfg.shift + self.constructs - 1) % len(DIMS)]

    # ---- names and constants

    def fresh(self, base: str) -> str:
        self.n += 1
        return f"%{base}{self.n}"

    def _const(self, name: str, text: str) -> str:
        line = f"  {name} = {text}"
        if line not in self.consts:
            self.consts.append(line)
        return name

    def idx(self, v: int) -> str:
        return self._const(f"%c{v}" if v >= 0 else f"%cm{-v}", f"arith.constant {v} : index")

    def i32(self, v: int) -> str:
        return self._const(f"%w{v}", f"arith.constant {v} : i32")

    # ---- host data

    def _global(self, arr: np.ndarray, t: str) -> str:
        g = f"g{len(self.globals_)}"
        mt = f"memref<{arr.size}x{mlir_type(t)}>"
        if is_float(t):
            vals = ", ".join(repr(float(v)) for v in arr.ravel())
        else:
            vals = ", ".join(str(int(v)) for v in arr.ravel())
        self.globals_.append(
            f'"memref.global"() <{{sym_name = "{g}", sym_visibility = "private", type = {mt}, '
            f"initial_value = dense<[{vals}]> : tensor<{arr.size}x{mlir_type(t)}>, constant}}>"
            " : () -> ()")
        return g

    def array(self, values, t: str) -> str:
        """A writable host ``memref<N x T>`` holding ``values`` (copied from a global)."""
        arr = np.asarray(values).ravel()
        n = arr.size
        mt = f"memref<{n}x{mlir_type(t)}>"
        v = self.fresh("a")
        self.main.append(f"  {v} = memref.alloc() : {mt}")
        parts = [arr.real, arr.imag] if is_complex(t) else [arr]
        pt = part_type(t)
        gs = []
        for p in parts:
            g = self._global(np.asarray(p, dtype=TYPES[pt][1]), pt)
            gv = self.fresh("g")
            self.main.append(f"  {gv} = memref.get_global @{g} : memref<{n}x{mlir_type(pt)}>")
            gs.append(gv)
        k = self.fresh("k")
        self.main.append(f"  scf.for {k} = {self.idx(0)} to {self.idx(n)} step {self.idx(1)} {{")
        loads = [f"{k}_{j}" for j in range(len(gs))]
        for lv, gv in zip(loads, gs, strict=True):
            self.main.append(f"    {lv} = memref.load {gv}[{k}] : memref<{n}x{mlir_type(pt)}>")
        val = loads[0]
        if is_complex(t):
            val = f"{k}_c"
            self.main.append(f"    {val} = complex.create {loads[0]}, {loads[1]} : {mlir_type(t)}")
        self.main += [f"    memref.store {val}, {v}[{k}] : {mt}", "  }"]
        return v

    def filled(self, n: int, t: str, fn) -> str:
        """A host ``memref<N x T>`` filled by ``@main``: element k is ``fn(k, out)``'s value
        (``fn`` returns the lines computing ``out`` from the index ``k``); big inputs without
        big constants to parse."""
        mt = f"memref<{n}x{mlir_type(t)}>"
        v, k = self.fresh("a"), self.fresh("k")
        self.main += [f"  {v} = memref.alloc() : {mt}",
                      f"  scf.for {k} = {self.idx(0)} to {self.idx(n)} step {self.idx(1)} {{",
                      *("    " + s for s in fn(k, f"{k}_v")),
                      f"    memref.store {k}_v, {v}[{k}] : {mt}", "  }"]
        return v

    def scalar(self, t: str, init) -> str:
        """A host copy object ``memref<T>`` initialised to ``init``."""
        v = self.fresh("s")
        mt = mlir_type(t)
        self.main += [f"  {v} = memref.alloc() : memref<{mt}>", f"  {v}_i = {const(t, init)}",
                      f"  memref.store {v}_i, {v}[] : memref<{mt}>"]
        return v

    # ---- data clauses, recipes

    def recipe(self, op: str, t: str) -> str:
        name = f"@red_{op}_{t}"
        if name not in self.recipes:
            m = f"memref<{mlir_type(t)}>"
            self.recipes[name] = "\n".join([
                f"acc.reduction.recipe {name} : {m} reduction_operator <{op}> init {{",
                f"^bb0(%arg0: {m}):",
                f"  %id = {const(t, identity(op, t))}",
                f"  %p = memref.alloca() : {m}",
                f"  memref.store %id, %p[] : {m}",
                f"  acc.yield %p : {m}",
                "} combiner {",
                f"^bb0(%x: {m}, %y: {m}):",
                f"  %a = memref.load %x[] : {m}",
                f"  %b = memref.load %y[] : {m}",
                *("  " + s for s in recipe_combiner(op, t, "%a", "%b", "%c")),
                f"  memref.store %c, %x[] : {m}",
                f"  acc.yield %x : {m}",
                "}"])
        return name

    def copy(self, var: str, t: str, name: str = "v") -> str:
        """``acc.copyin`` with the copy data clause of a host scalar; the device value."""
        c = self.fresh("cp")
        mt = f"memref<{mlir_type(t)}>"
        self.main.append(f"  {c} = acc.copyin varPtr({var} : {mt}) -> {mt} "
                         f'{{dataClause = #acc<data_clause acc_copy>, name = "{name}"}}')
        return c

    def reduction(self, var: str, op: str, t: str, name: str = "r", where: list[str] | None = None
                  ) -> str:
        """``acc.reduction`` of ``var`` (host lines, or the lines ``where``: inside a region)."""
        r = self.fresh("red")
        mt = f"memref<{mlir_type(t)}>"
        line = (f"{r} = acc.reduction varPtr({var} : {mt}) recipe({self.recipe(op, t)}) "
                f'-> {mt} {{name = "{name}"}}')
        (self.main if where is None else where).append(("  " if where is None else "") + line)
        return r

    def private(self, t: str, shape: tuple[int, ...] = (), name: str = "p") -> str:
        """``acc.private`` of a host scratch variable (``memref<T>`` or ``memref<shape x T>``)."""
        mt = "memref<" + "".join(f"{d}x" for d in shape) + mlir_type(t) + ">"
        rname = f"@priv_{t}_{'x'.join(map(str, shape)) or 's'}"
        self.recipes.setdefault(rname, "\n".join([
            f"acc.private.recipe {rname} : {mt} init {{",
            f"^bb0(%arg0: {mt}):",
            f"  %p = memref.alloca() : {mt}",
            f"  acc.yield %p : {mt}", "}"]))
        h, p = self.fresh("h"), self.fresh("priv")
        self.main += [f"  {h} = memref.alloca() : {mt}",
                      f"  {p} = acc.private varPtr({h} : {mt}) recipe({rname}) -> {mt} "
                      f'{{name = "{name}"}}']
        return p

    # ---- constructs

    def parallel(self, body: list[str], *, ng: int | None = None, nw: int | None = None,
                 vl: int | None = None, private: list[tuple[str, str]] = (),
                 reduction: list[tuple[str, str]] = (), serial: bool = False) -> None:
        """``acc.parallel`` (or ``acc.serial``) with the given clauses around ``body``;
        (value, type) pairs for private / reduction operands."""
        def operands(kw: str, vals) -> str:
            if not vals:
                return ""
            return f" {kw}({', '.join(v for v, _ in vals)} : {', '.join(t for _, t in vals)})"

        if serial:
            head = "acc.serial" + operands("private", private) + operands("reduction", reduction)
        else:
            head = "acc.parallel"
            if ng is not None:
                head += f" num_gangs({{{self.i32(ng)} : i32}})"
            if nw is not None:
                head += f" num_workers({self.i32(nw)} : i32)"
            head += operands("private", private)
            if vl is not None:
                head += f" vector_length({self.i32(vl)} : i32)"
            head += operands("reduction", reduction)
        self.main += [f"  {head} {{", *("    " + b for b in body), "    acc.yield", "  }"]

    # ---- results

    def result(self, name: str, ref: str, t: str, n: int | None, expected,
               rtol: float = 0.0) -> None:
        """Print host memref ``ref`` (``memref<T>`` or ``memref<n x T>``) after the constructs;
        ``expected`` is the C test's value (scalar or array)."""
        mt = mlir_type(t)
        width = 2 if is_complex(t) else 1
        v = self.fresh("v")
        if n is None:
            self.stores.append(f"  {v} = memref.load {ref}[] : memref<{mt}>")
            at = [self.idx(self.nslots + w) for w in range(width)]
            close = []
        else:
            k = self.fresh("q")
            self.stores += [
                f"  scf.for {k} = {self.idx(0)} to {self.idx(n)} step {self.idx(1)} {{",
                f"  {v} = memref.load {ref}[{k}] : memref<{n}x{mt}>",
                f"  {k}_w = arith.muli {k}, {self.idx(width)} : index"]
            at = []
            for w in range(width):
                self.stores.append(f"  {k}_s{w} = arith.addi {k}_w, {self.idx(self.nslots + w)}"
                                   " : index")
                at.append(f"{k}_s{w}")
            close = ["  }"]
        vals = [v]
        pt = part_type(t)
        if is_complex(t):
            self.stores += [f"  {v}_re = complex.re {v} : {mt}",
                            f"  {v}_im = complex.im {v} : {mt}"]
            vals = [f"{v}_re", f"{v}_im"]
        for val, slot in zip(vals, at, strict=True):
            b = self.fresh("b")
            if pt == "f32":
                self.stores += [f"  {b}_a = arith.bitcast {val} : f32 to i32",
                                f"  {b} = arith.extui {b}_a : i32 to i64"]
            elif pt == "f64":
                self.stores.append(f"  {b} = arith.bitcast {val} : f64 to i64")
            elif pt == "i64":
                b = val
            elif pt == "i1":
                self.stores.append(f"  {b} = arith.extui {val} : i1 to i64")
            else:
                self.stores.append(f"  {b} = arith.extsi {val} : {mlir_type(pt)} to i64")
            self.stores.append(f"  memref.store {b}, %out[{slot}] : memref<NSLOTSxi64>")
        self.stores += close
        count = 1 if n is None else n
        self.nslots += count * width
        self.results.append(Result(name, t, count, expected, rtol))

    def text(self) -> str:
        body = ["func.func @main() {", *self.consts,
                f"  %out = memref.alloc() : memref<{self.nslots}xi64>", *self.main, *self.stores,
                f'  %u = "memref.cast"(%out) : (memref<{self.nslots}xi64>) -> memref<*xi64>',
                "  func.call @printMemrefI64(%u) : (memref<*xi64>) -> ()", "  func.return", "}",
                "func.func private @printMemrefI64(memref<*xi64>)"]
        text = "\n".join([*self.globals_, *self.recipes.values(), *body])
        return text.replace("NSLOTS", str(self.nslots))


def loop(m: Module, levels: str, n: int | tuple[int, int, int], iv: str, body: list[str], *,
         reds: list[str] = (), private: list[str] = (), t: dict[str, str] | None = None,
         seq: bool = False) -> list[str]:
    """``acc.loop <levels> [private(...)] [reduction(...)] control(iv) = (lb) to (ub) step
    (s)`` (``n`` = ub, or (lb, ub, step)); ``t`` maps each operand to its memref type (default
    the type found in the module's lines). ``seq``: a sequential loop; no level and not
    seq: an independent loop with no level clause (``auto`` partitioning)."""
    lb, ub, st = (0, n, 1) if isinstance(n, int) else n
    types = t or {}

    def tp(v: str) -> str:
        if v in types:
            return types[v]
        pat = re.compile(re.escape(v) + r" = acc\.\w+ varPtr\(\S+ : (memref<.*?>)\) ")
        for line in m.main:
            mt = pat.search(line)
            if mt:
                return mt.group(1)
        raise KeyError(v)

    head = "acc.loop" + "".join(f" {lv}" for lv in levels.split())
    if private:
        head += f" private({', '.join(private)} : {', '.join(tp(v) for v in private)})"
    if reds:
        head += f" reduction({', '.join(reds)} : {', '.join(tp(v) for v in reds)})"
    attrs = SEQ if seq else INDEPENDENT
    return [f"{head} control({iv} : index) = ({m.idx(lb)} : index) to ({m.idx(ub)} : index) "
            f"step ({m.idx(st)} : index) {{", *("  " + b for b in body), "  acc.yield",
            f"}} {attrs}"]


def update(var: str, t: str, op: str, value: str, tag: str) -> list[str]:
    """Body lines ``*var = *var OP value``."""
    mt = mlir_type(t)
    return [f"%o{tag} = memref.load {var}[] : memref<{mt}>",
            *combine(op, t, f"%o{tag}", value, f"%n{tag}"),
            f"memref.store %n{tag}, {var}[] : memref<{mt}>"]


# ---------------------------------------------------------------------------------------
# running and checking


def _decode(t: str, bits: list[int]) -> np.ndarray:
    a = np.array(bits, dtype=np.int64)
    pt = part_type(t)
    if pt == "f32":
        v = (a & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    elif pt == "f64":
        v = a.view(np.float64)
    else:
        v = a
    if is_complex(t):
        return v[0::2] + 1j * v[1::2]
    return v


def run(m: Module) -> list[tuple[Result, np.ndarray]]:
    """Compile and run the module's ``@main`` on ``m.cfg.target``; the decoded results."""
    from xmux.runner import HostProgram

    gpu = m.cfg.target == "nvptx"
    prog = HostProgram(m.text(), name=f"<port {m.cfg}>",
                       oacc_target="cpu" if gpu else m.cfg.target,
                       target="nvptx" if gpu else "cpu")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        prog.run_main()
    match = re.search(r"data = \s*\[(.*?)\]", buf.getvalue(), re.S)
    assert match is not None, buf.getvalue()
    bits = [int(v) for v in match.group(1).replace("\n", " ").split(",")]
    assert len(bits) == m.nslots
    out, pos = [], 0
    for r in m.results:
        w = r.count * (2 if is_complex(r.t) else 1)
        out.append((r, _decode(r.t, bits[pos:pos + w])))
        pos += w
    return out


def mismatches(m: Module) -> list[str]:
    """Run ``m``; one line per result that differs from the C test's expected value."""
    bad = []
    for r, got in run(m):
        want = np.atleast_1d(np.asarray(r.expected))
        if r.rtol:
            ok = got.shape == want.shape and bool(np.all(
                np.abs(got - want) <= r.rtol * np.abs(want)))
        else:
            ok = np.array_equal(got, want.astype(got.dtype) if not is_float(r.t) else want)
        if not ok:
            g = got if got.size <= 8 else f"{got[:8]}... ({got.size})"
            w = want if want.size <= 8 else f"{want[:8]}... ({want.size})"
            bad.append(f"{r.name}: got {g}, want {w}")
    return bad


def verify_ends_only(monkeypatch) -> None:
    """The ports check numbers over many configurations: verify the IR before and after the
    pipeline only (the suite's XMUX_VERIFY_EACH=1 costs a third of each compile here; the
    pass-by-pass verification of these constructs is test_openacc's)."""
    monkeypatch.setenv("XMUX_VERIFY_EACH", "0")


def check(m: Module) -> None:
    bad = mismatches(m)
    assert not bad, f"{len(bad)} wrong result(s) on {m.cfg}:\n" + "\n".join(bad)
