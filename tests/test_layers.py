"""The layers below the runtime do not ask the host or LLVM (docs/architecture.md, "Layers").

A pass reads the module's target attribute (``dialects/target.py``), never the machine it runs
on, so that a pipeline gives the same IR for a given target wherever it runs (a cross compile,
a cached object reused on another host). So dialects/, transforms/ and lowering/ import no
llvmlite and query no host: CPU name or triple, core count, ``/proc/cpuinfo``, ``XMUX_CPU``.
The emitters, which translate the llvm dialect into ``llvmlite.ir``, live in the runtime
(``runtime/emit.py``), beside the JIT that consumes their output: no module below it imports
llvmlite at all. Which layer imports which is ``lint-imports``' job
(pyproject.toml, run by ``make test``); this test reads the code for what that cannot see.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("dialects", "transforms", "lowering")
#: functions and attributes that ask the machine
HOST_CALLS = {"get_host_cpu_name", "get_host_cpu_features", "get_host_cpu",
              "get_process_triple", "get_default_triple", "cpu_count", "sched_getaffinity"}
#: strings that name a host query
HOST_STRINGS = ("/proc/cpuinfo", "XMUX_CPU")


def _docstring_ids(tree: ast.AST) -> set[int]:
    """Bare string statements (docstrings and the like): prose, not code."""
    return {id(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str)}


def _findings(source: str, rel: str) -> list[str]:
    """What ``source`` (the file ``rel`` of the tree) imports of llvmlite or asks the host."""
    tree = ast.parse(source, rel)
    prose = _docstring_ids(tree)
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or "", *(a.name for a in node.names)]
        else:
            names = []
        if any(n.split(".")[0] == "llvmlite" for n in names):
            found.append(f"{rel}:{line}: imports llvmlite")
        if any(n.split(".")[-1] in HOST_CALLS for n in names):
            found.append(f"{rel}:{line}: imports a host query")
        if isinstance(node, ast.Attribute) and node.attr in HOST_CALLS:
            found.append(f"{rel}:{line}: asks the host ({node.attr})")
        if isinstance(node, ast.Name) and node.id in HOST_CALLS:
            found.append(f"{rel}:{line}: asks the host ({node.id})")
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in prose):
            found += [f"{rel}:{line}: asks the host ({s!r})" for s in HOST_STRINGS
                      if s in node.value]
    return found


def test_no_llvmlite_and_no_host_queries_below_the_runtime() -> None:
    found = [f for layer in LAYERS for p in sorted((ROOT / layer).rglob("*.py"))
             for f in _findings(p.read_text(), p.relative_to(ROOT).as_posix())]
    assert found == [], "\n".join(found)


def test_the_check_sees_code_not_prose() -> None:
    """A docstring may name ``XMUX_CPU`` or llvmlite; code may not."""
    code = ('"""Mentions XMUX_CPU and llvmlite in prose."""\n'
            "import os\n\nimport llvmlite.binding as llvm\n\n"
            "def f():\n    return os.cpu_count(), llvm.get_process_triple(), "
            "os.environ.get('XMUX_CPU')\n")
    found = sorted(f.split(": ", 1)[1] for f in _findings(code, "transforms/probe.py"))
    assert found == ["asks the host ('XMUX_CPU')", "asks the host (cpu_count)",
                     "asks the host (get_process_triple)", "imports llvmlite"], found
