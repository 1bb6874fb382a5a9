"""The ``xdsl.universe`` entry point: plain ``xdsl-opt`` sees xmux's dialects and passes.

Under ``xdsl-opt`` itself, an error of xmux's (an ``XmuxError`` naming the pass, op or
kernel at fault) that reaches the top is printed as one ``error: ...`` line, as ``xmux-opt``
prints it, instead of a traceback through xDSL's driver; other exceptions keep theirs.
"""

import os
import sys

from xdsl.universe import Universe

from xmux.dialects import xdsl_compat
from xmux.registry import _OVERRIDES, get_all_dialects, get_all_passes


def _override(path: str):  # noqa: ANN202
    def load():  # noqa: ANN202
        from xmux.registry import _load

        return _load(path)

    return load


# xmux's wider dialects of xDSL's names (upstream llvm ops, the upstream gpu syntax) for plain
# xdsl-opt too, as make_context registers them (xmux/registry.py's _OVERRIDES); loading acc
# applies xmux's acc patches first (dialects/xdsl_compat.py)
xdsl_compat.replace_universe_dialects({n: _override(p) for n, p in _OVERRIDES.items()})
XMUX_UNIVERSE = Universe(all_dialects=get_all_dialects(), all_passes=get_all_passes())


def _one_line_errors(kind, value, traceback) -> None:  # noqa: ANN001 - sys.excepthook's
    from xmux.errors import XmuxError, format_error

    if isinstance(value, XmuxError):
        print(format_error(value), file=sys.stderr)
        return
    _default_hook(kind, value, traceback)


_default_hook = sys.excepthook
if os.path.basename(sys.argv[0] if sys.argv else "") == "xdsl-opt":
    sys.excepthook = _one_line_errors
