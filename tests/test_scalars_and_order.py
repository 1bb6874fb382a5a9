"""Scalar arguments of every width round-trip; the work-item order attribute is observable."""

from __future__ import annotations

import numpy as np
import pytest

import xmux

INT_TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
FLOAT_TYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def _scalar_kernel(t: str, one: str, combine: str) -> str:
    return f"""
    func.func @k(%v: {t}, %out: memref<2x{t}>) attributes {{mux.kernel = "entry_point"}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant {one} : {t}
      %w = arith.{combine} %v, %one : {t}
      memref.store %v, %out[%c0] : memref<2x{t}>
      memref.store %w, %out[%c1] : memref<2x{t}>
      func.return
    }}"""


@pytest.mark.parametrize("t", list(INT_TYPES))
def test_integer_scalars_round_trip(t):
    dt = INT_TYPES[t]
    k = xmux.compile(_scalar_kernel(t, "1", "addi")).kernel("k")
    info = np.iinfo(dt)
    for v in (0, -1, 5, info.min, info.max):
        out = np.zeros(2, dt)
        k(v, out, global_size=(1,), local_size=(1,))
        assert out[0] == v
        assert out[1] == dt(v) + dt(1) if v != info.max else out[1] == info.min  # wraps


@pytest.mark.parametrize("t", list(FLOAT_TYPES))
def test_float_scalars_round_trip(t):
    dt = FLOAT_TYPES[t]
    k = xmux.compile(_scalar_kernel(t, "2.0", "mulf")).kernel("k")
    for v in (0.0, -1.5, 3.25e-3, float(np.finfo(dt).max) / 4, np.finfo(dt).tiny):
        out = np.zeros(2, dt)
        k(dt(v), out, global_size=(1,), local_size=(1,))
        assert out[0] == dt(v)
        assert out[1] == dt(v) * dt(2)


def test_bool_and_index_scalars():
    src = """
    func.func @k(%b: i1, %n: index, %out: memref<2xi64>) attributes {mux.kernel = "entry_point"} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %bi = arith.extui %b : i1 to i64
      %ni = arith.index_cast %n : index to i64
      memref.store %bi, %out[%c0] : memref<2xi64>
      memref.store %ni, %out[%c1] : memref<2xi64>
      func.return
    }"""
    k = xmux.compile(src).kernel("k")
    out = np.zeros(2, np.int64)
    k(True, 2**40 + 3, out, global_size=1, local_size=1)
    assert list(out) == [1, 2**40 + 3]
    k(False, -7, out, global_size=1, local_size=1)
    assert list(out) == [0, -7]


ORDER_KERNEL = """
func.func @order(%counter: memref<1xi32>, %out: memref<?x?x?xi32>)
    attributes {{mux.kernel = "entry_point"{attr}}} {{
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %z = mux.get_global_id 2 : index
  // memref.atomic_rmw addi (kind 1) in generic form: xDSL 0.74 has no custom syntax for it
  %old = "memref.atomic_rmw"(%one, %counter, %c0) <{{kind = 1 : i64}}>
      : (i32, memref<1xi32>, index) -> i32
  memref.store %old, %out[%z, %y, %x] : memref<?x?x?xi32>
  func.return
}}"""


@pytest.mark.parametrize(
    "order,expect",
    [
        (None, lambda z, y, x: (z * 3 + y) * 4 + x),  # default xyz: x innermost
        ((2, 1, 0), lambda z, y, x: (z * 3 + y) * 4 + x),
        ((0, 1, 2), lambda z, y, x: (x * 3 + y) * 2 + z),  # zyx: z innermost
        ((1, 2, 0), lambda z, y, x: (y * 2 + z) * 4 + x),  # y outermost, then z, then x
    ],
)
def test_work_item_order_is_observable(order, expect):
    attr = ""
    if order is not None:
        attr = f", mux.work_item_order = array<i64: {', '.join(map(str, order))}>"
    k = xmux.compile(ORDER_KERNEL.format(attr=attr)).kernel("order")
    counter = np.zeros(1, np.int32)
    out = np.full((2, 3, 4), -1, np.int32)
    k(counter, out, global_size=(4, 3, 2), local_size=(4, 3, 2), threads=1)
    z, y, x = np.meshgrid(range(2), range(3), range(4), indexing="ij")
    np.testing.assert_array_equal(out, expect(z, y, x))
    assert counter[0] == 24
