"""Every pass is documented (docstring with a before/after example) and has FileCheck tests."""

from __future__ import annotations

import re
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


# --- no dangling references, no plan language (docs/architecture.md is what is, not a plan)

#: the documents a reader of the repository sees
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: the sources whose docstrings point at documents
SOURCES = [p for d in ("xmux", "abi", "dialects", "transforms", "lowering", "runtime")
           for p in sorted((ROOT / d).rglob("*.py"))]
_REPO_PATH = re.compile(r"`((?:examples|tests|bench|docs|runtime|transforms|dialects|lowering|"
                        r"abi|xmux)/[\w./-]+\.(?:py|md|mlir|txt|toml|cfg|json|c))`")
_LINK = re.compile(r"\]\(([\w./-]+\.(?:md|py|mlir|txt))(?:#[\w-]*)?\)")


def _exists(path: str) -> bool:
    # xmux/... names the installed package; abi/, dialects/... are its folders in the tree;
    # a plugin page names its own package's files (tests/sample_plugin/)
    return any((base / path).exists() for base in (
        ROOT, ROOT / "tests" / "sample_plugin")) or (path.startswith("xmux/") and any(
            (ROOT / d / path.removeprefix("xmux/")).exists() for d in (".", "")))


def test_no_reference_txt_paths() -> None:
    """The design references (``reference/*.txt``) are not in the repository: documents and
    docstrings name them (the oneAPI Construction Kit's ..., DPC++'s ...), never a path."""
    found = [f"{p.relative_to(ROOT)}:{i}" for p in [*DOCS, *SOURCES]
             for i, line in enumerate(p.read_text().splitlines(), 1)
             if re.search(r"reference/[\w.-]+\.txt", line)]
    assert not found, f"paths to files not in the repository: {found}"


def test_doc_paths_and_links_exist() -> None:
    dangling = []
    for doc in DOCS:
        text = doc.read_text()
        dangling += [f"{doc.relative_to(ROOT)}: `{m}`" for m in _REPO_PATH.findall(text)
                     if not _exists(m)]
        dangling += [f"{doc.relative_to(ROOT)}: ({m})" for m in _LINK.findall(text)
                     if not (doc.parent / m).exists()]
    assert not dangling, "dangling references:\n" + "\n".join(dangling)


#: plan language: what was planned, by whom and when, rather than what is
#: ("work-item 0" and the storage plan of work-item-loops are not plan language)
_PLAN = re.compile(r"\(issue \d+|\bissues? \d+\b|(?<!-)\bitems? \d+\b|\bwaves?\b|"
                   r"\bthe plan(?:'s| above)|\bdepart(?:s|ures?)? from the plan", re.I)


def test_architecture_states_what_is() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    found = [f"{i}: {line.strip()[:90]}" for i, line in enumerate(text.splitlines(), 1)
             if _PLAN.search(line)]
    assert not found, "plan language in docs/architecture.md:\n" + "\n".join(found)
