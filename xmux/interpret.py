"""``xmux.interpret``: run a kernel in the reference interpreter (docs/architecture.md,
"Reference interpreter")."""

from __future__ import annotations

from collections.abc import Sequence

from xmux.runtime.interpreter.errors import (
    DataRaceError,
    DivergentBarrierError,
    InterpretError,
    OutOfBoundsError,
    UndefinedBehaviorError,
    UninitializedReadError,
)

__all__ = [
    "DataRaceError",
    "DivergentBarrierError",
    "InterpretError",
    "OutOfBoundsError",
    "UndefinedBehaviorError",
    "UninitializedReadError",
    "interpret",
]


def interpret(
    source: object,
    kernel: str,
    *args: object,
    global_size: Sequence[int] | int,
    local_size: Sequence[int] | int | None = None,
    global_offset: Sequence[int] | int | None = None,
    sub_group_size: int | None = None,
    spec_constants: dict | None = None,
    races: bool = False,
) -> None:
    """Run ``kernel`` of ``source`` (MLIR text, a path or a ``ModuleOp``) in the reference
    interpreter, with arguments as ``Kernel.__call__`` takes them (numpy arrays, updated in
    place; Python/numpy scalars; ``xmux.LocalMemory``).

    The kernel runs before any scheduling pass (only the front-end passes that create mux
    kernels), work-group after work-group, every barrier a real meeting point of the
    group's work-items. ``sub_group_size``: sub-groups of that many consecutive work-items
    for kernels without ``mux.reqd_sub_group_size`` (default 1). ``spec_constants``: values
    of specialization constants by symbolic id (defaults otherwise). ``races=True`` reports
    data races on work-group local memory. Errors (all ``XmuxError``): ``LaunchError`` for
    bad arguments or sizes, ``DivergentBarrierError``, ``OutOfBoundsError``,
    ``UninitializedReadError``, ``DataRaceError``, ``UndefinedBehaviorError``,
    ``NotSupportedError`` for ops the interpreter does not implement.
    """
    from xmux.runtime.interpreter.driver import interpret_kernel

    interpret_kernel(
        source, kernel, *args, global_size=global_size, local_size=local_size,
        global_offset=global_offset, sub_group_size=sub_group_size,
        spec_constants=spec_constants, races=races,
    )
