"""numpy views as kernel arguments, on both targets (issue 36, item 4).

* A memref type with a static offset (``strided<[1], offset: 2>``, what ``memref.subview``
  gives) has its element 0 at the array's first element: the lowered kernel adds the static
  offset to every index, so the launcher passes the aligned pointer that many elements before
  the array. It did not (element 0 was read 2 elements late, silently).
* Strides a layout fixes must be the array's: the lowering uses the type's, not the array's.
* Views of one host buffer are one buffer in a launch: on the GPU they share one device copy,
  so a write through one view is read through another, and the host sees it after.

The nvptx cases skip without a CUDA device (CI has none).
"""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.errors import LaunchError
from xmux.runtime import cuda

TARGETS = [
    "cpu",
    pytest.param("nvptx", marks=pytest.mark.skipif(not cuda.available(), reason="no CUDA")),
]

OFFSET = """
func.func @window(%a: memref<4xf32, strided<[1], offset: 2>>, %o: memref<4xf32>,
                  %w: memref<4xf32, strided<[1], offset: 3>>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<4xf32, strided<[1], offset: 2>>
  memref.store %v, %o[%i] : memref<4xf32>
  %ten = arith.constant 10.0 : f32
  %t = arith.mulf %v, %ten : f32
  memref.store %t, %w[%i] : memref<4xf32, strided<[1], offset: 3>>
  func.return
}
"""

STEP2 = """
func.func @evens(%a: memref<4xf32, strided<[2]>>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<4xf32, strided<[2]>>
  %one = arith.constant 1.0 : f32
  %r = arith.addf %v, %one : f32
  memref.store %r, %a[%i] : memref<4xf32, strided<[2]>>
  func.return
}
"""

#: writes through one view, reads the element back through another view of the same buffer
OVERLAP = """
func.func @overlap(%lo: memref<?xf32, strided<[?], offset: ?>>,
                   %hi: memref<?xf32, strided<[?], offset: ?>>, %out: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %hi[%i] : memref<?xf32, strided<[?], offset: ?>>
  %one = arith.constant 1.0 : f32
  %w = arith.addf %v, %one : f32
  memref.store %w, %hi[%i] : memref<?xf32, strided<[?], offset: ?>>
  %j = arith.addi %i, %c1 : index
  %r = memref.load %lo[%j] : memref<?xf32, strided<[?], offset: ?>>
  memref.store %r, %out[%i] : memref<?xf32>
  func.return
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_static_offset_puts_element_0_at_the_array_start(target: str) -> None:
    prog = xmux.compile(OFFSET, target=target, cache=False)
    src = np.arange(10, dtype=np.float32)
    dst = np.zeros(10, np.float32)
    out = np.zeros(4, np.float32)
    prog["window"](src[2:6], out, dst[5:9], global_size=(4,), local_size=(4,))
    np.testing.assert_array_equal(out, [2, 3, 4, 5])
    np.testing.assert_array_equal(dst, [0, 0, 0, 0, 0, 20, 30, 40, 50, 0])


@pytest.mark.parametrize("target", TARGETS)
def test_static_strides_must_be_the_arrays(target: str) -> None:
    prog = xmux.compile(STEP2, target=target, cache=False)
    base = np.zeros(8, np.float32)
    prog["evens"](base[::2], global_size=(4,), local_size=(4,))
    np.testing.assert_array_equal(base, [1, 0, 1, 0, 1, 0, 1, 0])
    with pytest.raises(LaunchError, match=r"argument 0 \('a'\).*stride 1 elements.*fixes it at 2"):
        prog["evens"](np.zeros(4, np.float32), global_size=(4,), local_size=(4,))


@pytest.mark.parametrize("target", TARGETS)
def test_views_of_one_buffer_are_one_buffer(target: str) -> None:
    prog = xmux.compile(OVERLAP, target=target, cache=False)
    n = 16
    buf = np.arange(n + 1, dtype=np.float32)
    out = np.zeros(n, np.float32)
    # hi[i] is lo[i + 1]: each work-item reads back its own write through the other view
    prog["overlap"](buf[:n], buf[1:], out, global_size=(n,), local_size=(4,))
    want = np.arange(1, n + 1, dtype=np.float32) + 1
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(buf, np.concatenate([[0], want]))
