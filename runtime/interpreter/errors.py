"""Errors of the reference interpreter: each names the kernel, the op and the work-item."""

from __future__ import annotations

from xmux.abi.errors import NotSupportedError, XmuxError

__all__ = [
    "DataRaceError",
    "DivergentBarrierError",
    "InterpretError",
    "NotSupportedError",
    "OutOfBoundsError",
    "UndefinedBehaviorError",
    "UninitializedReadError",
]


class InterpretError(XmuxError):
    """A kernel failed under the reference interpreter (base of the errors below)."""


class DivergentBarrierError(InterpretError):
    """Work-items of one group reached different barriers (or some finished while others
    wait): OpenCL makes that undefined; the interpreter reports where each one was."""


class OutOfBoundsError(InterpretError):
    """A memref access outside the memref's shape (or its buffer)."""


class UninitializedReadError(InterpretError):
    """A read of work-group local memory that no work-item of the group has written."""


class DataRaceError(InterpretError):
    """Two work-items touch the same local-memory element between two barriers, one of
    them writing (``races=True``)."""


class UndefinedBehaviorError(InterpretError):
    """An operation whose result LLVM leaves undefined (poison / immediate UB): division by
    zero, signed division overflow, shift by the bit width or more, float→int overflow."""
