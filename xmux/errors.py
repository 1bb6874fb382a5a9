"""User-facing errors: one exception type that names the kernel, argument, op or pass at fault."""

from __future__ import annotations

from xdsl.utils.exceptions import DiagnosticException, ParseError, PassFailedException


class XmuxError(Exception):
    """An error in the user's input (kernel, IR, launch arguments) with a clear message."""


class LaunchError(XmuxError, ValueError):
    """A kernel launch with wrong arguments or sizes."""


class NotSupportedError(XmuxError):
    """An op or feature this pipeline does not lower yet."""


_USER_ERRORS: tuple[type[BaseException], ...] = (
    XmuxError,
    ParseError,
    DiagnosticException,
    PassFailedException,
)


def is_user_error(e: BaseException) -> bool:
    from xdsl.utils.exceptions import VerifyException

    return isinstance(e, (*_USER_ERRORS, VerifyException))


def format_error(e: BaseException) -> str:
    text = str(e).rstrip()
    kind = type(e).__name__
    return f"error: {text}" if isinstance(e, XmuxError) else f"error ({kind}): {text}"
