"""The checking mode reports every divergent barrier the interpreter reports (issue 36): a
work-group barrier under control flow that the work-items of a group disagree on, as data
decide (the compile-time check only sees conditions that compare the local id)."""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.runtime.interpreter.errors import DivergentBarrierError

BARRIER = "mux.work_group_barrier work_group, <acq_rel, work_group_memory>"

#: control flow around a barrier whose control comes from the data (flags[global id])
SHAPES = {
    "if": f"""
  %c0 = arith.constant 0 : i32
  %take = arith.cmpi ne, %f, %c0 : i32
  scf.if %take {{
    {BARRIER}
  }}""",
    "for": f"""
  %n = arith.index_cast %f : i32 to index
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  scf.for %k = %i0 to %n step %i1 {{
    {BARRIER}
  }}""",
    "while": f"""
  %w0 = arith.constant 0 : i32
  %w1 = arith.constant 1 : i32
  %r = scf.while (%k = %w0) : (i32) -> i32 {{
    %more = arith.cmpi slt, %k, %f : i32
    scf.condition(%more) %k : i32
  }} do {{
  ^bb0(%k2: i32):
    {BARRIER}
    %k3 = arith.addi %k2, %w1 : i32
    scf.yield %k3 : i32
  }}""",
}


def _source(shape: str) -> str:
    return f"""
func.func @k(%flags: memref<?xi32>, %out: memref<?xi32>)
    attributes {{mux.kernel = "entry_point"}} {{
  %g = mux.get_global_id 0 : index
  %f = memref.load %flags[%g] : memref<?xi32>
{SHAPES[shape]}
  memref.store %f, %out[%g] : memref<?xi32>
  func.return
}}
"""


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("odd", [None, 0, 5, 13, 31])
def test_checks_report_what_the_interpreter_reports(shape: str, odd: int | None) -> None:
    src = _source(shape)
    flags = np.full(32, 2, np.int32)
    if odd is not None:
        flags[odd] = 1 if shape != "if" else 0
    out = np.zeros(32, np.int32)
    interpreted = None
    try:
        xmux.interpret(src, "k", flags, out.copy(), global_size=(32,), local_size=(8,))
    except DivergentBarrierError as e:
        interpreted = e
    k = xmux.compile(src, cache=False, checks=True)["k"]
    if interpreted is None:
        k(flags, out, global_size=(32,), local_size=(8,))
        np.testing.assert_array_equal(out, flags)
        return
    with pytest.raises(xmux.CheckError, match="divergent barrier") as caught:
        k(flags, out, global_size=(32,), local_size=(8,))
    text = str(caught.value)
    assert "kernel @k" in text and f"scf.{shape}" in text
    assert f"in work-group ({odd // 8}, 0, 0)" in text
    # the two work-items named disagree: work-item 0 and one of the group's
    assert "work-item (0, 0, 0) has" in text


def test_without_checks_no_check_code() -> None:
    """The check costs nothing outside the checking mode: no report site is compiled in."""
    prog = xmux.compile(_source("if"), cache=False, checks=False)
    assert "divergent barrier" not in (prog.llvm_ir or "")
    prog = xmux.compile(_source("if"), cache=False, checks=True)
    assert "divergent barrier" in (prog.llvm_ir or "")
