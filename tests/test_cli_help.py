"""The command lines' ``--help`` tells the truth (issue 34): every pass that ``xmux-opt --help``
lists has a one-sentence description (the first line of the pass class's docstring, ending
with a full stop), and ``xmux-run --help`` documents ``--interpret``, which still runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xmux.registry import get_all_passes

ROOT = Path(__file__).resolve().parent.parent
PASSES = sorted(get_all_passes())


def _help(main: str, *args: str) -> str:
    code = f"import sys; from xmux.cli import {main}; sys.exit({main}(sys.argv[1:]))"
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope="module")
def pass_descriptions() -> dict[str, str]:
    """``xmux-opt --help``'s pass section: pass name → the description line under it."""
    text = _help("opt_main", "--help")
    section = text.split("xmux passes", 1)[1].splitlines()[1:]
    found: dict[str, str] = {}
    for i, line in enumerate(section):
        if line.startswith("  ") and not line.startswith("      "):
            name = line.strip().split("{", 1)[0]
            following = section[i + 1] if i + 1 < len(section) else ""
            found[name] = following.strip() if following.startswith("      ") else ""
    return found


def test_help_lists_every_pass(pass_descriptions: dict[str, str]) -> None:
    assert sorted(pass_descriptions) == PASSES


@pytest.mark.parametrize("name", PASSES)
def test_every_pass_has_a_one_sentence_description(
    pass_descriptions: dict[str, str], name: str
) -> None:
    description = pass_descriptions.get(name, "")
    assert description, f"{name}: no description in xmux-opt --help (class docstring)"
    assert description.endswith("."), (
        f"{name}: the description stops mid-sentence (the class docstring's first line must "
        f"be a whole sentence): {description!r}"
    )
    assert description[0].isupper(), f"{name}: {description!r} does not start a sentence"
    assert "module docstring" not in description and "see module" not in description, (
        f"{name}: the description should say what the pass does: {description!r}"
    )


def test_xmux_run_help_documents_interpret() -> None:
    text = _help("run_main", "--help")
    assert "--interpret" in text
    assert "reference interpreter" in " ".join(text.split())


def test_xmux_run_interpret_still_runs() -> None:
    example = ROOT / "examples" / "reduce_wg.mlir"
    out = subprocess.run(
        [sys.executable, "-c",
         "import sys; from xmux.cli import run_main; sys.exit(run_main(sys.argv[1:]))",
         "--interpret", str(example)],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "Unranked Memref" in out.stdout
