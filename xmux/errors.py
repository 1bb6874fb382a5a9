"""User-facing errors (defined in ``xmux.abi.errors``, the layer every other one may import)
and which exceptions a command line reports as the user's rather than as a crash."""

from __future__ import annotations

from xdsl.utils.exceptions import DiagnosticException, ParseError, PassFailedException

from xmux.abi.errors import LaunchError, NotSupportedError, XmuxError, format_error

__all__ = ["LaunchError", "NotSupportedError", "XmuxError", "format_error", "is_user_error"]

_USER_ERRORS: tuple[type[BaseException], ...] = (
    XmuxError,
    ParseError,
    DiagnosticException,
    PassFailedException,
)


def is_user_error(e: BaseException) -> bool:
    from xdsl.utils.exceptions import VerifyException

    return isinstance(e, (*_USER_ERRORS, VerifyException))
