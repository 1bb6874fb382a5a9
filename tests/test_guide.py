"""Every example of the user guide (docs/guide/*.md) runs, as written, and checks its results.

The fenced blocks of a page run in order, in one namespace and one temporary working folder
per page (the page is one test):

- ````` ```python `````: executed; numerics are asserted against numpy inside the block;
- ````` ```python gpu `````: the same, only where CuPy finds a GPU (skipped here otherwise);
- ````` ```mlir file=NAME `````, ````` ```python file=NAME `````, ````` ```toml file=NAME `````:
  written to NAME in the page's folder, for the blocks after it;
- ````` ```console `````: each ``$ command`` runs in bash in the page's folder (the test
  environment's ``xmux-run``, ``xmux-opt``, ``filecheck`` first on the PATH; ``$XMUX_ROOT`` is
  the repository); the lines up to the next ``$`` are its expected stdout, exactly (a line
  ``...`` matches any lines, ``...`` in a line any text);
- other blocks (``sh``, ``text``, plain ``mlir``, MyST directives) are shown, not run.

docs/guide/testing-passes.md is tested by tests/test_sample_plugin.py and skipped here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide"
#: pages whose examples another test runs
ELSEWHERE = {"testing-passes.md"}
#: tools the pages' console blocks use that are not xmux's
TOOLS = ("filecheck",)
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)


def blocks(text: str) -> list[tuple[str, dict[str, str], str, int]]:
    """(language, {key: value} of the info string, body, line) of every fenced block."""
    out = []
    for m in FENCE.finditer(text):
        lang, *words = m.group(1).split() or [""]
        info = dict(w.partition("=")[::2] for w in words)
        out.append((lang, info, m.group(2), text.count("\n", 0, m.start()) + 1))
    return out


def have_gpu() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver or no device
        return False


def run_console(body: str, cwd: Path, where: str) -> None:
    """Each ``$ command`` of ``body`` with its expected output (``...`` matches any text)."""
    env = dict(os.environ, XMUX_ROOT=str(ROOT))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    for command, expected in steps:
        # a development tool (pyproject's test extra) a bare site may lack, as the GPU
        # machine's does; `make test` has it
        for tool in TOOLS:
            if re.search(rf"\b{tool}\b", command) and not shutil.which(tool, path=env["PATH"]):
                pytest.skip(f"{where}: `{tool}` is not installed")
        r = subprocess.run(["bash", "-c", "set -o pipefail; " + command], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"{where}: `{command}` failed:\n{r.stdout}\n{r.stderr}"
        got = [s.rstrip() for s in r.stdout.rstrip("\n").splitlines()]
        pattern = "\n".join(".*?" if s == "..." else
                            "[^\n]*?".join(map(re.escape, s.rstrip().split("...")))
                            for s in expected)
        assert re.fullmatch(pattern, "\n".join(got), re.S), (
            f"{where}: `{command}` printed\n" + "\n".join(got)
        )


PAGES = sorted(p.name for p in GUIDE.glob("*.md") if p.name not in ELSEWHERE)


@pytest.mark.parametrize("page", PAGES)
def test_guide_page(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    # a module of its own (dataclasses, pickling and xDSL look classes up in sys.modules)
    module = types.ModuleType(f"guide_{page[:-3].replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace = module.__dict__
    gpu = None
    for lang, info, body, line in blocks((GUIDE / page).read_text()):
        where = f"docs/guide/{page}:{line}"
        if "file" in info:
            path = tmp_path / info["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body)
        elif lang == "python":
            if "gpu" in info:
                gpu = have_gpu() if gpu is None else gpu
                if not gpu:
                    continue  # the GPU blocks of a page come last: the rest has run
            code = compile("\n" * (line) + body, str(GUIDE / page), "exec")
            exec(code, namespace)  # noqa: S102 - the guide's own example
        elif lang == "console":
            run_console(body, tmp_path, where)


def test_guide_blocks_are_recognised() -> None:
    """A typo in an info string would make a block silently not run."""
    known = {"python", "console", "mlir", "sh", "text", "toml", "cfg", ""}
    for page in GUIDE.glob("*.md"):
        for lang, info, _, line in blocks(page.read_text()):
            directive = lang.startswith("{")  # a MyST directive: {toctree}
            assert lang in known or directive, f"{page.name}:{line}: unknown language {lang!r}"
            assert set(info) <= {"file", "gpu"}, f"{page.name}:{line}: unknown marks {info}"
            if page.name not in ELSEWHERE:  # an MLIR example is a file the page then runs
                assert lang != "mlir" or "file" in info, f"{page.name}:{line}: mlir, no file="


def test_guide_index_lists_every_page() -> None:
    index = (GUIDE / "index.md").read_text()
    missing = [p.stem for p in GUIDE.glob("*.md") if p.name != "index.md" and p.stem not in index]
    assert not missing, f"docs/guide/index.md does not list {missing}"
