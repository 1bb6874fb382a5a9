"""The wheel holds every package: a non-editable install (``pip install .``, a wheel carried to
another machine) gets its packages from pyproject's list, not from the folders an editable
install maps (xmux.targets was missing from it: every compile failed there)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setuptools() -> tuple[set[str], dict[str, str]]:
    """pyproject's ``[tool.setuptools]`` packages and package-dir (Python 3.10 has no
    tomllib: the two tables' plain lines, as pyproject writes them)."""
    text = (ROOT / "pyproject.toml").read_text()
    block = re.search(r"^packages = \[(.*?)^\]", text, re.S | re.M)
    assert block is not None
    listed = set(re.findall(r'"([\w.]+)"', block.group(1)))
    table = re.search(r"^\[tool\.setuptools\.package-dir\]\n(.*?)(?:^\[|\Z)", text, re.S | re.M)
    assert table is not None
    dirs = dict(re.findall(r'^"([\w.]+)" = "([\w/]+)"$', table.group(1), re.M))
    return listed, dirs


def test_every_package_folder_is_in_the_wheel() -> None:
    listed, dirs = _setuptools()
    assert dirs["xmux.runtime"] == "runtime"
    found = set()
    for name, folder in dirs.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *rel)))
    assert found - listed == set()
    assert {"xmux.targets", "xmux.runtime.interpreter"} <= found
