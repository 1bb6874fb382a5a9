"""User-facing errors: one exception type that names the kernel, argument, op or pass at fault.

``xmux.errors`` re-exports these for users and adds ``is_user_error``, which needs xDSL's
exception types.
"""

from __future__ import annotations


class XmuxError(Exception):
    """An error in the user's input (kernel, IR, launch arguments) with a clear message."""


class LaunchError(XmuxError, ValueError):
    """A kernel launch with wrong arguments or sizes."""


class NotSupportedError(XmuxError):
    """An op or feature this pipeline does not lower yet."""


def format_error(e: BaseException) -> str:
    text = str(e).rstrip()
    kind = type(e).__name__
    return f"error: {text}" if isinstance(e, XmuxError) else f"error ({kind}): {text}"
