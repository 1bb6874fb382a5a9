"""Errors at the user's line (issue 34, item 5): a mistake raises from the public call with
xmux's own frames removed (the message and the exception's attributes carry the details);
verifier and pass errors name the op and its file:line:column with the source line; a scalar
global size for a kernel that uses dimension 1 or 2 is refused."""

from __future__ import annotations

import traceback
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux import LaunchError, NotSupportedError, XmuxError, pipelines

#: the folders of xmux's code (the package's, and the layers package-dir maps into it)
_XMUX_DIRS = tuple(
    Path(p).resolve()
    for m in ("xmux", "xmux.abi", "xmux.runtime", "xmux.lowering", "xmux.transforms",
              "xmux.dialects")
    for p in __import__(m, fromlist=["_"]).__path__
)

KERNEL_2D = """
func.func @scale2d(%a: memref<4x8xf32>) attributes {mux.kernel,
    mux.reqd_work_group_size = array<i64: 4, 2, 1>} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %v = memref.load %a[%y, %x] : memref<4x8xf32>
  %two = arith.constant 2.0 : f32
  %w = arith.mulf %v, %two : f32
  memref.store %w, %a[%y, %x] : memref<4x8xf32>
  func.return
}
"""


def xmux_frames(e: BaseException) -> list[traceback.FrameSummary]:
    return [f for f in traceback.extract_tb(e.__traceback__)
            if any(Path(f.filename).resolve().is_relative_to(d) for d in _XMUX_DIRS)]


def assert_at_users_line(e: BaseException, entry: str) -> None:
    """One frame of xmux's (the public entry ``entry``), and no chained exception printed
    above the error: the traceback ends at the caller's line."""
    frames = xmux_frames(e)
    assert [f.name for f in frames] == [entry], traceback.format_exception(e)
    printed = "".join(traceback.format_exception(e))
    assert "direct cause" not in printed and "During handling" not in printed, printed
    assert printed.count('File "') == 2, printed  # this test's line and the entry


@pytest.fixture(scope="module")
def scale2d():
    return xmux.compile(KERNEL_2D, cache=False).kernel("scale2d")


def test_a_right_launch_runs(scale2d) -> None:
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    scale2d(a, global_size=(8, 4), local_size=(4, 2))
    np.testing.assert_array_equal(a, 2 * np.arange(32, dtype=np.float32).reshape(4, 8))


@pytest.mark.parametrize("args,sizes,message", [
    ("int32", {"global_size": (8, 4)},
     "kernel 'scale2d' argument 0 ('a'): expected dtype float32, got int32"),
    ("two", {"global_size": (8, 4)}, "kernel 'scale2d' takes 1 arguments (a), got 2"),
    ("ok", {"global_size": 32},
     "kernel 'scale2d': global_size is the scalar 32 (a 1-D launch), but the kernel uses "
     "dimension 1: give 2 sizes, global_size=(x, y)"),
    ("ok", {"global_size": (8, -4)}, "kernel 'scale2d': global_size must be positive, got "
     "[8, -4]"),
    ("ok", {"global_size": (6, 4), "local_size": (4, 2)},
     "kernel 'scale2d': global_size [6, 4] is not a multiple of its reqd_work_group_size "
     "[4, 2, 1]"),
], ids=["dtype", "count", "scalar-size", "negative", "reqd-multiple"])
def test_launch_mistakes_raise_from_the_call(scale2d, args, sizes, message) -> None:
    a = np.zeros((4, 8), np.float32)
    call_args = {"int32": (a.astype(np.int32),), "two": (a, a), "ok": (a,)}[args]
    with pytest.raises(LaunchError) as caught:
        scale2d(*call_args, **sizes)
    assert str(caught.value) == message
    assert_at_users_line(caught.value, "__call__")


def test_interpreter_refuses_the_scalar_size_too() -> None:
    with pytest.raises(LaunchError) as caught:
        xmux.interpret(KERNEL_2D, "scale2d", np.zeros((4, 8), np.float32), global_size=32)
    assert str(caught.value).startswith("kernel 'scale2d': global_size is the scalar 32")
    assert_at_users_line(caught.value, "interpret")


def test_unknown_kernel_name(scale2d) -> None:
    with pytest.raises(XmuxError) as caught:
        scale2d.program.kernel("scale")
    assert str(caught.value) == "no kernel named 'scale' in this program (kernels: scale2d)"
    assert_at_users_line(caught.value, "kernel")


def test_compile_option_and_pass_name_mistakes() -> None:
    with pytest.raises(XmuxError) as caught:
        xmux.compile(KERNEL_2D, spec_constants="nativ")
    assert str(caught.value) == ("xmux.compile: spec_constants must be one of ('native', "
                                 "'emulated'), got 'nativ'")
    assert_at_users_line(caught.value, "compile")
    with pytest.raises(XmuxError) as caught:
        pipelines.make_pass("work-item-loop")
    assert str(caught.value) == "unknown pass 'work-item-loop'; did you mean 'work-item-loops'?"
    assert_at_users_line(caught.value, "make_pass")


def test_verifier_error_names_the_op_and_its_place(tmp_path: Path) -> None:
    src = KERNEL_2D.replace("get_global_id 1", "get_global_id 3")
    with pytest.raises(XmuxError) as caught:
        xmux.compile(src, cache=False)
    assert str(caught.value) == (
        "<source>:5:3: 'mux.get_global_id' dimension must be 0, 1 or 2, got 3\n"
        "  %y = mux.get_global_id 3 : index\n"
        "  ^")
    assert_at_users_line(caught.value, "compile")
    # the verifier's own exception (and xDSL's printout of the module) stay reachable
    assert "dimension must be 0, 1 or 2" in str(caught.value.details)
    # a file: its path, as MLIR names it
    path = tmp_path / "bad.mlir"
    path.write_text(src)
    with pytest.raises(XmuxError) as caught:
        xmux.parse(path)
    assert str(caught.value).startswith(f"{path}:5:3: 'mux.get_global_id' dimension must")
    assert_at_users_line(caught.value, "parse_source")


def test_verifier_error_without_the_op_name_says_which_op() -> None:
    src = KERNEL_2D.replace("memref.load %a[%y, %x]", "memref.load %a[%y]")
    with pytest.raises(XmuxError) as caught:
        xmux.compile(src, cache=False)
    assert str(caught.value).startswith(
        "<source>:6:3: 'memref.load' does not verify: expected an index for each dimension")


def test_pass_error_names_the_op_and_its_place() -> None:
    src = KERNEL_2D.replace("  %two = arith.constant 2.0 : f32\n",
                            "  %two = arith.constant 2.0 : f32\n"
                            "  %t = tensor.empty() : tensor<4xf32>\n")
    with pytest.raises(NotSupportedError) as caught:
        xmux.compile(src, cache=False)
    assert str(caught.value) == (
        "<source>:8:3: convert-to-llvm: 'tensor.empty' in @scale2d: no lowering to the llvm "
        "dialect\n"
        "  %t = tensor.empty() : tensor<4xf32>\n"
        "  ^")
    assert_at_users_line(caught.value, "compile")


def test_full_traceback_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XMUX_TRACEBACK", "full")
    with pytest.raises(XmuxError) as caught:
        xmux.compile(KERNEL_2D, spec_constants="nativ")
    assert len(xmux_frames(caught.value)) > 1


def test_internal_errors_keep_their_frames() -> None:
    """Not the user's mistake (here a callback's bug): nothing is hidden."""
    def callback(p, module) -> None:  # noqa: ANN001
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug") as caught:
        xmux.compile(KERNEL_2D, pass_callback=callback)
    assert len(xmux_frames(caught.value)) > 3
