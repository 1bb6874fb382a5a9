"""convert-to-llvm end to end: lower small functions, JIT them, compare with numpy.

Functions are marked ``llvm.emit_c_interface`` so they stay external; memref descriptors are
passed expanded (allocated, aligned, offset, sizes..., strides...), which is how LLVM passes a
first-class struct argument on x86-64.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from xdsl.parser import Parser

from xmux.errors import XmuxError
from xmux.lowering.convert_to_llvm import ConvertToLLVMPass
from xmux.lowering.emit import emit_text
from xmux.registry import make_context
from xmux.runtime import jit

C_API = "attributes {llvm.emit_c_interface}"


def lower(text: str):
    ctx = make_context(allow_unregistered=True)
    module = Parser(ctx, text).parse_module()
    module.verify()
    ConvertToLLVMPass().apply(ctx, module)
    module.verify()
    return module


class Compiled:
    def __init__(self, text: str):
        self.module = lower(text)
        self.ir = emit_text(self.module)
        self.jm = jit.compile_ir(self.ir, cache_dir=None)

    def fn(self, name: str, restype, *argtypes):
        proto = ctypes.CFUNCTYPE(restype, *argtypes)
        return proto(self.jm.address(name))


def desc_types(rank: int) -> list:
    return [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * rank)


def desc(a: np.ndarray, base: np.ndarray | None = None) -> list:
    """Expanded descriptor of a numpy view; with ``base`` the offset is explicit."""
    item = a.itemsize
    if base is None:
        ptr, offset = a.ctypes.data, 0
    else:
        ptr = base.ctypes.data
        offset = (a.ctypes.data - ptr) // item
    return [ptr, ptr, offset, *a.shape, *(s // item for s in a.strides)]


# ---------------------------------------------------------------------------------------
# memref descriptors: strided views, offsets, subviews
# ---------------------------------------------------------------------------------------

STRIDED_SUM = f"""
func.func @sum(%a: memref<?xf64, strided<[?], offset: ?>>) -> f64 {C_API} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64, strided<[?], offset: ?>>
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f64) {{
    %x = memref.load %a[%i] : memref<?xf64, strided<[?], offset: ?>>
    %s = arith.addf %acc, %x : f64
    scf.yield %s : f64
  }}
  return %r : f64
}}
func.func @sum2d(%a: memref<?x?xf64, strided<[?, ?], offset: ?>>) -> f64 {C_API} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n0 = memref.dim %a, %c0 : memref<?x?xf64, strided<[?, ?], offset: ?>>
  %n1 = memref.dim %a, %c1 : memref<?x?xf64, strided<[?, ?], offset: ?>>
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n0 step %c1 iter_args(%acc = %z) -> (f64) {{
    %w = arith.index_cast %i : index to i64
    %wf = arith.sitofp %w : i64 to f64
    %r1 = scf.for %j = %c0 to %n1 step %c1 iter_args(%acc1 = %acc) -> (f64) {{
      %x = memref.load %a[%i, %j] : memref<?x?xf64, strided<[?, ?], offset: ?>>
      %y = arith.mulf %x, %wf : f64
      %s = arith.addf %acc1, %y : f64
      scf.yield %s : f64
    }}
    scf.yield %r1 : f64
  }}
  return %r : f64
}}
"""


@pytest.fixture(scope="module")
def strided() -> Compiled:
    return Compiled(STRIDED_SUM)


@pytest.mark.parametrize(
    "view",
    [lambda b: b, lambda b: b[::3], lambda b: b[::-2], lambda b: b[7:50:5], lambda b: b[:0]],
    ids=["contiguous", "step3", "reversed", "offset_step", "empty"],
)
def test_strided_1d_sum(strided: Compiled, view) -> None:
    base = np.random.default_rng(0).standard_normal(101)
    a = view(base)
    f = strided.fn("sum", ctypes.c_double, *desc_types(1))
    lo = min(0, (a.ctypes.data - base.ctypes.data) // 8)
    assert lo == 0
    got = f(*desc(a, base))
    assert got == pytest.approx(float(np.sum(a)), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    "view",
    [lambda b: b, lambda b: b.T, lambda b: b[2:9:2, ::-3], lambda b: b[1:, 3:4]],
    ids=["contiguous", "transposed", "sliced", "column"],
)
def test_strided_2d_weighted_sum(strided: Compiled, view) -> None:
    base = np.random.default_rng(1).standard_normal((12, 13))
    a = view(base)
    f = strided.fn("sum2d", ctypes.c_double, *desc_types(2))
    expected = float(np.sum(a * np.arange(a.shape[0])[:, None]))
    assert f(*desc(a, base)) == pytest.approx(expected, rel=1e-12, abs=1e-12)


SUBVIEW = f"""
func.func @row_sum(%a: memref<?x?xf32>, %r: index, %off: index, %len: index,
                   %out: memref<f32>) {C_API} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // rank-reducing dynamic subview: one row, columns [off, off + 2*len) step 2
  %row = memref.subview %a[%r, %off] [1, %len] [1, 2]
      : memref<?x?xf32> to memref<?xf32, strided<[2], offset: ?>>
  %z = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %len step %c1 iter_args(%acc = %z) -> (f32) {{
    %x = memref.load %row[%i] : memref<?xf32, strided<[2], offset: ?>>
    %t = arith.addf %acc, %x : f32
    scf.yield %t : f32
  }}
  memref.store %s, %out[] : memref<f32>
  return
}}
func.func @block_fill(%a: memref<8x8xi32>) {C_API} {{
  // static 2-D subview, written through
  %v = memref.subview %a[2, 3] [3, 4] [1, 1]
      : memref<8x8xi32> to memref<3x4xi32, strided<[8, 1], offset: 19>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c3 step %c1 {{
    scf.for %j = %c0 to %c4 step %c1 {{
      %ii = arith.index_cast %i : index to i32
      %jj = arith.index_cast %j : index to i32
      %c10 = arith.constant 10 : i32
      %t = arith.muli %ii, %c10 : i32
      %v2 = arith.addi %t, %jj : i32
      memref.store %v2, %v[%i, %j] : memref<3x4xi32, strided<[8, 1], offset: 19>>
    }}
  }}
  return
}}
"""


def test_subviews() -> None:
    c = Compiled(SUBVIEW)
    a = np.arange(7 * 20, dtype=np.float32).reshape(7, 20)
    out = np.zeros((), np.float32)
    f = c.fn(
        "row_sum",
        None,
        *desc_types(2),
        ctypes.c_int64,
        ctypes.c_int64,
        ctypes.c_int64,
        *desc_types(0),
    )
    f(*desc(a), 4, 3, 6, *desc(out))
    assert out == np.sum(a[4, 3:15:2])

    b = np.zeros((8, 8), np.int32)
    c.fn("block_fill", None, *desc_types(2))(*desc(b))
    expected = np.zeros((8, 8), np.int32)
    expected[2:5, 3:7] = np.arange(3)[:, None] * 10 + np.arange(4)[None, :]
    np.testing.assert_array_equal(b, expected)


# ---------------------------------------------------------------------------------------
# arith on every width
# ---------------------------------------------------------------------------------------


def _elementwise(name: str, t_in: str, t_out: str, body: str) -> str:
    """out[i] = body(x = a[i], y = b[i])."""
    return f"""
func.func @{name}(%a: memref<?x{t_in}>, %b: memref<?x{t_in}>, %o: memref<?x{t_out}>,
                  %n: index) {C_API} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {{
    %x = memref.load %a[%i] : memref<?x{t_in}>
    %y = memref.load %b[%i] : memref<?x{t_in}>
    {body}
    memref.store %r, %o[%i] : memref<?x{t_out}>
  }}
  return
}}
"""


def _run_elementwise(c: Compiled, name: str, a: np.ndarray, b: np.ndarray, out_dtype) -> np.ndarray:
    out = np.zeros(a.shape, out_dtype)
    f = c.fn(name, None, *desc_types(1), *desc_types(1), *desc_types(1), ctypes.c_int64)
    f(*desc(a), *desc(b), *desc(out), a.shape[0])
    return out


def _wrap(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _tdiv(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


INT_OPS = {
    "addi": lambda x, y, w: x + y,
    "subi": lambda x, y, w: x - y,
    "muli": lambda x, y, w: x * y,
    "divsi": lambda x, y, w: _tdiv(x, y),
    "remsi": lambda x, y, w: x - _tdiv(x, y) * y,
    "divui": lambda x, y, w: (x % (1 << w)) // (y % (1 << w)),
    "remui": lambda x, y, w: (x % (1 << w)) % (y % (1 << w)),
    "ceildivsi": lambda x, y, w: -((-x) // y),
    "floordivsi": lambda x, y, w: x // y,
    "ceildivui": lambda x, y, w: -(-(x % (1 << w)) // (y % (1 << w))),
    "minsi": lambda x, y, w: min(x, y),
    "maxsi": lambda x, y, w: max(x, y),
    "minui": lambda x, y, w: min(x % (1 << w), y % (1 << w)),
    "maxui": lambda x, y, w: max(x % (1 << w), y % (1 << w)),
    "andi": lambda x, y, w: x & y,
    "ori": lambda x, y, w: x | y,
    "xori": lambda x, y, w: x ^ y,
    "shli": lambda x, y, w: x << (y % w),
    "shrsi": lambda x, y, w: x >> (y % w),
    "shrui": lambda x, y, w: (x % (1 << w)) >> (y % w),
}


@pytest.mark.parametrize("width", [8, 16, 32, 64])
def test_integer_ops(width: int) -> None:
    t = f"i{width}"
    dtype = np.dtype(f"int{width}")
    src = ""
    for name, _ in INT_OPS.items():
        if name.startswith("sh"):
            # shift amounts are taken modulo the width so the result is defined
            body = (
                f"%w = arith.constant {width} : {t}\n    %m = arith.remui %y, %w : {t}\n"
                f"    %r = arith.{name} %x, %m : {t}"
            )
        else:
            body = f"%r = arith.{name} %x, %y : {t}"
        src += _elementwise(name, t, t, body)
    c = Compiled(src)
    rng = np.random.default_rng(width)
    info = np.iinfo(dtype)
    edge = [info.min, info.max, -1, 0, 1, 7, -7, 3, -3]
    a = np.array(edge + list(rng.integers(info.min, info.max, 40, endpoint=True)), dtype)
    b = np.array(edge[::-1] + list(rng.integers(info.min, info.max, 40, endpoint=True)), dtype)
    b[b == 0] = 5  # no division by zero
    b[(a == info.min) & (b == -1)] = 3  # no signed overflow in division
    for name, ref in INT_OPS.items():
        got = _run_elementwise(c, name, a, b, dtype)
        expected = np.array(
            [_wrap(ref(int(x), int(y), width), width) for x, y in zip(a, b, strict=True)], dtype
        )
        np.testing.assert_array_equal(got, expected, err_msg=f"arith.{name} on {t}")


FLOAT_OPS = {
    "addf": np.add,
    "subf": np.subtract,
    "mulf": np.multiply,
    "divf": np.divide,
    "remf": np.fmod,
    "minimumf": np.minimum,
    "maximumf": np.maximum,
    "minnumf": np.fmin,
    "maxnumf": np.fmax,
}
CMPF = [
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "false",
    "true",
]


def _cmpf_ref(pred: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    unordered = np.isnan(x) | np.isnan(y)
    if pred in ("false", "true"):
        return np.full(x.shape, pred == "true")
    if pred == "ord":
        return ~unordered
    if pred == "uno":
        return unordered
    cmp = {
        "eq": np.equal,
        "gt": np.greater,
        "ge": np.greater_equal,
        "lt": np.less,
        "le": np.less_equal,
        "ne": np.not_equal,
    }[pred[1:]]
    with np.errstate(invalid="ignore"):
        r = cmp(x, y)
    return (r & ~unordered) if pred[0] == "o" else (r | unordered)


@pytest.mark.parametrize("width", [32, 64])
def test_float_ops(width: int) -> None:
    t = f"f{width}"
    dtype = np.dtype(f"float{width}")
    # xDSL 0.74 has no arith.remf: it is parsed unregistered (generic form)
    src = "".join(
        _elementwise(name, t, t, f"%r = arith.{name} %x, %y : {t}")
        if name != "remf"
        else _elementwise(name, t, t, f'%r = "arith.remf"(%x, %y) : ({t}, {t}) -> {t}')
        for name in FLOAT_OPS
    )
    src += _elementwise("negf", t, t, f"%r = arith.negf %x : {t}")
    for pred in CMPF:
        body = f"%p = arith.cmpf {pred}, %x, %y : {t}\n    %r = arith.extui %p : i1 to i8"
        src += _elementwise(f"cmpf_{pred}", t, "i8", body)
    c = Compiled(src)
    nan = float("nan")
    a = np.array([1.5, -2.0, 0.0, -0.0, nan, 3.0, nan, np.inf, -7.25, 1e30], dtype)
    b = np.array([0.5, -2.0, -0.0, 0.0, 1.0, nan, nan, 2.0, 3.5, -1e-30], dtype)
    for name, ref in FLOAT_OPS.items():
        got = _run_elementwise(c, name, a, b, dtype)
        with np.errstate(all="ignore"):
            expected = ref(a, b).astype(dtype)
        np.testing.assert_array_equal(got, expected, err_msg=f"arith.{name} on {t}")
        if name in ("minimumf", "maximumf"):
            # IEEE 754-2019 minimum/maximum order -0.0 below +0.0 (numpy does not)
            assert list(np.signbit(got[2:4])) == [name == "minimumf"] * 2, name
    got = _run_elementwise(c, "negf", a, b, dtype)
    np.testing.assert_array_equal(np.signbit(got), ~np.signbit(a))
    for pred in CMPF:
        got = _run_elementwise(c, f"cmpf_{pred}", a, b, np.int8)
        np.testing.assert_array_equal(
            got, _cmpf_ref(pred, a, b).astype(np.int8), err_msg=f"arith.cmpf {pred}"
        )


def test_cmpi_and_select() -> None:
    preds = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
    src = ""
    for p in preds:
        body = f"%p = arith.cmpi {p}, %x, %y : i16\n    %r = arith.select %p, %x, %y : i16"
        src += _elementwise(f"sel_{p}", "i16", "i16", body)
    c = Compiled(src)
    a = np.array([-5, 3, 0, 7, -32768, 32767, 2, -1], np.int16)
    b = np.array([3, -5, 0, 7, 1, -1, 2, 1], np.int16)
    ua, ub = a.view(np.uint16), b.view(np.uint16)
    refs = {
        "eq": a == b,
        "ne": a != b,
        "slt": a < b,
        "sle": a <= b,
        "sgt": a > b,
        "sge": a >= b,
        "ult": ua < ub,
        "ule": ua <= ub,
        "ugt": ua > ub,
        "uge": ua >= ub,
    }
    for p in preds:
        got = _run_elementwise(c, f"sel_{p}", a, b, np.int16)
        np.testing.assert_array_equal(got, np.where(refs[p], a, b), err_msg=p)


CASTS = [
    # (name, in type, out type, body, numpy reference)
    ("sitofp", "i32", "f32", "arith.sitofp %x : i32 to f32", lambda a: a.astype(np.float32)),
    (
        "uitofp",
        "i32",
        "f64",
        "arith.uitofp %x : i32 to f64",
        lambda a: a.view(np.uint32).astype(np.float64),
    ),
    ("fptosi", "f64", "i16", "arith.fptosi %x : f64 to i16", lambda a: a.astype(np.int16)),
    ("fptoui", "f32", "i8", "arith.fptoui %x : f32 to i8", lambda a: a.astype(np.uint8)),
    ("extsi", "i8", "i64", "arith.extsi %x : i8 to i64", lambda a: a.astype(np.int64)),
    (
        "extui",
        "i8",
        "i32",
        "arith.extui %x : i8 to i32",
        lambda a: a.view(np.uint8).astype(np.int32),
    ),
    ("trunci", "i64", "i16", "arith.trunci %x : i64 to i16", lambda a: a.astype(np.int16)),
    ("extf", "f32", "f64", "arith.extf %x : f32 to f64", lambda a: a.astype(np.float64)),
    ("truncf", "f64", "f32", "arith.truncf %x : f64 to f32", lambda a: a.astype(np.float32)),
    ("bitcast", "f32", "i32", "arith.bitcast %x : f32 to i32", lambda a: a.view(np.int32)),
    (
        "index_cast",
        "i16",
        "i64",
        "%ix = arith.index_cast %x : i16 to index\n    %r = arith.index_cast %ix : index to i64",
        lambda a: a.astype(np.int64),
    ),
]

_DTYPES = {
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "f32": np.float32,
    "f64": np.float64,
}


def test_casts() -> None:
    src = ""
    for name, tin, tout, body, _ in CASTS:
        if not body.startswith("%"):
            body = f"%r = {body}"
        src += _elementwise(name, tin, tout, body)
    c = Compiled(src)
    for name, tin, tout, _, ref in CASTS:
        if tin.startswith("f"):
            a = np.array([0.0, 1.75, 100.5, 3.0, 0.25, 127.9, 42.0], _DTYPES[tin])
            if name == "fptosi" or name == "bitcast" or name.startswith("ext") or name == "truncf":
                a = np.concatenate([a, -a])
        else:
            info = np.iinfo(_DTYPES[tin])
            a = np.array([0, 1, -1, info.min, info.max, 12345 % info.max, -77], _DTYPES[tin])
        got = _run_elementwise(c, name, a, a, _DTYPES[tout])
        np.testing.assert_array_equal(got, ref(a), err_msg=name)


# ---------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "src, message",
    [
        (
            "func.func @k() -> index {\n  %i = mux.get_global_id 0 : index\n  return %i : index\n}",
            "'mux.get_global_id' in @k: no lowering to the llvm dialect (run the kernel pipeline",
        ),
        (
            '"memref.global"() <{sym_name = "tile", sym_visibility = "private", '
            "type = memref<4xf32, 3>, initial_value}> : () -> ()",
            "@tile is in work-group local memory (memory space 3)",
        ),
        (
            'func.func @f() {\n  "foo.bar"() : () -> ()\n  return\n}',
            "'foo.bar' in @f: no lowering to the llvm dialect",
        ),
    ],
    ids=["mux_op", "local_global", "unknown_op"],
)
def test_unsupported_ops_are_named(src: str, message: str) -> None:
    with pytest.raises(XmuxError) as info:
        lower(src)
    assert message in str(info.value)
