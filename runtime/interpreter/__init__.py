"""Reference interpreter for mux kernels: an oracle independent of the scheduling passes.

``xmux.interpret(source, kernel, *args, global_size=...)`` runs a kernel over an NDRange in
xDSL's interpreter framework, work-group by work-group with real barrier semantics
(``workgroup.py``); ``xmux-run --interpret FILE.mlir`` runs a host ``@main``. See
docs/architecture.md, "Reference interpreter".
"""

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
]
