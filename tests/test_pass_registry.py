"""One registry of passes (issue 34): xmux's, xDSL's and every ``xdsl.universe`` plugin's, by
every way of naming a pass; an unknown name is an XmuxError naming it, with a suggestion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux import pipelines
from xmux.registry import all_passes, get_all_passes

ROOT = Path(__file__).resolve().parent.parent


def test_xdsl_passes_are_made_by_name() -> None:
    from xdsl.transforms.canonicalize import CanonicalizePass

    assert isinstance(pipelines.make_pass("canonicalize"), CanonicalizePass)
    assert [p.name for p in pipelines.parse("canonicalize,cse")] == ["canonicalize", "cse"]


def test_xmux_table_takes_precedence_for_its_names() -> None:
    passes = all_passes()
    for name, factory in get_all_passes().items():
        assert passes[name]() is factory()


def test_compile_runs_a_pipeline_with_an_xdsl_pass() -> None:
    passes = pipelines.cpu(spec_constants="emulated")
    parts = [pipelines.spec([p]) for p in passes]
    at = pipelines.index_of(passes, "prepare-barriers")
    text = ",".join([*parts[:at], "canonicalize", *parts[at:]])
    prog = xmux.compile(ROOT / "examples" / "saxpy.mlir", pipeline=text, cache=False)
    x = np.arange(64, dtype=np.float32)
    y = np.ones(64, dtype=np.float32)
    prog[prog.kernel_names[0]](np.float32(2.0), x, y, global_size=(64,), local_size=(16,))
    np.testing.assert_array_equal(y, 2 * np.arange(64, dtype=np.float32) + 1)


def test_make_pass_suggests_the_closest_name() -> None:
    with pytest.raises(xmux.XmuxError, match="did you mean 'work-item-loops'") as e:
        pipelines.make_pass("work-item-loop")
    assert "unknown pass 'work-item-loop'" in str(e.value)
    assert "convert-to-llvm" not in str(e.value)  # not the list of every name


def test_parse_suggests_the_closest_name() -> None:
    with pytest.raises(xmux.XmuxError, match="did you mean 'work-item-loops'") as e:
        pipelines.parse("canonicalize,work-item-loop{vector-width=4}")
    assert "unknown pass 'work-item-loop'" in str(e.value)
    assert "convert-to-llvm" not in str(e.value)


def test_a_name_like_none_gets_no_suggestion() -> None:
    with pytest.raises(xmux.XmuxError) as e:
        pipelines.make_pass("zzzz-qqqq-xxxx")
    assert "did you mean" not in str(e.value)


def test_xmux_opt_suggests_for_a_typo(tmp_path: Path) -> None:
    src = tmp_path / "k.mlir"
    src.write_text("func.func @k() {\n  func.return\n}\n")
    code = "import sys; from xmux.cli import opt_main; sys.exit(opt_main(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, str(src), "-p"]
    out = subprocess.run([*argv, "canonicalize,work-item-loop"], capture_output=True, text=True)
    assert out.returncode != 0
    assert "did you mean 'work-item-loops'?" in out.stderr
    assert "Traceback" not in out.stderr
    ok = subprocess.run([*argv, "canonicalize,cse"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
