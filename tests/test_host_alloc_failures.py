"""Host code that cannot allocate, or (checking mode) indexes out of bounds, stops with a clear
error naming the op, never a segfault (mutation fuzzer, /tmp/mf3, mf4, mf8: xmux-run
crashed in run_main on ``memref.alloc(%n)`` with %n = 2^63-1 or 2^32 f64, and on host stores
at index 2^32 or in loops of step -2^31-1).

The crashes are reproduced in a subprocess (a segfault there fails the test, not the suite);
``HostProgram.run_main`` in this process shows the run stops cleanly and the process goes on.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.runner import HostProgram
from xmux.runtime.checks import CheckError
from xmux.runtime.host_symbols import AllocationError

PRINT = "func.func private @printMemrefF32(memref<*xf32>)"


def _main(body: str, extra: str = "") -> str:
    return textwrap.dedent(f"""\
        module {{
        {extra}
          func.func @main() {{
            %c0 = arith.constant 0 : index
            %c1 = arith.constant 1 : index
            %f = arith.constant 1.0 : f32
        {body}
            return
          }}
          {PRINT}
        }}
        """)


#: 3-159 / 9-78: 2^63-1 floats, then a loop storing into them
HUGE = _main("""
    %n = arith.constant 9223372036854775807 : index
    %x = memref.alloc(%n) : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %f, %x[%i] : memref<?xf32>
    }
    %u = memref.cast %x : memref<?xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
""")
#: n·n wraps to 0 bytes (2^32 · 2^32 · 4)
WRAPPING = _main("""
    %n = arith.constant 4294967296 : index
    %x = memref.alloc(%n, %n) : memref<?x?xf32>
    memref.store %f, %x[%c1, %c1] : memref<?x?xf32>
    %u = memref.cast %x : memref<?x?xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
""")
NEGATIVE = _main("""
    %n = arith.constant -1 : index
    %x = memref.alloc(%n) : memref<?xf32>
    memref.store %f, %x[%c1] : memref<?xf32>
    %u = memref.cast %x : memref<?xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
""")
#: 2^61 bytes: below the 2^63 bound, so malloc itself returns NULL
NO_MEMORY = _main("""
    %n = arith.constant 288230376151711744 : index
    %x = memref.alloc(%n) : memref<?xf64>
    %d = arith.constant 1.0 : f64
    memref.store %d, %x[%c1] : memref<?xf64>
    %u = memref.cast %x : memref<?xf64> to memref<*xf64>
    func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()
""", "  func.func private @printMemrefF64(memref<*xf64>)")
#: the failing alloc two calls below @main, its null result used by the callers
IN_CALLEE = _main(
    """
    %n = arith.constant 4611686018427387904 : index
    %x = func.call @outer(%n) : (index) -> memref<?xf32>
    memref.store %f, %x[%c1] : memref<?xf32>
    %u = memref.cast %x : memref<?xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
""",
    """
  func.func @make(%n: index) -> memref<?xf32> {
    %x = memref.alloc(%n) : memref<?xf32>
    return %x : memref<?xf32>
  }
  func.func @outer(%n: index) -> memref<?xf32> {
    %x = func.call @make(%n) : (index) -> memref<?xf32>
    %c0 = arith.constant 0 : index
    %f = arith.constant 2.0 : f32
    memref.store %f, %x[%c0] : memref<?xf32>
    return %x : memref<?xf32>
  }
""",
)
#: 3-283: a host store at 2^32 into memref<9xf32> (undefined without --checks)
HOST_OOB = _main("""
    %k = arith.constant 4294967296 : index
    %w = memref.alloc() : memref<9xf32>
    memref.store %f, %w[%k] : memref<9xf32>
    %u = memref.cast %w : memref<9xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
""")
#: 5-7: a loop of step -2^31-1 (2^32 iterations, each out of bounds)
HOST_WILD_LOOP = _main("""
    %s = arith.constant -2147483649 : index
    %n = arith.constant 64 : index
    %x = memref.alloc(%n) : memref<?xf32>
    scf.for %i = %c0 to %n step %s {
      memref.store %f, %x[%i] : memref<?xf32>
    }
    %u = memref.cast %x : memref<?xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
""")
FINE = _main("""
    %n = arith.constant 3 : index
    %x = memref.alloc(%n) : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %f, %x[%i] : memref<?xf32>
    }
    %u = memref.cast %x : memref<?xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %x : memref<?xf32>
""")


def _xmux_run(tmp_path: Path, source: str, *flags: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "prog.mlir"
    path.write_text(source)
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    return subprocess.run(
        [sys.executable, "-c", "import sys; from xmux.runner import main; sys.exit(main())",
         *flags, str(path)],
        capture_output=True, text=True, timeout=300, env=env,
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (HUGE, "'memref.alloc' of %x in @main: memref<?xf32>: cannot allocate memory, "
               "sizes [9223372036854775807]: the byte count exceeds 2^63-1"),
        (WRAPPING, "sizes [4294967296, 4294967296]: the byte count exceeds 2^63-1"),
        (NEGATIVE, "'memref.alloc' of %x in @main: memref<?xf32>: cannot allocate memory, "
                   "a negative size in [-1]"),
        (NO_MEMORY, "malloc of 2305843009213693952 bytes returned NULL (out of memory)"),
        (IN_CALLEE, "'memref.alloc' of %x in @make: memref<?xf32>"),
    ],
    ids=["huge", "wrapping", "negative", "no-memory", "in-callee"],
)
@pytest.mark.parametrize("checks", [False, True], ids=["plain", "checks"])
def test_alloc_failure_is_an_error_not_a_segfault(
    tmp_path: Path, source: str, expected: str, checks: bool
) -> None:
    r = _xmux_run(tmp_path, source, *(["--checks"] if checks else []))
    assert r.returncode == 1, r.stderr
    assert "Fatal Python error" not in r.stderr
    assert expected in r.stderr
    assert r.stderr.startswith("error: ")


@pytest.mark.parametrize("source", [HOST_OOB, HOST_WILD_LOOP], ids=["index-2^32", "wild-loop"])
def test_host_out_of_bounds_with_checks_is_reported(tmp_path: Path, source: str) -> None:
    r = _xmux_run(tmp_path, source, "--checks")
    assert r.returncode == 1, r.stderr
    assert "host function @main: 'memref.store' out of bounds of memref<" in r.stderr
    assert "Fatal Python error" not in r.stderr


def test_run_main_raises_and_the_process_goes_on(capfd: pytest.CaptureFixture[str]) -> None:
    for source in (HUGE, WRAPPING, IN_CALLEE):
        with pytest.raises(AllocationError, match="cannot allocate memory"):
            HostProgram(source).run_main()
    with pytest.raises(CheckError, match=r"indices \[4294967296\], sizes \[9\]"):
        HostProgram(HOST_OOB, checks=True).run_main()
    with pytest.raises(CheckError, match=r"indices \[-2147483649\], sizes \[64\]"):
        HostProgram(HOST_WILD_LOOP, checks=True).run_main()
    capfd.readouterr()
    HostProgram(FINE).run_main()  # nothing left behind: the next program runs normally
    HostProgram(FINE, checks=True).run_main()
    out = capfd.readouterr().out
    assert out.count("[1,  1,  1]") == 2


def test_failure_after_a_failed_launch_keeps_the_first_error() -> None:
    """A launch error stays the one raised; the alloc failure after it still stops @main."""
    source = _main(
        """
    %n = arith.constant 4611686018427387904 : index
    %g = arith.constant 4 : index
    %z = arith.constant 0 : index
    %a = memref.alloc(%g) : memref<?xf32>
    mux.launch @k(%a) global_size(%g) local_size(%z) : (memref<?xf32>)
    %x = memref.alloc(%n) : memref<?xf32>
    memref.store %f, %x[%c1] : memref<?xf32>
    %u = memref.cast %x : memref<?xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
""",
        """
  func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
    return
  }
""",
    )
    prog = HostProgram(source)
    with pytest.raises(Exception) as info:  # noqa: PT011 - the launch's own error type
        prog.run_main()
    assert not isinstance(info.value, AllocationError)
    assert isinstance(prog.errors[-1], AllocationError)


def test_kernel_alloc_failure_raises_from_the_launch() -> None:
    """In kernel code no jump is possible (Python frames below): the error goes to
    runtime/checks.py, the launch raises it, the work-item returns."""
    import ctypes

    from xmux.runtime import jit

    sink = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)(lambda rank, ptr: None)
    jit.register_symbol("xmux_test_sink", ctypes.cast(sink, ctypes.c_void_p).value)
    prog = xmux.compile("""
        func.func @k(%a: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point"} {
          %i = mux.get_global_id 0 : index
          %t = memref.alloc(%n) : memref<?xf32>
          %v = memref.load %a[%i] : memref<?xf32>
          memref.store %v, %t[%i] : memref<?xf32>
          %u = memref.cast %t : memref<?xf32> to memref<*xf32>
          func.call @xmux_test_sink(%u) : (memref<*xf32>) -> ()
          return
        }
        func.func private @xmux_test_sink(memref<*xf32>)
    """)
    a = np.ones(4, np.float32)
    k = prog.kernel("k")
    k(a, 4, global_size=(4,), local_size=(1,))
    with pytest.raises(CheckError, match=r"'memref.alloc' of %t in @k: .*exceeds 2\^63-1"):
        k(a, 1 << 62, global_size=(4,), local_size=(1,))
    k(a, 4, global_size=(4,), local_size=(1,))  # and the program still works
    del sink  # kept alive until here: the JIT calls it
