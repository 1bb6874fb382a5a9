"""A lit configuration for FileCheck tests outside xmux's repository (a pass plugin's own).

A plugin package's ``tests/lit.cfg`` is two lines::

    from xmux.testing.lit import configure

    configure(config, __file__)

and ``lit tests/`` then runs every ``*.mlir`` file below it whose ``// RUN:`` lines call
``xmux-opt``, ``xmux-run``, ``xdsl-opt`` and ``filecheck``: the tools of the Python
environment that runs lit (the one xmux and the plugin are installed in), found before any
other on PATH. No file of xmux's own test suite is needed (its ``tests/filecheck/lit.cfg``
adds a fork server for speed that only its own repository has).

What ``configure`` sets: the suite's name, ``ShTest`` as the test format, the suffixes, the
source root (the folder of ``lit.cfg``), the excluded names (``lit.cfg``, ``inputs``), PATH
and the ``XMUX_*`` / ``PYTHONPATH`` variables of the calling environment, the substitution
``%python`` (this interpreter), and the feature ``xmux``. A tool missing from that
environment is a lit configuration error naming it, before any test runs.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

__all__ = ["TOOLS", "configure", "tool_dirs"]

#: the commands RUN lines may use, all installed with xmux (``filecheck`` and ``lit`` by its
#: ``test`` extra)
TOOLS = ("xmux-opt", "xmux-run", "xdsl-opt", "filecheck")

#: environment variables a RUN line inherits from the lit process (lit starts each RUN line
#: with a clean environment otherwise)
_PASSED = ("PATH", "PYTHONPATH", "HOME", "TMPDIR", "LD_LIBRARY_PATH")


def tool_dirs() -> list[str]:
    """Where this interpreter's console scripts are: the environment's scripts folder (a
    venv's ``bin``, a ``--user`` install's) and the interpreter's own folder."""
    found = []
    for d in (sysconfig.get_path("scripts"), sysconfig.get_path("scripts", f"{os.name}_user"),
              os.path.dirname(sys.executable)):
        if d and os.path.isdir(d) and d not in found:
            found.append(d)
    return found


def configure(config: object, cfg_file: str | os.PathLike[str], *, name: str | None = None,
              suffixes: Iterable[str] = (".mlir",), excludes: Iterable[str] = (),
              tools: Iterable[str] = TOOLS) -> None:
    """Set up lit's ``config`` (the object a ``lit.cfg`` runs with) for FileCheck tests of
    xmux passes in the folder of ``cfg_file`` (pass ``__file__``). ``name``: the suite's
    name (default: the parent folder's, e.g. the package's); ``suffixes``: the test files;
    ``excludes``: names to skip besides ``lit.cfg`` and ``inputs``; ``tools``: the commands
    that must be found (default ``TOOLS``)."""
    import lit.formats

    root = Path(cfg_file).resolve().parent
    config.name = name or root.parent.name or "xmux-plugin"  # type: ignore[attr-defined]
    config.test_format = lit.formats.ShTest(execute_external=False)  # type: ignore[attr-defined]
    config.suffixes = list(suffixes)  # type: ignore[attr-defined]
    config.test_source_root = str(root)  # type: ignore[attr-defined]
    config.excludes = ["lit.cfg", "lit.cfg.py", "inputs", *excludes]  # type: ignore[attr-defined]
    env = config.environment  # type: ignore[attr-defined]
    for key, value in os.environ.items():
        if key in _PASSED or key.startswith("XMUX_"):
            env[key] = value
    path = os.pathsep.join([*tool_dirs(), os.environ.get("PATH", "")])
    env["PATH"] = path
    missing = [t for t in tools if shutil.which(t, path=path) is None]
    if missing:
        message = (f"xmux.testing.lit: {', '.join(missing)} not found in {tool_dirs()} or on "
                   "PATH: install xmux with its test extra (pip install 'xmux[test]') in the "
                   f"environment that runs lit ({sys.executable})")
        # lit.cfg runs with ``lit_config`` beside ``config``; its fatal() ends lit cleanly
        lit_config = sys._getframe(1).f_globals.get("lit_config")
        if lit_config is None:
            raise RuntimeError(message)
        lit_config.fatal(message)
    config.substitutions.append(("%python", sys.executable))  # type: ignore[attr-defined]
    config.available_features.add("xmux")  # type: ignore[attr-defined]
