"""The checking mode and kernel assertions on the NVPTX target, and gpu.printf's vprintf.

A failed check is recorded on the device (define-check-failed-nvptx) and the launch raises
the CPU's ``xmux.CheckError`` with the same message; the CUDA context survives (later
launches run). CI (no GPU) checks the PTX: the record, the sites folded to constants, no
trap. On a GPU the messages are compared with the CPU's for the same launch.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.abi.nvptx_variants import without_variants
from xmux.runtime import cuda
from xmux.runtime.checks import CheckError

ROOT = Path(__file__).resolve().parent.parent
gpu = pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")

SRC = """
func.func @shift(%a: memref<8xf32>, %out: memref<8xf32>, %n: i32, %d: i32)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c1 = arith.constant 1 : index
  %j = arith.addi %i, %c1 : index
  %v = memref.load %a[%j] : memref<8xf32>
  memref.store %v, %out[%i] : memref<8xf32>
  %c0 = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %n, %c0 : i32
  cf.assert %pos, "n must be positive"
  %q = arith.divsi %n, %d : i32
  func.return
}
"""


def test_checks_are_allowed_and_recorded_in_the_ptx():
    prog = xmux.compile(SRC, target="nvptx", checks=True, cache=False)
    ptx = without_variants(prog.ptx)  # the generic entry (its read-only variant repeats it)
    assert re.search(r"^\.visible \.global \.align 8 \.b8 __xmux_check_record\[128\];", ptx,
                     re.M)
    messages = re.search(r"__xmux_check_messages\[\d+\] = \{([\d, ]+)\}", ptx)
    assert messages is not None
    text = bytes(int(b) for b in messages.group(1).split(",")).decode()
    assert text.split("\0")[:4] == [
        "kernel @shift: assertion failed: n must be positive",
        "kernel @shift: 'memref.load' out of bounds of memref<8xf32> (argument 0 ('a'))",
        "kernel @shift: 'memref.store' out of bounds of memref<8xf32> (argument 1 ('out'))",
        "kernel @shift: 'arith.divsi' by zero or INT_MIN / -1 (dividend, divisor)",
    ]
    # each failure branch counts atomically and stores its site as a literal
    assert len(re.findall(r"atom\.global\.add\.u64\s+%rd\d+, \[__xmux_check_record\], 1;",
                          ptx)) == 4
    sites = re.findall(r"st\.global\.b64\s+\[__xmux_check_record\+8\], (\d+);", ptx)
    assert sorted(sites) == ["0", "1", "2", "3"]
    assert "trap" not in ptx and "xmux_check_failed" not in ptx  # inlined, no trap


def test_without_checks_only_assertions_are_recorded():
    ptx = xmux.compile(SRC, target="nvptx", cache=False).ptx
    assert "__xmux_check_record" in ptx
    assert "out of bounds" not in bytes(
        int(b) for b in re.search(r"__xmux_check_messages\[\d+\] = \{([\d, ]+)\}", ptx)
        .group(1).split(",")).decode()
    plain = xmux.compile(ROOT / "examples" / "vecadd.mlir", target="nvptx", cache=False).ptx
    assert "__xmux_check_record" not in plain  # no assertion: no record, no read-back


def test_printf_ptx_calls_vprintf():
    ptx = xmux.compile(ROOT / "examples" / "gpu" / "printf.mlir", target="nvptx",
                       cache=False).ptx
    assert re.search(r"^\.extern \.func\s+\(\.param \.b32 func_retval0\) vprintf$", ptx, re.M)
    assert "xmux_gpu_printf" not in ptx
    fmt = re.search(r"xmux_\$_printf_\$_0\[(\d+)\] = \{([\d, ]+)\}", ptx)
    assert bytes(int(b) for b in fmt.group(2).split(",")) == b"Hello from %lld, %d, %f\n"
    # the thread id (%lld) at 0, the i8 promoted to int at 8, the double at 16
    assert re.search(r"st\.local\.b64\s+\[%rd\d+\], %rd\d+;", ptx)
    assert re.search(r"st\.local\.b32\s+\[%rd\d+\+8\], 2;", ptx)
    assert re.search(r"st\.local\.b64\s+\[%rd\d+\+16\], 4613937818241073152;", ptx)  # 3.0


def _message(target: str, n: int, d: int, size: int) -> str:
    prog = xmux.compile(SRC, target=target, checks=True, cache=False)
    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    with pytest.raises(CheckError) as e:
        prog["shift"](a, out, n, d, global_size=size, local_size=size)
    return str(e.value)


@gpu
@pytest.mark.parametrize("args", [(1, 1, 8), (0, 1, 1), (1, 0, 1)], ids=["bounds", "assert",
                                                                       "div"])
def test_failures_raise_the_cpu_message(args):
    """One work-item fails (which one is first is a race on the GPU when several do)."""
    msg = _message("nvptx", *args)
    assert msg == _message("cpu", *args)
    assert "more failed checks" not in msg


@gpu
def test_the_context_survives_and_the_record_is_cleared():
    prog = xmux.compile(SRC, target="nvptx", checks=True, cache=False)
    k = prog["shift"]
    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    for _ in range(2):
        with pytest.raises(CheckError, match=r"assertion failed: n must be positive.*"
                                             r"\(and 6 more failed checks\)"):
            k(a, out, 0, 1, global_size=7, local_size=7)  # 7 asserts fail, no access
        np.testing.assert_array_equal(out[:7], a[1:])  # the launch ran to its end
        out[:] = 0
        k(a, out, 1, 1, global_size=7, local_size=7)  # clean: nothing raised
        np.testing.assert_array_equal(out[:7], a[1:])


@gpu
def test_printf_example_prints_in_order():
    code = "import sys; from xmux.cli import run_main; sys.exit(run_main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "examples" / "gpu" / "printf.mlir"),
         "--target", "nvptx"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello from 0, 2, 3.000000\nHello from 1, 2, 3.000000\n"
