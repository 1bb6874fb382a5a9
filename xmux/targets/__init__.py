"""The targets ``xmux.compile`` builds for, behind one protocol (``Target``, in ``base.py``):
``CpuTarget`` (``cpu.py``: this host's JIT) and ``NvptxTarget`` (``nvptx.py``: PTX run
through CuPy). ``driver.py`` is the compile every target goes through. docs/architecture.md,
"Targets", has the recipe for a third one.

```python
from xmux.targets import NvptxTarget
prog = xmux.compile(src, target=NvptxTarget("sm_80"))     # as target="nvptx", for sm_80
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xmux.abi.errors import XmuxError  # not xmux.errors: no xDSL on xmux.load
from xmux.targets.base import Build, LaunchProfile, Target

if TYPE_CHECKING:
    from xmux.targets.cpu import CpuTarget
    from xmux.targets.nvptx import NvptxTarget

__all__ = ["TARGETS", "Build", "CpuTarget", "LaunchProfile", "NvptxTarget", "Target", "resolve"]

#: the targets ``xmux.compile(target=...)`` knows by name: name -> module:class
TARGETS = {"cpu": "xmux.targets.cpu:CpuTarget", "nvptx": "xmux.targets.nvptx:NvptxTarget"}


def resolve(target: object) -> Target:
    """A ``Target`` object as it is, or a fresh one of a name in ``TARGETS``."""
    import importlib

    if not isinstance(target, str):
        return target  # type: ignore[return-value]
    if target not in TARGETS:
        names = " or ".join(repr(n) for n in TARGETS)
        raise XmuxError(f"xmux.compile: target must be {names}, got {target!r}")
    module, cls = TARGETS[target].split(":")
    return getattr(importlib.import_module(module), cls)()


def __getattr__(name: str) -> object:
    """``CpuTarget`` and ``NvptxTarget``, imported on first use."""
    if name in ("CpuTarget", "NvptxTarget"):
        import importlib

        module = "cpu" if name == "CpuTarget" else "nvptx"
        return getattr(importlib.import_module(f"xmux.targets.{module}"), name)
    raise AttributeError(f"module 'xmux.targets' has no attribute {name!r}")
