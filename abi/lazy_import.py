"""Modules imported on first use: what the front-door passes stand on.

Every default pipeline runs ``convert-acc-to-oacc``, ``gpu-launch-outlining``,
``convert-gpu-to-mux`` and ``expand-oacc-reductions``, which leave a module without their
dialects' ops unchanged. Importing what they would rewrite with (xDSL's ``acc`` dialect,
xmux's ``gpu`` and ``oacc`` dialects and the OpenACC outliner) cost ~85 ms of every cold
``xmux.compile`` of a plain kernel (vecadd: ~490 ms from text to result on the 2-core VM).
Such a pass names those modules with ``lazy_module`` and looks for its ops by name first.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for the module ``name``, imported at the first attribute read (thread-safe:
    Python's import lock); each attribute read is then cached on this object."""

    def __init__(self, name: str) -> None:
        self._lazy_name = name
        self._lazy_module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:  # noqa: ANN401 - whatever the module holds
        if attr.startswith("_lazy_"):
            raise AttributeError(attr)
        module = self._lazy_module
        if module is None:
            module = self._lazy_module = importlib.import_module(self._lazy_name)
        value = getattr(module, attr)
        setattr(self, attr, value)  # the next read is a plain instance attribute
        return value

    def __repr__(self) -> str:
        state = "imported" if self._lazy_module is not None else "not imported yet"
        return f"<lazy module {self._lazy_name!r} ({state})>"


def lazy_module(name: str) -> Any:  # noqa: ANN401 - used as the module it stands for
    """``name``'s module, imported when one of its attributes is first read."""
    return LazyModule(name)


def has_dialect_ops(op: Any, *dialects: str) -> bool:  # noqa: ANN401 - any xDSL operation
    """Whether ``op`` or an op nested in it belongs to one of ``dialects`` (by name: no
    dialect module is imported to tell)."""
    return any(o.dialect_name() in dialects for o in op.walk())
