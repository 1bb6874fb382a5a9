"""Conveniences of the Python API a newcomer reaches for first (issue 17's paper cuts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import xmux

ROOT = Path(__file__).resolve().parent.parent


def test_pipelines_is_an_attribute_after_import_xmux() -> None:
    code = "import xmux; print(len(xmux.pipelines.cpu()) > 10)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_a_textual_pipeline_is_accepted() -> None:
    from xmux import pipelines

    text = pipelines.spec(pipelines.cpu(spec_constants="emulated"))
    prog = xmux.compile(ROOT / "examples" / "saxpy.mlir", pipeline=text, cache=False)
    k = prog[prog.kernel_names[0]]
    x = np.arange(64, dtype=np.float32)
    y = np.ones(64, dtype=np.float32)
    k(np.float32(2.0), x, y, global_size=(64,), local_size=(16,))
    np.testing.assert_array_equal(y, 2 * np.arange(64, dtype=np.float32) + 1)


def test_a_bad_textual_pipeline_is_a_clear_error() -> None:
    from xmux import pipelines

    # an unknown name in a long pipeline: the message names it alone, with the closest name
    text = pipelines.spec(pipelines.cpu()) + ",convert-to-llvn"
    with pytest.raises(xmux.XmuxError) as e:
        xmux.compile(ROOT / "examples" / "saxpy.mlir", pipeline=text, cache=False)
    assert str(e.value) == "unknown pass 'convert-to-llvn'; did you mean 'convert-to-llvm'?"
    with pytest.raises(xmux.XmuxError, match="cannot parse the pipeline 'work-item-loops{'"):
        xmux.compile(ROOT / "examples" / "saxpy.mlir", pipeline="work-item-loops{", cache=False)


def test_every_compile_argument_is_documented() -> None:
    import inspect

    doc = xmux.compile.__doc__ or ""
    for name in inspect.signature(xmux.compile).parameters:
        if name == "source":
            continue
        assert f"``{name}``" in doc, name


def test_xmux_opt_help_lists_pass_options() -> None:
    from xmux.cli import pass_options_help

    text = pass_options_help()
    assert "work-item-loops{" in text and "vector-width=0" in text
    assert "lower-spec-constants{mode=native" in text
    assert "convert-to-llvm{target=}" in text  # empty: the module's #xmux.target decides
    assert "attach-target{triple=x86_64-unknown-linux-gnu" in text
