"""arith (and ``index``) with LLVM's exact semantics, replacing xDSL's arith interpreter.

xDSL's ``ArithFunctions`` computes on unbounded Python ints and floats: no wrap-around at the
type's width, Python's floor division for ``divsi``/``remsi``, f32 math rounded as f64,
``cmpf`` without unordered predicates. Here integers are unsigned-canonical ints (see
``values.py``) masked to their width, signed ops convert first, floats are numpy scalars of
their width. Where LLVM yields poison or immediate UB (division by zero, ``INT_MIN / -1``,
shift ≥ width, out-of-range ``fptosi``) the interpreter raises ``UndefinedBehaviorError``: a
differential fuzzer must not compare such programs. Vectors apply the scalar rule lane-wise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import VectorType
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import Attribute, Operation

from xmux.runtime.interpreter.errors import UndefinedBehaviorError
from xmux.runtime.interpreter.values import (
    FLOAT_DTYPES,
    attr_value,
    elem_type,
    int_width,
    to_signed,
    vector_dtype,
)

_WIDTH: dict[Operation, int] = {}


def width_of(op: Operation, t: Attribute | None = None) -> int:
    """Bit width of the (element) integer type of ``op``'s first operand."""
    w = _WIDTH.get(op)
    if w is None:
        t = t if t is not None else op.operands[0].type
        w = int_width(elem_type(t))
        assert w is not None, f"{op.name} on {t}"
        _WIDTH[op] = w
    return w


def _ub(interp, what: str) -> UndefinedBehaviorError:
    return UndefinedBehaviorError(f"undefined behaviour: {what} at {interp.where()}")


def _lanes(fn: Callable[..., Any], args: tuple[Any, ...], out_t: Attribute) -> np.ndarray:
    """Apply a scalar rule lane by lane; lanes are converted to canonical scalars."""
    shape = next(a.shape for a in args if isinstance(a, np.ndarray))
    flat = [
        [int(x) if isinstance(x, (np.integer, np.bool_)) else x for x in np.ravel(a)]
        if isinstance(a, np.ndarray) else None
        for a in args
    ]
    n = int(np.prod(shape))
    out = [fn(*[f[i] if f is not None else a for f, a in zip(flat, args, strict=True)])
           for i in range(n)]
    return np.array(out, dtype=vector_dtype(elem_type(out_t))).reshape(shape)


# -- integer rules: (a, b, w, interp) -> int ----------------------------------------------


def _divsi(a: int, b: int, w: int, interp) -> int:
    sa, sb = to_signed(a, w), to_signed(b, w)
    if sb == 0:
        raise _ub(interp, "signed division by zero")
    if sb == -1 and sa == -(1 << (w - 1)):
        raise _ub(interp, "signed division overflow (INT_MIN / -1)")
    q = abs(sa) // abs(sb)
    return (-q if (sa < 0) != (sb < 0) else q) & ((1 << w) - 1)


def _remsi(a: int, b: int, w: int, interp) -> int:
    sa, sb = to_signed(a, w), to_signed(b, w)
    if sb == 0:
        raise _ub(interp, "signed remainder by zero")
    if sb == -1 and sa == -(1 << (w - 1)):
        raise _ub(interp, "signed remainder overflow (INT_MIN % -1)")
    r = abs(sa) % abs(sb)
    return (-r if sa < 0 else r) & ((1 << w) - 1)


def _divui(a: int, b: int, w: int, interp) -> int:
    if b == 0:
        raise _ub(interp, "unsigned division by zero")
    return a // b


def _remui(a: int, b: int, w: int, interp) -> int:
    if b == 0:
        raise _ub(interp, "unsigned remainder by zero")
    return a % b


def _ceildivui(a: int, b: int, w: int, interp) -> int:
    if b == 0:
        raise _ub(interp, "unsigned division by zero")
    return -(-a // b)


def _floordivsi(a: int, b: int, w: int, interp) -> int:
    sa, sb = to_signed(a, w), to_signed(b, w)
    if sb == 0:
        raise _ub(interp, "signed division by zero")
    if sb == -1 and sa == -(1 << (w - 1)):
        raise _ub(interp, "signed division overflow (INT_MIN / -1)")
    return (sa // sb) & ((1 << w) - 1)


def _ceildivsi(a: int, b: int, w: int, interp) -> int:
    sa, sb = to_signed(a, w), to_signed(b, w)
    if sb == 0:
        raise _ub(interp, "signed division by zero")
    if sb == -1 and sa == -(1 << (w - 1)):
        raise _ub(interp, "signed division overflow (INT_MIN / -1)")
    return (-(-sa // sb)) & ((1 << w) - 1)


def _shift_check(b: int, w: int, interp) -> None:
    if b >= w:
        raise _ub(interp, f"shift by {b}, not less than the bit width {w} (poison)")


def _shli(a: int, b: int, w: int, interp) -> int:
    _shift_check(b, w, interp)
    return (a << b) & ((1 << w) - 1)


def _shrui(a: int, b: int, w: int, interp) -> int:
    _shift_check(b, w, interp)
    return a >> b


def _shrsi(a: int, b: int, w: int, interp) -> int:
    _shift_check(b, w, interp)
    return (to_signed(a, w) >> b) & ((1 << w) - 1)


_INT_BINARY: dict[type[Operation], Callable[[int, int, int, Any], int]] = {
    arith.AddiOp: lambda a, b, w, i: (a + b) & ((1 << w) - 1),
    arith.SubiOp: lambda a, b, w, i: (a - b) & ((1 << w) - 1),
    arith.MuliOp: lambda a, b, w, i: (a * b) & ((1 << w) - 1),
    arith.DivUIOp: _divui,
    arith.DivSIOp: _divsi,
    arith.RemUIOp: _remui,
    arith.RemSIOp: _remsi,
    arith.CeilDivUIOp: _ceildivui,
    arith.CeilDivSIOp: _ceildivsi,
    arith.FloorDivSIOp: _floordivsi,
    arith.AndIOp: lambda a, b, w, i: a & b,
    arith.OrIOp: lambda a, b, w, i: a | b,
    arith.XOrIOp: lambda a, b, w, i: a ^ b,
    arith.ShLIOp: _shli,
    arith.ShRUIOp: _shrui,
    arith.ShRSIOp: _shrsi,
    arith.MinUIOp: lambda a, b, w, i: min(a, b),
    arith.MaxUIOp: lambda a, b, w, i: max(a, b),
    arith.MinSIOp: lambda a, b, w, i: a if to_signed(a, w) <= to_signed(b, w) else b,
    arith.MaxSIOp: lambda a, b, w, i: a if to_signed(a, w) >= to_signed(b, w) else b,
}

CMPI: dict[int, Callable[[int, int, int], bool]] = {
    0: lambda a, b, w: a == b,
    1: lambda a, b, w: a != b,
    2: lambda a, b, w: to_signed(a, w) < to_signed(b, w),
    3: lambda a, b, w: to_signed(a, w) <= to_signed(b, w),
    4: lambda a, b, w: to_signed(a, w) > to_signed(b, w),
    5: lambda a, b, w: to_signed(a, w) >= to_signed(b, w),
    6: lambda a, b, w: a < b,
    7: lambda a, b, w: a <= b,
    8: lambda a, b, w: a > b,
    9: lambda a, b, w: a >= b,
}


def _nan(x: Any) -> bool:
    return x != x


CMPF: dict[int, Callable[[Any, Any], bool]] = {
    0: lambda a, b: False,
    1: lambda a, b: bool(a == b),
    2: lambda a, b: bool(a > b),
    3: lambda a, b: bool(a >= b),
    4: lambda a, b: bool(a < b),
    5: lambda a, b: bool(a <= b),
    6: lambda a, b: not _nan(a) and not _nan(b) and bool(a != b),
    7: lambda a, b: not _nan(a) and not _nan(b),
    8: lambda a, b: _nan(a) or _nan(b) or bool(a == b),
    9: lambda a, b: _nan(a) or _nan(b) or bool(a > b),
    10: lambda a, b: _nan(a) or _nan(b) or bool(a >= b),
    11: lambda a, b: _nan(a) or _nan(b) or bool(a < b),
    12: lambda a, b: _nan(a) or _nan(b) or bool(a <= b),
    13: lambda a, b: bool(a != b),
    14: lambda a, b: _nan(a) or _nan(b),
    15: lambda a, b: True,
}


def maximumf(a: Any, b: Any) -> Any:
    """IEEE 754-2019 maximum: NaN propagates, +0 > -0."""
    if _nan(a):
        return a
    if _nan(b):
        return b
    if a == b:
        return b if np.signbit(a) else a
    return a if a > b else b


def minimumf(a: Any, b: Any) -> Any:
    """IEEE 754-2019 minimum: NaN propagates, -0 < +0."""
    if _nan(a):
        return a
    if _nan(b):
        return b
    if a == b:
        return a if np.signbit(a) else b
    return a if a < b else b


def maxnumf(a: Any, b: Any) -> Any:
    """LLVM maxnum (C fmax): a NaN operand yields the other operand."""
    if _nan(a):
        return b
    if _nan(b):
        return a
    return a if a >= b else b


def minnumf(a: Any, b: Any) -> Any:
    """LLVM minnum (C fmin): a NaN operand yields the other operand."""
    if _nan(a):
        return b
    if _nan(b):
        return a
    return a if a <= b else b


_FLOAT_BINARY: dict[type[Operation], Callable[[Any, Any], Any]] = {
    arith.AddfOp: lambda a, b: a + b,
    arith.SubfOp: lambda a, b: a - b,
    arith.MulfOp: lambda a, b: a * b,
    arith.DivfOp: lambda a, b: a / b,
    arith.MaximumfOp: maximumf,
    arith.MinimumfOp: minimumf,
    arith.MaxnumfOp: maxnumf,
    arith.MinnumfOp: minnumf,
}

_MANTISSA = {np.float16: 11, np.float32: 24, np.float64: 53}


def int_to_float(x: int, dtype: type[np.floating]) -> np.floating:
    """``x`` rounded once to ``dtype`` (nearest, ties to even), as LLVM's sitofp/uitofp:
    ``dtype(float(x))`` would round twice for integers wider than 53 bits."""
    p = _MANTISSA[dtype]
    mag = abs(x)
    n = mag.bit_length()
    if n > p:
        shift = n - p
        q, rem = mag >> shift, mag & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rem > half or (rem == half and q & 1):
            q += 1
        mag = q << shift
    with np.errstate(over="ignore"):
        v = dtype(float(mag)) if mag < (1 << 1024) else dtype(np.inf)
    return -v if x < 0 else v


def _float_to_int(x: Any, w: int, signed: bool, interp) -> int:
    if _nan(x) or math.isinf(float(x)):
        raise _ub(interp, f"float to integer conversion of {x} (poison)")
    t = int(np.trunc(np.float64(x)) if x.dtype != np.float64 else np.trunc(x))
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
    if not lo <= t <= hi:
        kind = "signed" if signed else "unsigned"
        raise _ub(interp, f"float {x} out of range of a {w}-bit {kind} integer (poison)")
    return t & ((1 << w) - 1)


def _float_dtype(t: Attribute) -> type[np.floating]:
    return FLOAT_DTYPES[type(elem_type(t))]


_CASTS: dict[type[Operation], Callable[[Any, Operation, Any], Any]] = {}


def _cast(cls: type[Operation] | None):
    def reg(fn):
        if cls is not None:  # ops this xDSL version lacks cannot appear in a module
            _CASTS[cls] = fn
        return fn

    return reg


_IN_W: dict[Operation, int] = {}
_OUT_W: dict[Operation, int] = {}


def _in_w(op: Operation) -> int:
    w = _IN_W.get(op)
    if w is None:
        w = _IN_W[op] = int_width(elem_type(op.operands[0].type))  # type: ignore[assignment]
    return w  # type: ignore[return-value]


def _out_w(op: Operation) -> int:
    w = _OUT_W.get(op)
    if w is None:
        w = _OUT_W[op] = int_width(elem_type(op.results[0].type))  # type: ignore[assignment]
    return w  # type: ignore[return-value]


@_cast(arith.ExtUIOp)
def _extui(x, op, interp):
    return x


@_cast(arith.ExtSIOp)
def _extsi(x, op, interp):
    return to_signed(x, _in_w(op)) & ((1 << _out_w(op)) - 1)


@_cast(arith.TruncIOp)
def _trunci(x, op, interp):
    return x & ((1 << _out_w(op)) - 1)


@_cast(arith.IndexCastOp)
def _index_cast(x, op, interp):
    return to_signed(x, _in_w(op)) & ((1 << _out_w(op)) - 1)


@_cast(getattr(arith, "IndexCastUIOp", None))
def _index_castui(x, op, interp):
    return x & ((1 << _out_w(op)) - 1)


@_cast(arith.SIToFPOp)
def _sitofp(x, op, interp):
    return int_to_float(to_signed(x, _in_w(op)), _float_dtype(op.results[0].type))


@_cast(arith.UIToFPOp)
def _uitofp(x, op, interp):
    return int_to_float(x, _float_dtype(op.results[0].type))


@_cast(arith.FPToSIOp)
def _fptosi(x, op, interp):
    return _float_to_int(x, _out_w(op), True, interp)


@_cast(arith.FPToUIOp)
def _fptoui(x, op, interp):
    return _float_to_int(x, _out_w(op), False, interp)


@_cast(arith.ExtFOp)
def _extf(x, op, interp):
    return _float_dtype(op.results[0].type)(x)


@_cast(arith.TruncFOp)
def _truncf(x, op, interp):
    with np.errstate(over="ignore"):
        return _float_dtype(op.results[0].type)(x)


@_cast(arith.BitcastOp)
def _bitcast(x, op, interp):
    src, dst = elem_type(op.operands[0].type), elem_type(op.results[0].type)
    a = np.array(x if int_width(src) is None else x, dtype=vector_dtype(src)).reshape(())
    b = a.view(vector_dtype(dst))[()]
    return int(b) if int_width(dst) is not None else b


class ArithFunctions(InterpreterFunctions):
    """arith.* (built from the tables above; ``register_impls`` below)."""

    @impl(arith.ConstantOp)
    def run_constant(self, interp, op: arith.ConstantOp, args):
        return (attr_value(op.value, op.result.type),)

    @impl(arith.SelectOp)
    def run_select(self, interp, op: arith.SelectOp, args):
        c, a, b = args
        if isinstance(c, np.ndarray):
            return (np.where(c, a, b).astype(a.dtype),)
        return (a if c else b,)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interp, op: arith.CmpiOp, args):
        a, b = args
        fn = CMPI[op.predicate.value.data]
        w = width_of(op)
        if isinstance(a, np.ndarray):
            return (_lanes(lambda x, y: int(fn(x, y, w)), args, op.result.type),)
        return (int(fn(a, b, w)),)

    @impl(arith.CmpfOp)
    def run_cmpf(self, interp, op: arith.CmpfOp, args):
        a, b = args
        fn = CMPF[op.predicate.value.data]
        if isinstance(a, np.ndarray):
            return (_lanes(lambda x, y: int(fn(x, y)), args, op.result.type),)
        return (int(fn(a, b)),)

    @impl(arith.NegfOp)
    def run_negf(self, interp, op: arith.NegfOp, args):
        return (-args[0],)



def _int_impl(cls: type[Operation], fn: Callable[[int, int, int, Any], int]):
    def run(self, interp, op, args):
        a, b = args
        w = width_of(op)
        if a.__class__ is np.ndarray:
            return (_lanes(lambda x, y: fn(x, y, w, interp), args, op.results[0].type),)
        return (fn(a, b, w, interp),)

    return impl(cls)(run)


def _float_impl(cls: type[Operation], fn: Callable[[Any, Any], Any]):
    if fn in (maximumf, minimumf, maxnumf, minnumf):

        def run(self, interp, op, args):
            if args[0].__class__ is np.ndarray:
                return (_lanes(fn, args, op.results[0].type),)
            return (fn(*args),)

        return impl(cls)(run)
    return impl(cls)(_FAST_FLOAT.get(cls, lambda self, interp, op, args: (fn(*args),)))


def _addf(self, interp, op, args):
    return (args[0] + args[1],)


def _subf(self, interp, op, args):
    return (args[0] - args[1],)


def _mulf(self, interp, op, args):
    return (args[0] * args[1],)


def _divf(self, interp, op, args):
    return (args[0] / args[1],)


#: the four IEEE operations inline (numpy scalars and arrays round at their width)
_FAST_FLOAT = {arith.AddfOp: _addf, arith.SubfOp: _subf, arith.MulfOp: _mulf,
               arith.DivfOp: _divf}


def _cast_impl(cls: type[Operation], fn: Callable[[Any, Operation, Any], Any]):
    def run(self, interp, op, args):
        (x,) = args
        if isinstance(x, np.ndarray) and isinstance(op.results[0].type, VectorType):
            return (_lanes(lambda v: fn(v, op, interp), args, op.results[0].type),)
        return (fn(x, op, interp),)

    return impl(cls)(run)


# -- extended arithmetic: two results, (a, b, w) -> (first, second) ---------------------------


def _addui_extended(a: int, b: int, w: int) -> tuple[int, int]:
    return (a + b) & ((1 << w) - 1), int(a + b >> w != 0)


def _mului_extended(a: int, b: int, w: int) -> tuple[int, int]:
    return (a * b) & ((1 << w) - 1), (a * b) >> w


def _mulsi_extended(a: int, b: int, w: int) -> tuple[int, int]:
    p = to_signed(a, w) * to_signed(b, w)
    return p & ((1 << w) - 1), (p >> w) & ((1 << w) - 1)


def _pair_impl(cls: type[Operation], fn: Callable[[int, int, int], tuple[int, int]]):
    def run(self, interp, op, args):
        a, b = args
        w = width_of(op)
        if a.__class__ is np.ndarray:
            return tuple(_lanes(lambda x, y, i=i: fn(x, y, w)[i], args, r.type)
                         for i, r in enumerate(op.results))
        return fn(a, b, w)

    return impl(cls)(run)


_PAIRS = {arith.AddUIExtendedOp: _addui_extended, arith.MulUIExtendedOp: _mului_extended,
          arith.MulSIExtendedOp: _mulsi_extended}
for _cls, _pfn in _PAIRS.items():
    setattr(ArithFunctions, "run_" + _cls.name.replace(".", "_"), _pair_impl(_cls, _pfn))
if hasattr(arith, "RemFOp"):
    _FLOAT_BINARY[arith.RemFOp] = np.fmod
for _cls, _fn in _INT_BINARY.items():
    setattr(ArithFunctions, "run_" + _cls.name.replace(".", "_"), _int_impl(_cls, _fn))
for _cls, _ffn in _FLOAT_BINARY.items():
    setattr(ArithFunctions, "run_" + _cls.name.replace(".", "_"), _float_impl(_cls, _ffn))
for _cls, _cfn in _CASTS.items():
    setattr(ArithFunctions, "run_" + _cls.name.replace(".", "_"), _cast_impl(_cls, _cfn))
register_impls(ArithFunctions)
