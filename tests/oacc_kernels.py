"""Generator of hand-written OpenACC kernels in the oacc form of the contract (what
convert-acc-to-oacc produces) plus a host ``@main`` that launches them and prints every result as
i64 bit patterns (``printMemrefI64``), and their numpy reference. Used by test_oacc_expand.py.

Every kernel reduces one input array per operator (rid = operator index) at one level:

- ``gang``: ``loop gang reduction(op:r_k)`` over ``N`` elements into copy objects ``r_k``;
- ``worker`` / ``vector`` / ``wv`` (worker+vector combined): a gang loop over ``ROWS`` rows,
  in each a ``loop <level> reduction(op:t_k)`` over ``M`` columns into a private ``t_k``
  (starting at ``start(k)``) that the gang stores to ``o_k[row]``.

Partitioned loops have the uniform-trip-count form: full rounds, then a guarded remainder.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NG, NW, VL = 8, 4, 32
N = 257  # gang level: 8 gangs -> 32 full rounds + 1
ROWS, M = 8, 38  # worker/vector: remainders for 4, 32 and 128 positions

#: name -> (mlir type, numpy dtype, class)
TYPES = {
    "i1": ("i1", np.bool_, "bool"),
    "i8": ("i8", np.int8, "int"),
    "i16": ("i16", np.int16, "int"),
    "i32": ("i32", np.int32, "int"),
    "i64": ("i64", np.int64, "int"),
    "f16": ("f16", np.float16, "float"),
    "f32": ("f32", np.float32, "float"),
    "f64": ("f64", np.float64, "float"),
    "c64": ("complex<f32>", np.complex64, "complex"),
    "c128": ("complex<f64>", np.complex128, "complex"),
}
OPS_FOR = {
    "int": ["add", "mul", "max", "min", "and", "or", "xor", "land", "lor"],
    "bool": ["and", "or", "xor", "land", "lor"],
    "float": ["add", "mul", "max", "min", "land", "lor"],
    "complex": ["add", "mul"],
}


def _elem(t: str) -> str:
    return t[len("complex<") : -1] if t.startswith("complex") else t


@dataclass
class Case:
    level: str
    tname: str
    only: tuple[str, ...] | None = None  # a subset of the type's operators

    @property
    def t(self) -> str:
        return TYPES[self.tname][0]

    @property
    def dtype(self):
        return TYPES[self.tname][1]

    @property
    def cls(self) -> str:
        return TYPES[self.tname][2]

    @property
    def ops(self) -> list[str]:
        return list(self.only) if self.only else OPS_FOR[self.cls]

    @property
    def name(self) -> str:
        return f"{self.level}_{self.tname}"

    @property
    def shape(self) -> tuple[int, ...]:
        return (N,) if self.level == "gang" else (ROWS, M)


# ---------------------------------------------------------------------------------------
# Data and numpy reference
# ---------------------------------------------------------------------------------------


def data(case: Case, op: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shape, dt, cls = case.shape, case.dtype, case.cls
    n = int(np.prod(shape))
    idx = np.arange(n)
    if cls == "complex":
        if op == "mul":  # pure real / imaginary powers of two: exact in any order
            v = np.array([1j, -1, 2, 0.5j, -1j])[idx % 5]
        else:
            v = rng.integers(-8, 8, n) + 1j * rng.integers(-8, 8, n)
        return v.astype(dt).reshape(shape)
    if cls == "bool":
        p = {"and": 0.995, "land": 0.995, "or": 0.005, "lor": 0.005, "xor": 0.5}[op]
        return (rng.random(n) < p).reshape(shape)
    if cls == "float":
        if op == "mul":
            v = np.array([2, 0.5, -1])[idx % 3]
        elif op == "land":
            v = np.where(rng.random(n) < 0.004, 0, rng.integers(1, 9, n) * 0.5)
        elif op == "lor":
            v = np.where(rng.random(n) < 0.004, rng.integers(1, 9, n) * 0.25, 0)
        else:
            v = rng.integers(-64, 64, n) * 0.5
        return v.astype(dt).reshape(shape)
    bits = np.dtype(dt).itemsize * 8
    if op == "and":
        v = np.where(rng.random(n) < 0.01, ~(1 << rng.integers(0, bits - 1, n)), -1)
    elif op == "or":
        v = np.where(rng.random(n) < 0.01, 1 << rng.integers(0, bits - 1, n), 0)
    elif op == "mul":
        v = rng.choice([1, -1, 3, 5, -7, 1, 1], n)
    elif op == "land":
        v = np.where(rng.random(n) < 0.004, 0, rng.integers(1, 100, n))
    elif op == "lor":
        v = np.where(rng.random(n) < 0.004, rng.integers(1, 100, n), 0)
    else:
        v = rng.integers(-100, 100, n)
    return v.astype(dt).reshape(shape)


def start(case: Case, op: str):
    """Initial value of the RESULT (copy object or private)."""
    cls = case.cls
    if cls == "complex":
        return {"add": 1 + 1j, "mul": 1j}[op]
    if cls == "bool":
        return {"and": True, "land": True, "or": False, "lor": False, "xor": True}[op]
    return {
        "add": 3,
        "mul": 2,
        "max": -5,
        "min": 7,
        "and": -5,
        "or": 4,
        "xor": 5,
        "land": 1,
        "lor": 0,
    }[op]


def reference(case: Case, op: str, x: np.ndarray) -> np.ndarray:
    """OP over the last axis, starting from ``start``."""
    dt = case.dtype
    s = np.asarray(start(case, op), dtype=dt)
    with np.errstate(over="ignore"):
        if op in ("land", "lor"):
            truth = x != 0
            got = truth.all(-1) if op == "land" else truth.any(-1)
            got = (got & (s != 0)) if op == "land" else (got | (s != 0))
            return got.astype(dt)
        uf = {
            "add": np.add,
            "mul": np.multiply,
            "max": np.maximum,
            "min": np.minimum,
            "and": np.bitwise_and,
            "or": np.bitwise_or,
            "xor": np.bitwise_xor,
        }[op]
        if case.cls == "bool":
            uf = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[op]
        return uf(uf.reduce(x, axis=-1, dtype=dt), s).astype(dt)


# ---------------------------------------------------------------------------------------
# MLIR text
# ---------------------------------------------------------------------------------------


def _const(t: str, v) -> str:
    if t.startswith("complex"):
        e = _elem(t)
        return f"complex.constant [{float(np.real(v))!r} : {e}, {float(np.imag(v))!r} : {e}] : {t}"
    if t == "i1":
        return f"arith.constant {'true' if v else 'false'}"
    if t.startswith("f"):
        return f"arith.constant {float(v)!r} : {t}"
    return f"arith.constant {int(v)} : {t}"


def _combine(op: str, t: str, a: str, b: str, out: str) -> list[str]:
    """User code ``out = a OP b`` (what the loop body does)."""
    if t.startswith("complex"):
        return [f"{out} = complex.{op} {a}, {b} : {t}"]
    if t.startswith("f"):
        if op in ("land", "lor"):
            logic = "andi" if op == "land" else "ori"
            return [
                f"{out}_z = arith.constant 0.0 : {t}",
                f"{out}_o = arith.constant 1.0 : {t}",
                f"{out}_a = arith.cmpf une, {a}, {out}_z : {t}",
                f"{out}_b = arith.cmpf une, {b}, {out}_z : {t}",
                f"{out}_c = arith.{logic} {out}_a, {out}_b : i1",
                f"{out} = arith.select {out}_c, {out}_o, {out}_z : {t}",
            ]
        name = {"add": "addf", "mul": "mulf", "max": "maxnumf", "min": "minnumf"}[op]
        return [f"{out} = arith.{name} {a}, {b} : {t}"]
    if op in ("land", "lor"):
        logic = "andi" if op == "land" else "ori"
        if t == "i1":
            return [f"{out} = arith.{logic} {a}, {b} : i1"]
        return [
            f"{out}_z = arith.constant 0 : {t}",
            f"{out}_o = arith.constant 1 : {t}",
            f"{out}_a = arith.cmpi ne, {a}, {out}_z : {t}",
            f"{out}_b = arith.cmpi ne, {b}, {out}_z : {t}",
            f"{out}_c = arith.{logic} {out}_a, {out}_b : i1",
            f"{out} = arith.select {out}_c, {out}_o, {out}_z : {t}",
        ]
    name = {
        "add": "addi",
        "mul": "muli",
        "max": "maxsi",
        "min": "minsi",
        "and": "andi",
        "or": "ori",
        "xor": "xori",
    }[op]
    return [f"{out} = arith.{name} {a}, {b} : {t}"]


def _partitioned(lines: list[str], tag: str, pos: str, size: str, n: int, body) -> None:
    """Uniform-trip-count loop over [0, n): full rounds, then a guarded remainder."""
    lines += [
        f"%{tag}_n = arith.constant {n} : index",
        f"%{tag}_full = arith.divui %{tag}_n, {size} : index",
        f"scf.for %{tag}_r = %c0 to %{tag}_full step %c1 {{",
        f"  %{tag}_b = arith.muli %{tag}_r, {size} : index",
        f"  %{tag}_i = arith.addi %{tag}_b, {pos} : index",
    ]
    lines += ["  " + s for s in body(f"%{tag}_i")]
    lines += [
        "}",
        f"%{tag}_rb = arith.muli %{tag}_full, {size} : index",
        f"%{tag}_ri = arith.addi %{tag}_rb, {pos} : index",
        f"%{tag}_in = arith.cmpi ult, %{tag}_ri, %{tag}_n : index",
        f"scf.if %{tag}_in {{",
    ]
    lines += ["  " + s for s in body(f"%{tag}_ri")]
    lines += ["}"]


def kernel(name: str, cases: list[Case]) -> str:
    """One kernel reducing every operator of every case (all of one level); rid = position."""
    level = cases[0].level
    assert all(c.level == level for c in cases)
    items = [(c, op) for c in cases for op in c.ops]
    ts = [c.t for c, _ in items]
    shape = "x".join(map(str, cases[0].shape))
    gang = level == "gang"
    args = [f"%x{k}: memref<{shape}x{t}>" for k, t in enumerate(ts)]
    args += [
        f"%r{k}: memref<{t}>" if gang else f"%o{k}: memref<{ROWS}x{t}>" for k, t in enumerate(ts)
    ]
    lines = ["%c0 = arith.constant 0 : index", "%c1 = arith.constant 1 : index"]
    for k, t in enumerate(ts):
        lines += [f"%p{k} = memref.alloca() : memref<{t}>"]

    def accumulate(idx: list[str]) -> list[str]:
        out = []
        for k, ((_c, op), t) in enumerate(zip(items, ts, strict=True)):
            out += [f"%v{k} = memref.load %x{k}[{', '.join(idx)}] : memref<{shape}x{t}>"]
            out += [f"%s{k} = memref.load %p{k}[] : memref<{t}>"]
            out += _combine(op, t, f"%s{k}", f"%v{k}", f"%n{k}")
            out += [f"memref.store %n{k}, %p{k}[] : memref<{t}>"]
        return out

    def builtin(name: str, level: str, lid: int, res: bool) -> list[str]:
        out = []
        for k, ((_c, op), t) in enumerate(zip(items, ts, strict=True)):
            r = f" res(%r{k} : memref<{t}>)" if res else ""
            v = f"%{name}{level}{k}"
            out += [
                f"{v}_in = memref.load %p{k}[] : memref<{t}>",
                f"{v} = oacc.reduction_{name} {level} {op} {v}_in{r} lid {lid} rid {k} : {t}",
                f"memref.store {v}, %p{k}[] : memref<{t}>",
            ]
        return out

    def region(levels: list[str], lid: int, res: bool, pos: str, size: str, n: int, idx):
        out: list[str] = []
        for lv in levels:
            out += builtin("setup", lv, lid, res)
            out += [f"oacc.fork {lv}"]
            out += builtin("init", lv, lid, res)
        _partitioned(out, f"l{lid}", pos, size, n, lambda i: accumulate(idx(i)))
        for lv in reversed(levels):
            if lv != "vector":
                out += [f"oacc.lock {lv} lid {lid}"]
            out += builtin("fini", lv, lid, res)
            if lv != "vector":
                out += [f"oacc.unlock {lv} lid {lid}"]
            out += [f"oacc.join {lv}"]
            out += builtin("teardown", lv, lid, res)
        return out

    def starts() -> list[str]:
        out = []
        for k, ((c, op), t) in enumerate(zip(items, ts, strict=True)):
            out += [
                f"%z{k} = {_const(t, start(c, op))}",
                f"memref.store %z{k}, %p{k}[] : memref<{t}>",
            ]
        return out

    if gang:
        lines += starts()  # the private LOCAL starts defined
        lines += ["%gp = oacc.dim_pos gang : index", "%gs = oacc.dim_size gang : index"]
        lines += region(["gang"], 0, True, "%gp", "%gs", N, lambda i: [i])
    else:
        levels = {"worker": ["worker"], "vector": ["vector"], "wv": ["worker", "vector"]}[level]

        def row_body(row: str) -> list[str]:
            out = starts()
            if level == "wv":
                out += [
                    "%wp = oacc.dim_pos worker : index",
                    "%ws = oacc.dim_size worker : index",
                    "%vp = oacc.dim_pos vector : index",
                    "%vs = oacc.dim_size vector : index",
                    "%wvb = arith.muli %wp, %vs : index",
                    "%pos = arith.addi %wvb, %vp : index",
                    "%size = arith.muli %ws, %vs : index",
                ]
            else:
                out += [
                    f"%pos = oacc.dim_pos {level} : index",
                    f"%size = oacc.dim_size {level} : index",
                ]
            out += region(levels, 1, False, "%pos", "%size", M, lambda i: [row, i])
            for k, t in enumerate(ts):
                out += [
                    f"%res{k} = memref.load %p{k}[] : memref<{t}>",
                    f"memref.store %res{k}, %o{k}[{row}] : memref<{ROWS}x{t}>",
                ]
            return out

        lines += ["%gp = oacc.dim_pos gang : index", "%gs = oacc.dim_size gang : index"]
        _partitioned(lines, "g", "%gp", "%gs", ROWS, row_body)
    _, nw, vl = dims(cases[0])
    head = (
        f'func.func @{name}({", ".join(args)}) attributes {{mux.kernel = "entry_point", '
        f"oacc.dims = array<i64: {NG}, {nw}, {vl}>, "
        f"mux.reqd_work_group_size = array<i64: {vl}, {nw}, 1>}} {{"
    )
    return "\n".join([head, *("  " + s for s in lines), "  func.return", "}"])


def dims(case: Case) -> tuple[int, int, int]:
    if case.level == "gang":
        return NG, 1, 1
    return NG, (1 if case.level == "vector" else NW), (1 if case.level == "worker" else VL)


def _dense(case: Case, a: np.ndarray) -> str:
    """``dense<...> : tensor<shape x T>`` of a real array."""
    if case.cls == "bool":
        fmt = lambda v: "true" if v else "false"  # noqa: E731
    elif case.cls == "float":
        fmt = lambda v: repr(float(v))  # noqa: E731
    else:
        fmt = lambda v: str(int(v))  # noqa: E731

    def rec(x) -> str:
        if x.ndim == 1:
            return "[" + ", ".join(fmt(v) for v in x) + "]"
        return "[" + ", ".join(rec(r) for r in x) + "]"

    shape = "x".join(map(str, a.shape))
    return f"dense<{rec(a)}> : tensor<{shape}x{case.t}>"


def _global(name: str, mt: str, dense: str) -> str:
    return (
        f'"memref.global"() <{{sym_name = "{name}", sym_visibility = "private", type = {mt}, '
        f"initial_value = {dense}, constant}}> : () -> ()"
    )


def program(
    kernels: dict[str, list[Case]], seed: int = 0
) -> tuple[str, list[tuple[Case, str, np.ndarray]]]:
    """Module text (one kernel per entry of ``kernels``, all cases of one level; + globals +
    @main) and the expected results in print order."""
    out: list[str] = []
    main: list[str] = [
        "func.func @main() {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
    ]
    expected: list[tuple[Case, str, np.ndarray]] = []
    slots = 0
    prints: list[str] = []
    for ci, (kname, cases) in enumerate(kernels.items()):
        out.append(kernel(kname, cases))
        case0 = cases[0]
        shape = "x".join(map(str, case0.shape))
        xs, rs, types = [], [], []
        items = [(c, op) for c in cases for op in c.ops]
        for k, (case, op) in enumerate(items):
            t = case.t
            x = data(case, op, seed + 100 * ci + k)
            name = f"d_{kname}_{k}"
            mt = f"memref<{shape}x{t}>"
            if case.cls == "complex":
                e = _elem(t)
                et = f"memref<{shape}x{e}>"
                re = Case(case.level, e)
                for part, arr in (("re", x.real), ("im", x.imag)):
                    out.append(_global(f"{name}_{part}", et, _dense(re, arr)))
                main += [
                    f"  %{name}_re = memref.get_global @{name}_re : {et}",
                    f"  %{name}_im = memref.get_global @{name}_im : {et}",
                    f"  %{name} = memref.alloc() : {mt}",
                ]
                ivs = [f"%{name}_i{d}" for d in range(len(case.shape))]
                for d, n in enumerate(case.shape):
                    main += [
                        f"  %{name}_n{d} = arith.constant {n} : index",
                        f"  scf.for {ivs[d]} = %c0 to %{name}_n{d} step %c1 {{",
                    ]
                ix = ", ".join(ivs)
                main += [
                    f"  %{name}_a = memref.load %{name}_re[{ix}] : {et}",
                    f"  %{name}_b = memref.load %{name}_im[{ix}] : {et}",
                    f"  %{name}_c = complex.create %{name}_a, %{name}_b : {t}",
                    f"  memref.store %{name}_c, %{name}[{ix}] : {mt}",
                ]
                main += ["  }"] * len(case.shape)
            else:
                out.append(_global(name, mt, _dense(case, x)))
                main.append(f"  %{name} = memref.get_global @{name} : {mt}")
            xs.append(f"%{name}")
            r = f"%res_{kname}_{k}"
            if case.level == "gang":
                main += [
                    f"  {r} = memref.alloc() : memref<{t}>",
                    f"  {r}_s = {_const(t, start(case, op))}",
                    f"  memref.store {r}_s, {r}[] : memref<{t}>",
                ]
            else:
                main += [f"  {r} = memref.alloc() : memref<{ROWS}x{t}>"]
            rs.append((r, case))
            types.append(f"memref<{t}>" if case.level == "gang" else f"memref<{ROWS}x{t}>")
            expected.append((case, op, reference(case, op, x)))
        ng, nw, vl = dims(case0)
        types = [f"memref<{shape}x{c.t}>" for c, _ in items] + types
        main += [
            f"  %gs_{ci} = arith.constant {ng * vl} : index",
            f"  %g1_{ci} = arith.constant {nw} : index",
            f"  %ls_{ci} = arith.constant {vl} : index",
            f"  mux.launch @{kname}({', '.join(xs + [r for r, _ in rs])}) "
            f"global_size(%gs_{ci}, %g1_{ci}) "
            f"local_size(%ls_{ci}, %g1_{ci}) : ({', '.join(types)})",
        ]
        # results -> i64 bit patterns in %out (rows: one loop per result)
        for r, case in rs:
            t = case.t
            gangl = case.level == "gang"
            v = f"{r}_v"
            np_ = num_parts = 2 if case.cls == "complex" else 1
            if gangl:
                prints += [
                    f"  {v} = memref.load {r}[] : memref<{t}>",
                    f"  {v}_at = arith.constant {slots} : index",
                ]
            else:
                prints += [
                    f"  {v}_n = arith.constant {ROWS} : index",
                    f"  scf.for {v}_row = %c0 to {v}_n step %c1 {{",
                    f"  {v} = memref.load {r}[{v}_row] : memref<{ROWS}x{t}>",
                    f"  {v}_k = arith.constant {num_parts} : index",
                    f"  {v}_b = arith.constant {slots} : index",
                    f"  {v}_m = arith.muli {v}_row, {v}_k : index",
                    f"  {v}_at = arith.addi {v}_b, {v}_m : index",
                ]
            vals = [v]
            et = t
            if case.cls == "complex":
                et = _elem(t)
                prints += [f"  {v}_re = complex.re {v} : {t}", f"  {v}_im = complex.im {v} : {t}"]
                vals = [f"{v}_re", f"{v}_im"]
            for w, val in enumerate(vals):
                b = f"{v}_b{w}"
                if et == "f32":
                    prints += [
                        f"  {b}_a = arith.bitcast {val} : f32 to i32",
                        f"  {b} = arith.extui {b}_a : i32 to i64",
                    ]
                elif et == "f16":
                    prints += [
                        f"  {b}_a = arith.bitcast {val} : f16 to i16",
                        f"  {b} = arith.extui {b}_a : i16 to i64",
                    ]
                elif et == "f64":
                    prints += [f"  {b} = arith.bitcast {val} : f64 to i64"]
                elif et == "i1":
                    prints += [f"  {b} = arith.extui {val} : i1 to i64"]
                elif et == "i64":
                    b = val
                else:
                    prints += [f"  {b} = arith.extsi {val} : {et} to i64"]
                prints += [
                    f"  {v}_o{w} = arith.constant {w} : index",
                    f"  {v}_at{w} = arith.addi {v}_at, {v}_o{w} : index",
                    f"  memref.store {b}, %out[{v}_at{w}] : memref<{{N}}xi64>",
                ]
            if not gangl:
                prints += ["  }"]
            slots += np_ * (1 if gangl else ROWS)
    main += [f"  %out = memref.alloc() : memref<{slots}xi64>"]
    main += [p.replace("{N}", str(slots)) for p in prints]
    main += [
        f'  %u = "memref.cast"(%out) : (memref<{slots}xi64>) -> memref<*xi64>',
        "  func.call @printMemrefI64(%u) : (memref<*xi64>) -> ()",
        "  func.return",
        "}",
        "func.func private @printMemrefI64(memref<*xi64>)",
    ]
    return "\n".join(out + main), expected


def decode(expected: list[tuple[Case, str, np.ndarray]], printed: list[int]):
    """Split the printed i64 bit patterns back into arrays like ``expected``."""
    got = []
    pos = 0
    for case, _op, ref in expected:
        n = ref.size
        dt = np.dtype(case.dtype)
        if case.cls == "complex":
            bits = np.array(printed[pos : pos + 2 * n], dtype=np.int64)
            pos += 2 * n
            et = np.float32 if dt == np.complex64 else np.float64
            it = np.uint32 if et == np.float32 else np.uint64
            parts = bits.astype(np.uint64).astype(it).view(et)
            v = (parts[0::2] + 1j * parts[1::2]).astype(dt)
        else:
            bits = np.array(printed[pos : pos + n], dtype=np.int64)
            pos += n
            if case.cls == "float":
                it = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
                v = bits.astype(np.uint64).astype(it).view(dt)
            else:
                v = bits.astype(dt)
        got.append(v.reshape(ref.shape))
    assert pos == len(printed), (pos, len(printed))
    return got
