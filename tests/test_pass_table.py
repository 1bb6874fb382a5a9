"""The static pass table (xmux/pass_table.py) and the lazy start-up it buys: the table names
exactly the passes the modules of transforms/ and lowering/ define, and ``xmux-opt`` on a
small file imports neither the pass modules nor the compile API (numpy, the runtime)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from xmux.pass_table import PASSES, pass_path
from xmux.registry import _discover_passes, get_all_passes

ROOT = Path(__file__).resolve().parent.parent


def test_table_matches_the_pass_modules() -> None:
    found = {name: f"{cls.__module__}:{cls.__name__}" for name, cls in _discover_passes().items()}
    table = {name: ":".join(pass_path(name)) for name in PASSES}
    missing = sorted(set(found) - set(table))
    assert not missing, (
        "passes missing from xmux/pass_table.py: "
        + ", ".join(f'"{n}": "{found[n].split(".")[1]}:{found[n].split(":")[1]}"' for n in missing)
    )
    assert table == found


def test_factories_load_the_named_classes() -> None:
    for name, factory in get_all_passes().items():
        assert factory().name == name


# what xmux-opt must not import to print a small mux file: every pass module, the compile API
# and what it pulls in (numpy, the runtime, llvmlite)
_PROBE = """
import sys
from xmux.cli import opt_main
sys.argv = ["xmux-opt", sys.argv[1]]
assert opt_main() == 0
heavy = sorted(
    m for m in sys.modules
    if m.startswith(("xmux.transforms.", "xmux.runtime.", "numpy", "llvmlite"))
    or m in ("xmux.api", "xmux.lowering.convert_to_llvm")
)
print("HEAVY", heavy, file=sys.stderr)
"""


def test_xmux_opt_start_up_imports_no_pass_module() -> None:
    small = ROOT / "tests/filecheck/mux/barriers.mlir"
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(small)], capture_output=True, text=True, check=True
    )
    assert "mux.mem_barrier work_group" in out.stdout
    heavy = out.stderr.strip().splitlines()[-1]
    # xmux.runtime.interpreter.errors comes with ``xmux.interpret``'s error classes (tiny)
    assert heavy.startswith("HEAVY")
    modules = eval(heavy.removeprefix("HEAVY"))  # noqa: S307 - our own repr of a list of str
    assert [m for m in modules if not m.startswith("xmux.runtime.interpreter")] == []


def test_help_lists_every_pass_with_its_options() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "from xmux.cli import opt_main; opt_main(['--help'])"],
        capture_output=True,
        text=True,
    )
    assert "xmux passes" in out.stdout
    for name in PASSES:
        assert f"\n  {name}" in out.stdout
    assert "work-item-loops{" in out.stdout


_RECIPE = ROOT / "tests/filecheck/convert_acc_to_oacc/recipe_terminator.mlir"


def test_acc_compat_applies_when_acc_is_loaded() -> None:
    # the acc patches (dialects/xdsl_compat.py) come with the acc dialect, not at start-up: a
    # context of the API and plain xdsl-opt (the plugin) both accept upstream's acc.terminator
    # in recipes
    from xdsl.parser import Parser

    from xmux.registry import make_context

    Parser(make_context(), _RECIPE.read_text()).parse_module().verify()
    out = subprocess.run(
        [str(Path(sys.executable).parent / "xdsl-opt"), str(_RECIPE)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "acc.private.recipe @priv_i32" in out.stdout
