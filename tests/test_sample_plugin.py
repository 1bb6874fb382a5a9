"""The sample pass plugin of tests/sample_plugin, installed as a user's would be (pip, from its
pyproject.toml, into a folder of its own): its ``xdsl.universe`` passes are seen by
``xmux-opt`` and ``xdsl-opt`` (its lit tests, run with the documented ``xmux.testing.lit``
configuration), by ``xmux.compile(pipeline="...")`` and by ``pipelines.make_pass``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = Path(__file__).parent / "sample_plugin"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """(the plugin's source copy, the environment it is installed in): ``pip install
    --target`` of a copy (the build writes into the source folder), offline and without
    build isolation (setuptools comes from the test venv); the target folder on PYTHONPATH,
    where importlib.metadata finds the entry point."""
    tmp = tmp_path_factory.mktemp("plugin")
    src, site = tmp / "src", tmp / "site"
    shutil.copytree(PLUGIN, src, ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                               "__pycache__"))
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INDEX": "1"}
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--no-build-isolation", "--no-cache-dir", "--target", str(site), str(src)],
                   env=env, check=True, capture_output=True, text=True)
    assert (site / "xmux_sample_plugin").is_dir()
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    return src, {**env, "PYTHONPATH": path}


def test_lit_tests_pass_with_documented_config(installed: tuple[Path, dict[str, str]]) -> None:
    src, env = installed
    # the lit.cfg of the guide: two lines, no file of xmux's own test suite
    assert "configure(config, __file__)" in (src / "tests" / "lit.cfg").read_text()
    # RUN lines call xmux-opt and xdsl-opt -p div-to-mul / tag-kernels{tag=fast}
    out = subprocess.run([str(BIN / "lit"), "-v", str(src / "tests")], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Passed: 2" in out.stdout, out.stdout


def test_lit_fails_on_a_wrong_check(installed: tuple[Path, dict[str, str]],
                                    tmp_path: Path) -> None:
    """The configuration runs the RUN lines for real: a CHECK the output lacks fails."""
    src, env = installed
    suite = tmp_path / "tests"
    suite.mkdir()
    shutil.copy(src / "tests" / "lit.cfg", suite)
    text = (src / "tests" / "tag_kernels.mlir").read_text()
    lines = [ln for ln in text.splitlines() if "DEFAULT" not in ln]  # one RUN line
    (suite / "wrong.mlir").write_text("\n".join(lines).replace('"fast"', '"slow"'))
    out = subprocess.run([str(BIN / "lit"), str(suite)], env=env, capture_output=True,
                         text=True)
    assert out.returncode == 1 and "Failed: 1" in out.stdout, out.stdout + out.stderr
    # a tool the tests need and the environment lacks stops lit before any test, named
    (suite / "lit.cfg").write_text("from xmux.testing.lit import TOOLS, configure\n"
                                   "configure(config, __file__, tools=(*TOOLS, 'no-such-opt'))\n")
    out = subprocess.run([str(BIN / "lit"), str(suite)], env=env, capture_output=True,
                         text=True)
    assert out.returncode != 0 and "fatal: xmux.testing.lit: no-such-opt not found" in (
        out.stderr), out.stdout + out.stderr


GUIDE = Path(__file__).parent.parent / "docs" / "guide" / "testing-passes.md"


def _guide_blocks() -> list[tuple[str | None, str]]:
    """(the sample file a block shows, or None; the block's text) of the guide's fenced
    blocks; a block shows a file when the paragraph before it is "`tests/sample_plugin/P`:"."""
    blocks = re.findall(r"(?:^`(tests/sample_plugin/[^`]+)`:\n\n)?^```\w*\n(.*?)^```$",
                        GUIDE.read_text(), flags=re.MULTILINE | re.DOTALL)
    return [(path or None, text) for path, text in blocks]


def test_guide_shows_the_sample_files() -> None:
    shown = {path: text for path, text in _guide_blocks() if path}
    assert {"tests/sample_plugin/pyproject.toml", "tests/sample_plugin/tests/lit.cfg",
            "tests/sample_plugin/xmux_sample_plugin/__init__.py"} <= set(shown)
    for path, text in shown.items():
        assert text == (PLUGIN.parent.parent / path).read_text(), path


# after the guide's example: the option of a plugin's pass, the textual pipeline, a typo
_MORE = """
t = pipelines.make_pass("tag-kernels", tag="fast")
print(type(pipelines.make_pass("div-to-mul")).__module__, t.name, t.tag)
default = pipelines.spec(pipelines.cpu())
b[:] = 0
xmux.compile(src, pipeline="div-to-mul," + default).kernel("scale")(a, b, global_size=(37,))
assert np.array_equal(b, a / 8)
for bad in (lambda: pipelines.make_pass("div-to-mull"),
            lambda: xmux.compile(src, pipeline="div-to-mull," + default)):
    try:
        bad()
    except xmux.XmuxError as e:
        print("error:", e)
"""


def test_api_sees_plugin_passes(installed: tuple[Path, dict[str, str]]) -> None:
    """The guide's Python example (the last Python block), run where the plugin is
    installed, then the other ways of naming its passes."""
    _, env = installed
    example = [text for path, text in _guide_blocks() if "import xmux" in text][-1]
    out = subprocess.run([sys.executable, "-c", example + _MORE], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    dump = out.stderr.split("// -----// IR Dump After div-to-mul //----- //", 1)[1]
    assert "arith.mulf" in dump and "arith.divf" not in dump, dump
    lines = out.stdout.splitlines()
    assert lines[0] == "xmux_sample_plugin.div_to_mul tag-kernels fast", out.stdout
    assert len(lines) == 3, out.stdout
    for line in lines[1:]:  # make_pass, then compile's pipeline text
        assert line.startswith("error: ") and line.endswith(
            "unknown pass 'div-to-mull'; did you mean 'div-to-mul'?"), line
