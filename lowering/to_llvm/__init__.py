"""Per-dialect pieces of the ``convert-to-llvm`` pass (see ``lowering/convert_to_llvm.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xmux.lowering.to_llvm.core import Handler


def all_handlers() -> dict[str, Handler]:
    """Op name → lowering function, over all dialects."""
    from xmux.lowering.to_llvm import (
        arith,
        cf,
        complex,
        func,
        index,
        math,
        memref,
        memref_atomics,
        scf,
        vector,
    )

    handlers: dict[str, Handler] = {}
    for module in (func, arith, math, index, scf, cf, memref, memref_atomics, vector, complex):
        handlers.update(module.HANDLERS)
    return handlers
