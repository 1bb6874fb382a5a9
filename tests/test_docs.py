"""Every pass is documented (docstring with a before/after example) and has FileCheck tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from xmux.registry import get_all_passes

ROOT = Path(__file__).resolve().parent.parent
PASSES = sorted(get_all_passes())


@pytest.mark.parametrize("name", PASSES)
def test_pass_docstring_has_example(name):
    cls = get_all_passes()[name]()
    doc = sys.modules[cls.__module__].__doc__ or ""
    assert doc.strip().startswith(name) or name in doc.split("\n", 1)[0], (
        f"{name}: the module docstring should start with the pass name"
    )
    lowered = doc.lower()
    assert "before" in lowered and ("after" in lowered or "==>" in doc), (
        f"{name}: the docstring needs a before/after IR example"
    )


@pytest.mark.parametrize("name", PASSES)
def test_pass_has_filecheck_tests(name):
    folder = ROOT / "tests" / "filecheck" / name.replace("-", "_")
    tests = list(folder.glob("*.mlir")) if folder.exists() else []
    assert tests, f"{name}: no FileCheck tests in {folder.relative_to(ROOT)}"
    assert any(name in t.read_text() for t in tests), f"{name}: no RUN line runs the pass"


def test_pass_file_named_after_pass():
    for name, factory in get_all_passes().items():
        module = factory().__module__
        assert module.rsplit(".", 1)[1] == name.replace("-", "_"), (name, module)


def test_passes_md_lists_every_pass():
    text = (ROOT / "docs" / "passes.md").read_text()
    missing = [n for n in PASSES if f"## `{n}`" not in text]
    assert not missing, f"docs/passes.md is stale (run `make docs`): missing {missing}"
