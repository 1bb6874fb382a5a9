"""Kernels and a numpy/Python reference for the sub-group and work-group collectives.

Shared by tests/test_nvptx_collectives.py (the GPU against the reference; the CPU target
against the same reference, which checks the reference itself) and the PTX-text tests.

Every kernel takes ``(x, y, o)``: work-item ``l`` of group ``g`` (linear ids) reads
``x[g·L + l]`` (and ``y`` for the two-operand shuffles) and writes ``o[g·L + l]``, so each row
of ``x.reshape(groups, L)`` is a work-group in local linear order.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

WARP = 32

INT_KINDS = (
    "add", "mul", "smin", "umin", "smax", "umax", "and", "or", "xor",
    "logical_and", "logical_or", "logical_xor",
)
FLOAT_KINDS = ("fadd", "fmul", "fmin", "fmax")
NP = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "f16": np.float16, "f32": np.float32, "f64": np.float64}
#: kinds each element type is tested with
KINDS = {
    "i32": INT_KINDS,
    "i64": INT_KINDS,
    "i8": ("add", "umax", "smin", "xor", "logical_or"),
    "i1": ("and", "or", "xor", "smin", "umax", "logical_and", "logical_xor"),
    "i16": ("mul", "and", "umin", "logical_and", "logical_xor"),
    "f32": FLOAT_KINDS,
    "f64": FLOAT_KINDS,
    "f16": ("fadd", "fmax"),
}
SCANS = ("reduce", "scan_inclusive", "scan_exclusive")
SHUFFLES = ("broadcast", "shuffle", "shuffle_xor", "shuffle_up", "shuffle_down")
#: local sizes: full warps, partial warps (48, 33, 7, 1), 2-D and 3-D groups
LOCAL_SIZES = (
    (32,), (64,), (96,), (256,), (1024,), (48,), (33,), (7,), (1,),
    (16, 6), (8, 6), (4, 4, 3),
)


def is_float(t: str) -> bool:
    return t.startswith("f")


def width(t: str) -> int:
    return int(t[1:])


# ---------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------

_PROLOGUE = """\
  func.func @{name}(%x: memref<?x{t}>, %y: memref<?x{t}>, %o: memref<?x{ot}>)
      attributes {{mux.kernel = "entry_point"}} {{
    %l = mux.get_local_linear_id : index
    %g0 = mux.get_group_id 0 : index
    %g1 = mux.get_group_id 1 : index
    %g2 = mux.get_group_id 2 : index
    %n0 = mux.get_num_groups 0 : index
    %n1 = mux.get_num_groups 1 : index
    %s0 = mux.get_local_size 0 : index
    %s1 = mux.get_local_size 1 : index
    %s2 = mux.get_local_size 2 : index
    %s01 = arith.muli %s0, %s1 : index
    %ls = arith.muli %s01, %s2 : index
    %h = arith.muli %g2, %n1 : index
    %h1 = arith.addi %h, %g1 : index
    %h2 = arith.muli %h1, %n0 : index
    %g = arith.addi %h2, %g0 : index
    %gl = arith.muli %g, %ls : index
    %i = arith.addi %gl, %l : index
    %v = memref.load %x[%i] : memref<?x{t}>
    %w = memref.load %y[%i] : memref<?x{t}>
    %lane = mux.get_sub_group_local_id : i32
"""
_EPILOGUE = """\
    memref.store %r, %o[%i] : memref<?x{ot}>
    func.return
  }}
"""


def kernel_name(scope: str, op: str, kind: str | None = None) -> str:
    return f"{scope}_{op}" + (f"_{kind}" if kind else "")


def _body(scope: str, op: str, kind: str | None, t: str) -> str:
    """MLIR computing %r from %v, %w, %lane."""
    if op in SCANS:
        return f"    %r = mux.{scope}_{op} {kind} %v : {t}\n"
    if op in ("any", "all"):
        return (
            "    %c7 = arith.constant 7 : i32\n"
            f"    %p = arith.cmpi {'eq' if op == 'any' else 'ne'}, %v, %c7 : i32\n"
            f"    %b = mux.{scope}_{op} %p : i1\n"
            "    %r = arith.extui %b : i1 to i32\n"
        )
    if scope == "work_group" and op == "broadcast":
        return (
            "    %c1 = arith.constant 1 : index\n"
            "    %bx = arith.subi %s0, %c1 : index\n"
            "    %by = arith.subi %s1, %c1 : index\n"
            "    %c0 = arith.constant 0 : index\n"
            f"    %r = mux.work_group_broadcast %v, %bx, %by, %c0 : {t}\n"
        )
    if op == "broadcast":
        return f"    %k = arith.constant 5 : i32\n    %r = mux.sub_group_broadcast %v, %k : {t}\n"
    # lane-dependent sources: some out of range on purpose
    lines = {
        "shuffle": ("%k = arith.muli %lane, %c5 : i32", "%k2 = arith.addi %k, %c3 : i32",
                    "%k3 = arith.remui %k2, %c37 : i32",
                    f"%r = mux.sub_group_shuffle %v, %k3 : {t}"),
        "shuffle_xor": ("%k = arith.muli %lane, %c3 : i32", "%k3 = arith.remui %k, %c40 : i32",
                        f"%r = mux.sub_group_shuffle_xor %v, %k3 : {t}"),
        # delta = (lane mod 5)·9 − 4: −4, 5, 14, 23, 32
        "shuffle_up": ("%k = arith.remui %lane, %c5 : i32", "%k2 = arith.muli %k, %c9 : i32",
                       "%k3 = arith.subi %k2, %c4 : i32",
                       f"%r = mux.sub_group_shuffle_up %w, %v, %k3 : {t}"),
        # delta = (lane mod 6)·13: 0 .. 65
        "shuffle_down": ("%k = arith.remui %lane, %c6 : i32", "%k3 = arith.muli %k, %c13 : i32",
                         f"%r = mux.sub_group_shuffle_down %v, %w, %k3 : {t}"),
    }[op]
    consts = "".join(
        f"    %c{c} = arith.constant {c} : i32\n" for c in (3, 4, 5, 6, 9, 13, 37, 40)
    )
    return consts + "".join(f"    {line}\n" for line in lines)


def kernel(scope: str, op: str, kind: str | None, t: str) -> str:
    ot = "i32" if op in ("any", "all") else t
    t_in = "i32" if op in ("any", "all") else t
    name = kernel_name(scope, op, kind)
    return (
        _PROLOGUE.format(name=name, t=t_in, ot=ot)
        + _body(scope, op, kind, t_in)
        + _EPILOGUE.format(ot=ot)
    )


def cases(t: str) -> list[tuple[str, str, str | None]]:
    """(scope, op, kind) of every kernel of element type ``t``."""
    out: list[tuple[str, str, str | None]] = []
    for scope in ("sub_group", "work_group"):
        out += [(scope, op, k) for op in SCANS for k in KINDS[t]]
        if t in ("i32", "f64", "i8", "i1"):
            out.append((scope, "broadcast", None))
    if t in ("i32", "f64", "i64", "f32", "i16"):
        out += [("sub_group", op, None) for op in SHUFFLES if op != "broadcast"]
    if t == "i32":
        out += [(s, op, None) for s in ("sub_group", "work_group") for op in ("any", "all")]
    return out


def module(t: str) -> str:
    return "module {\n" + "".join(kernel(s, o, k, t) for s, o, k in cases(t)) + "}\n"


# ---------------------------------------------------------------------------------------
# Reference
# ---------------------------------------------------------------------------------------


def wrap(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def binary(kind: str, t: str) -> Callable[[object, object], object]:
    if is_float(t):
        cast = NP[t]
        return {
            "fadd": lambda a, b: cast(a + b), "fmul": lambda a, b: cast(a * b),
            "fmin": lambda a, b: min(a, b), "fmax": lambda a, b: max(a, b),
        }[kind]
    n = width(t)
    m = (1 << n) - 1
    return {
        "add": lambda a, b: wrap(a + b, n),
        "mul": lambda a, b: wrap(a * b, n),
        "smin": min, "smax": max,
        "umin": lambda a, b: a if (a & m) <= (b & m) else b,
        "umax": lambda a, b: a if (a & m) >= (b & m) else b,
        "and": lambda a, b: wrap(a & b, n),
        "or": lambda a, b: wrap(a | b, n),
        "xor": lambda a, b: wrap(a ^ b, n),
        "logical_and": lambda a, b: int(bool(a) and bool(b)),
        "logical_or": lambda a, b: int(bool(a) or bool(b)),
        "logical_xor": lambda a, b: int(bool(a) != bool(b)),
    }[kind]


def identity(kind: str, t: str) -> object:
    if is_float(t):
        return {"fadd": 0.0, "fmul": 1.0, "fmin": math.inf, "fmax": -math.inf}[kind]
    n = width(t)
    return {
        "add": 0, "mul": 1, "smin": (1 << (n - 1)) - 1, "umin": -1, "smax": -(1 << (n - 1)),
        "umax": 0, "and": -1, "or": 0, "xor": 0, "logical_and": 1, "logical_or": 0,
        "logical_xor": 0,
    }[kind]


def _scan(values: list, kind: str, t: str, op: str) -> list:
    f = binary(kind, t)
    if kind.startswith("logical"):
        values = [int(bool(v)) for v in values]
    out, acc = [], None
    for v in values:
        prev = acc
        acc = v if acc is None else f(acc, v)
        out.append(acc if op == "scan_inclusive" else (identity(kind, t) if prev is None else prev))
    if op == "reduce":
        return [acc] * len(values)
    return out


def _shuffle(op: str, x: list, y: list) -> list:
    """Sub-group shuffles of one warp (S = len(x) live lanes), mux's out-of-range rules."""
    s = len(x)
    out = []
    for lane in range(s):
        if op == "broadcast":
            k = 5
            out.append(x[k] if k < s else x[lane])
        elif op == "shuffle":
            k = (lane * 5 + 3) % 37
            out.append(x[k] if k < s else x[lane])
        elif op == "shuffle_xor":
            k = lane ^ ((lane * 3) % 40)
            out.append(x[k] if k < s else x[lane])
        elif op == "shuffle_up":  # prev = y, curr = x
            i = lane - ((lane % 5) * 9 - 4)
            if 0 <= i < s:
                out.append(x[i])
            elif i < 0 and i + WARP < s:
                out.append(y[i + WARP])
            else:
                out.append(y[lane])
        elif op == "shuffle_down":  # curr = x, next = y
            i = lane + (lane % 6) * 13
            if i < s:
                out.append(x[i])
            elif i >= WARP and i - WARP < s:
                out.append(y[i - WARP])
            else:
                out.append(y[lane])
    return out


def _group(scope: str, op: str, kind: str | None, t: str, x: list, y: list) -> list:
    if scope == "sub_group":
        out: list = []
        for b in range(0, len(x), WARP):
            out += _group("work_group", op, kind, t, x[b : b + WARP], y[b : b + WARP]) \
                if op in (*SCANS, "any", "all") else _shuffle(op, x[b : b + WARP], y[b : b + WARP])
        return out
    if op in SCANS:
        return _scan(x, kind, t, op)  # type: ignore[arg-type]
    if op == "any":
        return [int(any(v == 7 for v in x))] * len(x)
    if op == "all":
        return [int(all(v != 7 for v in x))] * len(x)
    raise AssertionError(op)


def reference(
    scope: str, op: str, kind: str | None, t: str, x: np.ndarray, y: np.ndarray,
    local: tuple[int, ...],
) -> np.ndarray:
    """What kernel (scope, op, kind) writes for inputs x, y and work-groups of ``local``."""
    size = math.prod(local)
    out: list = []
    for g in range(len(x) // size):
        xs = x[g * size : (g + 1) * size].tolist()
        ys = y[g * size : (g + 1) * size].tolist()
        if t == "i1":  # a true i1 is -1 as a signed integer (smin)
            xs, ys = [-int(v) for v in xs], [-int(v) for v in ys]
        if scope == "work_group" and op == "broadcast":
            chosen = (local[0] - 1) + (local[1] - 1 if len(local) > 1 else 0) * local[0]
            out += [xs[chosen]] * size
        else:
            out += _group(scope, op, kind, t, xs, ys)
    dtype = np.int32 if op in ("any", "all") else NP[t]
    if not is_float(t) and op not in ("any", "all"):
        return np.array([wrap(int(v), width(t)) for v in out], dtype=np.int64).astype(dtype)
    return np.array(out, dtype=dtype)


def inputs(op: str, kind: str | None, t: str, n: int, seed: int) -> tuple[np.ndarray, ...]:
    """Inputs whose results are exact in any order: small integers, ±1/±2/±0.5 products."""
    rng = np.random.default_rng(seed)
    if op in ("any", "all"):
        x = np.zeros(n, np.int32)
        x[rng.choice(n, size=max(1, n // 97), replace=False)] = 7
        return x, x.copy()
    if kind == "mul":
        x = rng.choice([-1, 1, 2], size=n)  # wraps exactly
    elif kind == "fmul":
        # powers of two whose running products stay far inside the f32 range (an overflow
        # in one combining order and not another would differ)
        x = rng.choice([-1.0, 1.0, 2.0, 0.5, -2.0], size=n, p=[0.45, 0.45, 0.04, 0.04, 0.02])
    elif kind and kind.startswith("logical"):
        x = rng.choice([0, 0, 0, 1, 2, -3], size=n)
    else:
        x = rng.integers(-20, 21, size=n)
    y = rng.integers(100, 140, size=n)
    return x.astype(NP[t]), y.astype(NP[t])
