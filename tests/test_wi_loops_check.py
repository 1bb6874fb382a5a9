"""The storage check of work-item-loops (``check-plan``): a per-work-item array read before
it is written on some path is an error naming the kernel."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.parser import Parser

from xmux.errors import XmuxError
from xmux.registry import make_context
from xmux.transforms.wi_loops import check_storage

GROUP_FN = """
func.func @k(%a: memref<?xi32>, %n: index, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %arr = memref.alloca(%c8) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
  WRITE
  scf.for %x = %c0 to %c8 step %c1 {
    mux.set_local_id 0, %x : index
    %v = memref.load %arr[%x] : memref<?xi32>
    memref.store %v, %a[%x] : memref<?xi32>
  } {mux.work_item_loop}
  func.return
}
"""

NEST_WRITE = """scf.for %x = %c0 to %c8 step %c1 {
    mux.set_local_id 0, %x : index
    %z = arith.constant 0 : i32
    memref.store %z, %arr[%x] : memref<?xi32>
  } {mux.work_item_loop}"""


def _check(write: str) -> None:
    module = Parser(make_context(), GROUP_FN.replace("WRITE", write)).parse_module()
    kernel = next(op for op in module.ops if isinstance(op, func.FuncOp))
    check_storage(kernel)


def test_write_in_a_nest_before_the_read_passes():
    _check(NEST_WRITE)


@pytest.mark.parametrize(
    "write",
    [
        "",  # never written
        # a group-level loop may run zero times
        "scf.for %g = %c0 to %n step %c1 {\n" + NEST_WRITE + "\n  }",
        # one branch only
        "scf.if %flag {\n" + NEST_WRITE + "\n  }",
    ],
    ids=["never", "zero-trip-loop", "one-branch"],
)
def test_read_before_write_on_some_path_is_an_error(write):
    with pytest.raises(XmuxError, match=r"kernel @k: per-work-item array #0 is read before"):
        _check(write)


def test_both_branches_writing_pass():
    _check("scf.if %flag {\n" + NEST_WRITE + "\n  } else {\n" + NEST_WRITE + "\n  }")
