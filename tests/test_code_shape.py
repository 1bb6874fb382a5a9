"""The shape issue 30 gave ``xmux/``: ``api.py`` a thin façade, no function too long to read
in one screen, and one compile driver for every target (docs/architecture.md, "Targets")."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
XMUX = ROOT / "xmux"

MAX_API_LINES = 250
MAX_FUNCTION_LINES = 80


def test_api_is_a_thin_facade() -> None:
    lines = len((XMUX / "api.py").read_text().splitlines())
    assert lines <= MAX_API_LINES, f"xmux/api.py has {lines} lines (at most {MAX_API_LINES})"


def test_no_function_in_xmux_is_over_80_lines() -> None:
    long = []
    for path in sorted(XMUX.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert long == [], long


def test_the_pipeline_runs_without_branches_on_pass_names() -> None:
    """run_pipeline hands the passes to xDSL's PassPipeline: nothing in it looks at a
    pass's name but the error message naming the pass that failed."""
    tree = ast.parse((XMUX / "stages.py").read_text())
    run = next(n for n in ast.walk(tree)
               if isinstance(n, ast.FunctionDef) and n.name == "run_pipeline")
    for node in ast.walk(run):
        if isinstance(node, ast.Compare):
            names = [n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)]
            assert "name" not in names, ast.unparse(node)


def test_passes_never_read_the_host_environment() -> None:
    """What a pass knows of the machine is the module's ``#xmux.target``: no pass, lowering or
    dialect reads the environment (``XMUX_CPU`` and the like are the runtime's), as none
    imports llvmlite (pyproject's "host-blind" contract). ``make test``'s runs "as on" other
    CPUs cover only the tests where a target can show (tests/lit_models.py) on this ground."""
    readers = []
    for folder in ("dialects", "transforms", "lowering"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
                if name in ("environ", "getenv", "cpu_count", "sched_getaffinity"):
                    readers.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert readers == [], readers
