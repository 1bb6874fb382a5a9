"""User-facing errors: one exception type that names the kernel, argument, op or pass at fault.

``xmux.errors`` re-exports these for users and adds ``is_user_error``, which needs xDSL's
exception types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

_F = TypeVar("_F", bound=Callable)


class XmuxError(Exception):
    """An error in the user's input (kernel, IR, launch arguments) with a clear message.

    ``op``: the op at fault where the raiser names one (``XmuxError(...).at(op)``); the
    message then begins with the op's place in the source, ``file:line:col:``, and shows
    the source line (``xmux.sources`` knows where each parsed op was, and registers itself
    with ``set_locator``: this layer imports no xDSL)."""

    op: object = None
    #: what the public entry point moved off the printed traceback (``user_errors``): the
    #: exception this one was made from, xDSL's notes
    details: BaseException | None = None
    notes: list[str] | None = None

    def at(self, op: object) -> XmuxError:
        """This error, about ``op``."""
        self.op = op
        return self

    def __str__(self) -> str:
        text = super().__str__()
        if self.op is not None and _locator is not None:
            return _locator(self.op, text)
        return text


#: ``locate(op, message)``: the message at the op's source place (``xmux.sources.at_op``)
_locator: Callable[[object, str], str] | None = None


def set_locator(locate: Callable[[object, str], str]) -> None:
    global _locator
    _locator = locate


class LaunchError(XmuxError, ValueError):
    """A kernel launch with wrong arguments or sizes."""


class NotSupportedError(XmuxError):
    """An op or feature this pipeline does not lower yet."""


def format_error(e: BaseException) -> str:
    text = str(e).rstrip()
    kind = type(e).__name__
    return f"error: {text}" if isinstance(e, XmuxError) else f"error ({kind}): {text}"


def user_errors(fn: _F) -> _F:
    """A public entry point (``xmux.compile``, ``Kernel.__call__``, ...): an ``XmuxError``
    (the user's mistake: an argument, a size, a dtype, a name, an option, the IR) leaves it
    with the frames inside xmux removed, so that the traceback ends at the user's call and
    the message says the rest; the exception it was made from, if any, is kept as
    ``e.details`` (its traceback included) instead of printed above it. Other exceptions
    (xmux's own bugs) keep their whole traceback. ``XMUX_TRACEBACK=full`` keeps every frame
    (debugging xmux itself)."""
    import functools
    import os

    @functools.wraps(fn)
    def entry(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the wrapped signature
        try:
            return fn(*args, **kwargs)
        except XmuxError as e:
            if os.environ.get("XMUX_TRACEBACK") == "full":
                raise
            hide_internals(e)
            raise e.with_traceback(None) from None  # xmux frames hidden: XMUX_TRACEBACK=full

    # the one frame of xmux left in a traceback is this function: name it as the entry
    entry.__code__ = entry.__code__.replace(co_name=fn.__name__)
    return entry  # type: ignore[return-value]


def hide_internals(e: BaseException) -> None:
    """Move what a printed traceback would show of ``e`` besides its message to attributes:
    the exception it was made from to ``e.details``, xDSL's notes (a printout of the whole
    module marking the op) to ``e.notes``."""
    cause = e.__cause__ if e.__cause__ is not None else (
        None if e.__suppress_context__ else e.__context__)
    if cause is not None and getattr(e, "details", None) is None:
        e.details = cause  # type: ignore[attr-defined]
    if getattr(e, "__notes__", None):
        e.notes = e.__notes__  # type: ignore[attr-defined]
        del e.__notes__
