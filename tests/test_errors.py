"""Bad input gets a clear error naming what is at fault."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import xmux
from tests.kernel_texts import VECADD
from xmux import LaunchError, XmuxError

REQD = """
func.func @fixed(%a: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = arith.addf %x, %x : f32
  memref.store %y, %a[%i] : memref<?xf32>
  func.return
}
"""


@pytest.fixture(scope="module")
def vecadd():
    return xmux.compile(VECADD).kernel("vecadd")


def test_unparsable_ir_reports_location():
    with pytest.raises(XmuxError, match=r"<source>:3:\d+"):
        xmux.compile(
            "func.func @k() {\n  %a = arith.constant 1 : i32\n  %b = arith.addi %a, : i32\n}"
        )


def test_unknown_op():
    with pytest.raises(XmuxError, match="mux.get_global_idx"):
        xmux.compile("func.func @k() {\n  %a = mux.get_global_idx 0 : index\n  func.return\n}")


def test_verifier_failure_names_op():
    with pytest.raises(XmuxError, match=r"mux.get_global_id|dim"):
        xmux.compile(
            'func.func @k() attributes {mux.kernel = "entry_point"} {\n'
            "  %a = mux.get_global_id 3 : index\n  func.return\n}"
        )


def test_unknown_kernel_name():
    prog = xmux.compile(VECADD)
    with pytest.raises(XmuxError, match=r"no kernel named 'vecad'.*vecadd"):
        prog.kernel("vecad")
    with pytest.raises(XmuxError, match="no kernel named"):
        prog["nope"]


def test_wrong_argument_count(vecadd):
    a = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match=r"'vecadd' takes 3 arguments \(a, b, c\), got 2"):
        vecadd(a, a, global_size=4)


def test_wrong_dtype(vecadd):
    a = np.zeros(4, np.float32)
    msg = r"argument 1 \('b'\): expected dtype float32, got float64"
    with pytest.raises(LaunchError, match=msg):
        vecadd(a, np.zeros(4), a, global_size=4)


def test_wrong_rank(vecadd):
    a = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match="expected rank 1, got an array of rank 2"):
        vecadd(a, a, np.zeros((2, 2), np.float32), global_size=4)


def test_scalar_where_array_expected(vecadd):
    a = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match="expected a numpy array of float32, got float"):
        vecadd(a, 1.0, a, global_size=4)


def test_non_contiguous_array(vecadd):
    a = np.zeros(8, np.float32)
    with pytest.raises(LaunchError, match="not C-contiguous"):
        vecadd(a[::2], a[:4], a[4:], global_size=4)


def test_local_size_zero(vecadd):
    a = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match="local_size must be positive"):
        vecadd(a, a, a, global_size=4, local_size=0)


def test_local_larger_than_global(vecadd):
    a = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match=r"local_size \[8\] is larger than global_size \[4\]"):
        vecadd(a, a, a, global_size=4, local_size=8)


def test_dimension_mismatch(vecadd):
    a = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match="local_size has 2 dimensions, global_size has 1"):
        vecadd(a, a, a, global_size=4, local_size=(2, 2))


def test_reqd_work_group_size_mismatch():
    k = xmux.compile(REQD).kernel("fixed")
    a = np.arange(16, dtype=np.float32)
    with pytest.raises(LaunchError, match=r"does not match its reqd_work_group_size \[8, 1, 1\]"):
        k(a, global_size=16, local_size=4)
    k(a, global_size=16)  # defaults to the required size
    np.testing.assert_array_equal(a, 2 * np.arange(16, dtype=np.float32))


def test_module_without_kernel():
    with pytest.raises(XmuxError, match="no entry-point kernel"):
        xmux.compile("func.func @helper(%a: i32) -> i32 {\n  func.return %a : i32\n}")


def test_xmux_opt_bad_input_exits_cleanly(tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text("func.func @k() {\n  %a = mux.get_global_id 7 : index\n  func.return\n}\n")
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from xmux.cli import opt_main; sys.exit(opt_main())",
         str(f)],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "error" in proc.stderr and "mux.get_global_id" in proc.stderr


def test_xmux_run_missing_file(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from xmux.cli import run_main; sys.exit(run_main())",
         str(tmp_path / "nope.mlir")],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 1
    assert "no such file" in proc.stderr


def test_reqd_work_group_size_needs_full_groups():
    k = xmux.compile(REQD).kernel("fixed")
    with pytest.raises(LaunchError, match=r"global_size \[12\] is not a multiple of its reqd"):
        k(np.zeros(12, np.float32), global_size=12, local_size=8)


RECURSIVE = """
func.func private @down(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %done = arith.cmpi sle, %n, %c0 : i64
  %r = scf.if %done -> (i64) {
    scf.yield %c0 : i64
  } else {
    %m = arith.subi %n, %c1 : i64
    %f = func.call @up(%m) : (i64) -> i64
    scf.yield %f : i64
  }
  func.return %r : i64
}
func.func private @up(%n: i64) -> i64 {
  %f = func.call @down(%n) : (i64) -> i64
  func.return %f : i64
}
func.func @k(%a: memref<?xi64>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %n = arith.index_cast %i : index to i64
  %f = func.call @down(%n) : (i64) -> i64
  memref.store %f, %a[%i] : memref<?xi64>
  func.return
}
"""


def test_recursion_is_rejected_naming_the_cycle():
    """OpenCL forbids recursion; deep recursion would overflow a worker's stack."""
    with pytest.raises(XmuxError, match=r"recursion in kernel @k: @down -> @up -> @down"):
        xmux.compile(RECURSIVE, cache=False)
